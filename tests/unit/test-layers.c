#include "config.h"
#include "base/session.h"
#include "plan/layers.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int count_containing(const struct strv *sv, const char *needle)
{
	int n = 0;
	for (size_t i = 0; i < sv->n; i++)
		n += strstr(sv->v[i], needle) != NULL;
	return n;
}

/* A resolved policy: sandboxed, reading everything, network NET. */
static struct policy pol_of(enum net_mode net)
{
	struct policy p;
	memset(&p, 0, sizeof p);
	p.name = "test";
	p.sandbox = true;
	p.net = net;
	p.private_tmp = true;
	strv_add(&p.read, "/");
	return p;
}


/* layers_decide on a session of kernel K and policy P (BEST_EFFORT), in a
 * child: its layers into *L, what it said on stderr into ERR (lines
 * counted in *LINES), its exit status returned (0: it decided; 125: it
 * refused). */
static int decide(const struct kernel_info *k, const struct policy *p, bool best_effort,
		  struct layers *l, char *err, size_t errsz, int *lines)
{
	int lp[2], ep[2];
	if (pipe(lp) < 0 || pipe(ep) < 0)
		abort();
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(lp[0]);
		close(ep[0]);
		dup2(ep[1], 2);
		struct session s;
		memset(&s, 0, sizeof s);
		s.kinfo = *k;
		s.pol = *p;
		s.best_effort = best_effort;
		layers_decide(&s);
		(void)!write(lp[1], &s.layers, sizeof s.layers);
		_exit(0);
	}
	close(lp[1]);
	close(ep[1]);
	memset(l, 0, sizeof *l);
	(void)!read(lp[0], l, sizeof *l);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < errsz && (r = read(ep[0], err + n, errsz - 1 - n)) > 0)
		n += (size_t)r;
	err[n] = '\0';
	*lines = 0;
	for (size_t i = 0; i < n; i++)
		*lines += err[i] == '\n';
	close(lp[0]);
	close(ep[0]);
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void decisions(const struct kernel_info *full_k)
{
	struct kernel_info k = *full_k;
	struct layers l;
	char err[8192];
	int lines;
	struct policy none = pol_of(NET_NONE), fullnet = pol_of(NET_FULL),
		      ports = pol_of(NET_PORTS), dom = pol_of(NET_DOMAINS);

	/* Every layer, as an unprivileged user: a user namespace first. */
	k.root_admin = false;
	k.userns = true;
	ok(decide(&k, &none, false, &l, err, sizeof err, &lines) == 0 && lines == 0 && l.userns &&
	   l.mntns && l.pidns && l.ipcns && l.netns && l.landlock_abi == k.landlock_abi &&
	   l.seccomp && !l.unsandboxed, "unprivileged, network none: every layer, silently");
	/* As root: no user namespace, the rest the same. */
	k.root_admin = true;
	k.userns = false;
	ok(decide(&k, &none, false, &l, err, sizeof err, &lines) == 0 && !l.userns && l.mntns &&
	   l.pidns && l.ipcns && l.netns, "root: namespaces without a user namespace");
	/* The network namespace goes with "none" and "domains" only. */
	ok(decide(&k, &fullnet, false, &l, err, sizeof err, &lines) == 0 && !l.netns && l.mntns,
	   "network full: the host's network, no netns");
	ok(decide(&k, &ports, false, &l, err, sizeof err, &lines) == 0 && !l.netns && l.mntns,
	   "network ports: the host's network, no netns");
	ok(decide(&k, &dom, false, &l, err, sizeof err, &lines) == 0 && l.netns,
	   "network domains: a netns of its own");
	/* Namespaces need the mount API and root or a user namespace. */
	k.root_admin = false;
	k.userns = false;
	k.userns_why = "no user namespaces for you";
	ok(decide(&k, &none, false, &l, err, sizeof err, &lines) == 125 &&
	   strstr(err, "cannot enforce: no mount namespace") &&
	   strstr(err, "refusing to start (use --best-effort"), "no namespaces: refused, saying why");
	int refused_lines = lines;
	ok(decide(&k, &none, true, &l, err, sizeof err, &lines) == 0 && !l.userns && !l.mntns &&
	   !l.pidns && !l.ipcns && !l.netns && strstr(err, "weaker sandbox: no mount namespace") &&
	   !strstr(err, "refusing"), "no namespaces, --best-effort: runs weaker, each gap said");
	/* One line a gap, and nothing more (the refusal adds its own). */
	struct strv g = {0};
	layers_gaps_policy(&k, false, &none, &g);
	ok(lines == (int)g.n && refused_lines == (int)g.n + 1 && !strstr(err, "(null)"),
	   "one line for each of the %zu gaps (%d, %d)", g.n, lines, refused_lines);
	strv_free(&g);
	k.userns = true;
	k.mount_api = false;
	ok(decide(&k, &none, true, &l, err, sizeof err, &lines) == 0 && !l.mntns && !l.userns &&
	   strstr(err, "new mount API"), "no mount API: no namespaces even with user namespaces");
	k.mount_api = true;
	k.root_admin = true;
	k.userns = false;
	ok(decide(&k, &none, false, &l, err, sizeof err, &lines) == 0 && l.mntns,
	   "root with the mount API needs no user namespaces");
	/* Mode "domains" without a netns: refused, even --best-effort. */
	k.root_admin = false;
	ok(decide(&k, &dom, true, &l, err, sizeof err, &lines) == 125 &&
	   strstr(err, "needs a network namespace of its own") &&
	   strstr(err, "no user namespaces for you"), "domains without a netns: refused with --best-effort");
	k.userns_why = NULL;
	ok(decide(&k, &dom, true, &l, err, sizeof err, &lines) == 125 && strstr(err, "(no namespaces)"),
	   "domains without a netns and no reason known: still refused");
	k.root_admin = true;
	k.userns = true;
	/* A gap of Landlock alone is a refusal without --best-effort. */
	k.landlock_abi = 0;
	k.landlock_errno = EOPNOTSUPP;
	ok(decide(&k, &none, false, &l, err, sizeof err, &lines) == 125 && strstr(err, "no Landlock"),
	   "no Landlock: refused");
	ok(decide(&k, &none, true, &l, err, sizeof err, &lines) == 0 && l.landlock_abi == 0 && l.mntns,
	   "no Landlock, --best-effort: the rest of the layers");
	k.landlock_abi = 7;
	k.seccomp = false;
	ok(decide(&k, &none, true, &l, err, sizeof err, &lines) == 0 && !l.seccomp,
	   "no seccomp, --best-effort: no filter asked for");
}

