/* From a policy to a mount plan: canonical paths, pinned ancestors,
 * refusals for shapes that would leave a hole. Nothing is mounted here. */
#include "config.h"
#include "base/session.h"
#include "base/mountops.h"
#include "plan/plan.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "careful.h"
#include "classify.h"
#include "dac.h"
#include "path.h"
#include "pathlex.h"
#include "realpath.h"
#include "rules.h"

void plan_pins(const char *root, const char *path, struct strv *out)
{
	size_t rl = strlen(root);
	if (!path_is_under(path, root) || strcmp(path, root) == 0)
		return;
	/* Every directory strictly between ROOT and PATH. */
	for (const char *p = path + (rl == 1 ? 1 : rl + 1); (p = strchr(p, '/')); p++) {
		char *d = xasprintf("%.*s", (int)(p - path), path);
		if (!strv_contains(out, d))
			strv_push(out, d);
		else
			free(d);
	}
}

/* The rules of TAB (N used) grown by KIND over the N strings of V. */
static size_t fs_add(struct wk_fsrule *tab, size_t n, char kind, char *const *v, size_t nv)
{
	for (size_t i = 0; i < nv; i++)
		tab[n++] = (struct wk_fsrule){.kind = kind, .path = v[i]};
	return n;
}

const char *writable_root_of(const struct policy *pol, const char *path)
{
	struct wk_fsrule *tab = xcalloc(pol->write.n + 1, sizeof *tab);
	struct wk_fstable t = {.v = tab, .n = fs_add(tab, 0, RULE_WRITE, pol->write.v, pol->write.n)};
	struct wk_fsmatch m;
	const char *root = wk_classify(&t, path, &m) == WK_FS_WRITABLE ? m.rule : NULL;
	free(tab);
	return root;
}

void plan_fstable(const struct session *s, struct wk_fstable *t)
{
	const struct policy *pol = &s->pol;
	const struct mount_plan *plan = &s->plan;
	size_t cap = pol->read.n + pol->write.n + 3 + plan->read_keep.n + plan->protect.n +
		     pol->protect.n + plan->hide.n + pol->hide.n + plan->dac_closed.n;
	struct wk_fsrule *tab = xcalloc(cap, sizeof *tab);
	static char *const tmp[] = {"/tmp"}, *const shm[] = {"/dev/shm"};
	size_t n = fs_add(tab, 0, RULE_READ, pol->read.v, pol->read.n);
	n = fs_add(tab, n, RULE_WRITE, pol->write.v, pol->write.n);
	if (s->layers.mntns) {
		/* The session's own /tmp and /dev/shm: fresh tmpfs mounts. */
		if (plan->private_tmp && !strv_contains(&pol->write, "/tmp"))
			n = fs_add(tab, n, RULE_WRITE, tmp, 1);
		n = fs_add(tab, n, RULE_WRITE, shm, 1);
		n = fs_add(tab, n, RULE_KEEP, plan->read_keep.v, plan->read_keep.n);
		/* Canonical where they exist, as written where they do not
		 * (the shim and `wicket why` match either). */
		n = fs_add(tab, n, RULE_PROTECT, plan->protect.v, plan->protect.n);
		for (size_t i = 0; i < pol->protect.n; i++)
			if (!strv_contains(&plan->protect, pol->protect.v[i]))
				n = fs_add(tab, n, RULE_PROTECT, &pol->protect.v[i], 1);
		n = fs_add(tab, n, RULE_HIDE, plan->hide.v, plan->hide.n);
		for (size_t i = 0; i < pol->hide.n; i++)
			if (!strv_contains(&plan->hide, pol->hide.v[i]))
				n = fs_add(tab, n, RULE_HIDE, &pol->hide.v[i], 1);
		n = fs_add(tab, n, RULE_HIDE_CLOSED, plan->dac_closed.v, plan->dac_closed.n);
	} else if (s->fallback_tmp) {
		/* No mount namespace: the directory that stands in for /tmp;
		 * the host's /tmp and /dev/shm are shared, nothing is covered. */
		n = fs_add(tab, n, RULE_WRITE, (char *const *)&s->fallback_tmp, 1);
	}
	*t = (struct wk_fstable){.v = tab, .n = n, .landlock_unix = s->layers.landlock_abi >= 9};
}

void plan_fstable_free(struct wk_fstable *t)
{
	free((void *)t->v);
	memset(t, 0, sizeof *t);
}

