/* The mount plan as the child takes it: a typed list of operations, in the
 * order they are done. The planner makes it (plan_mount_ops_base and
 * plan_mount_ops_late, launcher/plan/plan.c); the child only executes it
 * (mounts_run, launcher/child/mounts.c); the late part goes from the
 * supervisor to init through one codec (mount_ops_encode and
 * mount_ops_decode, here). A new kind of mount is an op here, where the
 * planner puts it, and how the child does it. */
#ifndef WICKET_BASE_MOUNTOPS_H
#define WICKET_BASE_MOUNTOPS_H

#include <stdbool.h>
#include <stddef.h>

enum mount_op_kind {
	MOP_PRIVATE = 1, /* / private: nothing mounted propagates to the host */
	MOP_CLONE,       /* a detached copy of PATH's tree into SLOT, as it is (a writable root) */
	MOP_CLONE_RO,    /* a read-only copy of PATH into SLOT; OPTIONAL: missing is no error */
	MOP_CLONE_SELF,  /* wicket's own executable, read-only, into SLOT */
	MOP_HOLD_DEV,    /* the device nodes the sandbox offers, held open */
	MOP_FREEZE,      /* the whole tree read-only, nosuid, nodev */
	MOP_TMPFS,       /* a fresh tmpfs on PATH, its options ARG */
	MOP_DEV,         /* a fresh /dev: the held nodes, devpts, /dev/shm (options ARG) */
	MOP_RUN,         /* a fresh, empty /run, with the empty file hidden paths get */
	MOP_ATTACH,      /* SLOT attached at PATH (a mount point made); an empty optional slot: skipped */
	MOP_PIN,         /* PATH bound to itself: it cannot be renamed or removed */
	MOP_PROTECT,     /* PATH bound read-only over itself */
	MOP_RDONLY,      /* the mount at PATH (our own tmpfs) read-only */
	MOP_HIDE,        /* PATH covered: empty and unreadable; FROM_RUN: the file on /run */
	MOP_CHDIR,       /* into PATH, through the new mounts */
	MOP_KINDS
};

struct mount_op {
	enum mount_op_kind kind;
	const char *path;
	const char *arg;
	int slot;       /* a descriptor's place, for CLONE* and ATTACH; -1: none */
	bool optional;  /* CLONE_RO: a missing object is no error */
	bool from_run;  /* HIDE: the empty file lives on the session's /run */
};

/* The strings are the list's own when it was decoded (STORE), else the
 * plan's. */
struct mount_ops {
	struct mount_op *v;
	size_t n, cap;
	int slots;      /* descriptor places the ops use */
	char *store;
};

void mount_ops_add(struct mount_ops *ops, struct mount_op op);
void mount_ops_free(struct mount_ops *ops);
/* OPS as bytes: malloc'ed, *LEN long. */
char *mount_ops_encode(const struct mount_ops *ops, size_t *len);
/* BUF (LEN bytes) back into OPS, which owns a copy of the strings; false
 * on anything malformed (a short read must not become a half-applied
 * plan): an unknown kind, a slot out of range, a string cut short. */
bool mount_ops_decode(const char *buf, size_t len, struct mount_ops *ops);
const char *mount_op_name(enum mount_op_kind kind);

/* The character devices the sandbox offers from the host's /dev (bound
 * into its own /dev; reopened for stdio; named in Landlock rules when
 * there is no mount namespace). One list, so the three agree. */
struct dev_node {
	const char *path;
	unsigned maj, min;
};
extern const struct dev_node wk_dev_nodes[];
#define WK_N_DEV_NODES 6

#endif
