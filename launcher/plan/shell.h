#ifndef WICKET_PLAN_SHELL_H
#define WICKET_PLAN_SHELL_H

#include "base/session.h"

/* shell.c: the interactive shell and its hooks (s->argv, s->shell_env). */
struct passwd;
void shell_plan(struct session *s, const char *want, const struct passwd *pw);
/* The shell to start: --shell WANT (bash or zsh, from PATH), else $SHELL,
 * else the passwd entry's, else /bin/sh. Dies on a bad WANT. */
char *shell_path(const char *want, const struct passwd *pw);

#endif
