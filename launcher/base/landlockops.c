/* The Landlock plan's rules as a list (base/landlockops.h). */
#include "config.h"
#include "base/landlockops.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void landlock_ops_add(struct landlock_ops *ops, struct ll_op op)
{
	if (ops->n == ops->cap) {
		ops->cap = ops->cap ? 2 * ops->cap : 16;
		ops->v = xrealloc(ops->v, ops->cap * sizeof *ops->v);
	}
	ops->v[ops->n++] = op;
}

void landlock_ops_free(struct landlock_ops *ops)
{
	free(ops->v);
	memset(ops, 0, sizeof *ops);
}

const char *ll_op_name(enum ll_op_kind kind)
{
	switch (kind) {
	case LLOP_PATH: return "path";
	case LLOP_STDIO: return "stdio";
	case LLOP_PORT: return "port";
	default: return "?";
	}
}
