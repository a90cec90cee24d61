#ifndef WICKET_CHILD_LANDLOCK_H
#define WICKET_CHILD_LANDLOCK_H

#include "base/landlockops.h"

/* landlock.c: the ruleset of OPS (plan_landlock), its descriptor, or -1
 * (setup_fail said why). */
int landlock_build(const struct landlock_ops *ops);
int landlock_enforce(int ruleset_fd);

#endif
