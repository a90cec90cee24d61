/* libwicket-preload: the libc entry points through which the sandbox can
 * refuse a write, a read of a hidden path, an exec or the network.
 *
 * Each wrapper calls the real function (dlsym(RTLD_NEXT), resolved once
 * and kept in an atomic slot) and returns exactly what it returned, with
 * the errno it set. Only when the call failed does diag.c look at it.
 * Nothing is exported but these wrappers (-fvisibility=hidden).
 *
 * What this cannot see, by construction: calls made with syscall(2) or
 * inline system calls (Go, static binaries, io_uring, which seccomp
 * refuses anyway), calls libc makes internally (fopen's own open,
 * posix_spawn's exec in the child: their callers are wrapped instead),
 * and metadata refusals of the Landlock-only fallback, where nothing
 * refuses them. See preload/README.md. */
#undef _FORTIFY_SOURCE
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include "diag.h"
#include "fdguard.h"

#define EXPORT __attribute__((visibility("default")))

/* Not declared by the headers without _FORTIFY_SOURCE (or at all). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev);
int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev);
/* Public (GLIBC_2.2.5) aliases a program can call by name. */
int __close(int fd);
int __dup2(int old, int fd);
int __fcntl(int fd, int cmd, ...);

/* REAL(name): the next definition of NAME, as a pointer of NAME's type;
 * NULL (and the wrapper fails with ENOSYS) if there is none. */
#define DEFINE_REAL(name)                                                                  \
	static void *_Atomic real_slot_##name;                                             \
	static __typeof__(&name) real_##name(void)                                         \
	{                                                                                  \
		void *p = atomic_load_explicit(&real_slot_##name, memory_order_acquire);   \
		if (!p) {                                                                  \
			int e = errno;                                                     \
			p = dlsym(RTLD_NEXT, #name);                                       \
			errno = e;                                                         \
			atomic_store_explicit(&real_slot_##name, p, memory_order_release); \
		}                                                                          \
		return (__typeof__(&name))p;                                               \
	}

#define CALL(name, fail, ...)                                 \
	__extension__({                                       \
		__typeof__(&name) fn_ = real_##name();        \
		fn_ ? fn_(__VA_ARGS__) : (errno = ENOSYS, fail); \
	})

/* ---- the open family ------------------------------------------------- */

static bool open_needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

static void open_failed(int dirfd, const char *path, int flags)
{
	int err = errno;
	int acc = flags & O_ACCMODE;
	if ((flags & O_TMPFILE) == O_TMPFILE)
		diag_fs(dirfd, path, err, DF_WRITE | DF_PARENT, "create");
	else if (acc == O_WRONLY || acc == O_RDWR || (flags & (O_CREAT | O_TRUNC)))
		diag_fs(dirfd, path, err, DF_WRITE | ((flags & O_CREAT) ? DF_CREAT : 0),
			"open for writing");
	else
		diag_fs(dirfd, path, err, DF_READ, "open");
	errno = err;
}

/* The shell's hooks read their status through /dev/fd/N before each
 * prompt (diag_status_sync): one compare for every other open. */
static inline void before_open(const char *path)
{
	if (__builtin_expect(path && path[0] == '/' && path[1] == 'd' && strncmp(path, "/dev/fd/", 8) == 0, 0))
		diag_status_sync(path + 8);
}

#define OPEN_MODE(flags, mode)                   \
	do {                                     \
		if (open_needs_mode(flags)) {    \
			va_list ap_;             \
			va_start(ap_, flags);    \
			mode = (mode_t)va_arg(ap_, int); \
			va_end(ap_);             \
		}                                \
	} while (0)

DEFINE_REAL(open)
EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	OPEN_MODE(flags, mode);
	before_open(path);
	int r = CALL(open, -1, path, flags, mode);
	if (r < 0)
		open_failed(AT_FDCWD, path, flags);
	return r;
}

DEFINE_REAL(open64)
EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	OPEN_MODE(flags, mode);
	before_open(path);
	int r = CALL(open64, -1, path, flags, mode);
	if (r < 0)
		open_failed(AT_FDCWD, path, flags);
	return r;
}

DEFINE_REAL(openat)
EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	OPEN_MODE(flags, mode);
	before_open(path);
	int r = CALL(openat, -1, dirfd, path, flags, mode);
	if (r < 0)
		open_failed(dirfd, path, flags);
	return r;
}

