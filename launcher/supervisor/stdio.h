#ifndef WICKET_SUPERVISOR_STDIO_H
#define WICKET_SUPERVISOR_STDIO_H

#include "base/session.h"

/* stdio.c: the command's fds 0..2, and the session's own terminal, whose
 * whole life (pty.c) goes through these: stdio_plan before the clone;
 * stdio_apply in init, after the mount view; stdio_command in the
 * command right before its exec (the pty its controlling terminal);
 * stdio_parent_close in the supervisor after the clone; stdio_start once
 * the command runs (STARTED false: its setup failed); stdio_relay_wait
 * while it runs; stdio_finish when it ended (the terminal given back). */
void stdio_plan(struct session *s);
/* Once the protected and hidden paths are known (late_prepare): a file
 * passed as it is (opened for writing inside a writable root) that is
 * one of them is refused (die), as the view would refuse writing it. */
void stdio_check_late(const struct session *s);
int stdio_apply(struct session *s, int *keep_stdin);
int stdio_command(const struct session *s);
void stdio_parent_close(struct session *s);
void stdio_start(struct session *s, bool started);
bool stdio_has_relay(const struct session *s);
int stdio_relay_wait(struct session *s, pid_t child, int *status);
void stdio_finish(struct session *s);

#endif
