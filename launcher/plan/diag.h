#ifndef WICKET_PLAN_DIAG_H
#define WICKET_PLAN_DIAG_H

#include "base/session.h"

/* diag.c: the preload shim, the launcher's side: where it is, and the
 * environment that injects it and tells it the rules. */
void diag_plan(struct session *s);
size_t diag_env(const struct session *s, char **env, size_t w);

#endif
