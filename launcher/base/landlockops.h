/* The Landlock part of the plan: what the ruleset handles and each rule
 * it grants, in the order they are added. The planner decides them
 * (plan_landlock, launcher/plan/llplan.c); the child only executes them
 * (landlock_build, launcher/child/landlock.c). A new kind of rule is an
 * op here, where the planner puts it, and how the child adds it. The
 * rights are the kernel's (base/landlock_compat.h), already within the
 * handled ones. */
#ifndef WICKET_BASE_LANDLOCKOPS_H
#define WICKET_BASE_LANDLOCKOPS_H

#include <stddef.h>
#include <stdint.h>

enum ll_op_kind {
	LLOP_PATH = 1, /* ACCESS beneath PATH; absent in the view: no rule. On a
			* non-directory only the rights a file can take */
	LLOP_STDIO,    /* ACCESS on what fd FD (0..2) names, as far as the
			* descriptor's own mode allows: a file or a device, else none */
	LLOP_PORT,     /* ACCESS (bind or connect) on TCP port PORT */
	LLOP_KINDS
};

struct ll_op {
	enum ll_op_kind kind;
	const char *path;
	int fd;
	unsigned short port;
	uint64_t access;
};

struct landlock_ops {
	int abi;               /* the ruleset's ABI (its size); 0: no Landlock */
	uint64_t handled_fs;
	uint64_t handled_net;  /* 0: the network is not handled */
	uint64_t scoped;
	struct ll_op *v;
	size_t n, cap;
};

void landlock_ops_add(struct landlock_ops *ops, struct ll_op op);
void landlock_ops_free(struct landlock_ops *ops);
const char *ll_op_name(enum ll_op_kind kind);

#endif