const char *plan_unix_root(const struct session *s, const char *path)
{
	for (size_t i = 0; i < s->pol.sockets.n; i++)
		if (strcmp(s->pol.sockets.v[i], path) == 0)
			return s->pol.sockets.v[i]; /* --socket: this one, named */
	struct wk_fstable t;
	struct wk_fsmatch m;
	plan_fstable(s, &t);
	const char *root = wk_classify_unix(&t, path, &m) ? m.rule : NULL;
	plan_fstable_free(&t);
	return root;
}

/* FN on each of PATH's leading parts ("/a", "/a/b", ... PATH itself),
 * NUL-terminated in a buffer of its own, as long as it returns true;
 * false when one said stop (or PATH is too long to walk). */
static bool each_prefix(const char *path, bool (*fn)(const char *prefix, void *arg), void *arg)
{
	char buf[PATH_MAX];
	if (strlen(path) >= sizeof buf)
		return false;
	strcpy(buf, path);
	for (char *c = buf + 1;; c++) {
		char keep = *c;
		if (keep != '/' && keep != '\0')
			continue;
		*c = '\0';
		if (!fn(buf, arg))
			return false;
		*c = keep;
		if (!keep)
			return true;
	}
}

struct protect_walk {
	const struct policy *pol;
	const char *lexical;
};

static bool no_link_in_root(const char *prefix, void *arg)
{
	const struct protect_walk *pw = arg;
	struct stat st;
	if (lstat(prefix, &st) == 0 && S_ISLNK(st.st_mode)) {
		char *parent = path_dirname(prefix);
		char *rparent = wk_realpath(parent);
		const char *w = rparent ? writable_root_of(pw->pol, rparent) : NULL;
		if (w)
			die("protected path %s goes through the symlink %s inside the writable "
			    "root %s, which the session could re-aim; protect the link's "
			    "target instead (for a policy file or the user configuration: "
			    "name the target there)", pw->lexical, prefix, w);
		free(rparent);
		free(parent);
	}
	return true;
}

/* A protected path reached through a symlink that the sandbox may rewrite
 * is no protection: after the session, tools outside would follow the new
 * link. Refuse it rather than protect the wrong object. */
static void check_protect_symlinks(const struct policy *pol, const char *lexical)
{
	/* Most have none: one look instead of one per part. */
	if (wk_no_link_on_way(lexical))
		return;
	struct protect_walk pw = {pol, lexical};
	if (!each_prefix(lexical, no_link_in_root, &pw))
		die("protected path too long: %s", lexical);
}

static int cmp_len(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);
	return la < lb ? -1 : la > lb;
}

/* The kept read roots in the private /tmp are bound onto directories
 * of the session's own tmpfs, which the sandbox may rename: the mount
 * would move along, and a host socket in it would then lie, by name,
 * in the private /tmp, where unix sockets may be reached (red team 6,
 * F1). So their ancestors there are pinned, as a protected path's are. */
void plan_pin_kept(struct mount_plan *plan)
{
	if (!plan->private_tmp)
		return;
	for (size_t i = 0; i < plan->read_keep.n; i++)
		plan_pins("/tmp", plan->read_keep.v[i], &plan->pins);
	qsort(plan->pins.v, plan->pins.n, sizeof *plan->pins.v, cmp_len);
}

/* True when the session's own tmpfs mounts (the private /tmp, the cover
 * of /run) would hide PATH, which lies beneath one of them. */
bool plan_covered(const struct mount_plan *plan, const char *path)
{
	return (plan->private_tmp && path_is_under(path, "/tmp") && strcmp(path, "/tmp") != 0) ||
	       (plan->cover_run && path_is_under(path, "/run") && strcmp(path, "/run") != 0);
}

/* Read roots that the session's own mounts would cover: under /tmp (when
 * it is private) and under /run. Run by the supervisor, not the child.
 * A root inside a writable root is visible through that; one inside
 * another kept root comes with it (the copy is recursive). */
void plan_read_keep(struct session *s)
{
	struct mount_plan *plan = &s->plan;
	for (size_t i = 0; i < s->pol.read.n; i++) {
		const char *r = s->pol.read.v[i];
		struct stat st;
		if (!plan_covered(plan, r) || writable_root_of(&s->pol, r) || lstat(r, &st) < 0 ||
		    strv_contains(&plan->read_keep, r))
			continue;
		strv_add(&plan->read_keep, r);
	}
	/* So is a read-only workspace there: the command starts in it. */
	if (plan_covered(plan, s->workspace) && !writable_root_of(&s->pol, s->workspace) &&
	    !strv_contains(&plan->read_keep, s->workspace))
		strv_add(&plan->read_keep, s->workspace);
	/* Drop roots inside other kept roots (so the order of attaching
	 * does not matter). */
	struct strv outer = {0};
	for (size_t i = 0; i < plan->read_keep.n; i++) {
		bool inside = false;
		for (size_t j = 0; j < plan->read_keep.n && !inside; j++)
			inside = j != i && path_is_under(plan->read_keep.v[i], plan->read_keep.v[j]);
		if (!inside)
			strv_add(&outer, plan->read_keep.v[i]);
	}
	strv_free(&plan->read_keep);
	plan->read_keep = outer;
	plan_pin_kept(plan);
}

