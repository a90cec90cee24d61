/* Landlock: the kernel's path- and port-based access control, at the
 * highest ABI this kernel offers. The ABI number is open-ended: rights
 * from ABIs newer than we know are simply not requested, and rights the
 * kernel lacks are removed by the switch below (the pattern of the
 * kernel's own sandboxer sample). */
#include "config.h"
#include "base/session.h"
#include "base/setupfail.h"
#include "child/landlock.h"
#include "plan/layers.h"
#include "plan/plan.h"
#include "child/landlock_compat.h"
#include "classify.h"
#include "rules.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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
/* Rights that may be granted on a non-directory. */
#define FS_FILE_RIGHTS (WK_LL_FS_EXECUTE | WK_LL_FS_WRITE_FILE | WK_LL_FS_READ_FILE | \
			WK_LL_FS_TRUNCATE | WK_LL_FS_IOCTL_DEV)

/* Everything the kernel can mediate for this ABI. */
static __u64 fs_rights_for_abi(int abi)
{
	__u64 r = (WK_LL_FS_RESOLVE_UNIX << 1) - 1;
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

static int landlock_add_fd(int ruleset, int fd, __u64 access, const char *what);

static int add_path(int ruleset, const char *path, __u64 access, __u64 handled)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0; /* absent in this view: nothing to grant */
		return setup_fail(STAGE_LANDLOCK, errno, "open %s", path);
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		access &= FS_FILE_RIGHTS;
	return landlock_add_fd(ruleset, fd, access & handled, path);
}

static int landlock_add_fd(int ruleset, int fd, __u64 access, const char *what)
{
	struct wk_landlock_path_beneath_attr pb = {
		.allowed_access = access,
		.parent_fd = fd,
	};
	int r = 0;
	if (access && syscall(SYS_landlock_add_rule, ruleset, WK_LL_RULE_PATH_BENEATH, &pb, 0) < 0)
		r = setup_fail(STAGE_LANDLOCK, errno, "add rule for %s", what);
	close(fd);
	return r;
}

/* Rights for an inherited stdio descriptor that names a file or a device:
 * reopening it through /dev/stdout or /proc/self/fd/N must work as far as
 * the descriptor itself already allows, and no further. */
static int add_stdio(int ruleset, int fd, __u64 handled)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)))
		return 0;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return 0;
	__u64 access = 0;
	int mode = fl & O_ACCMODE;
	if (mode == O_RDONLY || mode == O_RDWR)
		access |= WK_LL_FS_READ_FILE;
	if (mode == O_WRONLY || mode == O_RDWR)
		access |= WK_LL_FS_WRITE_FILE | WK_LL_FS_TRUNCATE;
	if (S_ISCHR(st.st_mode))
		access |= WK_LL_FS_IOCTL_DEV;
	char link[32];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	int pfd = open(link, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return 0; /* e.g. a deleted file: nothing reachable by path */
	return landlock_add_fd(ruleset, pfd, access & handled, link);
}

/* TCP ports the policy opens for connect() or bind(). Not covered: a
 * listen() on a socket never bound takes an ephemeral port, which
 * Landlock cannot mediate yet (landlock-lsm/linux#15). */
static int add_ports(int ruleset, const struct port_list *ports, __u64 access)
{
	for (size_t i = 0; i < ports->n; i++) {
		struct wk_landlock_net_port_attr np = {
			.allowed_access = access,
			.port = ports->v[i],
		};
		if (syscall(SYS_landlock_add_rule, ruleset, WK_LL_RULE_NET_PORT, &np, 0) < 0)
			return setup_fail(STAGE_LANDLOCK, errno, "add rule for TCP port %u",
					  (unsigned)ports->v[i]);
	}
	return 0;
}

