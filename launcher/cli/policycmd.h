#ifndef WICKET_CLI_POLICYCMD_H
#define WICKET_CLI_POLICYCMD_H

#include "base/session.h"

/* policycmd.c: loading JSON policies into the session's policy, and
 * `wicket policy`. */
void policy_ctx_init(struct wk_policy_ctx *ctx, const char *workspace, const char *home);
void policy_load_or_die(struct wk_policy_ctx *ctx, const char *name, struct wk_policy *wp);
void policy_resolve(const struct wk_policy *wp, struct policy *pol, struct strv *notes);
void policy_proxy_ports(struct policy *pol);
int cmd_policy(int argc, char **argv);
struct userconfig;
/* Every file a later session's policy depends on, into PROTECT: this
 * policy's chain, the user's wicket directory, and the chain of each
 * policy UCFG's entries name (loaded with a copy of PCTX). */
void policy_protect_sources(const struct wk_policy *wp, const struct userconfig *ucfg,
			    const struct wk_policy_ctx *pctx, struct strv *protect);

#endif
