/* workload: the programs whose time the shim rows of `make bench` measure,
 * timed from inside the process (CLOCK_MONOTONIC), so that the sandbox's
 * start-up and the shim's load at exec are not part of the figure.
 *
 *   workload [-s | -S] loop DIR N
 *       in a fresh directory under DIR: N times open(O_CREAT), write 16
 *       bytes, close; then unlink the N files and the directory.
 *   workload [-s | -S] storm DIR N
 *       N open(DIR/wicket-bench-I, O_WRONLY|O_CREAT) with N distinct names,
 *       every one of which must be refused (DIR outside the writable roots).
 *   workload [-s | -S] storm-same DIR N
 *       the same, N times with one name (the shim reports it once).
 *   workload [-s | -S] absent DIR N
 *       the storm's calls outside any sandbox: the same N opens, in a DIR
 *       that does not exist, each of which must fail with ENOENT (the
 *       bare reference of a storm: the same calls, refused by the file
 *       system instead of a sandbox).
 *   workload [-s | -S] open FILE N
 *       N times open(FILE, O_RDONLY), fstat, read up to 4 KiB, close: the
 *       calls of a read workload, per file (what each layer adds to one
 *       path lookup and open, README.md "Where the time goes").
 *   workload [-s | -S] unix-connect DIR N
 *       a unix stream listener in DIR, then N times socket, connect() to
 *       it, accept, close both: the cost of an allowed connect (which the
 *       supervisor decides and makes before Landlock ABI 9).
 *   workload [-s | -S] unix-sendmsg DIR N
 *       N sendmsg() of 64 bytes on a datagram socket pair, each received
 *       (every sendmsg goes through the supervisor before ABI 9).
 *   workload [-s | -S] unix-pair DIR N
 *       N sendmsg() of one byte on a stream socket pair, each received
 *       with recv(): the message of an IPC channel (DIR unused).
 *   workload [-s | -S] tcp-connect PORT N
 *       a TCP listener on 127.0.0.1:PORT (0: any free port), then N times
 *       socket, connect() to it, accept, close both.
 *
 * -s: fail unless the preload shim is loaded; -S: fail if it is. A row
 * that measures the wrong thing (no shim where one was meant) is worse
 * than a failed bench.
 *
 * Prints the time of the measured part, in ms, as the last line of stdout
 * (read by spawnbench -x). Any unexpected result is an error (exit 1): a
 * benchmark of a failing workload is meaningless. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#define SHIM_NAME "libwicket-preload.so"

/* "workload: MESSAGE[: strerror(ERR)]", exit 1. */
__attribute__((noreturn, format(printf, 2, 3))) static void die(int err, const char *fmt, ...)
{
	va_list ap;
	fputs("workload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(1);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static long parse_n(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > 1000000)
		die(0, "bad count '%s'", s);
	return v;
}

/* Is the shim mapped into this process? */
static bool shim_loaded(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		die(errno, "/proc/self/maps");
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof line, f))
		found = strstr(line, "/" SHIM_NAME) != NULL;
	fclose(f);
	return found;
}

static double loop(const char *top, long n)
{
	char dir[4096], name[4200];
	static const char data[16] = "wicket bench \n";
	snprintf(dir, sizeof dir, "%s/loop.%ld", top, (long)getpid());
	double t0 = now_ms();
	if (mkdir(dir, 0700) < 0)
		die(errno, "mkdir %s", dir);
	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof name, "%s/f%ld", dir, i);
		int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			die(errno, "create %s", name);
		if (write(fd, data, sizeof data) != (ssize_t)sizeof data)
			die(errno, "write %s", name);
		if (close(fd) < 0)
			die(errno, "close %s", name);
	}
	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof name, "%s/f%ld", dir, i);
		if (unlink(name) < 0)
			die(errno, "unlink %s", name);
	}
	if (rmdir(dir) < 0)
		die(errno, "rmdir %s", dir);
	return now_ms() - t0;
}

/* Every call must be refused by the sandbox: EROFS from the read-only
 * view, or EACCES from Landlock when there is no mount namespace. Any
 * success means DIR is writable here, which is no storm of denials. */
static double storm(const char *dir, long n, bool same, int want)
{
	char name[4200];
	double t0 = now_ms();
	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof name, "%s/wicket-bench-%ld", dir, same ? 0L : i);
		int fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0) {
			close(fd);
			unlink(name);
			die(0, "%s: the write was allowed: not a storm of denials (run it in a "
			       "sandbox, with DIR outside the writable roots)", name);
		}
		if (want ? errno != want : errno != EROFS && errno != EACCES)
			die(errno, "open %s: not refused %s", name,
			    want ? "as expected" : "by the sandbox");
	}
	return now_ms() - t0;
}

static double open_read(const char *file, long n)
{
	static char buf[4096];
	double t0 = now_ms();
	for (long i = 0; i < n; i++) {
		struct stat st;
		int fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || read(fd, buf, sizeof buf) < 0)
			die(errno, "open and read %s", file);
		close(fd);
	}
	return now_ms() - t0;
}

