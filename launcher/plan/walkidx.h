#ifndef WICKET_PLAN_WALKIDX_H
#define WICKET_PLAN_WALKIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* walkidx.c: what the walk of a writable root for nested repositories
 * (autorun.c) saw of each directory: its identity and change time, and
 * whether it held a .git or a HEAD entry. A directory whose change time
 * is as recorded has had no entry made, removed or renamed in it since:
 * the walk need not list it again, only look at its subdirectories. Kept
 * between sessions in the state directory (hidden from and read-only to
 * every session), one file per root. */

#define WIDX_NONE UINT32_MAX
#define WIDX_GIT 1u      /* holds an entry named .git */
#define WIDX_HEAD 2u     /* holds an entry named HEAD (git's own layout may be there) */
#define WIDX_UNLISTED 4u /* could not be listed: never taken as unchanged */
#define WIDX_CLOSED 8u   /* and not entered either: no search permission for its user */

struct widx_node {
	uint32_t parent;       /* WIDX_NONE for the root */
	uint32_t first_child;  /* set by widx_link */
	uint32_t next_sibling; /* set by widx_link */
	uint32_t flags;
	uint64_t dev, ino;
	int64_t ctime_ns;
	size_t name; /* offset into names */
};

struct widx {
	struct widx_node *v;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	int64_t made_ns; /* CLOCK_REALTIME when the walk that made it began */
};

/* A node for a directory (ST) named NAME under PARENT, appended; its id. */
uint32_t widx_add(struct widx *x, uint32_t parent, const char *name, const struct stat *st);
const char *widx_name(const struct widx *x, uint32_t id);
/* The children lists (first_child, next_sibling), from the parents. */
void widx_link(struct widx *x);
/* The child of P named NAME, or WIDX_NONE: SORTED (allocated on first
 * use, for P's children by name) is the caller's cache, *NS its size. */
uint32_t widx_child(const struct widx *x, uint32_t p, const char *name, uint32_t **sorted,
		    size_t *ns);
void widx_free(struct widx *x);

/* The index of ROOT kept in the state directory (empty when there is
 * none, or it does not read back whole), and saved there. */
void widx_load(const char *root, struct widx *x);
void widx_save(const char *root, const struct widx *x);
/* The index of ROOT kept as used now (unchanged: the oldest are pruned). */
void widx_touch(const char *root);

#endif
