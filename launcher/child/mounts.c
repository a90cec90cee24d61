/* The mount namespace: a read-only view of the whole system with the
 * writable roots, protected paths and hidden secrets laid on top.
 *
 * Runs in the child, inside its new user/mount/pid namespaces, before any
 * code from the sandbox. It executes the plan's operations
 * (base/mountops.h) in the order the planner put them (plan.c,
 * plan_mount_ops_base and _late), and decides nothing itself. Every step
 * either succeeds or the session does not
 * start: a half-built view is never used.
 *
 * Why the order matters:
 *  - Propagation is cut first, so nothing we mount can leak back to the
 *    host's namespace (as root there is no user namespace to stop it).
 *  - The writable roots and the device nodes are cloned *before* the whole
 *    tree is made read-only: the clones keep their original flags, and are
 *    then attached on top of the read-only tree.
 *  - Read roots under /tmp and /run, which the session's own tmpfs mounts
 *    cover, are cloned before those covers too, made read-only explicitly
 *    (a detached clone is not reached by the freeze of "/"), and attached
 *    on top of the covers.
 *  - Protected paths and hidden paths go on after the writable roots, or
 *    they would be buried under the writable clone.
 */
#include "config.h"
#include "base/session.h"
#include "base/mountops.h"
#include "base/setupfail.h"
#include "child/mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "path.h"

#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

static int do_setattr(int dfd, const char *path, unsigned int flags, __u64 set, __u64 clr,
		      __u64 propagation)
{
	struct mount_attr attr = {
		.attr_set = set,
		.attr_clr = clr,
		.propagation = propagation,
	};
	return (int)syscall(SYS_mount_setattr, dfd, path, flags, &attr, sizeof attr);
}

static int open_nofollow(const char *path);

/* A detached copy of the mount tree at PATH (canonical: opened without
 * following symlinks, so that a component swapped for a link since the
 * plan, by another session or the sandbox a grant is for, brings no other
 * tree into view), private and nosuid. */
static int clone_tree(const char *path)
{
	int pfd = open_nofollow(path);
	int fd = pfd < 0 ? -1 : (int)syscall(SYS_open_tree, pfd, "",
					      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
						      AT_RECURSIVE);
	if (pfd >= 0) {
		int e = errno;
		close(pfd);
		errno = e;
	}
	if (fd < 0)
		return setup_fail(STAGE_MOUNT, errno, "clone %s", path);
	if (do_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
		       0, MS_PRIVATE) < 0) {
		int e = errno;
		close(fd);
		return setup_fail(STAGE_MOUNT, e, "set flags on clone of %s", path);
	}
	return fd;
}

