#ifndef WICKET_SUPERVISOR_NETNOTIFY_H
#define WICKET_SUPERVISOR_NETNOTIFY_H

#include "base/session.h"

/* netnotify.c: the supervisor reports the network refusals of programs
 * the shim cannot see, received as seccomp user notifications, and hands
 * unix socket connects and sends to unixnotify.c. */
bool netnotify_kernel_ok(void);  /* notifications, pidfd_getfd, openat2 */
bool netnotify_wanted(const struct session *s);  /* pure but for a cached probe */
void netnotify_prepare(struct session *s);       /* supervisor, before the clone */
void netnotify_child_close(void);                /* child, after the clone */
/* The command, right before exec: seccomp_apply, the notify program when
 * the session wants it, and its listener sent to the supervisor. */
int netnotify_seccomp(struct session *s);
void netnotify_init_close(void);                 /* init, once the command runs */
/* Supervisor, while the command is set up: NETNOTIFY_SETUP_FD (-1: none)
 * readable means the command waits for netnotify_take to take its
 * listener. */
int netnotify_setup_fd(void);
void netnotify_take(struct session *s);
/* Supervisor, once the command runs (STARTED false: its setup failed,
 * and nothing is served). */
void netnotify_start(struct session *s, bool started);
void netnotify_finish(struct session *s);
/* The object of a refused call NR with ARGS (ADDR: a Fast Open send's
 * destination, ADDRLEN bytes, or NULL): "socket ipv4/tcp",
 * "sendto 1.2.3.4:443/tcp". Pure. */
size_t netnotify_object(char *o, size_t osz, long nr, const uint64_t *args, const void *addr,
			size_t addrlen);

#endif
