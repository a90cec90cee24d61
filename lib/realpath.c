#include "config.h"
#include "realpath.h"
#include "pathlex.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
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
	char buf[PATH_MAX];
	bool named = path_of_fd(fd, buf, sizeof buf);
	close(fd);
	if (!named || buf[0] != '/')
		return NULL;
	static const char deleted[] = " (deleted)";
	size_t n = strlen(buf), dl = sizeof deleted - 1;
	if (n >= dl && memcmp(buf + n - dl, deleted, dl) == 0)
		return NULL;
	return xstrdup(buf);
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

char *wk_realpath(const char *path)
{
	if (!path || path[0] != '/')
		/* host: realpath()'s own: the caller's path, as given */
		return realpath(path, NULL);
	int e = wk_look_no_link(path);
	if (e) {
		errno = e;
		if (e == ENOENT || e == ENOTDIR)
			return NULL;
		/* ELOOP: a link on the way (/bin and /sbin on a merged /usr,
		 * on every PATH): the kernel follows them in one call and
		 * names where it got to, where realpath() reads each
		 * component. */
		char *r = e == ELOOP ? followed(path) : NULL;
		if (r)
			return r;
		/* EACCES: realpath() takes "x/.." as the directory of x
		 * without searching x, the kernel does not; ENAMETOOLONG: a
		 * PATH longer than the kernel takes, which realpath() may still
		 * make shorter; ENOSYS, EMFILE, no /proc ...: nothing known */
		/* host: as above */
		return realpath(path, NULL);
	}
	char *out = xstrdup(path);
	pathlex_normalize(out);
	if (strlen(out) >= PATH_MAX) {
		free(out);
		errno = ENAMETOOLONG;
		return NULL;
	}
	return out;
}

bool wk_no_link_on_way(const char *path)
{
	int e = wk_look_no_link(path);
	/* The walk stops at the first part that is missing or no
	 * directory: a link after it cannot be there, one before it would
	 * have been ELOOP. */
	return e == 0 || e == ENOENT || e == ENOTDIR;
}