static int attach(int fd, const char *target)
{
	if (syscall(SYS_move_mount, fd, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return setup_fail(STAGE_MOUNT, errno, "attach %s", target);
	return 0;
}

/* mkdir -p for mount points inside our own tmpfs mounts. */
static int mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	if (strlen(path) >= sizeof buf)
		return setup_fail(STAGE_MOUNT, ENAMETOOLONG, "mkdir %s", path);
	strcpy(buf, path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return setup_fail(STAGE_MOUNT, errno, "mkdir %s", buf);
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return setup_fail(STAGE_MOUNT, errno, "mkdir %s", buf);
	return 0;
}

/* Make sure TARGET exists as a directory or a file to mount on. Only
 * needed inside the tmpfs mounts we created ourselves (/tmp, /dev, /run);
 * elsewhere the target already exists in the read-only view. */
static int ensure_mountpoint(const char *target, bool dir)
{
	struct stat st;
	if (lstat(target, &st) == 0)
		return 0;
	if (errno != ENOENT)
		return setup_fail(STAGE_MOUNT, errno, "stat %s", target);
	if (dir)
		return mkdir_p(target, 0755);
	char *parent = path_dirname(target);
	int r = mkdir_p(parent, 0755);
	free(parent);
	if (r < 0)
		return r;
	int fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return setup_fail(STAGE_MOUNT, errno, "create %s", target);
	close(fd);
	return 0;
}

static bool clone_is_dir(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

int ns_write_id_maps(uid_t uid, gid_t gid)
{
	char buf[64];
	struct {
		const char *file;
		const char *text;
	} w[3];
	char umap[32], gmap[32];
	snprintf(umap, sizeof umap, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	snprintf(gmap, sizeof gmap, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	/* setgroups must be denied before an unprivileged gid_map write. */
	w[0].file = "/proc/self/setgroups", w[0].text = "deny";
	w[1].file = "/proc/self/uid_map", w[1].text = umap;
	w[2].file = "/proc/self/gid_map", w[2].text = gmap;
	for (int i = 0; i < 3; i++) {
		int fd = open(w[i].file, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return setup_fail(STAGE_USERNS_MAP, errno, "open %s", w[i].file);
		size_t len = strlen(w[i].text);
		ssize_t n = write(fd, w[i].text, len);
		int e = errno;
		close(fd);
		if (n != (ssize_t)len) {
			snprintf(buf, sizeof buf, "write %s", w[i].file);
			return setup_fail(STAGE_USERNS_MAP, n < 0 ? e : EIO, "%s", buf);
		}
	}
	return 0;
}

static int mount_tmpfs(const char *target, unsigned long flags, const char *opts)
{
	if (mount("tmpfs", target, "tmpfs", flags, opts) < 0)
		return setup_fail(STAGE_MOUNT, errno, "mount tmpfs on %s", target);
	return 0;
}

/* A minimal /dev: the harmless character devices bound from the host, a
 * fresh devpts instance (so ptys of other sessions are not reachable), a
 * private /dev/shm. Block devices, /dev/mem, /dev/kmsg, /dev/log and the
 * rest of the host's /dev are simply not there. */
static int build_dev(const int *node_fd, const char *shm_opts)
{
	if (mount_tmpfs("/dev", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k") < 0)
		return -1;
	for (int i = 0; i < WK_N_DEV_NODES; i++) {
		if (node_fd[i] < 0)
			continue;
		const char *path = wk_dev_nodes[i].path;
		char src[64];
		snprintf(src, sizeof src, "/proc/self/fd/%d", node_fd[i]);
		/* An empty regular file as the mount point, in one call. */
		if (mknod(path, S_IFREG | 0644, 0) < 0)
			return setup_fail(STAGE_MOUNT, errno, "create %s", path);
		/* The source mount was frozen nodev with the rest of the tree;
		 * these few binds are the device nodes that must open. */
		if (mount(src, path, NULL, MS_BIND, NULL) < 0 ||
		    do_setattr(AT_FDCWD, path, 0, 0, MOUNT_ATTR_NODEV, 0) < 0)
			return setup_fail(STAGE_MOUNT, errno, "bind %s", path);
	}
	if (mkdir("/dev/pts", 0755) < 0 || mkdir("/dev/shm", 01777) < 0)
		return setup_fail(STAGE_MOUNT, errno, "mkdir in /dev");
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=0620") < 0)
		return setup_fail(STAGE_MOUNT, errno, "mount devpts on /dev/pts");
	if (mount_tmpfs("/dev/shm", MS_NOSUID | MS_NODEV, shm_opts) < 0)
		return -1;
	static const char *const links[][2] = {
		{"pts/ptmx", "/dev/ptmx"},       {"/proc/self/fd", "/dev/fd"},
		{"/proc/self/fd/0", "/dev/stdin"}, {"/proc/self/fd/1", "/dev/stdout"},
		{"/proc/self/fd/2", "/dev/stderr"},
	};
	for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
		if (symlink(links[i][0], links[i][1]) < 0)
			return setup_fail(STAGE_MOUNT, errno, "symlink %s", links[i][1]);
	return 0;
}

/* Hidden files get a bind of one empty, mode-000 file. It lives on the
 * session's own /run (made read-only before any hide, so every bind of it
 * is read-only too); without a /run cover, on a detached read-only tmpfs,
 * created lazily. (Closing a detached mount costs more than the rest of
 * the mount view together, so /run is preferred.) */
static const char run_empty[] = "/run/.wicket-empty";

static int empty_file_source(void)
{
	int fsfd = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fsfd < 0)
		return setup_fail(STAGE_MOUNT, errno, "fsopen tmpfs");
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "size", "4k", 0) < 0 ||
	    fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		int e = errno;
		close(fsfd);
		return setup_fail(STAGE_MOUNT, e, "configure tmpfs");
	}
	int mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	int e = errno;
	close(fsfd);
	if (mfd < 0)
		return setup_fail(STAGE_MOUNT, e, "fsmount tmpfs");
	/* The file must be closed before the mount can turn read-only. */
	int f = openat(mfd, "empty", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (f >= 0)
		close(f);
	if (f < 0 || do_setattr(mfd, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY, 0, 0) < 0) {
		e = errno;
		close(mfd);
		return setup_fail(STAGE_MOUNT, e, "prepare empty file");
	}
	return mfd;
}

/* The plan was made before the mounts, from canonical paths; another
 * session on the same workspace could since have swapped a component for
 * a symlink. Each protected or hidden path is therefore opened once,
 * refusing any symlink on the way, and mounted on through that descriptor
 * (/proc/self/fd/N), never by name again. */
static int open_nofollow(const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC, /* a trailing symlink fails too (ELOOP) */
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
}

struct fdpath {
	int fd;
	char path[32];
};

/* The descriptor and its /proc/self/fd name; -1 with errno on failure. */
static int fdpath_open(struct fdpath *fp, const char *path)
{
	fp->fd = open_nofollow(path);
	if (fp->fd < 0)
		return -1;
	snprintf(fp->path, sizeof fp->path, "/proc/self/fd/%d", fp->fd);
	return 0;
}

static int fdpath_fail(const char *what, const char *path)
{
	return setup_fail(STAGE_MOUNT, errno, "%s %s (resolved without symlinks)", what, path);
}

static int hide_path(const char *path, int *empty_src, bool run_source)
{
	struct fdpath fp;
	if (fdpath_open(&fp, path) < 0) {
		if (errno == ENOENT)
			return 0; /* not visible in the sandbox at all (e.g. under /tmp) */
		return fdpath_fail("hide", path);
	}
	struct stat st;
	int r = 0;
	if (fstat(fp.fd, &st) < 0) {
		r = setup_fail(STAGE_MOUNT, errno, "stat %s", path);
	} else if (S_ISDIR(st.st_mode)) {
		/* A fresh read-only tmpfs, mode 000: empty and unreadable. */
		if (mount("tmpfs", fp.path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  "mode=000,size=4k") < 0)
			r = setup_fail(STAGE_MOUNT, errno, "hide %s", path);
	} else if (run_source) {
		if (mount(run_empty, fp.path, NULL, MS_BIND, NULL) < 0)
			r = setup_fail(STAGE_MOUNT, errno, "hide %s", path);
	} else if (*empty_src < 0 && (*empty_src = empty_file_source()) < 0) {
		r = -1;
	} else {
		int c = (int)syscall(SYS_open_tree, *empty_src, "empty",
				     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (c < 0)
			r = setup_fail(STAGE_MOUNT, errno, "clone empty file for %s", path);
		else {
			r = attach(c, fp.path);
			close(c);
		}
	}
	close(fp.fd);
	return r;
}

/* A read-only, private copy of the file or tree at PATH (canonical:
 * opened without following symlinks, so a component swapped for a link
 * since the plan cannot bring some other tree into view). It is made
 * before the freeze of step 3, which does not reach a detached copy, so
 * its flags are set here: otherwise it would keep the host's (rw), and
 * chmod, chown or utimes on it would reach the host. */
/* The same, of the object PFD (an O_PATH descriptor, closed here). */
static int clone_readonly_fd(int pfd)
{
	int fd = (int)syscall(SYS_open_tree, pfd, "",
			      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	int e = errno;
	close(pfd);
	if (fd >= 0 && do_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE,
				  MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0,
				  MS_PRIVATE) < 0) {
		e = errno;
		close(fd);
		fd = -1;
	}
	errno = e;
	return fd;
}

static int clone_readonly(const char *path)
{
	int pfd = open_nofollow(path);
	return pfd < 0 ? -1 : clone_readonly_fd(pfd);
}

/* The executable this process runs (the supervisor's, as init is its
 * fork): a read-only bind of that very file. /proc/self/exe still names
 * the mount of the namespace it was started in, which cannot be cloned
 * here, so the file is opened again by its name in this namespace (no
 * symlinks) and must be the same inode. While the supervisor runs it, the
 * kernel refuses to write it in place (ETXTBSY), and a file put in its
 * place by name later is not the one bound. */
static int clone_self_exe(void)
{
	char exe[PATH_MAX];
	if (!self_exe(exe, sizeof exe))
		return -1;
	struct stat want, got;
	if (stat("/proc/self/exe", &want) < 0)
		return -1;
	int pfd = open_nofollow(exe);
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &got) < 0 || got.st_dev != want.st_dev || got.st_ino != want.st_ino ||
	    !S_ISREG(got.st_mode)) {
		close(pfd);
		errno = ESTALE;
		return -1;
	}
	return clone_readonly_fd(pfd);
}

static void close_all(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* The copy in SLOT attached at PATH, a mount point made for it where our
 * own tmpfs mounts hide the original path. */
static int attach_slot(int fd, const char *path)
{
	if (ensure_mountpoint(path, clone_is_dir(fd)) < 0)
		return -1;
	return attach(fd, path);
}

/* PATH, opened without following symlinks, bound to itself (a pin) or
 * read-only over itself (protected): through the descriptor, never by
 * name again. */
static int pin(const char *path)
{
	struct fdpath fp;
	if (fdpath_open(&fp, path) < 0)
		return fdpath_fail("pin", path);
	int r = mount(fp.path, fp.path, NULL, MS_BIND | MS_REC, NULL);
	int e = errno;
	close(fp.fd);
	return r < 0 ? setup_fail(STAGE_MOUNT, e, "pin %s", path) : 0;
}

static int protect(const char *path)
{
	/* A read-only clone of the object, attached exactly where the
	 * descriptor points (no second lookup by name). */
	struct fdpath fp;
	if (fdpath_open(&fp, path) < 0)
		return fdpath_fail("protect", path);
	int c = (int)syscall(SYS_open_tree, fp.fd, "",
			     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	int r = c < 0 ? -1
		: do_setattr(c, "", AT_EMPTY_PATH | AT_RECURSIVE,
			     MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, MS_PRIVATE);
	if (r == 0)
		r = (int)syscall(SYS_move_mount, c, "", fp.fd, "",
				 MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	int e = errno;
	if (c >= 0)
		close(c);
	close(fp.fd);
	return r < 0 ? setup_fail(STAGE_MOUNT, e, "protect %s", path) : 0;
}

/* One operation of the plan. SLOTS: the copies made so far; NODE_FD: the
 * device nodes held; EMPTY_SRC: the empty file for hidden files, made
 * when first needed. */
static int run_op(const struct mount_op *o, int *slots, int *node_fd, int *empty_src)
{
	char opts[32 + WK_TMP_SIZE_MAX];
	switch (o->kind) {
	case MOP_PRIVATE:
		/* Nothing done here may propagate to the host. */
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			return setup_fail(STAGE_MOUNT, errno, "make / private");
		return 0;
	case MOP_CLONE:
		return (slots[o->slot] = clone_tree(o->path)) < 0 ? -1 : 0;
	case MOP_CLONE_RO:
		slots[o->slot] = clone_readonly(o->path);
		if (slots[o->slot] < 0 && !o->optional)
			return setup_fail(STAGE_MOUNT, errno,
					  "keep the read root %s (resolved without symlinks)", o->path);
		return 0;
	case MOP_CLONE_SELF:
		if ((slots[o->slot] = clone_self_exe()) < 0)
			return setup_fail(STAGE_MOUNT, errno, "bind wicket itself");
		return 0;
	case MOP_HOLD_DEV:
		for (size_t i = 0; i < WK_N_DEV_NODES; i++) {
			const char *path = wk_dev_nodes[i].path;
			/* Held by an O_PATH descriptor across the tmpfs that
			 * covers /dev, then bound from /proc/self/fd/N: a plain
			 * bind is several times cheaper than cloning a detached
			 * tree. A missing node is not fatal: the sandbox just
			 * lacks it too. */
			node_fd[i] = open(path, O_PATH | O_CLOEXEC);
		}
		return 0;
	case MOP_FREEZE:
		/* This is what stops chmod, chown, utimes, xattrs and inode
		 * flags outside the workspace, which Landlock does not mediate. */
		if (do_setattr(AT_FDCWD, o->path, AT_RECURSIVE,
			       MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0) < 0)
			return setup_fail(STAGE_MOUNT, errno, "make %s read-only", o->path);
		return 0;
	case MOP_TMPFS:
	case MOP_DEV:
		/* Memory, so each has the policy's size limit (a full one is
		 * ENOSPC inside, not memory taken from the host). */
		snprintf(opts, sizeof opts, "mode=1777,size=%s", o->arg ? o->arg : WK_TMP_SIZE_DEFAULT);
		if (o->kind == MOP_DEV)
			return build_dev(node_fd, opts);
		return mount_tmpfs(o->path, MS_NOSUID | MS_NODEV, opts);
	case MOP_RUN:
		/* System and session services (D-Bus, systemd, docker, agents)
		 * listen on sockets under /run; Landlock before ABI 9 cannot
		 * stop a connect() to them, so they are not there at all. */
		if (mount_tmpfs(o->path, MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=64k") < 0)
			return -1;
		if (mknod(run_empty, S_IFREG | 0000, 0) < 0)
			return setup_fail(STAGE_MOUNT, errno, "create %s", run_empty);
		return 0;
	case MOP_ATTACH:
		if (slots[o->slot] < 0)
			return 0; /* an optional copy that could not be made */
		return attach_slot(slots[o->slot], o->path);
	case MOP_PIN:
		/* A mount point cannot be renamed or removed (EBUSY). */
		return pin(o->path);
	case MOP_PROTECT:
		return protect(o->path);
	case MOP_RDONLY:
		if (do_setattr(AT_FDCWD, o->path, 0, MOUNT_ATTR_RDONLY, 0, 0) < 0)
			return setup_fail(STAGE_MOUNT, errno, "make %s read-only", o->path);
		return 0;
	case MOP_HIDE:
		return hide_path(o->path, empty_src, o->from_run);
	case MOP_CHDIR:
		/* The old cwd points into the frozen tree. */
		if (chdir(o->path) < 0)
			return setup_fail(STAGE_CHDIR, errno, "chdir %s", o->path);
		return 0;
	case MOP_KINDS:
		break;
	}
	return setup_fail(STAGE_MOUNT, EINVAL, "unknown mount operation %d", (int)o->kind);
}

int mounts_run(const struct mount_ops *ops)
{
	int node_fd[WK_N_DEV_NODES], empty_src = -1, ret = 0;
	size_t nslots = ops->slots > 0 ? (size_t)ops->slots : 0;
	int *slots = xcalloc(nslots + 1, sizeof(int));
	for (size_t i = 0; i < nslots; i++)
		slots[i] = -1;
	for (size_t i = 0; i < WK_N_DEV_NODES; i++)
		node_fd[i] = -1;
	for (size_t i = 0; i < ops->n && ret == 0; i++) {
		const struct mount_op *o = &ops->v[i];
		bool needs_slot = o->kind == MOP_CLONE || o->kind == MOP_CLONE_RO ||
				  o->kind == MOP_CLONE_SELF || o->kind == MOP_ATTACH;
		bool needs_path = o->kind != MOP_PRIVATE && o->kind != MOP_HOLD_DEV &&
				  o->kind != MOP_CLONE_SELF;
		if ((needs_slot && (o->slot < 0 || (size_t)o->slot >= nslots)) ||
		    (needs_path && (!o->path || o->path[0] != '/')))
			ret = setup_fail(STAGE_MOUNT, EINVAL, "a malformed %s operation",
					 mount_op_name(o->kind));
		else
			ret = run_op(o, slots, node_fd, &empty_src);
	}
	close_all(slots, nslots);
	close_all(node_fd, WK_N_DEV_NODES);
	if (empty_src >= 0)
		close(empty_src);
	free(slots);
	return ret < 0 ? -1 : 0;
}

/* A /proc for the new pid namespace; read-only (Landlock denies writes
 * outside the writable roots anyway, this makes /proc/sys explicit). */
int mounts_proc(void)
{
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL) < 0)
		return setup_fail(STAGE_PROC, errno, "mount /proc");
	return 0;
}
