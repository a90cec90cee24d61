/* netprobe: network calls as programs the preload shim cannot see make
 * them. Built twice by make check: netprobe (dynamic; its raw-* calls go
 * around the C library's functions, hence around the shim) and, where the
 * C library can be linked statically, netprobe-static.
 *
 *   netprobe OP ARGS... [OP ARGS...]...
 *     socket FAM TYPE PROTO       socket() from the C library (numbers)
 *     raw-socket FAM TYPE PROTO   syscall(SYS_socket, ...)
 *     socketpair FAM TYPE PROTO   socketpair()
 *     connect HOST PORT           a TCP socket, then connect()
 *     fastopen HOST PORT          a TCP socket, then sendto(MSG_FASTOPEN)
 *     fastopen-msg HOST PORT      the same with sendmsg()
 *     repeat N FAM TYPE PROTO     N raw socket() calls, one line for all
 *     threads N FAM TYPE PROTO    N threads, each makes that socket 50 times
 *   netprobe with-listener CMD ARGS...
 *     run CMD under a seccomp filter that has a listener (as in a
 *     container whose manager uses seccomp notifications): no second
 *     listener can be made below it (EBUSY).
 *
 * Each operation prints "OP: OK" or "OP: ERRNAME". Exit status 0, or 2 on
 * bad usage. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Called with the result of the call: errno is still its errno. */
static void say(const char *op, long r)
{
	int e = errno;
	if (r >= 0) {
		printf("%s: OK\n", op);
	} else {
		const char *n = strerrorname_np(e);
		printf("%s: %s\n", op, n ? n : "E?");
	}
	fflush(stdout);
}

static socklen_t addr_of(const char *host, const char *port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof *ss);
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((unsigned short)atoi(port));
		return sizeof *a4;
	}
	if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((unsigned short)atoi(port));
		return sizeof *a6;
	}
	fprintf(stderr, "netprobe: bad address %s\n", host);
	exit(2);
}

struct sock_args {
	int fam, type, proto, n;
	int fails;
};

static void *sock_thread(void *p)
{
	struct sock_args *a = p;
	for (int i = 0; i < a->n; i++) {
		long s = syscall(SYS_socket, a->fam, a->type, a->proto);
		if (s >= 0)
			close((int)s);
		else
			__atomic_add_fetch(&a->fails, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int with_listener(char **argv)
{
	struct sock_filter f[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {.len = 1, .filter = f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror("no_new_privs");
		return 2;
	}
	long lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			   &prog);
	if (lfd < 0) {
		perror("seccomp listener");
		return 2;
	}
	/* The listener stays open here while CMD runs below the filter. */
	pid_t c = fork();
	if (c == 0) {
		close((int)lfd);
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	int st;
	while (waitpid(c, &st, 0) < 0)
		if (errno != EINTR)
			return 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "with-listener") == 0)
		return with_listener(argv + 2);
	for (int i = 1; i < argc;) {
		const char *op = argv[i];
		int left = argc - i - 1;
		if ((strcmp(op, "socket") == 0 || strcmp(op, "raw-socket") == 0 ||
		     strcmp(op, "socketpair") == 0) && left >= 3) {
			int fam = atoi(argv[i + 1]), type = atoi(argv[i + 2]), proto = atoi(argv[i + 3]);
			long r;
			int sv[2];
			if (op[0] == 'r')
				r = syscall(SYS_socket, fam, type, proto);
			else if (strcmp(op, "socket") == 0)
				r = socket(fam, type, proto);
			else
				r = socketpair(fam, type, proto, sv);
			say(op, r);
			i += 4;
		} else if ((strcmp(op, "connect") == 0 || strcmp(op, "fastopen") == 0 ||
			    strcmp(op, "fastopen-msg") == 0) && left >= 2) {
			struct sockaddr_storage ss;
			socklen_t len = addr_of(argv[i + 1], argv[i + 2], &ss);
			int s = socket(ss.ss_family, SOCK_STREAM, 0);
			if (s < 0) {
				say("socket", s);
			} else if (strcmp(op, "connect") == 0) {
				say(op, connect(s, (struct sockaddr *)&ss, len));
			} else if (strcmp(op, "fastopen") == 0) {
				say(op, sendto(s, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&ss, len));
			} else {
				struct iovec iov = {"x", 1};
				struct msghdr m = {.msg_name = &ss, .msg_namelen = len, .msg_iov = &iov,
						   .msg_iovlen = 1};
				say(op, sendmsg(s, &m, MSG_FASTOPEN));
			}
			if (s >= 0)
				close(s);
			i += 3;
		} else if ((strcmp(op, "repeat") == 0 || strcmp(op, "threads") == 0) && left >= 4) {
			int n = atoi(argv[i + 1]);
			struct sock_args a = {atoi(argv[i + 2]), atoi(argv[i + 3]), atoi(argv[i + 4]),
					      op[0] == 'r' ? n : 50, 0};
			if (op[0] == 'r') {
				sock_thread(&a);
				printf("%s: %d of %d failed\n", op, a.fails, n);
			} else {
				pthread_t t[64];
				if (n > 64)
					n = 64;
				for (int k = 0; k < n; k++)
					pthread_create(&t[k], NULL, sock_thread, &a);
				for (int k = 0; k < n; k++)
					pthread_join(t[k], NULL);
				printf("%s: %d of %d failed\n", op, a.fails, n * 50);
			}
			fflush(stdout);
			i += 5;
		} else {
			fprintf(stderr, "netprobe: bad operation at %s\n", op);
			return 2;
		}
	}
	return 0;
}