static bool not_a_link(const char *prefix, void *arg)
{
	bool *link = arg;
	struct stat st;
	if (lstat(prefix, &st) < 0)
		return false; /* the rest does not exist: no link there */
	*link = S_ISLNK(st.st_mode);
	return !*link;
}

/* A symbolic link is on the way to PATH now (one that was there before
 * the session is the user's own, and is left alone). */
static bool through_link(const char *path)
{
	bool link = false;
	return !each_prefix(path, not_a_link, &link) && link;
}

/* The part of the plan init needs first (before its base mounts):
 * writable roots, /tmp, and what stays visible under /run. */
void plan_build_base(struct session *s)
{
	struct policy *pol = &s->pol;
	struct mount_plan *plan = &s->plan;
	memset(plan, 0, sizeof *plan);
	plan->private_tmp = pol->private_tmp;
	memcpy(plan->tmp_size, pol->tmp_size, sizeof plan->tmp_size);

	for (size_t i = 0; i < pol->write.n; i++) {
		const char *w = pol->write.v[i];
		if (strcmp(w, "/") == 0)
			die("refusing to make / writable: that is no sandbox (use -C DIR for a "
			    "smaller workspace, or --read-only)");
		if (path_is_under(w, "/proc") || path_is_under(w, "/dev") || path_is_under(w, "/sys"))
			die("cannot make %s writable: /proc, /dev and /sys are the sandbox's own", w);
		/* Other programs keep files and sockets there (a tmux server's in
		 * /tmp, a login shell's ~/.bashrc): the sandbox would reach them. */
		const char *shared = s->allow_shared ? NULL : plan_shared_in(&s->shared, w);
		if (shared) {
			char *is = strcmp(shared, w) == 0 ? xstrdup("it is") :
							    xasprintf("it holds %s,", shared);
			if (strv_contains(&s->shared_path, shared))
				die("refusing to make %s writable: %s a directory on PATH (programs "
				    "the sandbox put there would run outside when their names are "
				    "typed); use a directory of its own, or --allow-shared-write to "
				    "accept it knowingly", w, is);
			die("refusing to make %s writable: %s a space other programs share (their "
			    "sockets, a shell's startup files, tools' config that runs code); use a "
			    "directory of its own (-C DIR), or --allow-shared-write to accept it "
			    "knowingly", w, is);
		}
		if (!strv_contains(&plan->write, w))
			strv_add(&plan->write, w);
	}
	/* Parents before children, so nested roots stack the right way. */
	qsort(plan->write.v, plan->write.n, sizeof *plan->write.v, cmp_len);

	struct stat st;
	plan->cover_run = stat("/run", &st) == 0 && S_ISDIR(st.st_mode);
	plan->self_bin = plan->cover_run;
	if (plan->cover_run) {
		/* Name resolution and utmp stay readable; no socket is kept. */
		static const char *const keep[] = {"/etc/resolv.conf", "/run/utmp", NULL};
		for (size_t i = 0; keep[i]; i++) {
			char *r = wk_realpath(keep[i]);
			if (r && path_is_under(r, "/run") && stat(r, &st) == 0 && S_ISREG(st.st_mode))
				strv_push(&plan->run_keep, r);
			else
				free(r);
		}
	}
}

/* PATH (canonical, ST its stat) is closed to the user by the file
 * permissions alone (lib/dac.c: the bits, and no ACL that may open it):
 * no reading, no writing (a directory: no search either), and not theirs
 * to open up (chmod). It is hidden all the same
 * (its owner may open it up later); but refusing it is then not the
 * sandbox's doing, so nothing is said (/etc/shadow for anyone but root,
 * who is refused nothing). */
static bool dac_closed(const char *path, const struct stat *st)
{
	gid_t groups[256];
	int n = getgroups(256, groups);
	return wk_dac_closed(st, geteuid(), getegid(), groups, n > 0 ? (size_t)n : 0,
			     getxattr(path, "system.posix_acl_access", NULL, 0) > 0);
}

/* The rest (hidden and protected paths), which the supervisor works out
 * while init builds the base of the view. */
