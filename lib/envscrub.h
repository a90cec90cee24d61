/* Removing environment variables by name pattern (the patterns are the
 * policy's env.unset; the built-in ones live in policies/read-only.json).
 * Pure, unit-tested. */
#ifndef WICKET_ENVSCRUB_H
#define WICKET_ENVSCRUB_H

#include <stdbool.h>
#include <stddef.h>

/* Case-insensitive glob match supporting '*' and '?'. */
bool glob_match_ci(const char *pattern, const char *s);

/* True if NAME matches one of PATTERNS (case-insensitive glob). */
bool envscrub_match(const char *name, const char *const *patterns);

/* Remove every matching variable from ENVP in place (order kept).
 * Returns the number removed. */
int envscrub_filter(char **envp, const char *const *patterns);

/* Remove every "NAME=..." from the NULL-terminated ENVP in place (order
 * kept); NAME is given alone or as "NAME=value" (only the name counts).
 * Returns the new count. */
size_t env_unset(char **envp, const char *name);

#endif
