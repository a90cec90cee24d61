/* The one way to look at a path the sandbox gave: see view.h. */
#include "config.h"
#include "view.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

static int (*runner)(int (*fn)(void *), void *arg);

void view_set_runner(int (*run)(int (*fn)(void *), void *arg))
{
	runner = run;
}

static int run(int (*fn)(void *), void *arg)
{
	return runner ? runner(fn, arg) : fn(arg);
}

struct lookup {
	int root;
	const char *path;
	bool follow;
};

static int lookup(void *arg)
{
	const struct lookup *l = arg;
	/* O_PATH opens nothing: no driver's open, no FIFO's reader, no
	 * automount. RESOLVE_IN_ROOT makes "/" and ".." of every link
	 * stop at ROOT, as they do for the sandbox itself. */
	struct open_how how = {.flags = O_PATH | O_CLOEXEC | (l->follow ? 0 : O_NOFOLLOW),
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	return (int)syscall(SYS_openat2, l->root, l->path, &how, sizeof how);
}

int view_path(int root, const char *path, bool follow)
{
	if (path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	struct lookup l = {root, path, follow};
	return run(lookup, &l);
}

struct program {
	int root;
	const char *dirs, *name;
};

static int program(void *arg)
{
	const struct program *p = arg;
	for (const char *d = p->dirs; *d;) {
		size_t len = strcspn(d, ":");
		char cand[PATH_MAX];
		if (len && d[0] == '/' &&
		    snprintf(cand, sizeof cand, "%.*s/%s", (int)len, d, p->name) < (int)sizeof cand) {
			struct lookup l = {p->root, cand, true};
			struct open_how how = {.flags = O_PATH | O_CLOEXEC,
					       .resolve = RESOLVE_NO_MAGICLINKS};
			/* ROOT -1: the supervisor's own files (a name of the
			 * policy's), never through a magic link either. */
			int fd = p->root >= 0 ? lookup(&l)
					      : (int)syscall(SYS_openat2, AT_FDCWD, cand, &how, sizeof how);
			struct stat st;
			if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
				return fd;
			if (fd >= 0)
				close(fd);
		}
		d += len;
		if (*d == ':')
			d++;
	}
	errno = ENOENT;
	return -1;
}

int view_program(int root, const char *dirs, const char *name)
{
	struct program p = {root, dirs, name};
	return root >= 0 ? run(program, &p) : program(&p);
}

static int reopen(void *arg)
{
	/* Through the descriptor's own /proc link: the very inode looked
	 * at, whatever became of its name since. */
	char p[64];
	snprintf(p, sizeof p, "/proc/self/fd/%d", *(const int *)arg);
	return open(p, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC); /* host: our own fd */
}

static bool stat_of(int root, const char *path, bool follow, struct stat *st)
{
	int fd = view_path(root, path, follow);
	if (fd < 0)
		return false;
	bool ok = fstat(fd, st) == 0;
	close(fd);
	return ok;
}

bool view_stat(int root, const char *path, struct stat *st)
{
	return stat_of(root, path, true, st);
}

bool view_lstat(int root, const char *path, struct stat *st)
{
	return stat_of(root, path, false, st);
}

ssize_t view_readlink(int root, const char *path, char *buf, size_t size)
{
	int fd = view_path(root, path, false);
	if (fd < 0)
		return -1;
	ssize_t n = readlinkat(fd, "", buf, size);
	close(fd);
	return n;
}

int view_reopen_regular(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	return run(reopen, &fd);
}

int view_open_regular(int root, const char *path)
{
	int fd = view_path(root, path, true);
	if (fd < 0)
		return -1;
	int r = view_reopen_regular(fd);
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

ssize_t view_read_text(int root, const char *path, char *buf, size_t size)
{
	int fd = view_open_regular(root, path);
	if (fd < 0) {
		if (size)
			buf[0] = '\0';
		return -1;
	}
	size_t len = 0;
	while (size && len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (size)
		buf[len] = '\0';
	return (ssize_t)len;
}

FILE *view_fopen(int root, const char *path)
{
	int fd = view_open_regular(root, path);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "re");
	if (!f)
		close(fd);
	return f;
}
