/* The Landlock plan (launcher/plan/llplan.c): what the ruleset handles at
 * each ABI, and every rule it grants, for each network mode, with and
 * without a mount namespace, reading all or read roots only. Nothing is
 * opened: the child adds the rules as they are (child/landlock.c), and the
 * escape suites judge what they enforce. The mutation check
 * (tests/mutate llplan) runs this file. */
#include "config.h"
#include "base/session.h"
#include "base/landlockops.h"
#include "base/mountops.h"
#include "plan/llplan.h"
#include "base/landlock_compat.h"
#include "tap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define READ (WK_LL_FS_EXECUTE | WK_LL_FS_READ_FILE | WK_LL_FS_READ_DIR)
#define WRITE_TREE (WK_LL_FS_WRITE_FILE | WK_LL_FS_TRUNCATE | WK_LL_FS_REMOVE_DIR | \
		    WK_LL_FS_REMOVE_FILE | WK_LL_FS_MAKE_DIR | WK_LL_FS_MAKE_REG | \
		    WK_LL_FS_MAKE_SOCK | WK_LL_FS_MAKE_FIFO | WK_LL_FS_MAKE_SYM | WK_LL_FS_REFER)
#define DEV (READ | WK_LL_FS_WRITE_FILE | WK_LL_FS_TRUNCATE | WK_LL_FS_IOCTL_DEV)
#define STDIO (WK_LL_FS_READ_FILE | WK_LL_FS_WRITE_FILE | WK_LL_FS_TRUNCATE | WK_LL_FS_IOCTL_DEV)
#define UNIX WK_LL_FS_RESOLVE_UNIX
#define NET (WK_LL_NET_BIND_TCP | WK_LL_NET_CONNECT_TCP)

static unsigned short p443[] = {443, 22}, p8080[] = {8080};

/* A sandboxed session with a mount namespace and its own /tmp, reading
 * everything, writing /ws, at Landlock ABI ABI, network NET. */
static void fresh(struct session *s, int abi, enum net_mode net)
{
	memset(s, 0, sizeof *s);
	s->pol.name = "test";
	s->pol.sandbox = true;
	s->pol.net = net;
	s->pol.private_tmp = true;
	s->plan.private_tmp = true;
	s->layers.mntns = true;
	s->layers.landlock_abi = abi;
	strv_add(&s->pol.read, "/");
	strv_add(&s->pol.write, "/ws");
	if (net == NET_PORTS || net == NET_DOMAINS) {
		s->pol.connect = (struct port_list){p443, 2};
		s->pol.bind = (struct port_list){p8080, 1};
	}
}

static size_t count(const struct landlock_ops *o, enum ll_op_kind kind)
{
	size_t n = 0;
	for (size_t i = 0; i < o->n; i++)
		n += o->v[i].kind == kind;
	return n;
}

/* The access of the path rule on PATH; -1: none (and -2: more than one). */
static long long path_access(const struct landlock_ops *o, const char *path)
{
	long long a = -1;
	for (size_t i = 0; i < o->n; i++)
		if (o->v[i].kind == LLOP_PATH && strcmp(o->v[i].path, path) == 0)
			a = a == -1 ? (long long)o->v[i].access : -2;
	return a;
}

static long long port_access(const struct landlock_ops *o, unsigned short port)
{
	long long a = -1;
	for (size_t i = 0; i < o->n; i++)
		if (o->v[i].kind == LLOP_PORT && o->v[i].port == port)
			a = a == -1 ? (long long)o->v[i].access : -2;
	return a;
}

static bool stdio_all(const struct landlock_ops *o, uint64_t access)
{
	bool seen[3] = {false, false, false};
	for (size_t i = 0; i < o->n; i++)
		if (o->v[i].kind == LLOP_STDIO) {
			if (o->v[i].fd < 0 || o->v[i].fd > 2 || seen[o->v[i].fd] ||
			    o->v[i].access != access)
				return false;
			seen[o->v[i].fd] = true;
		}
	return seen[0] && seen[1] && seen[2];
}