DEFINE_REAL(openat64)
EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	OPEN_MODE(flags, mode);
	before_open(path);
	int r = CALL(openat64, -1, dirfd, path, flags, mode);
	if (r < 0)
		open_failed(dirfd, path, flags);
	return r;
}

DEFINE_REAL(__open_2)
EXPORT int __open_2(const char *path, int flags)
{
	before_open(path);
	int r = CALL(__open_2, -1, path, flags);
	if (r < 0)
		open_failed(AT_FDCWD, path, flags);
	return r;
}

DEFINE_REAL(__open64_2)
EXPORT int __open64_2(const char *path, int flags)
{
	before_open(path);
	int r = CALL(__open64_2, -1, path, flags);
	if (r < 0)
		open_failed(AT_FDCWD, path, flags);
	return r;
}

DEFINE_REAL(__openat_2)
EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	before_open(path);
	int r = CALL(__openat_2, -1, dirfd, path, flags);
	if (r < 0)
		open_failed(dirfd, path, flags);
	return r;
}

DEFINE_REAL(__openat64_2)
EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	before_open(path);
	int r = CALL(__openat64_2, -1, dirfd, path, flags);
	if (r < 0)
		open_failed(dirfd, path, flags);
	return r;
}

DEFINE_REAL(creat)
EXPORT int creat(const char *path, mode_t mode)
{
	int r = CALL(creat, -1, path, mode);
	if (r < 0)
		open_failed(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC);
	return r;
}

DEFINE_REAL(creat64)
EXPORT int creat64(const char *path, mode_t mode)
{
	int r = CALL(creat64, -1, path, mode);
	if (r < 0)
		open_failed(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC);
	return r;
}

/* fopen's MODE as open(2) flags (what matters here: access and O_CREAT). */
static int fopen_flags(const char *mode)
{
	if (!mode)
		return O_RDONLY;
	bool plus = strchr(mode, '+') != NULL;
	switch (mode[0]) {
	case 'w':
		return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC;
	case 'a':
		return (plus ? O_RDWR : O_WRONLY) | O_CREAT;
	default:
		return plus ? O_RDWR : O_RDONLY;
	}
}

DEFINE_REAL(fopen)
EXPORT FILE *fopen(const char *path, const char *mode)
{
	FILE *f = CALL(fopen, NULL, path, mode);
	if (!f)
		open_failed(AT_FDCWD, path, fopen_flags(mode));
	return f;
}

DEFINE_REAL(fopen64)
EXPORT FILE *fopen64(const char *path, const char *mode)
{
	FILE *f = CALL(fopen64, NULL, path, mode);
	if (!f)
		open_failed(AT_FDCWD, path, fopen_flags(mode));
	return f;
}

DEFINE_REAL(freopen)
EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream)
{
	FILE *f = CALL(freopen, NULL, path, mode, stream);
	if (!f && path)
		open_failed(AT_FDCWD, path, fopen_flags(mode));
	return f;
}

DEFINE_REAL(freopen64)
EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
	FILE *f = CALL(freopen64, NULL, path, mode, stream);
	if (!f && path)
		open_failed(AT_FDCWD, path, fopen_flags(mode));
	return f;
}

DEFINE_REAL(opendir)
EXPORT DIR *opendir(const char *path)
{
	DIR *d = CALL(opendir, NULL, path);
	if (!d) {
		int err = errno;
		diag_fs(AT_FDCWD, path, err, DF_READ, "open directory");
		errno = err;
	}
	return d;
}

/* ---- creating and removing entries -------------------------------------- */

/* R < 0: run diag_fs on (DIRFD, PATH) with the errno R left. */
#define FS_FAILED(r, dirfd, path, flags, what)                        \
	do {                                                          \
		if ((r) < 0) {                                        \
			int err_ = errno;                             \
			diag_fs((dirfd), (path), err_, (flags), (what)); \
			errno = err_;                                 \
		}                                                     \
	} while (0)

#define W_ENTRY (DF_WRITE | DF_PARENT)

DEFINE_REAL(mkdir)
EXPORT int mkdir(const char *path, mode_t mode)
{
	int r = CALL(mkdir, -1, path, mode);
	FS_FAILED(r, AT_FDCWD, path, W_ENTRY, "mkdir");
	return r;
}