void plan_build_late(struct session *s)
{
	struct policy *pol = &s->pol;
	struct mount_plan *plan = &s->plan;

	for (size_t i = 0; i < pol->hide.n; i++) {
		struct stat st;
		char *real;
		if (lstat(pol->hide.v[i], &st) < 0 || !(real = wk_realpath(pol->hide.v[i]))) {
			/* Nothing there to hide. Inside a writable root the session
			 * could create it (a ~/.ssh/authorized_keys when the
			 * workspace is $HOME): watched like an absent protected path. */
			if (errno == ENOENT && writable_root_of(pol, pol->hide.v[i]) &&
			    !strv_contains(&plan->absent_protect, pol->hide.v[i]))
				strv_add(&plan->absent_protect, pol->hide.v[i]);
			continue;
		}
		for (size_t j = 0; j < plan->write.n; j++)
			if (path_is_under(plan->write.v[j], real))
				die("the writable path %s lies inside the hidden path %s", plan->write.v[j],
				    real);
		/* As the rule table has them: canonical, and as written. */
		struct stat rs;
		if (stat(real, &rs) == 0 && dac_closed(real, &rs)) {
			if (!strv_contains(&plan->dac_closed, real))
				strv_add(&plan->dac_closed, real);
			if (!strv_contains(&plan->dac_closed, pol->hide.v[i]))
				strv_add(&plan->dac_closed, pol->hide.v[i]);
		}
		/* Its directories in a writable root pinned, as a protected
		 * path's are: renamed, they would take it where the next
		 * session's (or a grant's) rule no longer finds it. */
		const char *w = writable_root_of(pol, real);
		if (w)
			plan_pins(w, real, &plan->pins);
		if (!strv_contains(&plan->hide, real))
			strv_push(&plan->hide, real);
		else
			free(real);
	}

	/* A directory a user-config entry names, as written: were it
	 * replaced by a link, a later session started there would get the
	 * policy of wherever the link leads. Pinned (it and its ancestors in
	 * the root cannot be renamed or removed); what is in it stays
	 * writable. */
	for (size_t i = 0; i < pol->keep_name.n; i++) {
		const char *d = pol->keep_name.v[i];
		char *real = wk_realpath(d);
		struct stat st;
		const char *w = real && strcmp(real, d) == 0 && stat(real, &st) == 0 &&
					S_ISDIR(st.st_mode) ? writable_root_of(pol, real) : NULL;
		if (w) {
			char *below = path_join(real, "x");
			plan_pins(w, below, &plan->pins);
			free(below);
		} else if (!real && plan_in_writable_root(pol, d) && !through_link(d) &&
			   !strv_contains(&plan->absent_entry, d)) {
			/* Not there yet: the session could make it, or a
			 * directory on the way, a link (plan_check_absent). */
			strv_add(&plan->absent_entry, d);
		}
		free(real);
	}
	for (size_t i = 0; i < pol->protect.n; i++) {
		const char *lex = pol->protect.v[i];
		check_protect_symlinks(pol, lex);
		char *real = wk_realpath(lex);
		if (!real) {
			/* A mount needs an existing object; a path that does not exist
			 * yet cannot be covered without creating it in the user's
			 * tree. The supervisor checks it after the session instead,
			 * where the session could have made it: in a writable root
			 * (elsewhere it would be the user's own, made meanwhile). */
			struct stat st;
			if (lstat(lex, &st) < 0 && errno == ENOENT && plan_in_writable_root(pol, lex) &&
			    !strv_contains(&plan->absent_protect, lex))
				strv_add(&plan->absent_protect, lex);
			continue;
		}
		const char *w = writable_root_of(pol, real);
		if (!w) {
			free(real); /* already read-only */
			continue;
		}
		plan_pins(w, real, &plan->pins);
		if (!strv_contains(&plan->protect, real))
			strv_push(&plan->protect, real);
		else
			free(real);
	}
	qsort(plan->pins.v, plan->pins.n, sizeof *plan->pins.v, cmp_len);
}

struct quarantine_walk {
	const struct policy *pol;
	const char *session_id;
};

/* Walking an entry's path: the first symbolic link on it is moved aside
 * (if the session could have made it: plan_quarantine decides); the walk
 * ends there, or where nothing exists any more. */
static bool move_first_link(const char *prefix, void *arg)
{
	const struct quarantine_walk *qw = arg;
	struct stat st;
	if (lstat(prefix, &st) < 0)
		return false;
	if (S_ISLNK(st.st_mode)) {
		plan_quarantine(qw->pol, prefix, qw->session_id);
		return false;
	}
	return true;
}

