/* fsprobe: file operations a shell cannot do.
 *
 *   fsprobe setflags PATH            FS_IOC_SETFLAGS: add FS_NODUMP_FL
 *   fsprobe fsxattr PATH             FS_IOC_FSSETXATTR: add FS_XFLAG_NODUMP
 *   fsprobe setxattr PATH NAME VALUE setxattr(2)
 *   fsprobe exchange A B             renameat2(RENAME_EXCHANGE)
 *   fsprobe tmplink DIR DEST TEXT    O_TMPFILE in DIR, then link it as DEST
 *   fsprobe mmapw PATH TEXT          MAP_SHARED write mapping of PATH
 *   fsprobe reopen PATH TEXT         open read-only, reopen /proc/self/fd/N for writing
 *   fsprobe handle-save PATH OUT     name_to_handle_at, handle bytes to OUT
 *   fsprobe handle-open DIR HANDLE   open_by_handle_at(DIR's mount), print contents
 *
 * Prints "MODE: OK" or "MODE: ERRNAME" (and "data: ..." for reads); exit 0
 * only on success. The tests judge the files, not this output. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static int report(const char *mode, int ok)
{
	if (ok) {
		printf("%s: OK\n", mode);
	} else {
		const char *n = strerrorname_np(errno);
		printf("%s: %s\n", mode, n ? n : "E?");
	}
	fflush(stdout);
	return ok ? 0 : 1;
}

static int setflags(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return report("setflags", 0);
	int flags = 0;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		return report("setflags", 0);
	flags |= FS_NODUMP_FL;
	int ok = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
	return report("setflags", ok);
}

static int fsxattr(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return report("fsxattr", 0);
	struct fsxattr fx;
	memset(&fx, 0, sizeof fx);
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fx) < 0)
		return report("fsxattr", 0);
	fx.fsx_xflags |= FS_XFLAG_NODUMP;
	int ok = ioctl(fd, FS_IOC_FSSETXATTR, &fx) == 0;
	return report("fsxattr", ok);
}

static int write_all(int fd, const char *text)
{
	size_t len = strlen(text);
	return write(fd, text, len) == (ssize_t)len;
}

static int tmplink(const char *dir, const char *dest, const char *text)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (fd < 0)
		return report("tmplink", 0);
	if (!write_all(fd, text))
		return report("tmplink", 0);
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	int ok = linkat(AT_FDCWD, proc, AT_FDCWD, dest, AT_SYMLINK_FOLLOW) == 0;
	return report("tmplink", ok);
}

static int mmapw(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report("mmapw", 0);
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		/* The read-only descriptor is refused; try a writable one. */
		close(fd);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return report("mmapw", 0);
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			return report("mmapw", 0);
	}
	memcpy(m, text, len);
	int ok = msync(m, len, MS_SYNC) == 0;
	return report("mmapw", ok);
}

static int reopen(const char *path, const char *text)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report("reopen", 0);
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	int w = open(proc, O_WRONLY | O_CLOEXEC);
	if (w < 0)
		return report("reopen", 0);
	return report("reopen", write_all(w, text));
}

static int handle_save(const char *path, const char *out)
{
	char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	struct file_handle *fh = (struct file_handle *)buf;
	fh->handle_bytes = MAX_HANDLE_SZ;
	int mnt;
	if (name_to_handle_at(AT_FDCWD, path, fh, &mnt, 0) < 0)
		return report("handle-save", 0);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return report("handle-save", 0);
	size_t len = sizeof(struct file_handle) + fh->handle_bytes;
	int ok = write(fd, buf, len) == (ssize_t)len;
	close(fd);
	return report("handle-save", ok);
}

static int handle_open(const char *dir, const char *hfile)
{
	char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	memset(buf, 0, sizeof buf);
	int hf = open(hfile, O_RDONLY | O_CLOEXEC);
	if (hf < 0)
		return report("handle-open", 0);
	ssize_t n = read(hf, buf, sizeof buf);
	close(hf);
	struct file_handle *fh = (struct file_handle *)buf;
	if (n < (ssize_t)sizeof(struct file_handle) || fh->handle_bytes > MAX_HANDLE_SZ) {
		fprintf(stderr, "handle-open: bad handle file\n");
		return 2;
	}
	int mfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return report("handle-open", 0);
	int fd = open_by_handle_at(mfd, fh, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report("handle-open", 0);
	char data[512];
	ssize_t r = read(fd, data, sizeof data - 1);
	if (r < 0)
		return report("handle-open", 0);
	data[r] = '\0';
	printf("data: %s\n", data);
	return report("handle-open", 1);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: fsprobe MODE ARGS... (see the source)\n");
		return 2;
	}
	const char *m = argv[1];
	if (strcmp(m, "setflags") == 0 && argc == 3)
		return setflags(argv[2]);
	if (strcmp(m, "fsxattr") == 0 && argc == 3)
		return fsxattr(argv[2]);
	if (strcmp(m, "setxattr") == 0 && argc == 5)
		return report(m, setxattr(argv[2], argv[3], argv[4], strlen(argv[4]), 0) == 0);
	if (strcmp(m, "exchange") == 0 && argc == 4)
		return report(m, renameat2(AT_FDCWD, argv[2], AT_FDCWD, argv[3], RENAME_EXCHANGE) == 0);
	if (strcmp(m, "tmplink") == 0 && argc == 5)
		return tmplink(argv[2], argv[3], argv[4]);
	if (strcmp(m, "mmapw") == 0 && argc == 4)
		return mmapw(argv[2], argv[3]);
	if (strcmp(m, "reopen") == 0 && argc == 4)
		return reopen(argv[2], argv[3]);
	if (strcmp(m, "handle-save") == 0 && argc == 4)
		return handle_save(argv[2], argv[3]);
	if (strcmp(m, "handle-open") == 0 && argc == 4)
		return handle_open(argv[2], argv[3]);
	fprintf(stderr, "fsprobe: bad mode or arguments: %s\n", m);
	return 2;
}
