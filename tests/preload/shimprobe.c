/* shimprobe: calls one libc function the preload shim interposes, so the
 * tests can see what the shim says about each (tests/preload/).
 *
 *   shimprobe OP ARGS...    run OP once; print "OP: OK" or "OP: ERRNAME"
 *   shimprobe loop N OP ARGS...    run OP N times (prints the last result)
 *   shimprobe threads N OP ARGS... run OP once in each of N threads at once
 *   shimprobe fork OP ARGS...      run OP, then again in a forked child
 *
 * The operations take paths (DIR NAME for the *at forms, relative to an
 * O_PATH descriptor of DIR), or HOST PORT for the network. Exit 0 only on
 * success of the last call. The probe itself never prints a "sandbox:"
 * line: anything of the kind comes from the shim. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

/* The _FORTIFY_SOURCE entry points and the pre-2.33 mknod, called by name. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev);
int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev);

extern char **environ;

static int dfd(const char *dir)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "shimprobe: %s: %s\n", dir, strerror(errno));
		exit(2);
	}
	return fd;
}

static int rdfd(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

static int sa_of(const char *host, const char *port, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof *ss);
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((unsigned short)atoi(port));
		*len = sizeof *s4;
		return AF_INET;
	}
	if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((unsigned short)atoi(port));
		*len = sizeof *s6;
		return AF_INET6;
	}
	fprintf(stderr, "shimprobe: bad address %s\n", host);
	exit(2);
}

/* Returns 0 on success, -1 with errno on failure. */
static int op(int argc, char **argv)
{
	const char *o = argv[0];
	const char *a = argc > 1 ? argv[1] : "";
	const char *b = argc > 2 ? argv[2] : "";
	const char *c = argc > 3 ? argv[3] : "";
	int fd, r;
	dev_t dev = 0;
	struct timeval tv[2] = {{1, 0}, {1, 0}};
	struct timespec ts[2] = {{1, 0}, {1, 0}};
	struct utimbuf ub = {1, 1};
	char t[4096];
	struct sockaddr_storage ss;
	socklen_t sl;
	char *const xargv[] = {(char *)a, NULL};
	FILE *f;
	DIR *d;
	pid_t pid;

#define FD_RESULT(expr) ((fd = (expr)) < 0 ? -1 : (close(fd), 0))
	if (!strcmp(o, "open-w")) return FD_RESULT(open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	if (!strcmp(o, "open-a")) return FD_RESULT(open(a, O_WRONLY | O_APPEND));
	if (!strcmp(o, "open-r")) return FD_RESULT(open(a, O_RDONLY));
	if (!strcmp(o, "open-tmpfile")) return FD_RESULT(open(a, O_TMPFILE | O_WRONLY, 0600));
	if (!strcmp(o, "open64-w")) return FD_RESULT(open64(a, O_WRONLY | O_CREAT, 0644));
	if (!strcmp(o, "openat-w")) return FD_RESULT(openat(dfd(a), b, O_WRONLY | O_CREAT, 0644));
	if (!strcmp(o, "openat64-w")) return FD_RESULT(openat64(dfd(a), b, O_RDWR | O_CREAT, 0644));
	if (!strcmp(o, "openat-r")) return FD_RESULT(openat(dfd(a), b, O_RDONLY));
	if (!strcmp(o, "__open_2")) return FD_RESULT(__open_2(a, O_WRONLY));
	if (!strcmp(o, "__open64_2")) return FD_RESULT(__open64_2(a, O_RDWR));
	if (!strcmp(o, "__openat_2")) return FD_RESULT(__openat_2(dfd(a), b, O_WRONLY));
	if (!strcmp(o, "__openat64_2")) return FD_RESULT(__openat64_2(dfd(a), b, O_RDONLY));
	if (!strcmp(o, "creat")) return FD_RESULT(creat(a, 0644));
	if (!strcmp(o, "creat64")) return FD_RESULT(creat64(a, 0644));
#define FILE_RESULT(expr) ((f = (expr)) ? (fclose(f), 0) : -1)
	if (!strcmp(o, "fopen-w")) return FILE_RESULT(fopen(a, "w"));
	if (!strcmp(o, "fopen-a")) return FILE_RESULT(fopen(a, "a"));
	if (!strcmp(o, "fopen-r")) return FILE_RESULT(fopen(a, "r"));
	if (!strcmp(o, "fopen64-w")) return FILE_RESULT(fopen64(a, "r+"));
	if (!strcmp(o, "freopen-w")) return FILE_RESULT(freopen(a, "w", fopen("/dev/null", "r")));
	if (!strcmp(o, "freopen64-w")) return FILE_RESULT(freopen64(a, "a", fopen("/dev/null", "r")));
	if (!strcmp(o, "opendir")) return (d = opendir(a)) ? (closedir(d), 0) : -1;
	if (!strcmp(o, "mkdir")) return mkdir(a, 0755);
	if (!strcmp(o, "mkdirat")) return mkdirat(dfd(a), b, 0755);
	if (!strcmp(o, "mknod")) return mknod(a, S_IFIFO | 0644, 0);
	if (!strcmp(o, "mknodat")) return mknodat(dfd(a), b, S_IFIFO | 0644, 0);
	if (!strcmp(o, "__xmknod")) return __xmknod(0, a, S_IFIFO | 0644, &dev);
	if (!strcmp(o, "__xmknodat")) return __xmknodat(0, dfd(a), b, S_IFIFO | 0644, &dev);
	if (!strcmp(o, "mkfifo")) return mkfifo(a, 0644);
	if (!strcmp(o, "mkfifoat")) return mkfifoat(dfd(a), b, 0644);
	if (!strcmp(o, "rmdir")) return rmdir(a);
	if (!strcmp(o, "unlink")) return unlink(a);
	if (!strcmp(o, "unlinkat")) return unlinkat(dfd(a), b, 0);
	if (!strcmp(o, "unlinkat-dir")) return unlinkat(dfd(a), b, AT_REMOVEDIR);
	if (!strcmp(o, "remove")) return remove(a);
	if (!strcmp(o, "rename")) return rename(a, b);
	if (!strcmp(o, "renameat")) return renameat(AT_FDCWD, a, AT_FDCWD, b);
	if (!strcmp(o, "renameat2")) return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_NOREPLACE);
	if (!strcmp(o, "link")) return link(a, b);
	if (!strcmp(o, "linkat")) return linkat(AT_FDCWD, a, AT_FDCWD, b, 0);
	if (!strcmp(o, "symlink")) return symlink(a, b);
	if (!strcmp(o, "symlinkat")) return symlinkat(a, dfd(b), c);
	if (!strcmp(o, "truncate")) return truncate(a, 0);
	if (!strcmp(o, "truncate64")) return truncate64(a, 0);
	if (!strcmp(o, "ftruncate")) return (fd = rdfd(a)) < 0 ? -1 : ftruncate(fd, 0);
	if (!strcmp(o, "chmod")) return chmod(a, 0600);
	if (!strcmp(o, "lchmod")) return lchmod(a, 0600);
	if (!strcmp(o, "fchmod")) return (fd = rdfd(a)) < 0 ? -1 : fchmod(fd, 0600);
	if (!strcmp(o, "fchmodat")) return fchmodat(dfd(a), b, 0600, 0);
	if (!strcmp(o, "chown")) return chown(a, getuid(), getgid());
	if (!strcmp(o, "lchown")) return lchown(a, getuid(), getgid());
	if (!strcmp(o, "fchown")) return (fd = rdfd(a)) < 0 ? -1 : fchown(fd, getuid(), getgid());
	if (!strcmp(o, "fchownat")) return fchownat(dfd(a), b, getuid(), getgid(), 0);
	if (!strcmp(o, "utime")) return utime(a, &ub);
	if (!strcmp(o, "utimes")) return utimes(a, tv);
	if (!strcmp(o, "lutimes")) return lutimes(a, tv);
	if (!strcmp(o, "futimes")) return (fd = rdfd(a)) < 0 ? -1 : futimes(fd, tv);
	if (!strcmp(o, "futimesat")) return futimesat(dfd(a), b, tv);
	if (!strcmp(o, "utimensat")) return utimensat(AT_FDCWD, a, ts, 0);
	if (!strcmp(o, "futimens")) return (fd = rdfd(a)) < 0 ? -1 : futimens(fd, ts);
	if (!strcmp(o, "setxattr")) return setxattr(a, "user.wicket", "1", 1, 0);
	if (!strcmp(o, "lsetxattr")) return lsetxattr(a, "user.wicket", "1", 1, 0);
	if (!strcmp(o, "fsetxattr")) return (fd = rdfd(a)) < 0 ? -1 : fsetxattr(fd, "user.wicket", "1", 1, 0);
	if (!strcmp(o, "removexattr")) return removexattr(a, "user.wicket");
	if (!strcmp(o, "lremovexattr")) return lremovexattr(a, "user.wicket");
	if (!strcmp(o, "fremovexattr")) return (fd = rdfd(a)) < 0 ? -1 : fremovexattr(fd, "user.wicket");
#define TMPL(suffix) snprintf(t, sizeof t, "%s/tmpXXXXXX%s", a, suffix)
	if (!strcmp(o, "mkstemp")) return TMPL(""), FD_RESULT(mkstemp(t));
	if (!strcmp(o, "mkstemp64")) return TMPL(""), FD_RESULT(mkstemp64(t));
	if (!strcmp(o, "mkstemps")) return TMPL(".c"), FD_RESULT(mkstemps(t, 2));
	if (!strcmp(o, "mkstemps64")) return TMPL(".c"), FD_RESULT(mkstemps64(t, 2));
	if (!strcmp(o, "mkostemp")) return TMPL(""), FD_RESULT(mkostemp(t, O_CLOEXEC));
	if (!strcmp(o, "mkostemp64")) return TMPL(""), FD_RESULT(mkostemp64(t, O_CLOEXEC));
	if (!strcmp(o, "mkostemps")) return TMPL(".c"), FD_RESULT(mkostemps(t, 2, O_CLOEXEC));
	if (!strcmp(o, "mkostemps64")) return TMPL(".c"), FD_RESULT(mkostemps64(t, 2, O_CLOEXEC));
	if (!strcmp(o, "mkdtemp")) return TMPL(""), mkdtemp(t) ? 0 : -1;
	if (!strcmp(o, "execve")) return execve(a, xargv, environ);
	if (!strcmp(o, "execv")) return execv(a, xargv);
	if (!strcmp(o, "execvp")) return execvp(a, xargv);
	if (!strcmp(o, "execvpe")) return execvpe(a, xargv, environ);
	if (!strcmp(o, "execl")) return execl(a, a, (char *)NULL);
	if (!strcmp(o, "execle")) return execle(a, a, (char *)NULL, environ);
	if (!strcmp(o, "execlp")) return execlp(a, a, (char *)NULL);
	if (!strcmp(o, "fexecve")) return (fd = open(a, O_PATH | O_CLOEXEC)) < 0 ? -1 : fexecve(fd, xargv, environ);
	if (!strcmp(o, "execveat")) return execveat(AT_FDCWD, a, xargv, environ, 0);
	if (!strcmp(o, "posix_spawn") || !strcmp(o, "posix_spawnp")) {
		r = (o[11] ? posix_spawnp : posix_spawn)(&pid, a, NULL, NULL, xargv, environ);
		if (r) {
			errno = r;
			return -1;
		}
		waitpid(pid, &r, 0);
		return 0;
	}
	if (!strcmp(o, "socket4")) return FD_RESULT(socket(AF_INET, SOCK_STREAM, 0));
	if (!strcmp(o, "socket6")) return FD_RESULT(socket(AF_INET6, SOCK_DGRAM, 0));
	if (!strcmp(o, "socket4raw")) return FD_RESULT(socket(AF_INET, SOCK_RAW, IPPROTO_UDP));
	if (!strcmp(o, "socket6raw")) return FD_RESULT(socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6));
	if (!strcmp(o, "socket-unix")) return FD_RESULT(socket(AF_UNIX, SOCK_STREAM, 0));
	if (!strcmp(o, "connect") || !strcmp(o, "bind") || !strcmp(o, "sendto") ||
	    !strcmp(o, "sendmsg")) {
		int fam = sa_of(a, b, &ss, &sl);
		if ((fd = socket(fam, SOCK_STREAM, 0)) < 0)
			return -1;
		if (!strcmp(o, "connect"))
			r = connect(fd, (struct sockaddr *)&ss, sl);
		else if (!strcmp(o, "bind"))
			r = bind(fd, (struct sockaddr *)&ss, sl);
		else if (!strcmp(o, "sendto"))
			r = sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&ss, sl) < 0 ? -1 : 0;
		else {
			struct iovec iov = {(void *)"x", 1};
			struct msghdr m = {.msg_name = &ss, .msg_namelen = sl, .msg_iov = &iov, .msg_iovlen = 1};
			r = sendmsg(fd, &m, MSG_FASTOPEN) < 0 ? -1 : 0;
		}
		int e = errno;
		close(fd);
		errno = e;
		return r;
	}
	fprintf(stderr, "shimprobe: unknown operation %s\n", o);
	exit(2);
}