/* Whether the way to PATH, links followed, enters /proc (/proc/self/cwd,
 * /dev/fd/N, /proc/PID/root): then where it leads depends on the process
 * that follows it, and what the end finds there is not what the user's
 * tool, in its own directory, will read. The links on the way that lie
 * in a writable root (the session's to aim there) go to LINKS. Each part
 * is looked at (lstat, readlink), where one lookup finds a link. A way
 * whose missing part, or 40 links, would stop the kernel's walk too leads
 * nowhere; one too long to follow here is taken for one through /proc. */
bool plan_way_through_proc(const struct strv *roots, const char *path, struct strv *links)
{
	/* Most ways have no link: one lookup says so. */
	if (wk_no_link_on_way(path))
		return false;
	char cur[PATH_MAX] = "";
	char *rest = xstrdup(path);
	bool proc = false;
	int nlinks = 0;
	size_t n;
	char *c;
	while ((c = (char *)pathlex_next(rest, &n))) {
		char *after = c + n;
		if (pathlex_dot_step(cur, c, n)) {
			memmove(rest, after, strlen(after) + 1);
			continue;
		}
		size_t cl = strlen(cur);
		if (cl + 1 + n >= sizeof cur) {
			/* Longer than this walk keeps, which the kernel's does
			 * not bound (relative links add to what is resolved):
			 * where it leads is not known, so taken for /proc. */
			proc = true;
			break;
		}
		char next[PATH_MAX];
		memcpy(next, cur, cl);
		next[cl] = '/';
		memcpy(next + cl + 1, c, n);
		next[cl + 1 + n] = '\0';
		struct stat st;
		struct statfs sf;
		/* host: a part of a protected path's way, as the user's tools take it */
		if (lstat(next, &st) < 0)
			break;
		if (!S_ISLNK(st.st_mode)) {
			if (S_ISDIR(st.st_mode) && statfs(next, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC) {
				proc = true;
				break;
			}
			memcpy(cur, next, cl + 1 + n + 1);
			memmove(rest, after, strlen(after) + 1);
			continue;
		}
		char t[PATH_MAX];
		/* host: as above */
		ssize_t tl = readlink(next, t, sizeof t - 1);
		if (tl <= 0 || ++nlinks > 40)
			break;
		t[tl] = '\0';
		for (size_t i = 0; i < roots->n; i++)
			if (path_is_under(next, roots->v[i]) && !strv_contains(links, next)) {
				strv_add(links, next);
				break;
			}
		char *r2 = xasprintf("%s/%s", t, after);
		free(rest);
		rest = r2;
		if (t[0] == '/')
			cur[0] = '\0';
	}
	free(rest);
	return proc;
}

/* A protected path that did not exist at the start could be created by
 * the session (no mount can cover a path that is not there). What the
 * session created there is moved aside before anything outside can use
 * it, and the user is told where it went. */
void plan_check_absent(const struct policy *pol, const struct mount_plan *plan,
		       const char *session_id)
{
	for (size_t i = 0; i < plan->absent_protect.n; i++) {
		const char *p = plan->absent_protect.v[i];
		/* Where the way goes through /proc/self/cwd (a link the
		 * session made in a root: a protected path has none there at
		 * the start), what is found here, or not, is not what a
		 * program in another directory finds: the links of the roots
		 * on the way are moved aside, after what is found here (a
		 * decoy the session may have left where the end runs). */
		struct strv links = {0};
		bool proc = plan_way_through_proc(&pol->write, p, &links);
		struct stat st;
		if (lstat(p, &st) == 0)
			plan_quarantine(pol, p, session_id);
		for (size_t j = 0; proc && j < links.n; j++)
			plan_quarantine(pol, links.v[j], session_id);
		strv_free(&links);
	}
	/* An entry's directory that was not there: a symbolic link the
	 * session made on the way to it (in a writable root) would re-aim
	 * the entry at another directory's policy; moved aside. A real
	 * directory is the entry's own. */
	for (size_t i = 0; i < plan->absent_entry.n; i++) {
		struct quarantine_walk qw = {pol, session_id};
		each_prefix(plan->absent_entry.v[i], move_first_link, &qw);
	}
}

void random_hex(char *buf, size_t len)
{
	unsigned char r[8] = {0};
	if (getrandom(r, sizeof r, GRND_NONBLOCK) < 0)
		memset(r, 0, sizeof r);
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof r && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", r[i]);
}

struct dirmode {
	char *path;
	mode_t mode;
};

struct dirs_walk {
	const struct policy *pol;
	struct dirmode *saved;
	size_t n, max;
};

static bool open_dir(const char *dir, void *arg)
{
	struct dirs_walk *dw = arg;
	struct stat st;
	char *real = NULL;
	if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
	    (st.st_mode & S_IRWXU) != S_IRWXU && (real = wk_realpath(dir)) &&
	    writable_root_of(dw->pol, real) && chmod(dir, (st.st_mode & 07777) | S_IRWXU) == 0)
		dw->saved[dw->n++] = (struct dirmode){xstrdup(dir), st.st_mode & 07777};
	free(real);
	return dw->n < dw->max;
}

