#ifndef WICKET_SUPERVISOR_UNIXNOTIFY_H
#define WICKET_SUPERVISOR_UNIXNOTIFY_H

#include "base/session.h"

/* unixnotify.c: the supervisor decides pathname unix sockets (Landlock
 * ABI < 9) and makes the allowed connects and sends itself. It reads the
 * LISTENER in a thread of its own (true: from now on; false: not in this
 * session, netnotify.c reads it). UP: what it calls back, in the relay
 * loop, in netnotify.c, which drives it (so it needs nothing of
 * netnotify.c's itself): REPORT a network refusal, once per (process,
 * object), to the session; OTHER: a notification that is not a unix
 * socket's (NOTIF: a struct seccomp_notif) to answer. */
struct unixnotify_up {
	void (*report)(struct session *s, long pid, long host_pid, const char *comm,
		       const char *obj);
	void (*other)(struct session *s, const void *notif);
};
bool unixnotify_start(struct session *s, int listener, int resp_size,
		      const struct unixnotify_up *up);
void unixnotify_finish(struct session *s);

#endif