static void rights(void)
{
	uint64_t all = (UNIX << 1) - 1;
	ok(plan_landlock_fs_rights(0) == 0 && plan_landlock_fs_rights(-1) == 0, "no ABI: no right");
	ok(plan_landlock_fs_rights(1) == (WK_LL_FS_REFER - 1), "ABI 1: the first thirteen rights");
	ok(plan_landlock_fs_rights(2) == ((WK_LL_FS_REFER << 1) - 1), "ABI 2: and refer");
	ok(plan_landlock_fs_rights(3) == ((WK_LL_FS_TRUNCATE << 1) - 1), "ABI 3: and truncate");
	ok(plan_landlock_fs_rights(4) == plan_landlock_fs_rights(3), "ABI 4: nothing new on files");
	ok(plan_landlock_fs_rights(5) == ((WK_LL_FS_IOCTL_DEV << 1) - 1), "ABI 5: and ioctl on devices");
	for (int abi = 6; abi <= 8; abi++)
		ok(plan_landlock_fs_rights(abi) == plan_landlock_fs_rights(5), "ABI %d: as 5", abi);
	ok(plan_landlock_fs_rights(9) == all, "ABI 9: and unix sockets");
	ok(plan_landlock_fs_rights(12) == all, "a newer ABI: no right we do not know");
}

static void none(void)
{
	struct session s;
	struct landlock_ops o;
	fresh(&s, 0, NET_NONE);
	memset(&o, 0x55, sizeof o);
	plan_landlock(&s, &o);
	ok(o.abi == 0 && o.n == 0 && o.handled_fs == 0 && o.handled_net == 0 && o.scoped == 0,
	   "no Landlock: an empty plan");
}

static void workspace_write(void)
{
	struct session s;
	struct landlock_ops o;
	fresh(&s, 7, NET_NONE);
	plan_landlock(&s, &o);
	ok(o.abi == 7 && o.handled_fs == plan_landlock_fs_rights(7), "ABI 7: every file right it has");
	ok(o.handled_net == NET, "network none: TCP handled (a second wall)");
	ok(o.scoped == (WK_LL_SCOPE_ABSTRACT_UNIX | WK_LL_SCOPE_SIGNAL), "abstract sockets and signals scoped");
	ok(path_access(&o, "/") == READ, "reading all: one rule on /, read and execute");
	ok(path_access(&o, "/proc/self/exe") == -1, "and none for wicket itself");
	ok(path_access(&o, "/ws") == (READ | WRITE_TREE), "the writable root: read and the tree's writes");
	ok(path_access(&o, "/tmp") == (READ | WRITE_TREE), "the session's own /tmp");
	ok(path_access(&o, "/dev/shm") == (READ | WRITE_TREE), "its own /dev/shm");
	ok(path_access(&o, "/dev") == DEV, "its own /dev: read, write files, ioctl");
	ok(path_access(&o, "/dev/null") == -1, "no rule per device node");
	ok(stdio_all(&o, STDIO), "fds 0, 1 and 2: at most read, write and ioctl");
	ok(count(&o, LLOP_PORT) == 0, "no port opened");
	ok(o.n == 8, "nothing else (%zu rules)", o.n);
	landlock_ops_free(&o);
	ok(o.v == NULL && o.n == 0, "freed");

	/* /tmp a writable root of the policy: one rule. */
	fresh(&s, 7, NET_NONE);
	strv_add(&s.pol.write, "/tmp");
	plan_landlock(&s, &o);
	ok(path_access(&o, "/tmp") == (READ | WRITE_TREE), "/tmp the policy's root too: one rule");
	landlock_ops_free(&o);
	fresh(&s, 7, NET_NONE);
	s.plan.private_tmp = false;
	plan_landlock(&s, &o);
	ok(path_access(&o, "/tmp") == -1, "the host's /tmp, not a root: no write rule");
	ok(path_access(&o, "/dev/shm") == (READ | WRITE_TREE), "the session's /dev/shm still");
	landlock_ops_free(&o);
}