DEFINE_REAL(mkdirat)
EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
	int r = CALL(mkdirat, -1, dirfd, path, mode);
	FS_FAILED(r, dirfd, path, W_ENTRY, "mkdir");
	return r;
}

DEFINE_REAL(mknod)
EXPORT int mknod(const char *path, mode_t mode, dev_t dev)
{
	int r = CALL(mknod, -1, path, mode, dev);
	FS_FAILED(r, AT_FDCWD, path, W_ENTRY, "mknod");
	return r;
}

DEFINE_REAL(mknodat)
EXPORT int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	int r = CALL(mknodat, -1, dirfd, path, mode, dev);
	FS_FAILED(r, dirfd, path, W_ENTRY, "mknod");
	return r;
}

/* Still exported by glibc 2.36 (x86_64) for programs built before 2.33. */
DEFINE_REAL(__xmknod)
EXPORT int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev)
{
	int r = CALL(__xmknod, -1, ver, path, mode, dev);
	FS_FAILED(r, AT_FDCWD, path, W_ENTRY, "mknod");
	return r;
}

DEFINE_REAL(__xmknodat)
EXPORT int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev)
{
	int r = CALL(__xmknodat, -1, ver, dirfd, path, mode, dev);
	FS_FAILED(r, dirfd, path, W_ENTRY, "mknod");
	return r;
}

DEFINE_REAL(mkfifo)
EXPORT int mkfifo(const char *path, mode_t mode)
{
	int r = CALL(mkfifo, -1, path, mode);
	FS_FAILED(r, AT_FDCWD, path, W_ENTRY, "mkfifo");
	return r;
}

DEFINE_REAL(mkfifoat)
EXPORT int mkfifoat(int dirfd, const char *path, mode_t mode)
{
	int r = CALL(mkfifoat, -1, dirfd, path, mode);
	FS_FAILED(r, dirfd, path, W_ENTRY, "mkfifo");
	return r;
}

DEFINE_REAL(rmdir)
EXPORT int rmdir(const char *path)
{
	int r = CALL(rmdir, -1, path);
	FS_FAILED(r, AT_FDCWD, path, W_ENTRY | DF_BUSY, "rmdir");
	return r;
}

DEFINE_REAL(unlink)
EXPORT int unlink(const char *path)
{
	int r = CALL(unlink, -1, path);
	FS_FAILED(r, AT_FDCWD, path, W_ENTRY | DF_BUSY, "unlink");
	return r;
}

DEFINE_REAL(unlinkat)
EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	int r = CALL(unlinkat, -1, dirfd, path, flags);
	FS_FAILED(r, dirfd, path, W_ENTRY | DF_BUSY, (flags & AT_REMOVEDIR) ? "rmdir" : "unlink");
	return r;
}

DEFINE_REAL(remove)
EXPORT int remove(const char *path)
{
	int r = CALL(remove, -1, path);
	FS_FAILED(r, AT_FDCWD, path, W_ENTRY | DF_BUSY, "remove");
	return r;
}

/* A rename is refused for its destination or for its source: the first
 * the sandbox refuses is named. */
static void rename_failed(int olddir, const char *oldp, int newdir, const char *newp,
			  unsigned flags)
{
	int err = errno;
	unsigned fl = W_ENTRY | DF_XDEV | DF_BUSY;
	/* A rename that could not have succeeded anyway (onto an existing
	 * name with RENAME_NOREPLACE, a file onto a directory) is a probe,
	 * as mv's renameat2(SRC, "DIR/", RENAME_NOREPLACE): silent. */
	struct stat ds, ss;
	if (fstatat(newdir, newp, &ds, AT_SYMLINK_NOFOLLOW) == 0 &&
	    ((flags & RENAME_NOREPLACE) ||
	     (S_ISDIR(ds.st_mode) && fstatat(olddir, oldp, &ss, AT_SYMLINK_NOFOLLOW) == 0 &&
	      !S_ISDIR(ss.st_mode)))) {
		errno = err;
		return;
	}
	if (!diag_fs(newdir, newp, err, fl, "rename"))
		diag_fs(olddir, oldp, err, fl, "rename");
	errno = err;
}

