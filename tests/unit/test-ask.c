/* Which /proc entry `wicket ask` trusts as its requester's (ask.c,
 * control.c): with the pidfd the kernel sends with each packet
 * (SCM_PIDFD, Linux 6.5), the requester's own and no other, even when its
 * number has gone to another process since; without one, the pid alone. */
#include "config.h"
#include "base/session.h"
#include "supervisor/ask.h"
#include "tap.h"
#include "askproto.h"
#include "fdpass.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif

/* A child that sends one packet and then waits on HOLD (closed: it
 * exits). What arrived: the pid and pidfd, as control.c reads them. */
struct sent {
	pid_t child, pid;
	int pidfd;
};

/* Read one packet from RX: the sender's pid and pidfd, as control.c
 * takes them (WK_PIDFD_GONE when no pidfd came). */
static bool recv_one(int rx, struct sent *out)
{
	char buf[8];
	struct fdpass_in in;
	ssize_t n = fdpass_recv(rx, buf, sizeof buf, 0, FDPASS_CREDS | FDPASS_PIDFD, 0, &in);
	out->pid = in.pid;
	out->pidfd = in.pidfd >= 0 ? in.pidfd : WK_PIDFD_GONE;
	return n == 1;
}

static bool send_one(int rx, int tx, const int hold[2], struct sent *out)
{
	out->child = fork();
	if (out->child < 0)
		return false;
	if (out->child == 0) {
		char c;
		close(hold[1]);
		if (send(tx, "x", 1, 0) != 1)
			_exit(1);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	return recv_one(rx, out);
}

static void reap(pid_t p)
{
	while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
		;
}

/* DIR is the /proc entry of PID: the same inode a fresh lookup finds. */
static bool is_proc_of(int dir, pid_t pid)
{
	char p[64];
	struct stat a, b;
	snprintf(p, sizeof p, "/proc/%ld", (long)pid);
	return dir >= 0 && fstat(dir, &a) == 0 && stat(p, &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

/* "fds": the request names its four descriptors (askproto.c): exactly
 * four numbers, each a descriptor number; anything else refuses the
 * request. */
static void named_fds(void)
{
	static const struct {
		const char *fds;
		bool good;
	} c[] = {
		{"[0,1,2,7]", true},       {"[5,6,7,2147483647]", true}, {"[0,1,2]", false},
		{"[0,1,2,3,4]", false},    {"[0,1,2,-1]", false},        {"[0,1,2,2147483648]", false},
		{"[0,1,2,\"3\"]", false}, {"[0,1,2,3.0]", false},       {"{}", false},
		{"null", false},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char *text = xasprintf("{\"v\":1,\"type\":\"ask\",\"argv\":[\"true\"],\"fds\":%s}",
				       c[i].fds);
		struct ask_req r;
		const char *err;
		bool got = ask_parse(text, strlen(text), &r, &err);
		ok(got == c[i].good, "\"fds\": %s %s", c[i].fds, c[i].good ? "taken" : "refused");
		if (got) {
			ok(r.take, "a request with \"fds\" is one to take them");
			ask_req_free(&r);
		}
		free(text);
	}
	struct ask_req r;
	const char *err;
	const char plain[] = "{\"v\":1,\"type\":\"ask\",\"argv\":[\"true\"]}";
	ok(ask_parse(plain, strlen(plain), &r, &err) && !r.take,
	   "without \"fds\" the descriptors come with the packet");
	ask_req_free(&r);
	const char nums[] = "{\"v\":1,\"type\":\"ask\",\"argv\":[\"true\"],\"fds\":[4,5,6,9]}";
	ok(ask_parse(nums, strlen(nums), &r, &err) && r.fds[0] == 4 && r.fds[1] == 5 &&
		   r.fds[2] == 6 && r.fds[3] == 9,
	   "the numbers in their order: stdin, stdout, stderr, reply");
	ask_req_free(&r);
}

int main(void)
{
	named_fds();
	/* Without a pidfd (older kernels): the pid alone decides. */
	int d = proc_dir_of(getpid(), WK_PIDFD_NONE);
	ok(is_proc_of(d, getpid()), "no pidfd from the kernel: the sender's pid names its /proc entry");
	if (d >= 0)
		close(d);
	ok(proc_dir_of(getpid(), WK_PIDFD_GONE) < 0,
	   "pidfds are passed but none came: the sender is taken to be gone");
	ok(proc_dir_of(0, WK_PIDFD_NONE) < 0, "pid 0 (no credentials) is nobody");

	int sv[2], one = 1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
	    setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0) {
		ok(0, "socketpair: %s", strerror(errno));
		return done_testing();
	}
	if (setsockopt(sv[0], SOL_SOCKET, SO_PASSPIDFD, &one, sizeof one) < 0) {
		/* Before Linux 6.5: the pidfd checks cannot run here. */
		printf("ok %d # skip SO_PASSPIDFD: %s (Linux 6.5 and later)\n", ++tap_n,
		       strerror(errno));
		return done_testing();
	}

	/* A live sender: its own entry. */
	int hold[2];
	struct sent a;
	if (pipe2(hold, O_CLOEXEC) < 0 || !send_one(sv[0], sv[1], hold, &a)) {
		ok(0, "send: %s", strerror(errno));
		return done_testing();
	}
	ok(a.pid == a.child && a.pidfd >= 0, "the kernel sends pid %ld and a pidfd (%d)",
	   (long)a.pid, a.pidfd);
	d = proc_dir_of(a.pid, a.pidfd);
	ok(is_proc_of(d, a.child), "a live sender: its own /proc entry");

	/* Another live process's number with this pidfd (as after a reuse). */
	int other = proc_dir_of(getpid(), a.pidfd);
	ok(other < 0, "a pidfd and a pid of two different processes: refused");
	if (other >= 0)
		close(other);

	/* The sender ends and is reaped: the number may now be anybody's. */
	close(hold[1]);
	reap(a.child);
	int gone = proc_dir_of(a.pid, a.pidfd);
	ok(gone < 0, "the sender ended and was reaped: refused, whoever has its number now");
	if (gone >= 0)
		close(gone);
	/* The entry opened while it lived leads nowhere now. */
	int cwd = d >= 0 ? openat(d, "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC) : 0;
	ok(cwd < 0, "the entry opened while it lived cannot reach a cwd once it is gone");
	if (cwd >= 0)
		close(cwd);
	if (d >= 0)
		close(d);
	close(hold[0]);
	close(a.pidfd);

	/* A sender reaped before the packet is even read: the pidfd the
	 * kernel then makes names no process (or none is sent). */
	struct sent b;
	pid_t c = fork();
	if (c == 0) {
		(void)!send(sv[1], "y", 1, 0);
		_exit(0);
	}
	reap(c);
	recv_one(sv[0], &b);
	ok(b.pid == c, "the reaped sender's packet still names pid %ld", (long)c);
	d = proc_dir_of(b.pid, b.pidfd);
	ok(d < 0, "a sender reaped before its packet was read: refused");
	if (d >= 0)
		close(d);
	if (b.pidfd >= 0)
		close(b.pidfd);
	return done_testing();
}
