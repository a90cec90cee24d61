#ifndef WICKET_CLI_USERCONFIG_H
#define WICKET_CLI_USERCONFIG_H

#include "base/session.h"

/* userconfig.c: $XDG_CONFIG_HOME/wicket/config.json, the policy per
 * directory. userconfig_load: false with c->errors (each naming the file
 * and the JSON pointer) on a bad file; no file is no error (found false).
 * userconfig_pick: the entry whose directory holds WORKSPACE (canonical),
 * the deepest; NULL: none. */
struct userconfig_entry {
	char *path;   /* canonical (or normalised, when it does not exist) */
	char *policy; /* a name, or a file path (relative: the config's directory) */
	char *where;  /* "FILE: /directories/N" */
	size_t index;
};
struct userconfig {
	char *file;   /* NULL: no home to find it in */
	bool found;
	struct userconfig_entry *entries;
	size_t n;
	struct strv errors;
};
char *wicket_config_dir(const char *home);
bool userconfig_load(struct userconfig *c, const char *home);
void userconfig_load_or_die(struct userconfig *c, const char *home);
const struct userconfig_entry *userconfig_pick(const struct userconfig *c, const char *workspace);
void userconfig_free(struct userconfig *c);

#endif
