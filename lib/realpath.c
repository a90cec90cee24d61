#include "config.h"
#include "realpath.h"
#include "pathlex.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* PATH resolved by the kernel, links and all, and named by /proc: the
 * path by which this process reaches it from its root, which is
 * realpath()'s answer. NULL where /proc cannot say (not mounted, the
 * object removed meanwhile, a name the kernel marks): realpath() then. */
static char *followed(const char *path)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC};
	/* host: the caller's path, as realpath() would look it up */
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
	if (fd < 0)
		return NULL;
	char link[32], buf[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	/* host: our own descriptor */
	ssize_t n = readlink(link, buf, sizeof buf);
	close(fd);
	if (n <= 0 || (size_t)n >= sizeof buf || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	static const char deleted[] = " (deleted)";
	size_t dl = sizeof deleted - 1;
	if ((size_t)n >= dl && memcmp(buf + n - dl, deleted, dl) == 0)
		return NULL;
	return xstrdup(buf);
}

char *wk_realpath(const char *path)
{
	if (!path || path[0] != '/')
		/* host: realpath()'s own: the caller's path, as given */
		return realpath(path, NULL);
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	/* host: the caller's path, as realpath() would look it up */
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return NULL;
		/* ELOOP: a link on the way (/bin and /sbin on a merged /usr,
		 * on every PATH): the kernel follows them in one call and
		 * names where it got to, where realpath() reads each
		 * component. */
		char *r = errno == ELOOP ? followed(path) : NULL;
		if (r)
			return r;
		/* EACCES: realpath() takes "x/.." as the directory of x
		 * without searching x, the kernel does not; ENAMETOOLONG: a
		 * PATH longer than the kernel takes, which realpath() may still
		 * make shorter; ENOSYS, EMFILE, no /proc ...: nothing known */
		/* host: as above */
		return realpath(path, NULL);
	}
	close(fd);
	char *out = xstrdup(path);
	pathlex_normalize(out);
	if (strlen(out) >= PATH_MAX) {
		free(out);
		errno = ENAMETOOLONG;
		return NULL;
	}
	return out;
}

int wk_look_no_link(const char *path)
{
	if (!path || path[0] != '/')
		return EINVAL;
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	/* host: the caller's path, looked at as lstat() of each part would */
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

bool wk_no_link_on_way(const char *path)
{
	int e = wk_look_no_link(path);
	/* The walk stops at the first part that is missing or no
	 * directory: a link after it cannot be there, one before it would
	 * have been ELOOP. */
	return e == 0 || e == ENOENT || e == ENOTDIR;
}
