#ifndef WICKET_PLAN_PLAN_H
#define WICKET_PLAN_PLAN_H

#include "base/session.h"

/* plan.c: policy resolution and the mount plan (no mounting). */
void plan_build_base(struct session *s);
void plan_build_late(struct session *s);
void plan_pins(const char *root, const char *path, struct strv *out);
void plan_pin_kept(struct mount_plan *plan);
/* PATH lies where the session's own mounts (a private /tmp, /run) cover
 * the host's. */
bool plan_covered(const struct mount_plan *plan, const char *path);
/* plan->read_keep from pol.read (after plan_build_base, which sets
 * private_tmp and cover_run; idempotent). */
void plan_read_keep(struct session *s);
/* The plan as the child executes it (base/mountops.h): the base of the
 * view (after plan_read_keep), and the late part (after plan_build_late).
 * The ops point into the plan and WORKSPACE. */
struct mount_ops;
void plan_mount_ops_base(const struct mount_plan *plan, struct mount_ops *ops);
void plan_mount_ops_late(const struct mount_plan *plan, const char *workspace,
			 struct mount_ops *ops);
const char *writable_root_of(const struct policy *pol, const char *path);
/* The root beneath which the sandbox may reach the unix socket at PATH
 * (canonical, in the sandbox's view): a writable root, the session's own
 * /tmp (but not a read root kept there) or /dev/shm, or a socket named by
 * --socket; NULL: out of reach. */
const char *plan_unix_root(const struct session *s, const char *path);
/* The session's rules as classify (lib/classify.h) takes them: what the
 * kernel enforces for it (plan.c). Pointers into the session; free with
 * plan_fstable_free. diag_env writes the same table for the shim. */
struct wk_fstable;
void plan_fstable(const struct session *s, struct wk_fstable *t);
void plan_fstable_free(struct wk_fstable *t);
void plan_check_absent(const struct policy *pol, const struct mount_plan *plan,
		       const char *session_id);
/* Move PATH, which the session created, aside
 * (PATH.quarantined-by-wicket-ID-RANDOM, never replacing anything), when its
 * parent lies in one of POL's writable roots; if it cannot be moved, a
 * non-directory is removed, a directory is warned about. */
void plan_quarantine(const struct policy *pol, const char *path, const char *session_id);
/* Whether the way to PATH, links followed, enters /proc; the links on
 * it inside one of ROOTS to LINKS. */
bool plan_way_through_proc(const struct strv *roots, const char *path, struct strv *links);
bool plan_in_writable_root(const struct policy *pol, const char *path);
/* BUF (LEN bytes) gets up to 16 random hex digits, NUL-terminated. */
void random_hex(char *buf, size_t len);
/* The shared spaces, canonical: /tmp, /var/tmp, /dev/shm, /run,
 * RUNTIME_DIR, HOMES (NULL-terminated) and their .config, and the
 * directories on PATH inside a home (PATH_ENV's, ~/bin, ~/.local/bin),
 * those also in ON_PATH; plan_shared_in: the one ROOT is or contains,
 * or NULL (pure). */
void plan_shared_spaces(const char *const *homes, const char *runtime_dir, const char *path_env,
			struct strv *out, struct strv *on_path);
const char *plan_shared_in(const struct strv *shared, const char *root);
/* The writable roots and protected paths as CAREFUL takes them (lib/careful.h). */
struct wk_wset;
void plan_wset(const struct session *s, struct wk_wset *w);

#endif
