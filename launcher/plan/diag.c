/* Denial diagnostics, the launcher's side: find the preload shim and tell
 * it the session's rules (DESIGN §5). Its reports come back over the
 * control socket (control.c), which prints them. */
#include "config.h"
#include "base/session.h"
#include "plan/diag.h"
#include "plan/plan.h"
#include "supervisor/netnotify.h"
#include "supervisor/notifyutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify.h"
#include "envscrub.h"
#include "realpath.h"
#include "rules.h"

#define SHIM_NAME "libwicket-preload.so"

/* The shim next to this wicket (a build tree: preload/.libs/ is where
 * libtool leaves it; an installed tree: PREFIX/bin/wicket and
 * PREFIX/lib/wicket/, also when `make install prefix=...` chose another
 * prefix than the one compiled in), else the configured one. */
static char *find_shim(void)
{
	static const char *const rel[] = {"../preload/.libs/" SHIM_NAME, "../preload/" SHIM_NAME,
					  "../lib/wicket/" SHIM_NAME, NULL};
	for (size_t i = 0; rel[i]; i++) {
		char *c = self_relative(rel[i]);
		if (c && access(c, R_OK) == 0)
			return c;
		free(c);
	}
	char *inst = wk_realpath(PKGLIBDIR "/" SHIM_NAME);
	if (inst && access(inst, R_OK) == 0)
		return inst;
	free(inst);
	return NULL;
}

void diag_plan(struct session *s)
{
	s->shim_path = NULL;
	if (!s->diagnostics || !s->pol.sandbox)
		return;
	char *shim = find_shim();
	/* A shim the sandbox cannot see (under the private /tmp or the
	 * covered /run) would only make the dynamic loader complain. */
	if (!shim || plan_covered(&s->plan, shim)) {
		free(shim);
		return;
	}
	s->shim_path = shim;
}

/* One rule (lib/rules.c) appended to BUF, grown as needed. What cannot be
 * one (a path with a newline) the shim is not told of: it would be read
 * as rules of its own. */
static void rules_add(char **buf, size_t *len, size_t *cap, char kind, const char *v)
{
	size_t end;
	while ((end = rules_put(*buf, *cap, *len, kind, v)) >= *cap)
		*buf = xrealloc(*buf, *cap = *cap ? *cap * 2 : 1024);
	if (end)
		*len = end;
}

/* The environment the shim reads: LD_PRELOAD (appended to the caller's
 * own) and WICKET_RULES (WICKET_FD comes from control.c). Returns the new
 * length of ENV (which has room), replacing any inherited ones. */
size_t diag_env(const struct session *s, char **env, size_t w)
{
	env[w] = NULL;
	w = env_unset(env, "WICKET_RULES");
	if (!s->shim_path)
		return w;
	const char *pre = NULL;
	size_t k = 0;
	for (size_t r = 0; r < w; r++) {
		if (strncmp(env[r], "LD_PRELOAD=", 11) == 0)
			pre = env[r] + 11;
		else
			env[k++] = env[r];
	}
	w = k;
	if (pre && pre[0])
		env[w++] = xasprintf("LD_PRELOAD=%s:%s", pre, s->shim_path);
	else
		env[w++] = xasprintf("LD_PRELOAD=%s", s->shim_path);

	char *buf = NULL;
	size_t len = 0, cap = 0;
	/* First, where netnotify.c finds it if the kernel gives no listener. */
	if (netnotify_wanted(s))
		rules_add(&buf, &len, &cap, RULE_SUPERVISOR, "1");
	/* The path rules are the table the supervisor classifies with
	 * (plan_fstable), so the shim decides as `wicket why` explains. */
	struct wk_fstable t;
	plan_fstable(s, &t);
	for (size_t i = 0; i < t.n; i++)
		rules_add(&buf, &len, &cap, t.v[i].kind, t.v[i].path);
	plan_fstable_free(&t);
	/* A private loopback is "none" to the shim, in mode "domains" too:
	 * whatever refused an inet call (no route: ENETUNREACH; seccomp:
	 * EPERM) was the sandbox, and the loopback refuses nothing (a port
	 * no one listens on is the program's own ECONNREFUSED). */
	rules_add(&buf, &len, &cap, RULE_NET,
		  rules_net_name(s->pol.net == NET_FULL ? RULES_NET_FULL
				 : net_private_loopback(s) || !net_by_port(s->pol.net)
					 ? RULES_NET_NONE
					 : RULES_NET_PORTS));
	char port[8];
	for (size_t i = 0; net_by_port(s->pol.net) && i < s->pol.connect.n; i++) {
		snprintf(port, sizeof port, "%u", s->pol.connect.v[i]);
		rules_add(&buf, &len, &cap, RULE_CONNECT, port);
	}
	for (size_t i = 0; net_by_port(s->pol.net) && i < s->pol.bind.n; i++) {
		snprintf(port, sizeof port, "%u", s->pol.bind.v[i]);
		rules_add(&buf, &len, &cap, RULE_BIND, port);
	}
	if (s->pol.net == NET_PORTS && s->pol.udp)
		rules_add(&buf, &len, &cap, RULE_UDP, "1");
	/* Landlock refuses pathname unix sockets itself (EACCES, ABI 9);
	 * before, the supervisor does and says so (unixnotify.c). */
	if (!netnotify_unix(s))
		rules_add(&buf, &len, &cap, RULE_UNIX, "1");
	env[w++] = xasprintf("WICKET_RULES=%s", buf ? buf : "");
	free(buf);
	env[w] = NULL;
	return w;
}