/* The directories on the way to P that lie in a writable root, are the
 * user's own and lack search or write permission for the user (the
 * session can chmod its directories: .git 0555 would keep a planted hook
 * where it is) get it back, top down, so that P can be moved aside;
 * *SAVED records them, to be put back as they were (undo_dirs). The
 * session is over: no process of it is left to change them meanwhile. */
static size_t open_dirs(const struct policy *pol, const char *p, struct dirmode *saved, size_t max)
{
	if (getuid() == 0)
		return 0; /* permissions do not stop root */
	struct dirs_walk dw = {pol, saved, 0, max};
	char *dir = path_dirname(p);
	each_prefix(dir, open_dir, &dw);
	free(dir);
	return dw.n;
}

static void undo_dirs(struct dirmode *saved, size_t n)
{
	while (n--) {
		chmod(saved[n].path, saved[n].mode);
		free(saved[n].path);
	}
}

static void quarantine(const struct policy *pol, const char *p, const char *session_id);

void plan_quarantine(const struct policy *pol, const char *p, const char *session_id)
{
	struct dirmode saved[64];
	size_t n = open_dirs(pol, p, saved, sizeof saved / sizeof saved[0]);
	quarantine(pol, p, session_id);
	undo_dirs(saved, n);
}

static void quarantine(const struct policy *pol, const char *p, const char *session_id)
{
	/* Only what the session could have made: its parent, as it resolves
	 * now (a symlink the session left on the way included), in a
	 * writable root. Anything else is not the session's to move. */
	char *parent = path_dirname(p);
	char *rparent = wk_realpath(parent);
	bool mine = rparent && writable_root_of(pol, rparent);
	free(rparent);
	free(parent);
	if (!mine)
		return;
	/* The session knows its id, so the name gets a part it cannot guess,
	 * and the move never replaces nor lands in what is there already: a
	 * name taken in advance cannot keep the planted file live. */
	int err = 0;
	for (int tries = 0; tries < 4; tries++) {
		char rnd[17];
		random_hex(rnd, sizeof rnd);
		char *q = xasprintf("%s.quarantined-by-wicket-%s-%s", p, session_id, rnd);
		if (renameat2(AT_FDCWD, p, AT_FDCWD, q, RENAME_NOREPLACE) == 0) {
			warnmsg("the session created %s, a protected or hidden path that did not "
				"exist when it started (git hooks and config, shell startup files, "
				"ssh keys can run code or let someone in); moved it to %s for you to "
				"review", p, q);
			free(q);
			return;
		}
		err = errno;
		free(q);
		if (err != EEXIST)
			break;
	}
	/* It cannot be moved aside: what is not a directory is removed (it
	 * stays harmful where it is); a directory is said out loud. */
	struct stat st;
	if (lstat(p, &st) == 0 && !S_ISDIR(st.st_mode)) {
		if (unlink(p) == 0) {
			warnmsg("WARNING: the session created %s, a protected or hidden path that did "
				"not exist when it started; it could not be moved aside (%s), so it "
				"was removed", p, strerror(err));
			return;
		}
		err = errno;
	}
	warnmsg("WARNING: the session created %s, a protected or hidden path that did "
		"not exist when it started, and it could not be moved aside nor removed (%s); "
		"review it before using it", p, strerror(err));
}

/* PATH (which may not exist) lies in a writable root, its nearest
 * existing ancestor resolved: a symlink on the way is followed as the
 * kernel would follow it. */
bool plan_in_writable_root(const struct policy *pol, const char *path)
{
	char *d = xstrdup(path), *rest = NULL;
	char *real;
	while (!(real = wk_realpath(d)) && strcmp(d, "/") != 0) {
		char *up = path_dirname(d);
		const char *base = d + strlen(up) + (strcmp(up, "/") != 0);
		char *r = rest ? path_join(base, rest) : xstrdup(base);
		free(rest);
		rest = r;
		free(d);
		d = up;
	}
	char *full = real && rest ? path_join(real, rest) : NULL;
	bool in = (full || real) && writable_root_of(pol, full ? full : real);
	free(full);
	free(real);
	free(rest);
	free(d);
	return in;
}

/* P canonical: resolved when it exists, else normalised (the session
 * could create it). */
static char *canonical(const char *p)
{
	char *r = wk_realpath(p);
	return r ? r : path_normalize(p);
}

static void push_new(struct strv *out, char *owned)
{
	if (owned && !strv_contains(out, owned))
		strv_push(out, owned);
	else
		free(owned);
}