DEFINE_REAL(rename)
EXPORT int rename(const char *oldp, const char *newp)
{
	int r = CALL(rename, -1, oldp, newp);
	if (r < 0)
		rename_failed(AT_FDCWD, oldp, AT_FDCWD, newp, 0);
	return r;
}

DEFINE_REAL(renameat)
EXPORT int renameat(int olddir, const char *oldp, int newdir, const char *newp)
{
	int r = CALL(renameat, -1, olddir, oldp, newdir, newp);
	if (r < 0)
		rename_failed(olddir, oldp, newdir, newp, 0);
	return r;
}

DEFINE_REAL(renameat2)
EXPORT int renameat2(int olddir, const char *oldp, int newdir, const char *newp, unsigned flags)
{
	int r = CALL(renameat2, -1, olddir, oldp, newdir, newp, flags);
	if (r < 0)
		rename_failed(olddir, oldp, newdir, newp, flags);
	return r;
}

DEFINE_REAL(link)
EXPORT int link(const char *oldp, const char *newp)
{
	int r = CALL(link, -1, oldp, newp);
	FS_FAILED(r, AT_FDCWD, newp, W_ENTRY | DF_XDEV, "link");
	return r;
}

DEFINE_REAL(linkat)
EXPORT int linkat(int olddir, const char *oldp, int newdir, const char *newp, int flags)
{
	int r = CALL(linkat, -1, olddir, oldp, newdir, newp, flags);
	FS_FAILED(r, newdir, newp, W_ENTRY | DF_XDEV, "link");
	return r;
}

DEFINE_REAL(symlink)
EXPORT int symlink(const char *target, const char *linkp)
{
	int r = CALL(symlink, -1, target, linkp);
	FS_FAILED(r, AT_FDCWD, linkp, W_ENTRY, "symlink");
	return r;
}

DEFINE_REAL(symlinkat)
EXPORT int symlinkat(const char *target, int dirfd, const char *linkp)
{
	int r = CALL(symlinkat, -1, target, dirfd, linkp);
	FS_FAILED(r, dirfd, linkp, W_ENTRY, "symlink");
	return r;
}

/* ---- contents and metadata ---------------------------------------------- */

DEFINE_REAL(truncate)
EXPORT int truncate(const char *path, off_t len)
{
	int r = CALL(truncate, -1, path, len);
	FS_FAILED(r, AT_FDCWD, path, DF_WRITE, "truncate");
	return r;
}

DEFINE_REAL(truncate64)
EXPORT int truncate64(const char *path, off64_t len)
{
	int r = CALL(truncate64, -1, path, len);
	FS_FAILED(r, AT_FDCWD, path, DF_WRITE, "truncate");
	return r;
}

/* Landlock's truncate right is taken at open time, so a descriptor opened
 * for writing is refused a truncate only on a file opened elsewhere. */
DEFINE_REAL(ftruncate)
EXPORT int ftruncate(int fd, off_t len)
{
	int r = CALL(ftruncate, -1, fd, len);
	FS_FAILED(r, fd, NULL, DF_WRITE, "truncate");
	return r;
}

DEFINE_REAL(ftruncate64)
EXPORT int ftruncate64(int fd, off64_t len)
{
	int r = CALL(ftruncate64, -1, fd, len);
	FS_FAILED(r, fd, NULL, DF_WRITE, "truncate");
	return r;
}

#define W_META (DF_WRITE | DF_META)

DEFINE_REAL(chmod)
EXPORT int chmod(const char *path, mode_t mode)
{
	int r = CALL(chmod, -1, path, mode);
	FS_FAILED(r, AT_FDCWD, path, W_META, "chmod");
	return r;
}

DEFINE_REAL(lchmod)
EXPORT int lchmod(const char *path, mode_t mode)
{
	int r = CALL(lchmod, -1, path, mode);
	FS_FAILED(r, AT_FDCWD, path, W_META, "chmod");
	return r;
}

DEFINE_REAL(fchmod)
EXPORT int fchmod(int fd, mode_t mode)
{
	int r = CALL(fchmod, -1, fd, mode);
	FS_FAILED(r, fd, NULL, W_META, "chmod");
	return r;
}

DEFINE_REAL(fchmodat)
EXPORT int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	int r = CALL(fchmodat, -1, dirfd, path, mode, flags);
	FS_FAILED(r, dirfd, path, W_META, "chmod");
	return r;
}