/* N times: a socket of A's family, connect() to A (WHAT, for an error)
 * where the listener L waits, accept, close both. */
static double connect_loop(int l, const struct sockaddr *a, socklen_t alen, const char *what,
			   long n)
{
	double t0 = now_ms();
	for (long i = 0; i < n; i++) {
		int c = socket(a->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c < 0 || connect(c, a, alen) < 0)
			die(errno, "connect %s", what);
		int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		if (s < 0)
			die(errno, "accept");
		close(s);
		close(c);
	}
	return now_ms() - t0;
}

static double unix_connect(const char *dir, long n)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if ((size_t)snprintf(a.sun_path, sizeof a.sun_path, "%s/bench.%ld.sock", dir,
			     (long)getpid()) >= sizeof a.sun_path)
		die(0, "%s: too long for a socket path", dir);
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 16) < 0)
		die(errno, "listen on %s", a.sun_path);
	double ms = connect_loop(l, (struct sockaddr *)&a, sizeof a, a.sun_path, n);
	close(l);
	unlink(a.sun_path);
	return ms;
}

static double unix_sendmsg(long n)
{
	int sv[2];
	char buf[64] = "wicket bench";
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		die(errno, "socketpair");
	double t0 = now_ms();
	for (long i = 0; i < n; i++) {
		struct iovec iov = {buf, sizeof buf};
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
		if (sendmsg(sv[0], &m, 0) != (ssize_t)sizeof buf)
			die(errno, "sendmsg");
		if (recv(sv[1], buf, sizeof buf, 0) != (ssize_t)sizeof buf)
			die(errno, "recv");
	}
	double ms = now_ms() - t0;
	close(sv[0]);
	close(sv[1]);
	return ms;
}

static double unix_pair(long n)
{
	int sv[2];
	char c = 'w';
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die(errno, "socketpair");
	double t0 = now_ms();
	for (long i = 0; i < n; i++) {
		struct iovec iov = {&c, 1};
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
		if (sendmsg(sv[0], &m, 0) != 1)
			die(errno, "sendmsg");
		if (recv(sv[1], &c, 1, 0) != 1)
			die(errno, "recv");
	}
	double ms = now_ms() - t0;
	close(sv[0]);
	close(sv[1]);
	return ms;
}

static double tcp_connect(long port, long n)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	/* The previous run's connections may still be in TIME_WAIT. */
	if (l >= 0)
		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 16) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &al) < 0)
		die(errno, "listen on 127.0.0.1:%ld", port);
	double ms = connect_loop(l, (struct sockaddr *)&a, sizeof a, "127.0.0.1", n);
	close(l);
	return ms;
}

int main(int argc, char **argv)
{
	int expect = -1; /* 1: shim loaded, 0: not, -1: don't care */
	int opt;
	while ((opt = getopt(argc, argv, "+sS")) != -1) {
		switch (opt) {
		case 's':
			expect = 1;
			break;
		case 'S':
			expect = 0;
			break;
		default:
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	if (expect >= 0 && shim_loaded() != (expect == 1))
		die(0, "%s", expect ? "the preload shim is not loaded (is " SHIM_NAME
				      " readable in the sandbox?)"
				    : "the preload shim is loaded (--no-diagnostics ignored?)");

	double ms;
	if (argc == 3 && strcmp(argv[0], "loop") == 0)
		ms = loop(argv[1], parse_n(argv[2]));
	else if (argc == 3 && strcmp(argv[0], "storm") == 0)
		ms = storm(argv[1], parse_n(argv[2]), false, 0);
	else if (argc == 3 && strcmp(argv[0], "storm-same") == 0)
		ms = storm(argv[1], parse_n(argv[2]), true, 0);
	else if (argc == 3 && strcmp(argv[0], "absent") == 0)
		ms = storm(argv[1], parse_n(argv[2]), false, ENOENT);
	else if (argc == 3 && strcmp(argv[0], "open") == 0)
		ms = open_read(argv[1], parse_n(argv[2]));
	else if (argc == 3 && strcmp(argv[0], "unix-connect") == 0)
		ms = unix_connect(argv[1], parse_n(argv[2]));
	else if (argc == 3 && strcmp(argv[0], "unix-sendmsg") == 0)
		ms = unix_sendmsg(parse_n(argv[2]));
	else if (argc == 3 && strcmp(argv[0], "unix-pair") == 0)
		ms = unix_pair(parse_n(argv[2]));
	else if (argc == 3 && strcmp(argv[0], "tcp-connect") == 0)
		ms = tcp_connect(strcmp(argv[1], "0") == 0 ? 0 : parse_n(argv[1]), parse_n(argv[2]));
	else
		goto usage;
	printf("%.6f\n", ms);
	return fflush(stdout) == 0 ? 0 : 1;

usage:
	fprintf(stderr, "usage: workload [-s|-S] loop|storm|storm-same|absent|open|unix-connect|unix-sendmsg|unix-pair|tcp-connect "
			"DIR N\n");
	return 2;
}
