#ifndef WICKET_CHILD_MOUNTS_H
#define WICKET_CHILD_MOUNTS_H

#include "base/session.h"

/* mounts.c: executed by the child in its new namespaces (the plan is
 * plan.c's). */
int ns_write_id_maps(uid_t uid, gid_t gid);
int mounts_base(const struct mount_plan *plan);
int mounts_finish(const struct mount_plan *plan, const char *workspace);
int mounts_proc(void);

#endif
