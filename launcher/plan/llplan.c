/* The Landlock plan: which rights the ruleset handles at the highest ABI
 * this kernel offers, and which it grants where. The ABI number is
 * open-ended: rights from ABIs newer than we know are simply not
 * requested, and rights the kernel lacks are removed by the switch below
 * (the pattern of the kernel's own sandboxer sample). The child adds the
 * rules as they are (child/landlock.c). */
#include "config.h"
#include "base/session.h"
#include "base/landlockops.h"
#include "base/mountops.h"
#include "plan/layers.h"
#include "plan/llplan.h"
#include "plan/plan.h"
#include "base/landlock_compat.h"

#include "classify.h"
#include "rules.h"

#define FS_READ (WK_LL_FS_EXECUTE | WK_LL_FS_READ_FILE | WK_LL_FS_READ_DIR)
#define FS_WRITE_FILE (WK_LL_FS_WRITE_FILE | WK_LL_FS_TRUNCATE)
#define FS_WRITE_TREE (FS_WRITE_FILE | WK_LL_FS_REMOVE_DIR | WK_LL_FS_REMOVE_FILE | \
		       WK_LL_FS_MAKE_DIR | WK_LL_FS_MAKE_REG | WK_LL_FS_MAKE_SOCK | \
		       WK_LL_FS_MAKE_FIFO | WK_LL_FS_MAKE_SYM | WK_LL_FS_REFER)
/* Connecting and sending to pathname unix sockets (ABI 9): beneath the
 * writable roots and the session's own /tmp and /dev/shm only (DESIGN §4,
 * wk_classify_unix). Before ABI 9 the supervisor decides them
 * (unixnotify.c, by the same decision). */
#define FS_UNIX WK_LL_FS_RESOLVE_UNIX
#define FS_DEV (FS_READ | FS_WRITE_FILE | WK_LL_FS_IOCTL_DEV)
/* The most an inherited stdio descriptor can get (child/landlock.c takes
 * what its open mode allows of it). */
#define FS_STDIO (WK_LL_FS_READ_FILE | FS_WRITE_FILE | WK_LL_FS_IOCTL_DEV)

uint64_t plan_landlock_fs_rights(int abi)
{
	if (abi < 1)
		return 0;
	uint64_t r = (WK_LL_FS_RESOLVE_UNIX << 1) - 1;
	switch (abi) {
	case 1:
		r &= ~WK_LL_FS_REFER;
		/* fallthrough */
	case 2:
		r &= ~WK_LL_FS_TRUNCATE;
		/* fallthrough */
	case 3:
	case 4:
		r &= ~WK_LL_FS_IOCTL_DEV;
		/* fallthrough */
	case 5:
	case 6:
	case 7:
	case 8:
		r &= ~WK_LL_FS_RESOLVE_UNIX;
		/* fallthrough */
	default:
		break;
	}
	return r;
}

static void add_path(struct landlock_ops *ops, const char *path, uint64_t access)
{
	access &= ops->handled_fs;
	if (access)
		landlock_ops_add(ops, (struct ll_op){.kind = LLOP_PATH, .path = path, .access = access});
}

/* TCP ports the policy opens for connect() or bind(). Not covered: a
 * listen() on a socket never bound takes an ephemeral port, which
 * Landlock cannot mediate yet (landlock-lsm/linux#15). */
static void add_ports(struct landlock_ops *ops, const struct port_list *ports, uint64_t access)
{
	for (size_t i = 0; i < ports->n; i++)
		landlock_ops_add(ops, (struct ll_op){.kind = LLOP_PORT, .port = ports->v[i],
						     .access = access});
}

void plan_landlock(const struct session *s, struct landlock_ops *ops)
{
	int abi = s->layers.landlock_abi;
	*ops = (struct landlock_ops){.abi = abi};
	if (abi < 1)
		return;
	ops->handled_fs = plan_landlock_fs_rights(abi);
	/* "ports": the only wall between TCP and the host's network, with a
	 * rule per port below (and seccomp keeping every other protocol out,
	 * since these rights cover TCP alone); "none" without a network
	 * namespace: no port at all. In a namespace of its own ("none",
	 * "domains") the namespace is the wall, and its loopback is the
	 * command's to use (net_tcp_by_landlock). */
	if (net_tcp_by_landlock(s))
		ops->handled_net = WK_LL_NET_BIND_TCP | WK_LL_NET_CONNECT_TCP;
	if (abi >= 6)
		ops->scoped = WK_LL_SCOPE_ABSTRACT_UNIX | WK_LL_SCOPE_SIGNAL;

	/* Read and execute everywhere, or beneath the policy's read roots
	 * only (the table's 'r' rules, which classify reads the same way):
	 * what is secret is hidden by the mount namespace, which Landlock
	 * cannot express beneath an allowed root. */
	if (policy_reads_all(&s->pol)) {
		add_path(ops, "/", FS_READ);
	} else {
		for (size_t i = 0; i < s->pol.read.n; i++)
			add_path(ops, s->pol.read.v[i], FS_READ);
		/* The session's own wicket (main.c, session_bin), whatever the
		 * read roots: a rule on the executable's inode, which the bind
		 * (or the link) in the session's PATH leads to. */
		add_path(ops, "/proc/self/exe", FS_READ);
	}
	/* The writable roots of the session's rules (plan_fstable): the
	 * policy's, and its own /tmp and /dev/shm, or the per-session
	 * directory that stands in for /tmp (the host's /tmp only when the
	 * policy makes it a writable root). Unix sockets beneath a root as
	 * lib/classify.c decides them, the decision the shim and `wicket
	 * why` explain with: Landlock grants a whole tree or none of it, so a
	 * root that holds a host directory kept read-only (a read root under
	 * the private /tmp) reaches none. The session's own /run is a
	 * read-only cover with kept files and read roots only: no socket
	 * there is the sandbox's, and it is no writable root. */
	struct wk_fstable t;
	plan_fstable(s, &t);
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].kind == RULE_WRITE)
			add_path(ops, t.v[i].path, FS_READ | FS_WRITE_TREE |
				 (wk_classify_unix(&t, t.v[i].path, NULL) ? FS_UNIX : 0));
	plan_fstable_free(&t);
	/* With a mount namespace /dev is the sandbox's own minimal tmpfs (a
	 * few harmless nodes and its own devpts instance): one rule covers
	 * it. Without one it is the host's /dev, where only the named nodes
	 * may be opened for writing (other users' terminals, disks: no). */
	if (s->layers.mntns) {
		add_path(ops, "/dev", FS_DEV);
	} else {
		for (size_t i = 0; i < WK_N_DEV_NODES; i++)
			add_path(ops, wk_dev_nodes[i].path, FS_DEV);
	}
	/* An inherited stdio descriptor that names a file or a device:
	 * reopening it through /dev/stdout or /proc/self/fd/N must work as
	 * far as the descriptor itself already allows, and no further. */
	for (int fd = 0; fd < 3; fd++)
		landlock_ops_add(ops, (struct ll_op){.kind = LLOP_STDIO, .fd = fd,
						     .access = FS_STDIO & ops->handled_fs});
	if (ops->handled_net && net_by_port(s->pol.net)) {
		add_ports(ops, &s->pol.connect, WK_LL_NET_CONNECT_TCP);
		add_ports(ops, &s->pol.bind, WK_LL_NET_BIND_TCP);
	}
}
