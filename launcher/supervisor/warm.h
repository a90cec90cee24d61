/* Warm sessions, the supervisor's side (warm.c): the socket `wicket exec`
 * connects to, and the server inside the sandbox that runs each exec. */
#ifndef WICKET_SUPERVISOR_WARM_H
#define WICKET_SUPERVISOR_WARM_H

#include "base/session.h"

/* Where a session's socket and log live: STATE/warm, mode 0700; its
 * descriptor (O_PATH), or -1 with errno. */
int warm_dir_open(void);
/* "/proc/self/fd/DIRFD/NAME.sock" and the like: a socket's name whatever
 * the length of the state directory's path. */
char *warm_path(int dirfd, const char *name, const char *ext);
/* Before session_run: the server's socket (s->warm_child, which
 * exec_command lets cross). */
void warm_plan(struct session *s);
/* In init, after the command's vfork: init holds neither end. */
void warm_init_close(struct session *s);
void warm_parent_close(struct session *s);
void warm_start(struct session *s, bool started);
void warm_finish(struct session *s);

#endif
