/* fdprobe: what programs do to the descriptors they inherited, one step at
 * a time, so tests/preload/fdguard.bats can see which the shim keeps.
 *
 *   fdprobe hold VAR N [bare|wrong] -- CMD...
 *       a SOCK_SEQPACKET socketpair end at descriptor N (inheritable),
 *       VAR=N:DEV:INO in the environment (bare: VAR=N; wrong: an INO that
 *       is not its own), then exec CMD. Raw system calls only, so it works
 *       the same under the shim.
 *   fdprobe STEP...
 *       close N | __close N | closefrom LO | close_range LO HI FLAGS
 *       (HI "max" is ~0U; FLAGS cloexec, unshare, cloexec+unshare or a
 *       number)
 *       dup2 OLD N | __dup2 OLD N | dup3 OLD N FLAGS (0 or cloexec)
 *       cloexec N | cloexec64 N | __cloexec N: fcntl/fcntl64/__fcntl
 *       F_SETFD FD_CLOEXEC
 *           each prints "OP ARGS: RC ERRNO", errno being EDOM before the
 *           call (so "0 EDOM" is a success that left errno alone)
 *       null N       /dev/null at N (raw dup3; prints nothing)
 *       raw-close N  close(2) by syscall(2), which no shim sees
 *       pipe-at N    a pipe of its own at N (raw)
 *       state N      "N: closed" or "N: open[ cloexec]"
 *       check VAR    the descriptor VAR names: "VAR: intact[ cloexec]",
 *                    "VAR: closed" or "VAR: replaced" (not DEV:INO)
 *       thread STEP... end   the steps in a second thread (same table)
 *       exec CMD...  exec CMD (the rest of the arguments)
 *       vfork LO CMD...   in a vfork child, close_range(LO, ~0U, 0), then
 *                         exec CMD; waits and exits with its status
 * Exit 0 unless a step could not be run. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* Public glibc aliases, not in the headers. */
int __close(int fd);
int __dup2(int old, int fd);
int __fcntl(int fd, int cmd, ...);

