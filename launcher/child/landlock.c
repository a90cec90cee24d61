/* Landlock in the child: the ruleset the planner decided
 * (plan_landlock, launcher/plan/llplan.c), its rules added as they are.
 * Nothing is decided here but what the kernel's objects say: a
 * non-directory takes only the rights a file can have, and a stdio
 * descriptor only what its own open mode allows. */
#include "config.h"
#include "base/landlockops.h"
#include "base/setupfail.h"
#include "child/landlock.h"
#include "base/landlock_compat.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Rights that may be granted on a non-directory. */
#define FS_FILE_RIGHTS (WK_LL_FS_EXECUTE | WK_LL_FS_WRITE_FILE | WK_LL_FS_READ_FILE | \
			WK_LL_FS_TRUNCATE | WK_LL_FS_IOCTL_DEV)

/* ACCESS beneath FD (an O_PATH descriptor, closed here). */
static int add_fd(int ruleset, int fd, uint64_t access, const char *what)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		access &= FS_FILE_RIGHTS;
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

static int add_path(int ruleset, const struct ll_op *o)
{
	int fd = open(o->path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0; /* absent in this view: nothing to grant */
		return setup_fail(STAGE_LANDLOCK, errno, "open %s", o->path);
	}
	return add_fd(ruleset, fd, o->access, o->path);
}

/* The rights of O->access that fd O->fd already has: reading, writing
 * (and truncating) as it was opened, ioctl on a device. A descriptor
 * opened to append gets no writing by path: a file reopened through
 * /proc/self/fd/N writes from its start, and truncates (red team 14, F3);
 * the descriptor itself still appends. */
static int add_stdio(int ruleset, const struct ll_op *o)
{
	struct stat st;
	if (fstat(o->fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)))
		return 0;
	int fl = fcntl(o->fd, F_GETFL);
	if (fl < 0)
		return 0;
	uint64_t has = 0;
	int mode = fl & O_ACCMODE;
	if (mode == O_RDONLY || mode == O_RDWR)
		has |= WK_LL_FS_READ_FILE;
	if ((mode == O_WRONLY || mode == O_RDWR) && !(fl & O_APPEND))
		has |= WK_LL_FS_WRITE_FILE | WK_LL_FS_TRUNCATE;
	if (S_ISCHR(st.st_mode))
		has |= WK_LL_FS_IOCTL_DEV;
	char link[32];
	snprintf(link, sizeof link, "/proc/self/fd/%d", o->fd);
	int pfd = open(link, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return 0; /* e.g. a deleted file: nothing reachable by path */
	return add_fd(ruleset, pfd, o->access & has, link);
}

static int add_port(int ruleset, const struct ll_op *o)
{
	struct wk_landlock_net_port_attr np = {
		.allowed_access = o->access,
		.port = o->port,
	};
	if (syscall(SYS_landlock_add_rule, ruleset, WK_LL_RULE_NET_PORT, &np, 0) < 0)
		return setup_fail(STAGE_LANDLOCK, errno, "add rule for TCP port %u",
				  (unsigned)o->port);
	return 0;
}

int landlock_build(const struct landlock_ops *ops)
{
	struct wk_landlock_ruleset_attr attr = {
		.handled_access_fs = ops->handled_fs,
		.handled_access_net = ops->handled_net,
		.scoped = ops->scoped,
	};
	size_t attr_size = sizeof attr;
	/* Older kernels reject a struct larger than they know. */
	if (ops->abi < 4)
		attr_size = offsetof(struct wk_landlock_ruleset_attr, handled_access_net);
	else if (ops->abi < 6)
		attr_size = offsetof(struct wk_landlock_ruleset_attr, scoped);

	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (rs < 0)
		return setup_fail(STAGE_LANDLOCK, errno, "create ruleset (ABI %d)", ops->abi);
	for (size_t i = 0; i < ops->n; i++) {
		const struct ll_op *o = &ops->v[i];
		int r;
		switch (o->kind) {
		case LLOP_PATH:
			r = add_path(rs, o);
			break;
		case LLOP_STDIO:
			r = add_stdio(rs, o);
			break;
		case LLOP_PORT:
			r = add_port(rs, o);
			break;
		default:
			r = setup_fail(STAGE_LANDLOCK, EINVAL, "unknown rule kind %d", (int)o->kind);
			break;
		}
		if (r < 0) {
			close(rs);
			return -1;
		}
	}
	return rs;
}

int landlock_enforce(int ruleset_fd)
{
	if (syscall(SYS_landlock_restrict_self, ruleset_fd, 0) < 0)
		return setup_fail(STAGE_LANDLOCK, errno, "restrict self");
	close(ruleset_fd);
	return 0;
}
