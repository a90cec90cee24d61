#ifndef WICKET_PLAN_LLPLAN_H
#define WICKET_PLAN_LLPLAN_H

#include "base/session.h"
#include "base/landlockops.h"

/* llplan.c: the Landlock part of the plan (base/landlockops.h), for the
 * ABI S->layers.landlock_abi, from the session's rules (plan_fstable,
 * so after plan_read_keep). Pure: nothing is opened. The ops point into
 * the session. */
void plan_landlock(const struct session *s, struct landlock_ops *ops);
/* Everything the kernel can mediate on files for ABI (0: nothing). */
uint64_t plan_landlock_fs_rights(int abi);

#endif
