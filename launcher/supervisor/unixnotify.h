#ifndef WICKET_SUPERVISOR_UNIXNOTIFY_H
#define WICKET_SUPERVISOR_UNIXNOTIFY_H

#include "base/session.h"

/* unixnotify.c: the supervisor decides pathname unix sockets (Landlock
 * ABI < 9) and makes the allowed connects and sends itself. NOTIF: a
 * struct seccomp_notif. UP: what it calls back in netnotify.c, which
 * drives it (so it needs nothing of netnotify.c's itself): REPORT a
 * network refusal, once per (process, object), to the session; RESUME
 * reading the listener, once a worker is free. */
struct unixnotify_up {
	void (*report)(struct session *s, long pid, long host_pid, const char *comm,
		       const char *obj);
	void (*resume)(void);
};
void unixnotify_start(struct session *s, int listener, int resp_size,
		      const struct unixnotify_up *up);
bool unixnotify_takes(const struct session *s, const void *notif);
bool unixnotify_full(void);
bool unixnotify_submit(const void *notif);
void unixnotify_finish(struct session *s);

#endif
