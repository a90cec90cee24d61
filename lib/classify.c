#include "classify.h"
#include "pathlex.h"
#include "rules.h"

#include <string.h>

/* The rule after *POS (0 first; advanced past it) of either form. */
static bool next_rule(const struct wk_fstable *t, size_t *pos, char *kind, const char **v,
		      size_t *len)
{
	if (t->text) {
		const char *cur = t->text + *pos;
		bool got = rules_next(&cur, kind, v, len);
		*pos = (size_t)(cur - t->text);
		return got;
	}
	if (*pos >= t->n)
		return false;
	*kind = t->v[*pos].kind;
	*v = t->v[*pos].path;
	*len = strlen(*v);
	++*pos;
	return true;
}

/* The rule of KIND that covers PATH: the nearest (longest) or the
 * outermost (shortest). False when none does. */
static bool cover(const struct wk_fstable *t, char kind, const char *path, bool nearest,
		  const char **rule, size_t *rlen)
{
	size_t pos = 0, len;
	const char *v;
	char k;
	bool found = false;
	while (next_rule(t, &pos, &k, &v, &len)) {
		if (k != kind || !pathlex_under(path, v, len))
			continue;
		if (!found || (nearest ? len > *rlen : len < *rlen)) {
			*rule = v;
			*rlen = len;
		}
		found = true;
	}
	return found;
}

static void set(struct wk_fsmatch *m, char kind, const char *rule, size_t len)
{
	if (!m)
		return;
	m->kind = kind;
	m->rule = rule;
	m->len = len;
}

/* The nearest writable root of PATH, unless a kept host directory nearer
 * to it makes it the host's (read-only). */
static bool writable_root(const struct wk_fstable *t, const char *path, const char **w,
			  size_t *wl)
{
	const char *k;
	size_t kl;
	if (!cover(t, RULE_WRITE, path, true, w, wl))
		return false;
	return !cover(t, RULE_KEEP, path, true, &k, &kl) || kl < *wl;
}

enum wk_fs_verdict wk_classify(const struct wk_fstable *t, const char *path, struct wk_fsmatch *m)
{
	const char *r, *w;
	size_t rl, wl;
	if (m)
		memset(m, 0, sizeof *m);
	if (cover(t, RULE_HIDE, path, false, &r, &rl)) {
		set(m, RULE_HIDE, r, rl);
		return WK_FS_HIDDEN;
	}
	if (writable_root(t, path, &w, &wl)) {
		if (cover(t, RULE_PROTECT, path, true, &r, &rl)) {
			set(m, RULE_PROTECT, r, rl);
			if (m) {
				m->root = w;
				m->root_len = wl;
			}
			return WK_FS_PROTECTED;
		}
		set(m, RULE_WRITE, w, wl);
		return WK_FS_WRITABLE;
	}
	if (cover(t, RULE_KEEP, path, true, &r, &rl)) {
		set(m, RULE_KEEP, r, rl);
		return WK_FS_READ_ONLY;
	}
	if (cover(t, RULE_READ, path, true, &r, &rl)) {
		set(m, RULE_READ, r, rl);
		return WK_FS_READ_ONLY;
	}
	return WK_FS_UNREADABLE;
}

static bool landlock_decides(const struct wk_fstable *t)
{
	return t->text ? rules_is(t->text, RULE_UNIX, "1") : t->landlock_unix;
}

bool wk_classify_unix(const struct wk_fstable *t, const char *path, struct wk_fsmatch *m)
{
	const char *w;
	size_t wl;
	if (m)
		memset(m, 0, sizeof *m);
	if (!writable_root(t, path, &w, &wl))
		return false;
	if (landlock_decides(t)) {
		/* Is any kept directory beneath the root? */
		size_t pos = 0, len;
		const char *v;
		char k;
		while (next_rule(t, &pos, &k, &v, &len))
			if (k == RULE_KEEP && len > wl && pathlex_under(v, w, wl))
				return false;
	}
	set(m, RULE_WRITE, w, wl);
	return true;
}

bool wk_proc_own_file(const char *path)
{
	if (strncmp(path, "/proc/", 6) != 0)
		return false;
	const char *p = path + 6;
	if (strncmp(p, "self/", 5) == 0)
		p += 5;
	else if (strncmp(p, "thread-self/", 12) == 0)
		p += 12;
	else {
		size_t d = strspn(p, "0123456789");
		if (d == 0 || p[d] != '/')
			return false;
		p += d + 1;
	}
	/* A thread's own: /proc/PID/task/TID/FILE. */
	if (strncmp(p, "task/", 5) == 0) {
		size_t d = strspn(p + 5, "0123456789");
		if (d && p[5 + d] == '/')
			p += 5 + d + 1;
	}
	/* Not the links that lead out of /proc to any file: a write
	 * through /proc/self/fd/N is refused for the file it names, which
	 * may well be a host file the user should hear of. */
	static const char *const links[] = {"fd/", "map_files/", "root", "cwd", "exe"};
	for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
		size_t n = strlen(links[i]);
		if (strncmp(p, links[i], n) == 0 && (links[i][n - 1] == '/' || !p[n] || p[n] == '/'))
			return false;
	}
	return *p != '\0';
}

const char *wk_fs_verdict_name(enum wk_fs_verdict v)
{
	switch (v) {
	case WK_FS_UNREADABLE:
		return "unreadable";
	case WK_FS_READ_ONLY:
		return "read-only";
	case WK_FS_WRITABLE:
		return "writable";
	case WK_FS_PROTECTED:
		return "protected";
	case WK_FS_HIDDEN:
		return "hidden";
	}
	return "?";
}
