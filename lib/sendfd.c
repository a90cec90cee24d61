#define _GNU_SOURCE
#include "sendfd.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

ssize_t send_with_fd(int sock, const void *buf, size_t len, int fd, int flags)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	memset(&u, 0, sizeof u);
	struct iovec iov = {(void *)buf, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
			   .msg_controllen = sizeof u.b};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	ssize_t w;
	do
		w = sendmsg(sock, &m, flags | MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	return w;
}
