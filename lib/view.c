/* The one way to look at a path the sandbox gave: see view.h. */
#include "config.h"
#include "view.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

int view_path(int root, const char *path, bool follow)
{
	if (path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	/* O_PATH opens nothing: no driver's open, no FIFO's reader, no
	 * automount. RESOLVE_IN_ROOT makes "/" and ".." of every link
	 * stop at ROOT, as they do for the sandbox itself. */
	struct open_how how = {.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	return (int)syscall(SYS_openat2, root, path, &how, sizeof how);
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
	/* Through the descriptor's own /proc link: the very inode looked
	 * at, whatever became of its name since. */
	char p[64];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	return open(p, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC); /* host: our own fd */
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
