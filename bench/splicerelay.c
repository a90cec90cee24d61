/* splicerelay: the floor of any proxy on this machine, for the proxy's
 * rows of `make bench` (bench/proxybench.sh): a TCP relay with nothing
 * but the relaying. It accepts on 127.0.0.1:PORT (0: any free port,
 * printed on stdout), connects each client to 127.0.0.1:UPSTREAM and
 * moves the bytes both ways with splice() through a pipe each way, never
 * through its own memory, as wicket's proxy does; a thread per
 * connection waiting in poll(), blocking calls, no policy, no parsing.
 *
 *   splicerelay PORT UPSTREAM */
#include "config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in upstream;

/* Bytes readable on FROM to TO, through pipe P: 0 at the end of FROM. */
static ssize_t move(int from, int to, const int p[2])
{
	ssize_t n = splice(from, NULL, p[1], NULL, 1 << 20, SPLICE_F_MOVE);
	for (ssize_t left = n; left > 0;) {
		ssize_t m = splice(p[0], NULL, to, NULL, (size_t)left, SPLICE_F_MOVE);
		if (m <= 0)
			return -1;
		left -= m;
	}
	return n;
}

static void *serve(void *arg)
{
	int c = (int)(long)arg, one = 1, p[2][2] = {{-1, -1}, {-1, -1}};
	int u = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (u >= 0 && connect(u, (struct sockaddr *)&upstream, sizeof upstream) == 0 &&
	    pipe2(p[0], O_CLOEXEC) == 0 && pipe2(p[1], O_CLOEXEC) == 0) {
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		setsockopt(u, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		for (int i = 0; i < 2; i++)
			fcntl(p[i][1], F_SETPIPE_SZ, 256 * 1024); /* as wicket's proxy asks */
		/* [0]: client to upstream, [1]: back; fd -1 once at its end */
		struct pollfd fds[2] = {{.fd = c, .events = POLLIN}, {.fd = u, .events = POLLIN}};
		while (fds[0].fd >= 0 || fds[1].fd >= 0) {
			if (poll(fds, 2, -1) < 0)
				break;
			for (int i = 0; i < 2; i++) {
				if (fds[i].fd < 0 || !fds[i].revents)
					continue;
				ssize_t n = move(fds[i].fd, i ? c : u, p[i]);
				if (n < 0)
					goto out;
				if (n == 0) {
					shutdown(i ? c : u, SHUT_WR);
					fds[i].fd = -1;
				}
			}
		}
	}
out:
	for (int i = 0; i < 4; i++)
		if (p[i / 2][i % 2] >= 0)
			close(p[i / 2][i % 2]);
	if (u >= 0)
		close(u);
	close(c);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: splicerelay PORT UPSTREAM\n");
		return 2;
	}
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	upstream = a;
	upstream.sin_port = htons((uint16_t)atoi(argv[2]));
	int one = 1, s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	socklen_t len = sizeof a;
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 256) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) < 0) {
		perror("splicerelay");
		return 1;
	}
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	for (;;) {
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
		pthread_t t;
		if (c < 0)
			continue;
		if (pthread_create(&t, NULL, serve, (void *)(long)c) == 0)
			pthread_detach(t);
		else
			close(c);
	}
}