int landlock_build(const struct session *s)
{
	int abi = s->layers.landlock_abi;
	struct wk_landlock_ruleset_attr attr = {0};
	size_t attr_size = sizeof attr;

	attr.handled_access_fs = fs_rights_for_abi(abi);
	/* "none": a second wall behind the network namespace. "ports": the
	 * only wall between TCP and the host's network, with a rule per
	 * port below (and seccomp keeping every other protocol out, since
	 * these rights cover TCP alone). */
	if (abi >= 4 && (s->pol.net == NET_NONE || net_by_port(s->pol.net)))
		attr.handled_access_net = WK_LL_NET_BIND_TCP | WK_LL_NET_CONNECT_TCP;
	if (abi >= 6)
		attr.scoped = WK_LL_SCOPE_ABSTRACT_UNIX | WK_LL_SCOPE_SIGNAL;
	/* Older kernels reject a struct larger than they know. */
	if (abi < 4)
		attr_size = offsetof(struct wk_landlock_ruleset_attr, handled_access_net);
	else if (abi < 6)
		attr_size = offsetof(struct wk_landlock_ruleset_attr, scoped);

	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (rs < 0)
		return setup_fail(STAGE_LANDLOCK, errno, "create ruleset (ABI %d)", abi);
	__u64 h = attr.handled_access_fs;

	/* Read and execute everywhere, or beneath the policy's read roots
	 * only (the table's 'r' rules, which classify reads the same way):
	 * what is secret is hidden by the mount namespace, which Landlock
	 * cannot express beneath an allowed root. */
	if (policy_reads_all(&s->pol)) {
		if (add_path(rs, "/", FS_READ, h) < 0)
			goto fail;
	} else {
		for (size_t i = 0; i < s->pol.read.n; i++)
			if (add_path(rs, s->pol.read.v[i], FS_READ, h) < 0)
				goto fail;
		/* The session's own wicket (main.c, session_bin), whatever the
		 * read roots: a rule on the executable's inode, which the bind
		 * (or the link) in the session's PATH leads to. */
		if (add_path(rs, "/proc/self/exe", FS_READ, h) < 0)
			goto fail;
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
	 * there is the sandbox's, and it is no writable root. Untested here:
	 * no kernel with ABI 9. */
	struct wk_fstable t;
	plan_fstable(s, &t);
	int r = 0;
	for (size_t i = 0; i < t.n && r == 0; i++)
		if (t.v[i].kind == RULE_WRITE)
			r = add_path(rs, t.v[i].path, FS_READ | FS_WRITE_TREE |
				     (wk_classify_unix(&t, t.v[i].path, NULL) ? FS_UNIX : 0), h);
	plan_fstable_free(&t);
	if (r < 0)
		goto fail;
	/* With a mount namespace /dev is the sandbox's own minimal tmpfs (a
	 * few harmless nodes and its own devpts instance): one rule covers
	 * it. Without one it is the host's /dev, where only the named nodes
	 * may be opened for writing (other users' terminals, disks: no). */
	if (s->layers.mntns) {
		if (add_path(rs, "/dev", FS_READ | FS_WRITE_FILE | WK_LL_FS_IOCTL_DEV, h) < 0)
			goto fail;
	} else {
		for (size_t i = 0; i < WK_N_DEV_NODES; i++) {
			char dev[32];
			snprintf(dev, sizeof dev, "/dev/%s", wk_dev_nodes[i].name);
			if (add_path(rs, dev, FS_READ | FS_WRITE_FILE | WK_LL_FS_IOCTL_DEV, h) < 0)
				goto fail;
		}
	}
	for (int fd = 0; fd < 3; fd++)
		if (add_stdio(rs, fd, h) < 0)
			goto fail;
	if (attr.handled_access_net && net_by_port(s->pol.net)) {
		if (add_ports(rs, &s->pol.connect, WK_LL_NET_CONNECT_TCP) < 0 ||
		    add_ports(rs, &s->pol.bind, WK_LL_NET_BIND_TCP) < 0)
			goto fail;
	}
	return rs;
fail:
	close(rs);
	return -1;
}

int landlock_enforce(int ruleset_fd)
{
	if (syscall(SYS_landlock_restrict_self, ruleset_fd, 0) < 0)
		return setup_fail(STAGE_LANDLOCK, errno, "restrict self");
	close(ruleset_fd);
	return 0;
}
