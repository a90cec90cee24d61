#define _GNU_SOURCE
#include "fdpass.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SCM_PIDFD
#define SCM_PIDFD 0x04
#endif

/* Room for the most any caller asks for, aligned for cmsghdr. */
union fdpass_cbuf {
	char b[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int)) +
	       CMSG_SPACE(FDPASS_KERNEL_MAX * sizeof(int))];
	struct cmsghdr align;
};

static void (*closer)(int fd);

void fdpass_set_closer(void (*fn)(int fd))
{
	closer = fn;
}

static void drop(int fd)
{
	if (closer)
		closer(fd);
	else
		close(fd);
}

ssize_t fdpass_send(int sock, const void *buf, size_t len, const int *fds, size_t nfds,
		    int flags)
{
	if (nfds < 1 || nfds > FDPASS_MAX) {
		errno = EINVAL;
		return -1;
	}
	union fdpass_cbuf u;
	memset(&u, 0, sizeof u);
	struct iovec iov = {(void *)buf, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
			   .msg_controllen = CMSG_SPACE(nfds * sizeof(int))};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	ssize_t w;
	do
		w = sendmsg(sock, &m, flags | MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	return w;
}

/* The descriptors of one SCM_RIGHTS message C into IN, up to MAXFDS; the
 * rest closed. */
static void take_rights(const struct cmsghdr *c, size_t maxfds, struct fdpass_in *in)
{
	size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	for (size_t i = 0; i < k; i++) {
		int fd;
		memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
		if (in->nfds < maxfds) {
			in->fds[in->nfds++] = fd;
		} else {
			in->extra++;
			if (fd >= 0)
				drop(fd);
		}
	}
}

ssize_t fdpass_recv(int sock, void *buf, size_t len, size_t maxfds, unsigned want, int flags,
		    struct fdpass_in *in)
{
	*in = (struct fdpass_in){.pidfd = -1};
	if (maxfds > FDPASS_MAX)
		maxfds = FDPASS_MAX;
	size_t room = want & FDPASS_ALL ? CMSG_SPACE(FDPASS_KERNEL_MAX * sizeof(int))
		      : maxfds ? CMSG_SPACE(maxfds * sizeof(int)) : 0;
	if (want & FDPASS_CREDS)
		room += CMSG_SPACE(sizeof(struct ucred));
	if (want & FDPASS_PIDFD)
		room += CMSG_SPACE(sizeof(int));
	union fdpass_cbuf u;
	struct iovec iov = {buf, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = room ? u.b : NULL,
			   .msg_controllen = room};
	ssize_t n;
	do
		n = recvmsg(sock, &m, flags | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return n;
	in->flags = m.msg_flags;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred cr;
			memcpy(&cr, CMSG_DATA(c), sizeof cr);
			in->pid = cr.pid;
		} else if (c->cmsg_type == SCM_PIDFD && c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			/* Negative where the kernel could not make one; only
			 * one is ever sent. */
			int p;
			memcpy(&p, CMSG_DATA(c), sizeof p);
			if (p >= 0 && in->pidfd >= 0)
				close(p);
			else if (p >= 0)
				in->pidfd = p;
		} else if (c->cmsg_type == SCM_RIGHTS && c->cmsg_len >= CMSG_LEN(0)) {
			take_rights(c, maxfds, in);
		}
	}
	return n;
}

void fdpass_close(struct fdpass_in *in)
{
	for (size_t i = 0; i < in->nfds; i++)
		drop(in->fds[i]);
	in->nfds = 0;
	if (in->pidfd >= 0)
		close(in->pidfd);
	in->pidfd = -1;
}

int fdpass_pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	int one = 1, fl = fcntl(sv[0], F_GETFL);
	if (setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 || fl < 0 ||
	    fcntl(sv[0], F_SETFL, fl | O_NONBLOCK) < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		errno = e;
		return -1;
	}
	return 0;
}
