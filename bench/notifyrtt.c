/* notifyrtt: the floor of any supervisor that mediates sendmsg() with
 * seccomp user notifications, on this kernel and machine: no wicket, only
 * the notification's round trip and the fewest calls a safe emulation of
 * the send needs.
 *
 *   notifyrtt MODE N
 *
 * A forked child loops N times over sendmsg() of one byte on a stream
 * socket pair; its parent is the supervisor, reading the listener of the
 * child's filter (sendmsg to SECCOMP_RET_USER_NOTIF, everything else
 * allowed) in one thread, blocking, with the synchronous wake-up
 * (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) unless the mode says otherwise:
 *
 *   bare      no filter: sendmsg + recv, the kernel's own cost
 *   rtt       the parent answers every notification at once (RECV, SEND),
 *             sending nothing; the child does not recv
 *   rtt-async the same without the synchronous wake-up
 *   emulate   the parent makes the send itself, as a supervisor that never
 *             lets the call through must: takes the socket (pidfd_getfd),
 *             reads the msghdr, the iovec and the byte in one
 *             process_vm_readv (the workload keeps them side by side),
 *             sends, closes, answers; the child recvs the byte
 *
 * Prints the child's time of the loop in ms as the last line (spawnbench
 * -x) and, on stderr, µs per message and the CPU time of both processes.
 * Asserts nothing (bench/README.md, "Messages and connections over
 * sockets"). */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP /* Linux 6.6, older headers */
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif

static pid_t child = -1;

static void die(const char *what)
{
	perror(what);
	if (child > 0)
		kill(child, SIGKILL); /* it may wait in a notification no one reads */
	exit(1);
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double cpu_ms(int who)
{
	struct rusage r;
	getrusage(who, &r);
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 +
	       (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
}

static int filter(void)
{
	struct sock_filter f[] = {
#ifdef __x86_64__
		/* sendmsg of the native calls only, not of x32's or i386's */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
#endif
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sendmsg, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = {.len = sizeof f / sizeof f[0], .filter = f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("no_new_privs");
	int l = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			     &p);
	if (l < 0)
		die("seccomp");
	return l;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: notifyrtt bare|rtt|rtt-async|emulate N\n");
		return 2;
	}
	const char *mode = argv[1];
	long n = atol(argv[2]);
	int bare = !strcmp(mode, "bare"), rtt = !strncmp(mode, "rtt", 3),
	    emulate = !strcmp(mode, "emulate");
	if (n < 1 || (!bare && !rtt && !emulate)) {
		fprintf(stderr, "notifyrtt: bad mode or count\n");
		return 2;
	}
	int sv[2], pp[2], rp[2], ack[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe(pp) < 0 ||
	    pipe(rp) < 0 || pipe(ack) < 0)
		die("socketpair");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		int l = bare ? -1 : filter();
		char go;
		/* The listener stays the parent's alone: when the parent is
		 * gone, a call waiting for it fails instead of waiting for
		 * ever. */
		if (write(pp[1], &l, sizeof l) != sizeof l || read(ack[0], &go, 1) != 1)
			_exit(1);
		if (l >= 0)
			close(l);
		char c = 'w';
		double t0 = now_ms();
		for (long i = 0; i < n; i++) {
			struct iovec iov = {&c, 1};
			struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
			if (sendmsg(sv[0], &m, 0) != 1)
				_exit(1);
			if (!rtt && recv(sv[1], &c, 1, 0) != 1)
				_exit(1);
		}
		double ms = now_ms() - t0;
		_exit(write(rp[1], &ms, sizeof ms) == sizeof ms ? 0 : 1);
	}
	int theirs;
	if (read(pp[0], &theirs, sizeof theirs) != sizeof theirs)
		die("child");
	int pidfd = (int)syscall(SYS_pidfd_open, child, 0), lfd = -1;
	if (!bare) {
		lfd = (int)syscall(SYS_pidfd_getfd, pidfd, theirs, 0);
		if (lfd < 0)
			die("pidfd_getfd");
		if (strcmp(mode, "rtt-async") &&
		    ioctl(lfd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) < 0)
			die("SECCOMP_IOCTL_NOTIF_SET_FLAGS (Linux 6.6)");
	}
	if (write(ack[1], "g", 1) != 1)
		die("child");
	long reads = 0;
	for (long i = 0; !bare && i < n; i++) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		memset(&req, 0, sizeof req);
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
			die("RECV");
		memset(&resp, 0, sizeof resp);
		resp.id = req.id;
		resp.val = 1;
		if (emulate) {
			/* The msghdr and what it points to: one read of its page
			 * (the workload keeps them there), another only for what
			 * lies elsewhere, then the send from this copy. */
			char win[8192];
			uint64_t a = req.data.args[1], base = a & ~(uint64_t)4095;
			size_t wl = (a + sizeof(struct msghdr) - 1) / 4096 == a / 4096 ? 4096 : 8192;
			struct iovec lv = {win, wl}, rv = {(void *)(uintptr_t)base, wl};
			int sock = (int)syscall(SYS_pidfd_getfd, pidfd, (int)req.data.args[0], 0);
			if (sock < 0 || process_vm_readv(child, &lv, 1, &rv, 1, 0) != (ssize_t)wl)
				die("take the call");
			reads++;
			struct msghdr h;
			memcpy(&h, win + (a - base), sizeof h);
			struct iovec v;
			char byte;
			uint64_t at = (uintptr_t)h.msg_iov;
			if (at >= base && at + sizeof v <= base + wl) {
				memcpy(&v, win + (at - base), sizeof v);
			} else {
				struct iovec l1 = {&v, sizeof v}, r1 = {h.msg_iov, sizeof v};
				if (process_vm_readv(child, &l1, 1, &r1, 1, 0) != sizeof v)
					die("read the iovec");
				reads++;
			}
			at = (uintptr_t)v.iov_base;
			if (v.iov_len != 1)
				die("not one byte");
			if (at >= base && at < base + wl) {
				byte = win[at - base];
			} else {
				struct iovec l1 = {&byte, 1}, r1 = {v.iov_base, 1};
				if (process_vm_readv(child, &l1, 1, &r1, 1, 0) != 1)
					die("read the byte");
				reads++;
			}
			struct iovec d = {&byte, 1};
			struct msghdr m = {.msg_iov = &d, .msg_iovlen = 1};
			if (sendmsg(sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL) != 1)
				die("sendmsg");
			close(sock);
		}
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
			die("SEND");
	}
	double ms;
	int st;
	if (read(rp[0], &ms, sizeof ms) != sizeof ms || waitpid(child, &st, 0) != child ||
	    !WIFEXITED(st) || WEXITSTATUS(st))
		die("the child failed");
	fprintf(stderr,
		"notifyrtt %s: %.2f µs a message; cpu: supervisor %.2f, child %.2f µs a message; "
		"%.2f process_vm_readv a message\n",
		mode, ms * 1e3 / (double)n, cpu_ms(RUSAGE_SELF) * 1e3 / (double)n,
		cpu_ms(RUSAGE_CHILDREN) * 1e3 / (double)n, (double)reads / (double)n);
	printf("%.3f\n", ms);
	return 0;
}