DEFINE_REAL(chown)
EXPORT int chown(const char *path, uid_t uid, gid_t gid)
{
	int r = CALL(chown, -1, path, uid, gid);
	FS_FAILED(r, AT_FDCWD, path, W_META, "chown");
	return r;
}

DEFINE_REAL(lchown)
EXPORT int lchown(const char *path, uid_t uid, gid_t gid)
{
	int r = CALL(lchown, -1, path, uid, gid);
	FS_FAILED(r, AT_FDCWD, path, W_META, "chown");
	return r;
}

DEFINE_REAL(fchown)
EXPORT int fchown(int fd, uid_t uid, gid_t gid)
{
	int r = CALL(fchown, -1, fd, uid, gid);
	FS_FAILED(r, fd, NULL, W_META, "chown");
	return r;
}

DEFINE_REAL(fchownat)
EXPORT int fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
	int r = CALL(fchownat, -1, dirfd, path, uid, gid, flags);
	FS_FAILED(r, dirfd, path, W_META, "chown"); /* "" with AT_EMPTY_PATH: DIRFD */
	return r;
}

DEFINE_REAL(utime)
EXPORT int utime(const char *path, const struct utimbuf *t)
{
	int r = CALL(utime, -1, path, t);
	FS_FAILED(r, AT_FDCWD, path, W_META, "set times");
	return r;
}

DEFINE_REAL(utimes)
EXPORT int utimes(const char *path, const struct timeval t[2])
{
	int r = CALL(utimes, -1, path, t);
	FS_FAILED(r, AT_FDCWD, path, W_META, "set times");
	return r;
}

DEFINE_REAL(lutimes)
EXPORT int lutimes(const char *path, const struct timeval t[2])
{
	int r = CALL(lutimes, -1, path, t);
	FS_FAILED(r, AT_FDCWD, path, W_META, "set times");
	return r;
}

DEFINE_REAL(futimes)
EXPORT int futimes(int fd, const struct timeval t[2])
{
	int r = CALL(futimes, -1, fd, t);
	FS_FAILED(r, fd, NULL, W_META, "set times");
	return r;
}

DEFINE_REAL(futimesat)
EXPORT int futimesat(int dirfd, const char *path, const struct timeval t[2])
{
	int r = CALL(futimesat, -1, dirfd, path, t);
	FS_FAILED(r, dirfd, path, W_META, "set times");
	return r;
}

DEFINE_REAL(utimensat)
EXPORT int utimensat(int dirfd, const char *path, const struct timespec t[2], int flags)
{
	int r = CALL(utimensat, -1, dirfd, path, t, flags);
	FS_FAILED(r, dirfd, path, W_META, "set times");
	return r;
}

DEFINE_REAL(futimens)
EXPORT int futimens(int fd, const struct timespec t[2])
{
	int r = CALL(futimens, -1, fd, t);
	FS_FAILED(r, fd, NULL, W_META, "set times");
	return r;
}

DEFINE_REAL(setxattr)
EXPORT int setxattr(const char *path, const char *name, const void *v, size_t n, int flags)
{
	int r = CALL(setxattr, -1, path, name, v, n, flags);
	FS_FAILED(r, AT_FDCWD, path, W_META, "set xattr");
	return r;
}

DEFINE_REAL(lsetxattr)
EXPORT int lsetxattr(const char *path, const char *name, const void *v, size_t n, int flags)
{
	int r = CALL(lsetxattr, -1, path, name, v, n, flags);
	FS_FAILED(r, AT_FDCWD, path, W_META, "set xattr");
	return r;
}

DEFINE_REAL(fsetxattr)
EXPORT int fsetxattr(int fd, const char *name, const void *v, size_t n, int flags)
{
	int r = CALL(fsetxattr, -1, fd, name, v, n, flags);
	FS_FAILED(r, fd, NULL, W_META, "set xattr");
	return r;
}

DEFINE_REAL(removexattr)
EXPORT int removexattr(const char *path, const char *name)
{
	int r = CALL(removexattr, -1, path, name);
	FS_FAILED(r, AT_FDCWD, path, W_META, "remove xattr");
	return r;
}

DEFINE_REAL(lremovexattr)
EXPORT int lremovexattr(const char *path, const char *name)
{
	int r = CALL(lremovexattr, -1, path, name);
	FS_FAILED(r, AT_FDCWD, path, W_META, "remove xattr");
	return r;
}