void plan_shared_spaces(const char *const *homes, const char *runtime_dir, const char *path_env,
			struct strv *out, struct strv *on_path)
{
	const char *fixed[] = {"/tmp", "/var/tmp", "/dev/shm", "/run", runtime_dir, NULL};
	for (size_t i = 0; fixed[i]; i++)
		push_new(out, fixed[i][0] == '/' ? wk_realpath(fixed[i]) : NULL);
	struct strv rhomes = {0};
	for (size_t i = 0; homes[i]; i++) {
		char *r = wk_realpath(homes[i]);
		if (r && !strv_contains(&rhomes, r))
			strv_push(&rhomes, r);
		else
			free(r);
	}
	for (size_t i = 0; i < rhomes.n; i++)
		push_new(out, xstrdup(rhomes.v[i]));
	/* Where tools keep config that runs code (systemd user units,
	 * autostart, tmux, nvim, git). */
	for (size_t i = 0; i < rhomes.n; i++) {
		char *c = path_join(rhomes.v[i], ".config");
		push_new(out, canonical(c));
		free(c);
	}
	/* Directories of the PATH in a home: what the sandbox put there runs
	 * outside when its name is typed. ~/bin and ~/.local/bin are on it
	 * at the next login when they exist (Debian's default .profile). */
	struct strv dirs = {0};
	for (size_t i = 0; i < rhomes.n; i++) {
		strv_push(&dirs, path_join(rhomes.v[i], ".local/bin"));
		strv_push(&dirs, path_join(rhomes.v[i], "bin"));
	}
	for (const char *p = path_env ? path_env : ""; *p;) {
		size_t n = strcspn(p, ":");
		if (p[0] == '/' && n < PATH_MAX)
			strv_push(&dirs, xasprintf("%.*s", (int)n, p));
		p += n + (p[n] == ':');
	}
	for (size_t i = 0; i < dirs.n; i++) {
		char *d = canonical(dirs.v[i]);
		bool in_home = false;
		for (size_t h = 0; h < rhomes.n && !in_home; h++)
			in_home = path_is_under(d, rhomes.v[h]) && strcmp(d, rhomes.v[h]) != 0;
		if (!in_home) {
			free(d);
			continue;
		}
		if (!strv_contains(on_path, d))
			strv_add(on_path, d);
		push_new(out, d);
	}
	strv_free(&dirs);
	strv_free(&rhomes);
}

const char *plan_shared_in(const struct strv *shared, const char *root)
{
	for (size_t i = 0; i < shared->n; i++)
		if (path_is_under(shared->v[i], root))
			return shared->v[i];
	return NULL;
}

/* Everything the session can write, for `wicket ask` (careful.h): the
 * writable roots of the session's rules (plan_fstable: the policy's; its
 * own /tmp and /dev/shm, which exist only in its mount namespace, and
 * the same names outside are other, world-writable directories: a
 * program named there is not one to trust either; the directory that
 * stands in for /tmp without one). Read-only inside them: the protected
 * paths that exist (bound read-only, their ancestors pinned; one that
 * did not exist at the start can be created, so it is not counted) and
 * the host's directories kept in the private /tmp. Hidden paths are not
 * counted: what a cover stands in for is not what the sandbox sees, and
 * CAREFUL stays on the safe side. No sandbox: everything. Paths are
 * looked at through the sandbox's root (view.h). */
void plan_wset(const struct session *s, struct wk_wset *w)
{
	memset(w, 0, sizeof *w);
	w->root = s->view_root;
	if (!s->pol.sandbox) {
		strv_add(&w->roots, "/");
		return;
	}
	struct wk_fstable t;
	plan_fstable(s, &t);
	for (size_t i = 0; i < t.n; i++) {
		const struct wk_fsrule *r = &t.v[i];
		if (r->kind == RULE_WRITE)
			strv_add(&w->roots, r->path);
		else if (r->kind == RULE_KEEP)
			strv_add(&w->keep, r->path); /* a writable root inside it stays one */
		else if (r->kind == RULE_PROTECT && strv_contains(&s->plan.protect, r->path))
			strv_add(&w->ro, r->path);
	}
	plan_fstable_free(&t);
	if (s->layers.mntns)
		for (size_t i = 0; i < s->plan.pins.n; i++)
			strv_add(&w->fixed, s->plan.pins.v[i]);
}

/* The base of the view, in the order the child builds it, before the
 * late part is known (mounts.c says why the order matters): propagation
 * cut; what stays writable or reachable cloned while the tree is still
 * as the host has it; the freeze; the session's own tmpfs mounts; the
 * clones attached on top of them, writable roots last. */
