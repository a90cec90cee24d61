/* The mount plan's operations as a list, and as bytes (base/mountops.h). */
#include "config.h"
#include "base/mountops.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

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

static void put(char **b, size_t *len, size_t *cap, const void *p, size_t n)
{
	if (*len + n > *cap) {
		*cap = (*len + n) * 2;
		*b = xrealloc(*b, *cap);
	}
	memcpy(*b + *len, p, n);
	*len += n;
}

static void put_str(char **b, size_t *len, size_t *cap, const char *s)
{
	put(b, len, cap, s ? s : "", (s ? strlen(s) : 0) + 1);
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
	put(&b, len, &cap, &n, sizeof n);
	for (size_t i = 0; i < ops->n; i++) {
		const struct mount_op *o = &ops->v[i];
		uint8_t h[2] = {(uint8_t)o->kind, (uint8_t)((o->optional ? 1 : 0) | (o->from_run ? 2 : 0) |
							     (o->path ? 4 : 0) | (o->arg ? 8 : 0))};
		uint32_t slot = o->slot < 0 ? 0 : (uint32_t)o->slot + 1;
		put(&b, len, &cap, h, sizeof h);
		put(&b, len, &cap, &slot, sizeof slot);
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

/* A NUL-terminated string at *P, as an offset into the copy. */
static bool take_str(const char **p, const char *end, const char *base, size_t *off)
{
	const char *z = memchr(*p, '\0', (size_t)(end - *p));
	if (!z)
		return false;
	*off = (size_t)(*p - base);
	*p = z + 1;
	return true;
}

bool mount_ops_decode(const char *buf, size_t len, struct mount_ops *ops)
{
	memset(ops, 0, sizeof *ops);
	const char *p = buf, *end = buf + len;
	uint32_t n;
	/* An op is 6 bytes at least: a count the bytes cannot hold is refused
	 * before anything is allocated for it. */
	if (!take(&p, end, &n, sizeof n) || n > MOUNT_OPS_MAX || n > (size_t)(end - p) / 6)
		return false;
	/* Offsets first: the strings point into STORE, a copy of BUF. */
	size_t (*offs)[2] = n ? xcalloc(n, sizeof *offs) : NULL;
	ops->store = xmalloc(len ? len : 1);
	memcpy(ops->store, buf, len);
	bool ok = true;
	for (uint32_t i = 0; i < n && ok; i++) {
		uint8_t h[2];
		uint32_t slot;
		ok = take(&p, end, h, sizeof h) && take(&p, end, &slot, sizeof slot) && h[0] >= 1 &&
		     h[0] < MOP_KINDS && !(h[1] & ~15u) && slot <= MOUNT_SLOTS_MAX;
		size_t po = SIZE_MAX, ao = SIZE_MAX;
		if (ok && (h[1] & 4))
			ok = take_str(&p, end, buf, &po);
		if (ok && (h[1] & 8))
			ok = take_str(&p, end, buf, &ao);
		if (!ok)
			break;
		offs[i][0] = po;
		offs[i][1] = ao;
		mount_ops_add(ops, (struct mount_op){.kind = (enum mount_op_kind)h[0],
						     .optional = h[1] & 1, .from_run = h[1] & 2,
						     .slot = (int)slot - 1});
	}
	if (ok && p != end)
		ok = false;
	for (size_t i = 0; ok && i < ops->n; i++) {
		ops->v[i].path = offs[i][0] == SIZE_MAX ? NULL : ops->store + offs[i][0];
		ops->v[i].arg = offs[i][1] == SIZE_MAX ? NULL : ops->store + offs[i][1];
	}
	free(offs);
	if (!ok)
		mount_ops_free(ops);
	return ok;
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