DEFINE_REAL(fremovexattr)
EXPORT int fremovexattr(int fd, const char *name)
{
	int r = CALL(fremovexattr, -1, fd, name);
	FS_FAILED(r, fd, NULL, W_META, "remove xattr");
	return r;
}

/* ---- temporary files ---------------------------------------------------- */

/* The template as the caller wrote it: libc leaves its last attempt in
 * the X's, and one name per attempt would defeat "once per object". */
static void temp_failed(const char *tmpl, int suffixlen, const char *what)
{
	int err = errno;
	char t[PATH_MAX];
	size_t n = tmpl ? strlen(tmpl) : 0;
	if (n >= 6 + (size_t)(suffixlen > 0 ? suffixlen : 0) && n < sizeof t) {
		memcpy(t, tmpl, n + 1);
		memset(t + n - (size_t)(suffixlen > 0 ? suffixlen : 0) - 6, 'X', 6);
		diag_fs(AT_FDCWD, t, err, W_ENTRY, what);
	}
	errno = err;
}

#define MKSTEMP(name, params, args, suffix)           \
	DEFINE_REAL(name)                             \
	EXPORT int name params                        \
	{                                             \
		int r = CALL(name, -1, args);         \
		if (r < 0)                            \
			temp_failed(tmpl, suffix, "create"); \
		return r;                             \
	}

#define ARGS(...) __VA_ARGS__
MKSTEMP(mkstemp, (char *tmpl), ARGS(tmpl), 0)
MKSTEMP(mkstemp64, (char *tmpl), ARGS(tmpl), 0)
MKSTEMP(mkstemps, (char *tmpl, int sl), ARGS(tmpl, sl), sl)
MKSTEMP(mkstemps64, (char *tmpl, int sl), ARGS(tmpl, sl), sl)
MKSTEMP(mkostemp, (char *tmpl, int fl), ARGS(tmpl, fl), 0)
MKSTEMP(mkostemp64, (char *tmpl, int fl), ARGS(tmpl, fl), 0)
MKSTEMP(mkostemps, (char *tmpl, int sl, int fl), ARGS(tmpl, sl, fl), sl)
MKSTEMP(mkostemps64, (char *tmpl, int sl, int fl), ARGS(tmpl, sl, fl), sl)

DEFINE_REAL(mkdtemp)
EXPORT char *mkdtemp(char *tmpl)
{
	char *r = CALL(mkdtemp, NULL, tmpl);
	if (!r)
		temp_failed(tmpl, 0, "mkdir");
	return r;
}

/* ---- exec ----------------------------------------------------------------- */

#define X_FLAGS (DF_READ | DF_EXEC)

static void exec_failed(int dirfd, const char *path)
{
	int err = errno;
	diag_fs(dirfd, path, err, X_FLAGS, "exec");
	errno = err;
}

/* execvp and friends search PATH: the candidate the sandbox refused is
 * the one to name (only for EACCES, the error a search keeps). */
static void execp_failed(const char *file, int err)
{
	if (!file || !*file)
		return;
	if (strchr(file, '/')) {
		diag_fs(AT_FDCWD, file, err, X_FLAGS, "exec");
		return;
	}
	if (err != EACCES)
		return;
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	size_t fl = strlen(file);
	char cand[PATH_MAX];
	for (const char *p = path;;) {
		const char *e = strchr(p, ':');
		size_t dl = e ? (size_t)(e - p) : strlen(p);
		if (dl + 1 + fl < sizeof cand) {
			memcpy(cand, p, dl);
			size_t n = dl;
			if (n)
				cand[n++] = '/';
			memcpy(cand + n, file, fl + 1);
			if (diag_fs_denied(AT_FDCWD, cand, err, X_FLAGS)) {
				diag_fs(AT_FDCWD, cand, err, X_FLAGS, "exec");
				return;
			}
		}
		if (!e)
			return;
		p = e + 1;
	}
}

DEFINE_REAL(execve)
EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int r = CALL(execve, -1, path, argv, envp);
	exec_failed(AT_FDCWD, path);
	return r;
}

DEFINE_REAL(execv)
EXPORT int execv(const char *path, char *const argv[])
{
	int r = CALL(execv, -1, path, argv);
	exec_failed(AT_FDCWD, path);
	return r;
}