void plan_mount_ops_base(const struct mount_plan *plan, struct mount_ops *ops)
{
	memset(ops, 0, sizeof *ops);
	int slot = 0, write0, run0, read0, self = -1;
	mount_ops_add(ops, (struct mount_op){.kind = MOP_PRIVATE, .slot = -1});
	write0 = slot;
	for (size_t i = 0; i < plan->write.n; i++)
		mount_ops_add(ops, (struct mount_op){.kind = MOP_CLONE, .path = plan->write.v[i],
						     .slot = slot++});
	mount_ops_add(ops, (struct mount_op){.kind = MOP_HOLD_DEV, .slot = -1});
	/* A file the system keeps under /run (resolv.conf) is a convenience:
	 * missing, the sandbox lacks it. A read root the policy names is not. */
	run0 = slot;
	for (size_t i = 0; i < plan->run_keep.n; i++)
		mount_ops_add(ops, (struct mount_op){.kind = MOP_CLONE_RO, .path = plan->run_keep.v[i],
						     .slot = slot++, .optional = true});
	read0 = slot;
	for (size_t i = 0; i < plan->read_keep.n; i++)
		mount_ops_add(ops, (struct mount_op){.kind = MOP_CLONE_RO, .path = plan->read_keep.v[i],
						     .slot = slot++});
	if (plan->self_bin) {
		self = slot++;
		mount_ops_add(ops, (struct mount_op){.kind = MOP_CLONE_SELF, .slot = self});
	}
	mount_ops_add(ops, (struct mount_op){.kind = MOP_FREEZE, .path = "/", .slot = -1});
	const char *size = plan->tmp_size[0] ? plan->tmp_size : WK_TMP_SIZE_DEFAULT;
	if (plan->private_tmp)
		mount_ops_add(ops, (struct mount_op){.kind = MOP_TMPFS, .path = "/tmp", .arg = size,
						     .slot = -1});
	mount_ops_add(ops, (struct mount_op){.kind = MOP_DEV, .path = "/dev", .arg = size, .slot = -1});
	if (plan->cover_run) {
		mount_ops_add(ops, (struct mount_op){.kind = MOP_RUN, .path = "/run", .slot = -1});
		for (size_t i = 0; i < plan->run_keep.n; i++)
			mount_ops_add(ops, (struct mount_op){.kind = MOP_ATTACH,
							     .path = plan->run_keep.v[i],
							     .slot = run0 + (int)i});
		/* `wicket why`, `wicket ask` inside: this same wicket. */
		if (self >= 0)
			mount_ops_add(ops, (struct mount_op){.kind = MOP_ATTACH,
							     .path = WK_SESSION_BIN "/wicket",
							     .slot = self});
	}
	for (size_t i = 0; i < plan->read_keep.n; i++)
		mount_ops_add(ops, (struct mount_op){.kind = MOP_ATTACH, .path = plan->read_keep.v[i],
						     .slot = read0 + (int)i});
	for (size_t i = 0; i < plan->write.n; i++)
		mount_ops_add(ops, (struct mount_op){.kind = MOP_ATTACH, .path = plan->write.v[i],
						     .slot = write0 + (int)i});
}

/* The rest, once the hidden and protected paths are known: pins before
 * the protected paths they hold in place, our own tmpfs mounts read-only,
 * the covers of secrets last (nothing goes over them), then into the
 * workspace through the new mounts. */
void plan_mount_ops_late(const struct mount_plan *plan, const char *workspace,
			 struct mount_ops *ops)
{
	memset(ops, 0, sizeof *ops);
	for (size_t i = 0; i < plan->pins.n; i++)
		mount_ops_add(ops, (struct mount_op){.kind = MOP_PIN, .path = plan->pins.v[i],
						     .slot = -1});
	for (size_t i = 0; i < plan->protect.n; i++)
		mount_ops_add(ops, (struct mount_op){.kind = MOP_PROTECT, .path = plan->protect.v[i],
						     .slot = -1});
	mount_ops_add(ops, (struct mount_op){.kind = MOP_RDONLY, .path = "/dev", .slot = -1});
	if (plan->cover_run)
		mount_ops_add(ops, (struct mount_op){.kind = MOP_RDONLY, .path = "/run", .slot = -1});
	for (size_t i = 0; i < plan->hide.n; i++)
		mount_ops_add(ops, (struct mount_op){.kind = MOP_HIDE, .path = plan->hide.v[i],
						     .slot = -1, .from_run = plan->cover_run});
	mount_ops_add(ops, (struct mount_op){.kind = MOP_CHDIR, .path = workspace, .slot = -1});
}
