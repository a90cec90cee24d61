/* One decision for every part that asks what the sandbox does to a path
 * (DESIGN §1): the shim, when it tells a denial from an ordinary error
 * (preload/diag.c); the supervisor, when it explains one (`wicket why`,
 * launcher/supervisor/control.c); the plan, when it says where the session may
 * write and reach unix sockets (launcher/plan/plan.c); Landlock's rules for
 * those sockets (launcher/child/landlock.c); CAREFUL (lib/careful.c).
 *
 * The rules are a table, either the text of WICKET_RULES (lib/rules.h:
 * what the shim gets) or an array the launcher builds from the session
 * (plan_fstable). Both hold the same kinds:
 *   r  readable root ("/" means everything)
 *   w  writable root: the policy's, and the session's own /tmp, /dev/shm
 *      or the directory that stands in for /tmp
 *   k  a host directory kept, read-only, inside one of the session's own
 *      writable trees (a read root under the private /tmp)
 *   p  protected: bound read-only over itself inside a writable root
 *   h  hidden: covered by an empty, unreadable mount
 * and one flag, "l": Landlock (ABI 9) decides pathname unix sockets.
 * What the kernel does not enforce is not in the table: without a mount
 * namespace there is no protected, hidden or kept path.
 *
 * Pure: no allocation, no system call, no lock, so the preload shim runs
 * it in signal handlers and vfork children. */
#ifndef WICKET_CLASSIFY_H
#define WICKET_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>

/* What the sandbox lets the session do with a path (canonical, absolute). */
enum wk_fs_verdict {
	WK_FS_UNREADABLE, /* beneath no readable root: Landlock refuses even reading */
	WK_FS_READ_ONLY,  /* readable, not writable: the read-only view of the host */
	WK_FS_WRITABLE,   /* beneath a writable root */
	WK_FS_PROTECTED,  /* beneath a protected path inside a writable root: read-only */
	WK_FS_HIDDEN,     /* beneath a hidden path: neither readable nor writable */
};

/* One rule of the table's array form. */
struct wk_fsrule {
	char kind;        /* RULE_READ, RULE_WRITE, RULE_KEEP, RULE_PROTECT, RULE_HIDE */
	const char *path; /* canonical, absolute, NUL-terminated */
};

struct wk_fstable {
	const char *text;            /* WICKET_RULES; NULL: the array */
	const struct wk_fsrule *v;
	size_t n;
	bool landlock_unix;          /* the array's "l 1" */
};

/* The rule that decided (RULE is NULL for none). Of the text form, RULE
 * points into the text and is not NUL-terminated: LEN bytes. */
struct wk_fsmatch {
	char kind;
	const char *rule;
	size_t len;
	const char *root; /* WK_FS_PROTECTED: the writable root it lies in */
	size_t root_len;
};

/* The verdict on PATH, and in M (may be NULL) the rule that made it:
 *   the outermost hidden path that covers PATH (the cover hides all
 *   beneath it, hidden paths inside included): HIDDEN;
 *   else the nearest writable root, unless a kept host directory covers
 *   PATH: WRITABLE, or PROTECTED with the nearest protected path in it;
 *   else the nearest readable root (a writable one, or "/", or a kept
 *   directory): READ_ONLY;
 *   else UNREADABLE. */
enum wk_fs_verdict wk_classify(const struct wk_fstable *t, const char *path,
			       struct wk_fsmatch *m);

/* A pathname unix socket at PATH may be reached (DESIGN §4: beneath a
 * writable root only, never a kept host directory, which holds the
 * host's sockets). With Landlock deciding ("l"), a writable tree that
 * holds a kept directory reaches none at all: Landlock grants the right
 * on a whole tree and cannot leave a part of it out. M (may be NULL)
 * gets the root that allows it. */
bool wk_classify_unix(const struct wk_fstable *t, const char *path, struct wk_fsmatch *m);

/* PATH is a file of a process's own under /proc ("/proc/self/...",
 * "/proc/thread-self/...", "/proc/PID/..."): what a program writes about
 * itself (oom_score_adj, clear_refs, ...). No writable root can hold it
 * and no grant opens it, and a refused write there changes nothing
 * outside: the shim says nothing of it. Not the links there that lead
 * to any file (fd/N, map_files/, root, cwd, exe): a write through them
 * is the named file's. */
bool wk_proc_own_file(const char *path);

/* "hidden", "protected", ... for messages and tests. */
const char *wk_fs_verdict_name(enum wk_fs_verdict v);

#endif
