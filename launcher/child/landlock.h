#ifndef WICKET_CHILD_LANDLOCK_H
#define WICKET_CHILD_LANDLOCK_H

#include "base/session.h"

/* landlock.c */
int landlock_build(const struct session *s);   /* returns ruleset fd or -1 */
int landlock_enforce(int ruleset_fd);

#endif