int main(void)
{
	struct kernel_info k;
	memset(&k, 0, sizeof k);
	k.landlock_abi = 7;
	k.seccomp = true;
	k.seccomp_notify = true;
	k.mount_api = true;
	k.userns = true;
	struct policy none = pol_of(NET_NONE), full = pol_of(NET_FULL), ports = pol_of(NET_PORTS);

	struct strv g = {0};
	layers_gaps_policy(&k, true, &none, &g);
	ok(g.n == 0, "full kernel: no gaps (%zu)", g.n);
	strv_free(&g);
	layers_gaps_policy(&k, true, &ports, &g);
	ok(g.n == 0, "full kernel: ports mode has no gaps (%zu)", g.n);
	strv_free(&g);

	/* Pathname unix sockets: the supervisor (notifications), or
	 * Landlock from ABI 9. */
	k.seccomp_notify = false;
	layers_gaps_policy(&k, true, &full, &g);
	ok(g.n == 1 && count_containing(&g, "pathname unix sockets") == 1,
	   "no notifications before ABI 9: host unix sockets named, in every network mode");
	strv_free(&g);
	k.landlock_abi = 9;
	layers_gaps_policy(&k, true, &none, &g);
	ok(g.n == 0, "Landlock ABI 9 mediates unix sockets itself");
	strv_free(&g);
	k.landlock_abi = 0;
	k.seccomp_notify = true;
	layers_gaps_policy(&k, false, &none, &g);
	ok(count_containing(&g, "pathname unix sockets") == 1,
	   "no pid namespace and no Landlock: the supervisor's descriptors exposed, no listener");
	strv_free(&g);
	k.landlock_abi = 7;

	k.userns = false;
	k.userns_why = "AppArmor restricts unprivileged user namespaces";
	k.userns_fix = "install contrib/apparmor";
	layers_gaps_policy(&k, false, &none, &g);
	ok(count_containing(&g, "no mount namespace") == 1, "missing mntns named");
	ok(count_containing(&g, "AppArmor") >= 1, "the reason is named");
	ok(count_containing(&g, "contrib/apparmor") >= 1, "the fix is named");
	ok(count_containing(&g, "no pid namespace") == 1, "missing pidns named");
	strv_free(&g);

	k.userns = true;
	k.landlock_abi = 0;
	k.landlock_errno = EOPNOTSUPP;
	layers_gaps_policy(&k, true, &none, &g);
	ok(g.n == 1 && count_containing(&g, "no Landlock") == 1, "missing Landlock named");
	ok(count_containing(&g, "lsm=") == 1, "Landlock fix names the boot parameter");
	strv_free(&g);

	k.landlock_abi = 5;
	layers_gaps_policy(&k, true, &full, &g);
	ok(count_containing(&g, "abstract unix") == 1, "old ABI with network: abstract sockets");
	strv_free(&g);
	layers_gaps_policy(&k, true, &none, &g);
	ok(g.n == 0, "old ABI without network: the netns isolates abstract sockets");
	strv_free(&g);

	/* Ports mode: Landlock's TCP rules are the whole restriction. */
	layers_gaps_policy(&k, true, &ports, &g);
	ok(g.n == 1 && count_containing(&g, "abstract unix") == 1,
	   "ABI 5 with ports: abstract sockets only (%zu)", g.n);
	strv_free(&g);
	k.landlock_abi = 4;
	layers_gaps_policy(&k, true, &ports, &g);
	ok(count_containing(&g, "\"ports\"") == 0, "ABI 4 has the TCP rules ports mode needs");
	strv_free(&g);
	k.landlock_abi = 3;
	layers_gaps_policy(&k, true, &ports, &g);
	ok(count_containing(&g, "Landlock ABI 4") == 1, "ABI 3 with ports: ABI 4 named");
	ok(count_containing(&g, "Linux 6.7") == 1, "ABI 3 with ports: the kernel needed named");
	ok(count_containing(&g, "this kernel has ABI 3") == 1, "ABI 3 with ports: what there is named");
	ok(count_containing(&g, "every TCP port") == 1, "ABI 3 with ports: what is weaker said");
	strv_free(&g);
	layers_gaps_policy(&k, true, &none, &g);
	ok(g.n == 0, "ABI 3 without ports: no gap (the netns holds the network)");
	strv_free(&g);
	k.landlock_abi = 0;
	layers_gaps_policy(&k, true, &ports, &g);
	ok(count_containing(&g, "no Landlock") == 2 && count_containing(&g, "Landlock ABI 4") == 1,
	   "no Landlock with ports: both named");
	strv_free(&g);

	/* A read list is Landlock's alone. */
	struct policy rd = pol_of(NET_NONE);
	strv_free(&rd.read);
	strv_add(&rd.read, "/usr");
	ok(!policy_reads_all(&rd) && policy_reads_all(&none), "policy_reads_all");
	layers_gaps_policy(&k, true, &rd, &g);
	ok(count_containing(&g, "read list") == 1, "no Landlock with a read list: named");
	strv_free(&g);
	k.landlock_abi = 1;
	layers_gaps_policy(&k, true, &rd, &g);
	ok(g.n == 0, "any Landlock holds a read list");
	strv_free(&g);

	k.landlock_abi = 7;
	k.seccomp = false;
	layers_gaps_policy(&k, true, &none, &g);
	ok(count_containing(&g, "no seccomp") == 2 && count_containing(&g, "pathname unix") == 1,
	   "missing seccomp named, and with it the host's unix sockets");
	strv_free(&g);
	layers_gaps_policy(&k, true, &ports, &g);
	ok(count_containing(&g, "no seccomp") == 3 && count_containing(&g, "Fast Open") == 1,
	   "missing seccomp with ports: the sockets around the TCP rules named");
	strv_free(&g);

	/* The mode-only form is a sandboxed policy reading everything. */
	layers_gaps(&k, true, NET_PORTS, &g);
	ok(count_containing(&g, "Fast Open") == 1 && count_containing(&g, "read list") == 0,
	   "layers_gaps by network mode");
	strv_free(&g);

	/* Full access asks nothing of the kernel: no gap, no refusal. */
	struct session s;
	memset(&s, 0, sizeof s);
	s.pol = pol_of(NET_FULL);
	s.pol.sandbox = false;
	memset(&s.kinfo, 0, sizeof s.kinfo);
	s.kinfo.landlock_errno = EOPNOTSUPP;
	layers_gaps_policy(&s.kinfo, false, &s.pol, &g);
	ok(g.n == 0, "full access on a kernel with nothing: no gaps");
	strv_free(&g);
	layers_decide(&s); /* would exit 125 on a gap */
	ok(s.layers.unsandboxed && !s.layers.mntns && !s.layers.userns && !s.layers.netns &&
	   !s.layers.landlock_abi && !s.layers.seccomp, "full access: no layer at all");

	/* A policy not resolved yet (main.c deciding early) is never full
	 * access, and reads everything. */
	struct session e;
	memset(&e, 0, sizeof e);
	e.pol.net = NET_NONE;
	e.kinfo = k;
	e.kinfo.seccomp = true;
	e.kinfo.root_admin = true;
	layers_decide(&e);
	ok(!e.layers.unsandboxed && e.layers.mntns && e.layers.netns && e.layers.seccomp,
	   "an unresolved policy gets the sandbox");
	ok(policy_reads_all(&e.pol) && !policy_full_access(&e.pol), "an unresolved policy reads all");
	/* Without namespaces, network none: abstract sockets, by ABI. */
	k.landlock_abi = 6;
	k.seccomp = true;
	layers_gaps_policy(&k, false, &none, &g);
	ok(count_containing(&g, "abstract unix sockets are held by Landlock only") == 1,
	   "no netns, ABI 6: abstract sockets held by Landlock alone");
	strv_free(&g);
	k.landlock_abi = 5;
	layers_gaps_policy(&k, false, &none, &g);
	ok(count_containing(&g, "abstract unix sockets are reachable") == 1,
	   "no netns, ABI 5: abstract sockets reachable");
	strv_free(&g);
	layers_gaps_policy(&k, false, &full, &g);
	ok(count_containing(&g, "no network namespace") == 0,
	   "no netns asked for (network full): none missing");
	strv_free(&g);
	k.landlock_abi = 6;
	layers_gaps_policy(&k, true, &full, &g);
	ok(g.n == 0, "ABI 6 with network: abstract sockets scoped (%zu)", g.n);
	strv_free(&g);
	struct policy dom = pol_of(NET_DOMAINS);
	layers_gaps_policy(&k, false, &dom, &g);
	ok(count_containing(&g, "\"domains\" needs a network namespace") == 1,
	   "domains without namespaces: named");
	strv_free(&g);
	layers_gaps_policy(&k, true, &dom, &g);
	ok(g.n == 0, "domains with namespaces: no gap");
	strv_free(&g);
	/* Which of the three is missing for the host's unix sockets. */
	k.seccomp_notify = false;
	layers_gaps_policy(&k, true, &none, &g);
	ok(count_containing(&g, "no seccomp user notifications") == 1, "no notifications named");
	strv_free(&g);
	k.seccomp_notify = true;
	k.landlock_abi = 0;
	layers_gaps_policy(&k, false, &none, &g);
	ok(count_containing(&g, "no pid namespace and no Landlock: pathname") == 1,
	   "no pid namespace and no Landlock named");
	strv_free(&g);
	k.landlock_abi = 7;
	k.seccomp = true;
	k.mount_api = true;
	decisions(&k);
	return done_testing();
}
