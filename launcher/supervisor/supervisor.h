#ifndef WICKET_SUPERVISOR_SUPERVISOR_H
#define WICKET_SUPERVISOR_SUPERVISOR_H

#include "base/session.h"

/* supervisor.c */
int session_run(struct session *s);
void net_early_start(const struct session *s);
void net_early_release(void);

#endif
