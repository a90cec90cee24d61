/* Deciding which layers a session gets, and naming every way in which it
 * would be weaker than the policy asks. Pure: takes the probe's findings,
 * returns words; unit-tested. */
#include "config.h"
#include "base/session.h"
#include "plan/layers.h"

#include <stdio.h>
#include <string.h>

/* main.c may decide the layers before it has filled in the policy (only
 * pol.net set, no name yet). Such a policy counts as the default one,
 * sandboxed and reading everything: deciding early can make a session
 * stricter than asked, never looser. */
static bool resolved(const struct policy *pol)
{
	return pol->name != NULL;
}

bool policy_reads_all(const struct policy *pol)
{
	return !resolved(pol) || strv_contains(&pol->read, "/");
}

bool policy_full_access(const struct policy *pol)
{
	return resolved(pol) && !pol->sandbox;
}

void layers_gaps_policy(const struct kernel_info *k, bool ns_ok, const struct policy *pol,
			struct strv *out)
{
	if (policy_full_access(pol))
		return; /* nothing is asked of the kernel, so nothing is missing */
	enum net_mode net = pol->net;
	if (!ns_ok) {
		const char *why = !k->mount_api ? "the kernel lacks the new mount API (Linux 5.12+)"
				  : k->userns_why ? k->userns_why
						  : "namespaces cannot be created here";
		const char *fix = !k->mount_api ? "upgrade to Linux 5.13 or newer"
				  : k->userns_fix ? k->userns_fix
						  : "run as root or allow user namespaces";
		strv_push(out, xasprintf("no mount namespace: %s; chmod, chown, utimes and xattrs "
					 "outside the workspace are not blocked, protected and hidden "
					 "paths are not enforced, /tmp is shared, sockets under /run "
					 "are reachable and your other terminals (/dev/pts) readable "
					 "(fix: %s)", why, fix));
		strv_push(out, xasprintf("no pid namespace: host processes are visible and background "
					 "processes can outlive the session (fix: %s)", fix));
		if (net == NET_NONE)
			strv_push(out, xasprintf("no network namespace: abstract unix sockets are %s",
						 k->landlock_abi >= 6 ? "held by Landlock only"
								      : "reachable"));
	}
	if (!k->landlock_abi) {
		strv_push(out, xasprintf("no Landlock (%s): %s, and signals or abstract sockets "
					 "are not scoped (fix: Linux 5.13 or newer with landlock in "
					 "the lsm= boot parameter)", strerror(k->landlock_errno),
					 ns_ok ? "writes are held by the read-only mounts alone"
					       : "nothing but file permissions stops writes outside "
						 "the workspace"));
		if (!policy_reads_all(pol))
			strv_push(out, xstrdup("no Landlock: reads are not limited to the policy's read "
					       "list; everything that is not hidden is readable (fix: "
					       "Linux 5.13 or newer with landlock in the lsm= boot "
					       "parameter)"));
	} else if (k->landlock_abi < 6 && net != NET_NONE) {
		strv_push(out, xasprintf("Landlock ABI %d < 6: abstract unix sockets outside the "
					 "sandbox (X11, D-Bus) are reachable (fix: Linux 6.12 or newer)",
					 k->landlock_abi));
	}
	/* "domains" without a namespace of its own would open the proxy's
	 * ports on the host's network: never, not even --best-effort. */
	if (net == NET_DOMAINS && !ns_ok)
		strv_push(out, xstrdup("network mode \"domains\" needs a network namespace of its "
				       "own (see the mount namespace above)"));
	/* "ports" runs on the host's network: Landlock's TCP rules are the
	 * whole of the restriction, not a second wall. */
	if (net == NET_PORTS && k->landlock_abi < 4) {
		char have[32];
		if (k->landlock_abi)
			snprintf(have, sizeof have, "ABI %d", k->landlock_abi);
		else
			snprintf(have, sizeof have, "no Landlock");
		strv_push(out, xasprintf("network mode \"ports\" needs Landlock ABI 4 (TCP bind and "
					 "connect rules; this kernel has %s): every TCP port on the "
					 "host's network can be reached and bound, not just the listed "
					 "ones (fix: Linux 6.7 or newer)", have));
	}
	/* Pathname unix sockets: Landlock from ABI 9, else the supervisor,
	 * through seccomp user notifications, its own descriptors out of
	 * the sandbox's reach (a pid namespace or Landlock). */
	if (k->landlock_abi < 9 && (!k->seccomp || !k->seccomp_notify ||
				    (!ns_ok && !k->landlock_abi)))
		strv_push(out, xasprintf("%s: pathname unix sockets outside the writable roots (host "
					 "services such as a docker or an agent socket) are reachable "
					 "(fix: Linux 5.6 or newer with seccomp, or Landlock ABI 9)",
					 !k->seccomp ? "no seccomp filter"
					 : !k->seccomp_notify ? "no seccomp user notifications, "
								"pidfd_getfd or openat2"
							      : "no pid namespace and no Landlock"));
	if (!k->seccomp) {
		strv_push(out, xstrdup("no seccomp filter: ptrace, io_uring, bpf, keyctl and socket "
				       "families are not restricted (fix: a kernel with "
				       "CONFIG_SECCOMP_FILTER)"));
		if (net == NET_PORTS)
			strv_push(out, xstrdup("no seccomp filter: in network mode \"ports\" UDP, raw, "
					       "SCTP, MPTCP and netlink sockets and TCP Fast Open "
					       "reach the host's network around the TCP port rules "
					       "(fix: a kernel with CONFIG_SECCOMP_FILTER)"));
	}
}

void layers_gaps(const struct kernel_info *k, bool ns_ok, enum net_mode net, struct strv *out)
{
	struct policy pol;
	memset(&pol, 0, sizeof pol);
	pol.net = net; /* unresolved: sandboxed, reading everything */
	layers_gaps_policy(k, ns_ok, &pol, out);
}

void layers_decide(struct session *s)
{
	const struct kernel_info *k = &s->kinfo;
	bool ns_ok = k->mount_api && (k->root_admin || k->userns);
	struct layers *l = &s->layers;
	memset(l, 0, sizeof *l);
	if (policy_full_access(&s->pol)) {
		/* Nothing to enforce, so nothing to refuse; the supervisor says
		 * so out loud before it starts the command. */
		l->unsandboxed = true;
		return;
	}
	l->userns = ns_ok && !k->root_admin;
	l->mntns = l->pidns = l->ipcns = ns_ok;
	l->netns = ns_ok && (s->pol.net == NET_NONE || s->pol.net == NET_DOMAINS);
	l->landlock_abi = k->landlock_abi;
	l->seccomp = k->seccomp;

	/* Mode "domains" without a namespace of its own would put the
	 * proxy's ports on the host's loopback: refused, --best-effort or not. */
	if (s->pol.net == NET_DOMAINS && !l->netns)
		die("network mode \"domains\" needs a network namespace of its own, which cannot be "
		    "made here (%s); 'wicket doctor' shows why",
		    k->userns_why ? k->userns_why : "no namespaces");
	struct strv gaps = {0};
	layers_gaps_policy(k, ns_ok, &s->pol, &gaps);
	if (gaps.n) {
		for (size_t i = 0; i < gaps.n; i++)
			warnmsg("%s %s", s->best_effort ? "weaker sandbox:" : "cannot enforce:",
				gaps.v[i]);
		if (!s->best_effort)
			die("refusing to start (use --best-effort to run with the weaker sandbox "
			    "above; 'wicket doctor' shows the details)");
	}
	strv_free(&gaps);
}
