/* Descriptors passed over unix sockets (SCM_RIGHTS), with the sender's
 * credentials and pidfd where the socket asks for them: the control
 * socket's packets, `wicket ask`'s request, the session's pty master.
 * The preload shim links this: nothing here allocates, locks or uses
 * stdio, and all of it is async-signal-safe. */
#ifndef WICKET_FDPASS_H
#define WICKET_FDPASS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The most descriptors one packet carries (an "ask": stdin, stdout,
 * stderr and the reply socket). */
#define FDPASS_MAX 4

/* BUF (LEN bytes) as one packet on SOCK with the NFDS descriptors FDS
 * attached (1 to FDPASS_MAX); FLAGS for sendmsg, MSG_NOSIGNAL always
 * added; EINTR retried. Returns what sendmsg returned (-1 and EINVAL for
 * a count out of range). */
ssize_t fdpass_send(int sock, const void *buf, size_t len, const int *fds, size_t nfds,
		    int flags);

/* What came with one packet. */
struct fdpass_in {
	int fds[FDPASS_MAX]; /* SCM_RIGHTS, close-on-exec, in the order sent */
	size_t nfds;
	size_t extra; /* how many came beyond MAXFDS (closed) */
	pid_t pid;    /* SCM_CREDENTIALS: the sender's pid; 0 when none came */
	int pidfd;    /* SCM_PIDFD: the sender's pidfd; -1 when none came */
	int flags;    /* recvmsg's msg_flags: MSG_CTRUNC, MSG_TRUNC */
};

/* What the control buffer has room for besides descriptors: the kernel
 * adds these to every packet on a socket with SO_PASSCRED, SO_PASSPIDFD. */
#define FDPASS_CREDS 1u
#define FDPASS_PIDFD 2u
/* Room for every descriptor one packet can carry (the kernel's
 * SCM_MAX_FD), so that the kernel never drops (and so closes, in the
 * receiver's thread) any: those beyond MAXFDS go to the closer. For a
 * socket an untrusted sender writes to. */
#define FDPASS_ALL 4u
#define FDPASS_KERNEL_MAX 253

/* What closes a descriptor fdpass_recv does not keep, and what
 * fdpass_close closes with: close(2) until a program sets another (the
 * supervisor's closes what the sandbox sent off its relay loop). */
void fdpass_set_closer(void (*closer)(int fd));

/* One packet (up to LEN bytes into BUF) from SOCK, with room for MAXFDS
 * descriptors (0 to FDPASS_MAX) and for what WANT names. The room is
 * exactly that: what does not fit the kernel drops (closing the
 * descriptors) and says so with MSG_CTRUNC in IN->flags, which a caller
 * must refuse. Descriptors beyond MAXFDS that fit all the same (the
 * room is rounded up) are closed here and counted in IN->extra; a
 * second pidfd or a negative one (the kernel could not make it) too. FLAGS
 * for recvmsg, MSG_CMSG_CLOEXEC always added; EINTR retried. Returns
 * what recvmsg returned; IN is filled in either way (empty on -1). */
ssize_t fdpass_recv(int sock, void *buf, size_t len, size_t maxfds, unsigned want, int flags,
		    struct fdpass_in *in);

/* A SOCK_SEQPACKET socketpair, close-on-exec, whose first end (the
 * reader's) is non-blocking and receives the sender's credentials with
 * each packet (SO_PASSCRED). 0, or -1 with errno (nothing left open). */
int fdpass_pair(int sv[2]);
/* Closes every descriptor IN holds (its fds and pidfd) and empties it. */
void fdpass_close(struct fdpass_in *in);

#endif