static int print(const char *o, int r)
{
	if (r == 0) {
		printf("%s: OK\n", o);
	} else {
		const char *n = strerrorname_np(errno);
		printf("%s: %s\n", o, n ? n : "E?");
	}
	fflush(stdout);
	return r == 0 ? 0 : 1;
}

struct targ {
	int argc;
	char **argv;
	int r, err;
};

static void *thr(void *p)
{
	struct targ *t = p;
	t->r = op(t->argc, t->argv);
	t->err = errno;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: shimprobe [loop N|threads N|fork] OP ARGS...\n");
		return 2;
	}
	if (!strcmp(argv[1], "loop") && argc > 3) {
		long n = strtol(argv[2], NULL, 10);
		int r = 0;
		for (long i = 0; i < n && i < 1000000; i++)
			r = op(argc - 3, argv + 3);
		return print(argv[3], r);
	}
	if (!strcmp(argv[1], "threads") && argc > 3) {
		int n = atoi(argv[2]);
		pthread_t th[64];
		struct targ ta[64];
		if (n < 1 || n > 64)
			return 2;
		for (int i = 0; i < n; i++) {
			ta[i] = (struct targ){argc - 3, argv + 3, 0, 0};
			if (pthread_create(&th[i], NULL, thr, &ta[i]))
				return 2;
		}
		int r = 0;
		for (int i = 0; i < n; i++) {
			pthread_join(th[i], NULL);
			if (ta[i].r) {
				r = ta[i].r;
				errno = ta[i].err;
			}
		}
		return print(argv[3], r);
	}
	if (!strcmp(argv[1], "fork") && argc > 2) {
		print(argv[2], op(argc - 2, argv + 2));
		pid_t p = fork();
		if (p == 0)
			_exit(print(argv[2], op(argc - 2, argv + 2)));
		int st = 0;
		waitpid(p, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
	}
	return print(argv[1], op(argc - 1, argv + 1));
}
