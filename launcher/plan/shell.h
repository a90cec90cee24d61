#ifndef WICKET_PLAN_SHELL_H
#define WICKET_PLAN_SHELL_H

#include "base/session.h"

/* shell.c: the interactive shell and its hooks (s->argv, s->shell_env). */
struct passwd;
void shell_plan(struct session *s, const char *want, const struct passwd *pw);
/* The shell to start: --shell WANT (bash or zsh, from PATH), else $SHELL,
 * else the passwd entry's, else /bin/sh. Dies on a bad WANT. */
char *shell_path(const char *want, const struct passwd *pw);
/* env.unset after the user's startup files: the variables (appended to
 * s->shell_env) with which wicket's hooks remove again what ~/.bashrc,
 * ~/.profile or zsh's startup files set of the names the policy removes,
 * in the interactive shell, bash -lc (BASH_ENV), zsh -c and zsh -lc
 * (ZDOTDIR). Call after
 * shell_plan, before the environment is built. */
void shell_scrub_env(struct session *s);
/* One line naming the user's startup files that set such names. */
void shell_scrub_note(const struct session *s);

#endif
