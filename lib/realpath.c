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
		/* ELOOP: a link on the way; EACCES: realpath() takes "x/.." as
		 * the directory of x without searching x, the kernel does not;
		 * ENAMETOOLONG: a PATH longer than the kernel takes, which
		 * realpath() may still make shorter; ENOSYS, EMFILE ...:
		 * nothing known */
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