static void unix_sockets(void)
{
	struct session s;
	struct landlock_ops o;
	fresh(&s, 9, NET_NONE);
	plan_landlock(&s, &o);
	ok(o.handled_fs & UNIX, "ABI 9: unix sockets handled");
	ok(path_access(&o, "/ws") == (READ | WRITE_TREE | UNIX), "sockets beneath a writable root");
	ok(path_access(&o, "/tmp") == (READ | WRITE_TREE | UNIX), "beneath the own /tmp");
	ok(path_access(&o, "/") == READ, "none beneath the read root");
	landlock_ops_free(&o);
	/* A read root of the host's kept under the own /tmp: Landlock grants
	 * whole trees, so no socket beneath /tmp (classify says the same). */
	fresh(&s, 9, NET_NONE);
	strv_add(&s.plan.read_keep, "/tmp/host");
	plan_landlock(&s, &o);
	ok(path_access(&o, "/tmp") == (READ | WRITE_TREE), "a kept read root under /tmp: no socket there");
	ok(path_access(&o, "/dev/shm") == (READ | WRITE_TREE | UNIX), "/dev/shm keeps them");
	ok(path_access(&o, "/ws") == (READ | WRITE_TREE | UNIX), "and the writable root");
	landlock_ops_free(&o);
}

static void old_abis(void)
{
	struct session s;
	struct landlock_ops o;
	fresh(&s, 1, NET_PORTS);
	plan_landlock(&s, &o);
	ok(o.handled_net == 0 && count(&o, LLOP_PORT) == 0, "ABI 1: no network rights, no port rule");
	ok(o.scoped == 0, "and no scopes");
	ok(path_access(&o, "/ws") == ((READ | WRITE_TREE) & ~(uint64_t)(WK_LL_FS_REFER | WK_LL_FS_TRUNCATE)),
	   "rights it lacks are not asked for");
	ok(stdio_all(&o, WK_LL_FS_READ_FILE | WK_LL_FS_WRITE_FILE), "stdio: read and write only");
	landlock_ops_free(&o);
	fresh(&s, 3, NET_PORTS);
	plan_landlock(&s, &o);
	ok(o.handled_net == 0 && count(&o, LLOP_PORT) == 0, "ABI 3: still no network");
	landlock_ops_free(&o);
	fresh(&s, 4, NET_PORTS);
	plan_landlock(&s, &o);
	ok(o.handled_net == NET && o.scoped == 0, "ABI 4: TCP, no scopes");
	ok(path_access(&o, "/dev") == (DEV & ~(uint64_t)WK_LL_FS_IOCTL_DEV), "no ioctl right before ABI 5");
	landlock_ops_free(&o);
	fresh(&s, 5, NET_NONE);
	plan_landlock(&s, &o);
	ok(o.scoped == 0, "ABI 5: no scopes");
	landlock_ops_free(&o);
	fresh(&s, 6, NET_NONE);
	plan_landlock(&s, &o);
	ok(o.scoped == (WK_LL_SCOPE_ABSTRACT_UNIX | WK_LL_SCOPE_SIGNAL), "ABI 6: scoped");
	landlock_ops_free(&o);
}

