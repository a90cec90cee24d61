#ifndef WICKET_CHILD_MOUNTS_H
#define WICKET_CHILD_MOUNTS_H

#include "base/session.h"

/* mounts.c: executed by the child in its new namespaces (the plan is
 * plan.c's). */
int ns_write_id_maps(uid_t uid, gid_t gid);
/* The operations of OPS (base/mountops.h), in order; -1 (setup_fail
 * said why) at the first that fails: a half-built view is never used. */
struct mount_ops;
int mounts_run(const struct mount_ops *ops);
int mounts_proc(void);

#endif