DEFINE_REAL(execvp)
EXPORT int execvp(const char *file, char *const argv[])
{
	int r = CALL(execvp, -1, file, argv);
	int err = errno;
	execp_failed(file, err);
	errno = err;
	return r;
}

DEFINE_REAL(execvpe)
EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int r = CALL(execvpe, -1, file, argv, envp);
	int err = errno;
	execp_failed(file, err);
	errno = err;
	return r;
}

DEFINE_REAL(fexecve)
EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	int r = CALL(fexecve, -1, fd, argv, envp);
	exec_failed(fd, NULL);
	return r;
}

DEFINE_REAL(execveat)
EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		    int flags)
{
	int r = CALL(execveat, -1, dirfd, path, argv, envp, flags);
	exec_failed(dirfd, path); /* "" with AT_EMPTY_PATH: DIRFD itself */
	return r;
}

/* The execl family builds its argv and goes through the wrappers above
 * (libc's own execl calls execve internally, where no wrapper sees it). */
#define COUNT_ARGS(arg0, n)                                      \
	do {                                                     \
		va_list ap_;                                     \
		va_start(ap_, arg0);                             \
		n = 1;                                           \
		while (va_arg(ap_, const char *) && n < INT_MAX) \
			n++;                                     \
		va_end(ap_);                                     \
	} while (0)

extern char **environ;

EXPORT int execl(const char *path, const char *arg0, ...)
{
	size_t n;
	COUNT_ARGS(arg0, n);
	char *argv[n + 1];
	va_list ap;
	va_start(ap, arg0);
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	return execve(path, argv, environ);
}

EXPORT int execle(const char *path, const char *arg0, ...)
{
	size_t n;
	COUNT_ARGS(arg0, n);
	char *argv[n + 1];
	va_list ap;
	va_start(ap, arg0);
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

EXPORT int execlp(const char *file, const char *arg0, ...)
{
	size_t n;
	COUNT_ARGS(arg0, n);
	char *argv[n + 1];
	va_list ap;
	va_start(ap, arg0);
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	return execvp(file, argv);
}

/* posix_spawn returns the error instead of setting errno. */
DEFINE_REAL(posix_spawn)
EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	int r = CALL(posix_spawn, ENOSYS, pid, path, fa, attr, argv, envp);
	if (r) {
		int saved = errno;
		diag_fs(AT_FDCWD, path, r, X_FLAGS, "exec");
		errno = saved;
	}
	return r;
}

DEFINE_REAL(posix_spawnp)
EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	int r = CALL(posix_spawnp, ENOSYS, pid, file, fa, attr, argv, envp);
	if (r) {
		int saved = errno;
		execp_failed(file, r);
		errno = saved;
	}
	return r;
}

/* ---- network -------------------------------------------------------------- */

DEFINE_REAL(socket)
EXPORT int socket(int domain, int type, int proto)
{
	int r = CALL(socket, -1, domain, type, proto);
	if (r < 0) {
		int err = errno;
		diag_socket(domain, type, err);
		errno = err;
	}
	return r;
}

DEFINE_REAL(connect)
EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	int r = CALL(connect, -1, fd, addr, len);
	if (r < 0) {
		int err = errno;
		diag_net("connect", fd, addr, len, 0, err);
		errno = err;
	}
	return r;
}

DEFINE_REAL(bind)
EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	int r = CALL(bind, -1, fd, addr, len);
	if (r < 0) {
		int err = errno;
		diag_net("bind", fd, addr, len, 0, err);
		errno = err;
	}
	return r;
}

DEFINE_REAL(sendto)
EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *addr,
		      socklen_t len)
{
	ssize_t r = CALL(sendto, -1, fd, buf, n, flags, addr, len);
	if (r < 0 && addr) {
		int err = errno;
		diag_net("sendto", fd, addr, len, flags, err);
		errno = err;
	}
	return r;
}

DEFINE_REAL(sendmsg)
EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	ssize_t r = CALL(sendmsg, -1, fd, msg, flags);
	if (r < 0 && msg && msg->msg_name) {
		int err = errno;
		diag_net("sendmsg", fd, (const struct sockaddr *)msg->msg_name, msg->msg_namelen,
			 flags, err);
		errno = err;
	}
	return r;
}