static void network(void)
{
	struct session s;
	struct landlock_ops o;
	fresh(&s, 7, NET_FULL);
	s.pol.connect = (struct port_list){p443, 2};
	plan_landlock(&s, &o);
	ok(o.handled_net == 0 && count(&o, LLOP_PORT) == 0, "network full: TCP not handled");
	landlock_ops_free(&o);
	enum net_mode modes[] = {NET_PORTS, NET_DOMAINS};
	for (int i = 0; i < 2; i++) {
		const char *m = i ? "domains" : "ports";
		fresh(&s, 7, modes[i]);
		plan_landlock(&s, &o);
		ok(o.handled_net == NET, "%s: TCP handled", m);
		ok(port_access(&o, 443) == WK_LL_NET_CONNECT_TCP &&
		   port_access(&o, 22) == WK_LL_NET_CONNECT_TCP, "%s: each connect port", m);
		ok(port_access(&o, 8080) == WK_LL_NET_BIND_TCP, "%s: the bind port", m);
		ok(count(&o, LLOP_PORT) == 3, "%s: no other", m);
		landlock_ops_free(&o);
	}
	fresh(&s, 7, NET_NONE);
	s.pol.connect = (struct port_list){p443, 2};
	plan_landlock(&s, &o);
	ok(o.handled_net == NET && count(&o, LLOP_PORT) == 0, "none: a connect list opens no port");
	landlock_ops_free(&o);
	/* In a network namespace of their own, "none" and "domains" have a
	 * private loopback: the namespace is the wall, TCP is not handled. */
	enum net_mode own[] = {NET_NONE, NET_DOMAINS, NET_PORTS};
	for (int i = 0; i < 3; i++) {
		const char *m = i == 0 ? "none" : i == 1 ? "domains" : "ports";
		fresh(&s, 7, own[i]);
		s.layers.netns = own[i] != NET_PORTS; /* never made for "ports" */
		plan_landlock(&s, &o);
		if (own[i] == NET_PORTS)
			ok(o.handled_net == NET && count(&o, LLOP_PORT) == 3, "%s: TCP handled", m);
		else
			ok(o.handled_net == 0 && count(&o, LLOP_PORT) == 0,
			   "%s in its own namespace: TCP not handled, no port rule", m);
		landlock_ops_free(&o);
	}
}

static void read_roots(void)
{
	struct session s;
	struct landlock_ops o;
	fresh(&s, 7, NET_NONE);
	strv_free(&s.pol.read);
	strv_add(&s.pol.read, "/usr");
	strv_add(&s.pol.read, "/etc");
	plan_landlock(&s, &o);
	ok(path_access(&o, "/") == -1, "read roots: no rule on /");
	ok(path_access(&o, "/usr") == READ && path_access(&o, "/etc") == READ, "one on each root");
	ok(path_access(&o, "/proc/self/exe") == READ, "and on wicket itself");
	landlock_ops_free(&o);
}

static void no_mount_ns(void)
{
	struct session s;
	struct landlock_ops o;
	fresh(&s, 7, NET_NONE);
	s.layers.mntns = false;
	s.fallback_tmp = "/tmp/wicket-XXXX";
	plan_landlock(&s, &o);
	ok(path_access(&o, "/tmp/wicket-XXXX") == (READ | WRITE_TREE), "no mount namespace: the stand-in /tmp");
	ok(path_access(&o, "/tmp") == -1 && path_access(&o, "/dev/shm") == -1,
	   "the host's /tmp and /dev/shm: no write rule");
	ok(path_access(&o, "/dev") == -1, "the host's /dev: no rule on all of it");
	bool each = true;
	for (size_t i = 0; i < WK_N_DEV_NODES; i++)
		each = each && path_access(&o, wk_dev_nodes[i].path) == DEV;
	ok(each, "one on each device node offered");
	ok(path_access(&o, "/dev/null") == DEV && path_access(&o, "/dev/tty") == DEV,
	   "/dev/null and /dev/tty among them");
	ok(count(&o, LLOP_PATH) == 3 + WK_N_DEV_NODES, "and no other path (%zu rules)", o.n);
	landlock_ops_free(&o);
}

int main(void)
{
	rights();
	none();
	workspace_write();
	unix_sockets();
	old_abis();
	network();
	read_roots();
	no_mount_ns();
	return done_testing();
}
