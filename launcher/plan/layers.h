#ifndef WICKET_PLAN_LAYERS_H
#define WICKET_PLAN_LAYERS_H

#include "base/session.h"

/* layers.c: which layers, and every way the session would be weaker. */
void layers_gaps(const struct kernel_info *k, bool ns_ok, enum net_mode net, struct strv *out);
void layers_decide(struct session *s);
/* The gaps for a whole policy (layers_gaps: a sandboxed one reading "/");
 * layers_decide() uses this, reading pol.sandbox, pol.net and pol.read. */
void layers_gaps_policy(const struct kernel_info *k, bool ns_ok, const struct policy *pol,
			struct strv *out);
/* pol.read holds "/" (or pol is not resolved yet: no name). */
bool policy_reads_all(const struct policy *pol);
/* A resolved policy with "sandbox": false. */
bool policy_full_access(const struct policy *pol);

#endif