static void die(const char *what)
{
	fprintf(stderr, "fdprobe: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Leaves errno alone: called between setting it and the call. */
static int num(const char *s)
{
	char *e;
	int saved = errno;
	errno = 0;
	long v = strtol(s, &e, 10);
	if (errno || *e || v < INT_MIN || v > INT_MAX) {
		fprintf(stderr, "fdprobe: bad number %s\n", s);
		exit(2);
	}
	errno = saved;
	return (int)v;
}

static int range_flags(const char *s)
{
	if (strcmp(s, "0") == 0)
		return 0;
	if (strcmp(s, "cloexec") == 0)
		return CLOSE_RANGE_CLOEXEC;
	if (strcmp(s, "unshare") == 0)
		return CLOSE_RANGE_UNSHARE;
	if (strcmp(s, "cloexec+unshare") == 0)
		return CLOSE_RANGE_CLOEXEC | CLOSE_RANGE_UNSHARE;
	return num(s);
}

static void raw_place(int fd, int at)
{
	if (fd != at) {
		if (syscall(SYS_dup3, fd, at, 0) < 0)
			die("dup3");
		syscall(SYS_close, fd);
	}
}

static void show(const char *op, char **args, int nargs, long rc, int err)
{
	printf("%s", op);
	for (int i = 0; i < nargs; i++)
		printf(" %s", args[i]);
	printf(": %ld %s\n", rc, strerrorname_np(err) ? strerrorname_np(err) : "?");
	fflush(stdout);
}

static int hold(int argc, char **argv)
{
	/* hold VAR N [bare|wrong] -- CMD... */
	if (argc < 5)
		return 2;
	const char *var = argv[2];
	int n = num(argv[3]);
	int i = 4;
	const char *mode = "";
	if (strcmp(argv[i], "--") != 0)
		mode = argv[i++];
	if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc)
		return 2;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
		die("socketpair");
	raw_place(sv[0], n);
	/* The peer stays open (close-on-exec) so the socket is a live one. */
	if (sv[1] == n)
		die("peer landed on N");
	fcntl(sv[1], F_SETFD, FD_CLOEXEC);
	struct stat st;
	if (fstat(n, &st) < 0)
		die("fstat");
	char val[80];
	if (strcmp(mode, "bare") == 0)
		snprintf(val, sizeof val, "%d", n);
	else
		snprintf(val, sizeof val, "%d:%llu:%llu", n, (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino + (strcmp(mode, "wrong") == 0 ? 1 : 0));
	if (setenv(var, val, 1) < 0)
		die("setenv");
	execvp(argv[i + 1], argv + i + 1);
	die(argv[i + 1]);
	return 2;
}

/* VAR's descriptor: intact, closed or replaced. */
static void check(const char *var)
{
	const char *v = getenv(var);
	unsigned long long dev = 0, ino = 0;
	int fd = -1;
	if (!v || sscanf(v, "%d:%llu:%llu", &fd, &dev, &ino) < 1) {
		printf("%s: unset\n", var);
		return;
	}
	struct stat st;
	int fl = (int)syscall(SYS_fcntl, fd, F_GETFD);
	if (fl < 0 || fstat(fd, &st) < 0)
		printf("%s: closed\n", var);
	else if (strchr(v, ':') && ((unsigned long long)st.st_dev != dev ||
				    (unsigned long long)st.st_ino != ino))
		printf("%s: replaced\n", var);
	else
		printf("%s: intact%s\n", var, (fl & FD_CLOEXEC) ? " cloexec" : "");
	fflush(stdout);
}

struct steps {
	int argc;
	char **argv;
};

static int run(int argc, char **argv);

static void *thread_main(void *arg)
{
	const struct steps *s = arg;
	run(s->argc, s->argv);
	return NULL;
}

/* Runs the steps in ARGV; returns how many arguments it used (a "thread"
 * block ends at "end"). */
static int run(int argc, char **argv)
{
	int i = 0;
	while (i < argc) {
		const char *op = argv[i];
		long rc;
		int err;
#define NEED(k)                                                         \
	do {                                                            \
		if (i + (k) >= argc) {                                  \
			fprintf(stderr, "fdprobe: %s needs %d\n", op, (k)); \
			exit(2);                                        \
		}                                                       \
	} while (0)
#define CALLED(nargs, expr)                                 \
	do {                                                \
		errno = EDOM;                               \
		rc = (long)(expr);                          \
		err = errno;                                \
		show(op, argv + i + 1, (nargs), rc, err);   \
		i += 1 + (nargs);                           \
	} while (0)
		if (strcmp(op, "end") == 0) {
			return i + 1;
		} else if (strcmp(op, "close") == 0) {
			NEED(1);
			CALLED(1, close(num(argv[i + 1])));
		} else if (strcmp(op, "__close") == 0) {
			NEED(1);
			CALLED(1, __close(num(argv[i + 1])));
		} else if (strcmp(op, "closefrom") == 0) {
			NEED(1);
			CALLED(1, (closefrom(num(argv[i + 1])), 0));
		} else if (strcmp(op, "close_range") == 0) {
			NEED(3);
			unsigned lo = (unsigned)num(argv[i + 1]);
			unsigned hi = strcmp(argv[i + 2], "max") == 0 ? ~0U : (unsigned)num(argv[i + 2]);
			CALLED(3, close_range(lo, hi, range_flags(argv[i + 3])));
		} else if (strcmp(op, "dup2") == 0) {
			NEED(2);
			CALLED(2, dup2(num(argv[i + 1]), num(argv[i + 2])));
		} else if (strcmp(op, "__dup2") == 0) {
			NEED(2);
			CALLED(2, __dup2(num(argv[i + 1]), num(argv[i + 2])));
		} else if (strcmp(op, "dup3") == 0) {
			NEED(3);
			int f = strcmp(argv[i + 3], "cloexec") == 0 ? O_CLOEXEC : num(argv[i + 3]);
			CALLED(3, dup3(num(argv[i + 1]), num(argv[i + 2]), f));
		} else if (strcmp(op, "cloexec") == 0) {
			NEED(1);
			CALLED(1, fcntl(num(argv[i + 1]), F_SETFD, FD_CLOEXEC));
		} else if (strcmp(op, "cloexec64") == 0) {
			NEED(1);
			CALLED(1, fcntl64(num(argv[i + 1]), F_SETFD, FD_CLOEXEC));
		} else if (strcmp(op, "__cloexec") == 0) {
			NEED(1);
			CALLED(1, __fcntl(num(argv[i + 1]), F_SETFD, FD_CLOEXEC));
		} else if (strcmp(op, "null") == 0) {
			NEED(1);
			int fd = (int)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR);
			if (fd < 0)
				die("/dev/null");
			raw_place(fd, num(argv[i + 1]));
			i += 2;
		} else if (strcmp(op, "raw-close") == 0) {
			NEED(1);
			CALLED(1, syscall(SYS_close, num(argv[i + 1])));
		} else if (strcmp(op, "pipe-at") == 0) {
			NEED(1);
			int p[2];
			if (pipe(p) < 0)
				die("pipe");
			int at = num(argv[i + 1]);
			if (p[0] == at)
				die("pipe landed on N");
			raw_place(p[1], at);
			i += 2;
		} else if (strcmp(op, "state") == 0) {
			NEED(1);
			int fl = (int)syscall(SYS_fcntl, num(argv[i + 1]), F_GETFD);
			printf("%s: %s%s\n", argv[i + 1], fl < 0 ? "closed" : "open",
			       fl > 0 && (fl & FD_CLOEXEC) ? " cloexec" : "");
			fflush(stdout);
			i += 2;
		} else if (strcmp(op, "check") == 0) {
			NEED(1);
			check(argv[i + 1]);
			i += 2;
		} else if (strcmp(op, "thread") == 0) {
			struct steps s = {argc - i - 1, argv + i + 1};
			pthread_t t;
			if ((errno = pthread_create(&t, NULL, thread_main, &s)) != 0)
				die("pthread_create");
			pthread_join(t, NULL);
			/* Skip the block. */
			int depth = 0;
			for (i++; i < argc; i++) {
				if (strcmp(argv[i], "thread") == 0)
					depth++;
				else if (strcmp(argv[i], "end") == 0 && depth-- == 0)
					break;
			}
			i++;
		} else if (strcmp(op, "exec") == 0) {
			NEED(1);
			fflush(stdout);
			execvp(argv[i + 1], argv + i + 1);
			die(argv[i + 1]);
		} else if (strcmp(op, "vfork") == 0) {
			NEED(2);
			unsigned lo = (unsigned)num(argv[i + 1]);
			char **cmd = argv + i + 2;
			fflush(stdout);
			pid_t pid = vfork();
			if (pid == 0) {
				close_range(lo, ~0U, 0);
				execvp(cmd[0], cmd);
				_exit(127);
			}
			if (pid < 0)
				die("vfork");
			int st;
			if (waitpid(pid, &st, 0) < 0)
				die("waitpid");
			exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		} else {
			fprintf(stderr, "fdprobe: unknown step %s\n", op);
			exit(2);
		}
#undef NEED
#undef CALLED
	}
	return i;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "hold") == 0) {
		int r = hold(argc, argv);
		if (r)
			fprintf(stderr, "usage: fdprobe hold VAR N [bare|wrong] -- CMD...\n");
		return r;
	}
	run(argc - 1, argv + 1);
	return 0;
}
