/* One packet with one descriptor attached, for the control socket: the
 * preload shim's "sync" and `wicket why` send their reply socket so. */
#ifndef WICKET_SENDFD_H
#define WICKET_SENDFD_H

#include <stddef.h>
#include <sys/types.h>

/* BUF (LEN bytes) as one packet on SOCK with FD attached (SCM_RIGHTS);
 * FLAGS for sendmsg, MSG_NOSIGNAL always added; EINTR retried. Returns
 * what sendmsg returned. Async-signal-safe, allocates nothing. */
ssize_t send_with_fd(int sock, const void *buf, size_t len, int fd, int flags);

#endif
