/* The mount plan's operations as a list, and as bytes (base/mountops.h). */
#include "config.h"
#include "base/mountops.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const struct dev_node wk_dev_nodes[WK_N_DEV_NODES] = {
	{"/dev/null", 1, 3}, {"/dev/zero", 1, 5}, {"/dev/full", 1, 7}, {"/dev/random", 1, 8},
	{"/dev/urandom", 1, 9}, {"/dev/tty", 5, 0},
};

#define MOUNT_OPS_MAX 65536 /* more is no plan of ours */
#define MOUNT_SLOTS_MAX 65536

void mount_ops_add(struct mount_ops *ops, struct mount_op op)
{
	if (ops->n == ops->cap) {
		ops->cap = ops->cap ? 2 * ops->cap : 16;
		ops->v = xrealloc(ops->v, ops->cap * sizeof *ops->v);
	}
	if (op.slot >= ops->slots)
		ops->slots = op.slot + 1;
	ops->v[ops->n++] = op;
}

void mount_ops_free(struct mount_ops *ops)
{
	free(ops->v);
	free(ops->store);
	memset(ops, 0, sizeof *ops);
}

static void put_str(char **b, size_t *len, size_t *cap, const char *s)
{
	bytes_add(b, len, cap, s, strlen(s) + 1);
}

/* Each op: kind, flags (1: optional, 2: from_run, 4: a path, 8: an
 * argument), slot + 1 (0: none), then the path and the argument, each
 * NUL-terminated, when there is one. After a count of ops. */
char *mount_ops_encode(const struct mount_ops *ops, size_t *len)
{
	char *b = NULL;
	size_t cap = 0;
	*len = 0;
	uint32_t n = (uint32_t)ops->n;
	bytes_add(&b, len, &cap, &n, sizeof n);
	for (size_t i = 0; i < ops->n; i++) {
		const struct mount_op *o = &ops->v[i];
		uint8_t h[2] = {(uint8_t)o->kind, (uint8_t)((o->optional ? 1 : 0) | (o->from_run ? 2 : 0) |
							     (o->path ? 4 : 0) | (o->arg ? 8 : 0))};
		uint32_t slot = o->slot < 0 ? 0 : (uint32_t)o->slot + 1;
		bytes_add(&b, len, &cap, h, sizeof h);
		bytes_add(&b, len, &cap, &slot, sizeof slot);
		if (o->path)
			put_str(&b, len, &cap, o->path);
		if (o->arg)
			put_str(&b, len, &cap, o->arg);
	}
	return b;
}

static bool take(const char **p, const char *end, void *out, size_t n)
{
	if ((size_t)(end - *p) < n)
		return false;
	memcpy(out, *p, n);
	*p += n;
	return true;
}

/* The NUL-terminated string at *P, which moves past it. */
static bool take_str(const char **p, const char *end, const char **s)
{
	const char *z = memchr(*p, '\0', (size_t)(end - *p));
	if (!z)
		return false;
	*s = *p;
	*p = z + 1;
	return true;
}

bool mount_ops_decode(const char *buf, size_t len, struct mount_ops *ops)
{
	memset(ops, 0, sizeof *ops);
	/* Parsed in a copy of its own, which the strings point into. */
	ops->store = xmalloc(len ? len : 1);
	memcpy(ops->store, buf, len);
	const char *p = ops->store, *end = ops->store + len;
	uint32_t n;
	/* An op is 6 bytes at least: a count the bytes cannot hold is refused
	 * before anything is allocated for it. */
	bool ok = take(&p, end, &n, sizeof n) && n <= MOUNT_OPS_MAX && n <= (size_t)(end - p) / 6;
	for (uint32_t i = 0; ok && i < n; i++) {
		uint8_t h[2];
		uint32_t slot;
		const char *path = NULL, *arg = NULL;
		ok = take(&p, end, h, sizeof h) && take(&p, end, &slot, sizeof slot) && h[0] >= 1 &&
		     h[0] < MOP_KINDS && !(h[1] & ~15u) && slot <= MOUNT_SLOTS_MAX &&
		     (!(h[1] & 4) || take_str(&p, end, &path)) && (!(h[1] & 8) || take_str(&p, end, &arg));
		if (ok)
			mount_ops_add(ops, (struct mount_op){.kind = (enum mount_op_kind)h[0],
							     .path = path, .arg = arg,
							     .optional = h[1] & 1, .from_run = h[1] & 2,
							     .slot = (int)slot - 1});
	}
	if (!ok || p != end) {
		mount_ops_free(ops);
		return false;
	}
	return true;
}

const char *mount_op_name(enum mount_op_kind kind)
{
	static const char *const names[MOP_KINDS] = {
		[MOP_PRIVATE] = "private", [MOP_CLONE] = "clone",     [MOP_CLONE_RO] = "clone-ro",
		[MOP_CLONE_SELF] = "clone-self", [MOP_HOLD_DEV] = "hold-dev", [MOP_FREEZE] = "freeze",
		[MOP_TMPFS] = "tmpfs",     [MOP_DEV] = "dev",         [MOP_RUN] = "run",
		[MOP_ATTACH] = "attach",   [MOP_PIN] = "pin",         [MOP_PROTECT] = "protect",
		[MOP_RDONLY] = "rdonly",   [MOP_HIDE] = "hide",       [MOP_CHDIR] = "chdir",
	};
	return kind > 0 && kind < MOP_KINDS ? names[kind] : "?";
}