/* ---- the supervisor's descriptors (fdguard.c) ---------------------------- */

/* close, close_range, closefrom, dup2/dup3 onto WICKET_FD or WICKET_STATUS_FD,
 * and F_SETFD FD_CLOEXEC on them, pretend to succeed (returning 0, or FD
 * for dup2/dup3) and leave them open, with errno untouched. Any other
 * descriptor costs two compares. (__close_nocancel is GLIBC_PRIVATE: only
 * libc's own libraries reach it, never on a descriptor they did not
 * open.) */

DEFINE_REAL(close)
EXPORT int close(int fd)
{
	if (fdguard_held(fd))
		return 0;
	return CALL(close, -1, fd);
}

DEFINE_REAL(__close)
EXPORT int __close(int fd)
{
	if (fdguard_held(fd))
		return 0;
	return CALL(__close, -1, fd);
}

DEFINE_REAL(dup2)
EXPORT int dup2(int old, int fd)
{
	if (fdguard_held(fd) && fdguard_refuse_dup(old, fd))
		return fd;
	return CALL(dup2, -1, old, fd);
}

DEFINE_REAL(__dup2)
EXPORT int __dup2(int old, int fd)
{
	if (fdguard_held(fd) && fdguard_refuse_dup(old, fd))
		return fd;
	return CALL(__dup2, -1, old, fd);
}

DEFINE_REAL(dup3)
EXPORT int dup3(int old, int fd, int flags)
{
	/* Bad flags fail with EINVAL, FD untouched: let them. */
	if (!(flags & ~O_CLOEXEC) && fdguard_held(fd) && fdguard_refuse_dup(old, fd))
		return fd;
	return CALL(dup3, -1, old, fd, flags);
}

/* fcntl's third argument is an int or a pointer (or absent); read as a
 * pointer and passed on as one, the way libc's own fcntl reads it. Only
 * F_SETFD with FD_CLOEXEC on a guarded descriptor is refused: glib and
 * others mark every descriptor close-on-exec before exec, which loses
 * ours as surely as closing it. */
#define FCNTL_BODY(name)                                                             \
	va_list ap;                                                                  \
	va_start(ap, cmd);                                                           \
	void *arg = va_arg(ap, void *);                                              \
	va_end(ap);                                                                  \
	if (cmd == F_SETFD && ((uintptr_t)arg & FD_CLOEXEC) && fdguard_held(fd)) \
		return 0;                                                            \
	return CALL(name, -1, fd, cmd, arg)

DEFINE_REAL(fcntl)
EXPORT int fcntl(int fd, int cmd, ...)
{
	FCNTL_BODY(fcntl);
}

DEFINE_REAL(fcntl64)
EXPORT int fcntl64(int fd, int cmd, ...)
{
	FCNTL_BODY(fcntl64);
}

DEFINE_REAL(__fcntl)
EXPORT int __fcntl(int fd, int cmd, ...)
{
	FCNTL_BODY(__fcntl);
}

#if __GLIBC_PREREQ(2, 34)
DEFINE_REAL(close_range)
EXPORT int close_range(unsigned lo, unsigned hi, int flags)
{
	if (!fdguard_in_range(lo, hi))
		return CALL(close_range, -1, lo, hi, flags);
	return fdguard_close_range(lo, hi, flags, real_close_range());
}

/* libc's closefrom calls close_range inside libc, where no wrapper sees
 * it: the pieces below a guarded descriptor are closed here. */
DEFINE_REAL(closefrom)
EXPORT void closefrom(int lo)
{
	if (!fdguard_in_range(lo < 0 ? 0U : (unsigned)lo, ~0U)) {
		__typeof__(&closefrom) fn = real_closefrom();
		if (fn)
			fn(lo);
		return;
	}
	fdguard_closefrom(lo, real_closefrom(), real_close_range(), real_close());
}
#endif

/* Resolved before main: close and close_range run in vfork children (as
 * Python's subprocess makes them), where dlsym and its loader lock had
 * better not. */
__attribute__((constructor)) static void resolve_guards(void)
{
	real_close();
	real_dup2();
	real_dup3();
	real_fcntl();
	real_fcntl64();
#if __GLIBC_PREREQ(2, 34)
	real_close_range();
	real_closefrom();
#endif
}
