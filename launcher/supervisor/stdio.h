#ifndef WICKET_SUPERVISOR_STDIO_H
#define WICKET_SUPERVISOR_STDIO_H

#include "base/session.h"

/* stdio.c */
void stdio_plan(struct session *s);
int stdio_apply(struct session *s, int *keep_stdin);
void stdio_parent_close(struct session *s);
bool stdio_has_relay(const struct session *s);
int stdio_relay_wait(struct session *s, pid_t child, int *status);
void stdio_finish(struct session *s);

#endif
