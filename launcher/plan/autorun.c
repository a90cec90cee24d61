/* The places in a writable root that the user's own tools run code from
 * later, outside any sandbox: git's hooks and the config files that name
 * commands (core.fsmonitor, core.hooksPath, core.sshCommand, filter and
 * diff drivers, include paths), and the files shells and desktops run at
 * login, and tools' startup files and config (lib/runslater.c has the
 * list of those; this file finds them on disk). A session that could
 * write them would leave code behind for `git status` in a prompt or the
 * next login to run.
 *
 * Used three ways: protected (read-only) when they exist at
 * the start (main.c adds them to the protect list, plan.c mounts them),
 * moved aside after the session when it created them (autorun_check_new),
 * and never lifted by `wicket why`'s advice (control.c).
 *
 * Git is found where it looks: a root's .git (a directory, or a file
 * naming one), the git directory a root lies in, the repository whose
 * work tree holds the root (its config can name a hooks directory or
 * include a file in the root), and from each git
 * directory what git follows from it (commondir, modules/, worktrees/,
 * a submodule's or a worktree's .git file), and from each config git
 * reads (a git directory's, a home's) the files it includes, in a
 * writable root, as config too (config_includes). Finding a repository nested
 * deeper in a root needs a walk of the whole root: wicket walks at the
 * end of every session (a .git file needs no mkdir, rename or link: an
 * open() makes it, and no cheaper sign of one exists) and moves aside the
 * .git entries made during the session, and the HEAD of any directory
 * that git would take for a repository itself and that the session made
 * or changed (autorun_check_nested). Repositories nested deeper that
 * exist at the start are found by the same walk before the command runs
 * (autorun_nested_git_places) and protected as the root's is. */
#include "config.h"
#include "base/session.h"
#include "plan/autorun.h"
#include "plan/plan.h"
#include "plan/walkidx.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "path.h"
#include "realpath.h"
#include "runslater.h"

/* Submodules of submodules, worktrees of those: deep enough for any real
 * repository, bounded for a crafted one (pointers that form a cycle, a
 * modules/ of thousands): each git directory is looked at once, at most
 * GIT_DIRS of them and GIT_ENTRIES entries of a directory per listing;
 * beyond, the listing says it is incomplete. */
#define GIT_DEPTH 6
#define GIT_ENTRIES 256 /* modules/ or worktrees/ entries looked at, per directory */
#define GIT_DIRS 512

/* Config files git includes ([include] path, [includeIf "..."] path),
 * followed from every config git reads that is listed here: git stops at
 * 10 levels; a crafted file (a loop, thousands of includes) stops here
 * at INC_FILES included files per walk and INC_BYTES of each file. */
#define INC_DEPTH 10
#define INC_FILES 128
#define INC_BYTES (256 * 1024)

struct walk {
	struct strv *out;
	const struct strv *roots;  /* the writable roots */
	const char *const *homes;  /* what "~/" of an include names */
	struct strv read;          /* config files read for includes */
	unsigned included;         /* of them, reached by an include */
	struct strv seen;   /* git directories looked at */
	unsigned dirs;      /* directories read, at most GIT_DIRS * 4 */
	bool truncated;     /* a bound reached: not all were looked at */
	/* Where a bound was reached: a git directory not looked at, a
	 * directory whose listing stopped, a config whose includes were not
	 * all followed (what the end moves aside, as not checked). */
	struct strv cut;
};

/* The next entry of DIR but "." and "..", or NULL at the end or, with
 * *N entries given already (GIT_ENTRIES) or too many directories read,
 * NULL with the walk marked truncated. */
static struct dirent *next_entry(struct walk *w, DIR *dir, int *n)
{
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		if ((*n)++ >= GIT_ENTRIES || w->dirs > GIT_DIRS * 4) {
			w->truncated = true;
			return NULL;
		}
		return e;
	}
	return NULL;
}

/* Git's config files of a home (whose includes are followed). */
static const char *const home_git_configs[] = {".gitconfig", ".config/git/config", NULL};

/* What git reads hooks or code-running settings from in a git directory. */
static const char *const git_dir_files[] = {"hooks", "config", "commondir", "config.worktree",
					    "gitdir", NULL};

static bool is_dir(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* git's own test, in short: HEAD, objects/ and refs/. */
static bool is_git_dir(const char *d)
{
	char *h = path_join(d, "HEAD"), *o = path_join(d, "objects"), *r = path_join(d, "refs");
	struct stat st;
	bool yes = lstat(h, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
		   is_dir(o) && is_dir(r);
	free(h);
	free(o);
	free(r);
	return yes;
}

/* The path a one-line pointer file names ("gitdir: X", or X alone for
 * commondir), resolved against BASE and normalised; NULL if none. */
static char *read_pointer(const char *file, const char *prefix, const char *base)
{
	struct stat st;
	char buf[PATH_MAX];
	if (lstat(file, &st) < 0 || !S_ISREG(st.st_mode) ||
	    read_text_at(AT_FDCWD, file, buf, sizeof buf) <= 0)
		return NULL;
	buf[strcspn(buf, "\r\n")] = '\0';
	size_t pl = strlen(prefix);
	if (strncmp(buf, prefix, pl) != 0 || !buf[pl])
		return NULL;
	const char *t = buf + pl;
	char *abs = t[0] == '/' ? xstrdup(t) : path_join(base, t);
	char *n = path_normalize(abs);
	free(abs);
	return n;
}

/* The value of "worktree = X" in a git config file, resolved against
 * the git directory G (how git writes a submodule's core.worktree). */
static char *config_worktree(const char *g)
{
	char *cfg = path_join(g, "config");
	char buf[16384];
	struct stat st;
	char *out = NULL;
	if (lstat(cfg, &st) == 0 && S_ISREG(st.st_mode) &&
	    read_text_at(AT_FDCWD, cfg, buf, sizeof buf) > 0) {
		for (char *line = strtok(buf, "\n"); line && !out; line = strtok(NULL, "\n")) {
			line += strspn(line, " \t");
			if (strncmp(line, "worktree", 8) != 0)
				continue;
			char *v = line + 8 + strspn(line + 8, " \t");
			if (*v++ != '=')
				continue;
			v += strspn(v, " \t\"");
			v[strcspn(v, "\r\"")] = '\0';
			if (!*v)
				continue;
			char *abs = v[0] == '/' ? xstrdup(v) : path_join(g, v);
			out = path_normalize(abs);
			free(abs);
		}
	}
	free(cfg);
	return out;
}

static void add(struct strv *out, char *owned)
{
	if (owned && !strv_contains(out, owned))
		strv_push(out, owned);
	else
		free(owned);
}

/* P is to be looked at (and is marked so in SEEN): not yet, DEPTH left,
 * and fewer than MAX looked at (past it the walk is marked truncated). */
static bool first_visit(struct walk *w, struct strv *seen, size_t max, const char *p, int depth)
{
	if (depth <= 0 || strv_contains(seen, p))
		return false;
	if (seen->n >= max) {
		w->truncated = true;
		strv_add(&w->cut, p);
		return false;
	}
	strv_add(seen, p);
	return true;
}

static bool in_roots(const struct strv *roots, const char *p)
{
	for (size_t r = 0; r < roots->n; r++)
		if (path_is_under(p, roots->v[r]))
			return true;
	return false;
}

/* A config text's values of KEY in the sections named SECS (each
 * "include" and "includeIf" "path", or "core" "hooksPath"), parsed as
 * git does as far as they go: section and key names case-insensitive,
 * the key after "]" on the same line too, double quotes, backslash
 * escapes and continued lines, "#" and ";" comments. Appended to VALS. */
static void config_values(const char *p, const char *const *secs, const char *key,
			  struct strv *vals)
{
	bool inc = false;
	size_t klen = strlen(key);
	if (strncmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3; /* a UTF-8 byte order mark, which git skips */
	while (*p) {
		p += strspn(p, " \t\r");
		if (*p == '[') {
			size_t n = strcspn(++p, "] \t\".\n");
			inc = false;
			for (size_t i = 0; secs[i]; i++)
				inc |= n == strlen(secs[i]) && strncasecmp(p, secs[i], n) == 0;
			/* The subsection ("gitdir:..."), quoted: any condition
			 * is taken as true. */
			bool q = false;
			for (p += n; *p && *p != '\n' && (q || *p != ']'); p++) {
				if (*p == '\\' && p[1] && p[1] != '\n')
					p++;
				else if (*p == '"')
					q = !q;
			}
			if (*p != ']')
				inc = false;
			else
				p += 1 + strspn(p + 1, " \t\r");
		}
		size_t k = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-");
		bool want = inc && k == klen && strncasecmp(p, key, klen) == 0;
		p += k;
		p += strspn(p, " \t");
		if (want && *p == '=') {
			char val[PATH_MAX];
			size_t n = 0, keep = 0;
			bool q = false, fits = true;
			for (p++; *p && *p != '\n'; p++) {
				char c = *p;
				if (!q && (c == '#' || c == ';'))
					break;
				if (c == '"') {
					q = !q;
					keep = n;
					continue;
				}
				if (c == '\\') {
					if (!*++p)
						break;
					if (*p == '\n' || (*p == '\r' && p[1] == '\n' && ++p))
						continue; /* a continued line */
					c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'b' ? '\b' : *p;
				} else if (!q && (c == ' ' || c == '\t' || c == '\r')) {
					if (n == 0)
						continue;
				}
				if (n + 1 < sizeof val)
					val[n++] = c;
				else
					fits = false;
				if (q || *p != c || (c != ' ' && c != '\t' && c != '\r'))
					keep = n;
			}
			val[keep] = '\0';
			if (fits && keep)
				strv_add(vals, val);
		}
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
}

/* A path value of a git config that does not depend on the config's own
 * place: "~/..." in each home (PATHS gets one per home), "/...", or
 * "~user/..." (someone else's home: nothing). False for a relative one. */
static bool config_path_abs(const struct walk *w, const char *v, struct strv *paths)
{
	if (strncmp(v, "~/", 2) == 0) {
		for (size_t h = 0; w->homes && w->homes[h]; h++) {
			char *home = wk_realpath(w->homes[h]);
			if (home)
				strv_push(paths, path_join(home, v + 2));
			free(home);
		}
		return true;
	}
	if (v[0] == '/')
		strv_add(paths, v);
	return v[0] == '/' || v[0] == '~';
}

/* Up to INC_BYTES of the regular file CFG, NUL-terminated, or NULL. Not
 * opened when it is not a regular file (a FIFO would block, a device
 * could act on open); O_NONBLOCK in case it was swapped meanwhile. */
static char *read_config(const char *cfg, size_t *len)
{
	struct stat st;
	if (stat(cfg, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	int fd = open(cfg, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *buf = NULL;
	size_t n = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		/* Its size now, plus one byte to see it grew (or is a file
		 * of /proc, sized 0), to the bound. */
		size_t cap = st.st_size < INC_BYTES ? (size_t)st.st_size + 1 : INC_BYTES;
		buf = xmalloc(cap + 1);
		ssize_t r;
		while (n < cap && (r = read(fd, buf + n, cap - n)) > 0)
			n += (size_t)r;
		buf[n] = '\0';
	}
	close(fd);
	*len = n;
	return buf;
}

static void hooks_path_places(struct walk *w, const char *cfg, const char *top);

/* The files the git config CFG includes, and theirs (DEPTH levels):
 * each one in a writable root is config like CFG, added to the walk's
 * list (existing or not: one made in the session is moved aside).
 *
 * Read from the host's view, with nothing of the session's running to
 * swap a file meanwhile: before the session starts, and after its pid
 * namespace is gone (autorun_check_new); `wicket why`'s advice reads
 * them during one, where a swapped file only changes an explanation.
 * Every read is bounded, so crafted files cost no more than
 * (INC_FILES + 2 * GIT_DIRS) * INC_BYTES. */
static void config_includes(struct walk *w, const char *cfg, int depth)
{
	/* Each git directory's own config and config.worktree, and at most
	 * INC_FILES files reached by an include. */
	if (!first_visit(w, &w->read, 2 * GIT_DIRS + INC_FILES + 4, cfg, depth))
		return;
	size_t len = 0;
	char *text = read_config(cfg, &len);
	if (!text)
		return;
	if (len >= INC_BYTES) {
		w->truncated = true; /* what lies past the bound is not seen */
		strv_add(&w->cut, cfg);
	}
	struct strv vals = {0};
	static const char *const inc_secs[] = {"include", "includeIf", NULL};
	config_values(text, inc_secs, "path", &vals);
	free(text);
	char *dir = NULL;
	for (size_t i = 0; i < vals.n; i++) {
		const char *v = vals.v[i];
		struct strv paths = {0};
		if (!config_path_abs(w, v, &paths)) {
			/* Relative to the directory the kernel opened CFG in (a
			 * symlink on the way followed, as git's open follows it). */
			if (!dir) {
				char *ldir = path_dirname(cfg);
				dir = wk_realpath(ldir);
				if (!dir)
					dir = xstrdup(ldir);
				free(ldir);
			}
			strv_push(&paths, path_join(dir, v));
		}
		for (size_t j = 0; j < paths.n; j++) {
			char *inc = path_normalize(paths.v[j]);
			/* Never a directory (include.path = .. would make the
			 * whole root read-only): git reads files. */
			if (!is_dir(inc) && in_roots(w->roots, inc) && !strv_contains(w->out, inc))
				strv_add(w->out, inc);
			if (w->included++ < INC_FILES) {
				/* An included file may set core.hooksPath too. */
				hooks_path_places(w, inc, NULL);
				config_includes(w, inc, depth - 1);
			} else {
				w->truncated = true;
				strv_add(&w->cut, inc);
			}
			free(inc);
		}
		strv_free(&paths);
	}
	strv_free(&vals);
	free(dir);
}

/* core.hooksPath in the config CFG: the directory git runs hooks from
 * instead of the git directory's hooks (husky sets .husky/_, a directory
 * of the work tree). One in a writable root is a place like hooks. A
 * relative path is relative to where hooks run, the work tree's top
 * (TOP; NULL for a home's config, whose relative value names a directory
 * of every repository: the roots' own, .githooks say, then each root's). */
static void hooks_path_places(struct walk *w, const char *cfg, const char *top)
{
	size_t len;
	char *text = read_config(cfg, &len);
	if (!text)
		return;
	static const char *const core[] = {"core", NULL};
	struct strv vals = {0};
	config_values(text, core, "hooksPath", &vals);
	free(text);
	for (size_t i = 0; i < vals.n; i++) {
		const char *v = vals.v[i];
		struct strv paths = {0};
		if (!config_path_abs(w, v, &paths) && top) {
			strv_push(&paths, path_join(top, v));
		} else if (!paths.n && v[0] != '~' && v[0] != '/') {
			for (size_t r = 0; r < w->roots->n; r++)
				strv_push(&paths, path_join(w->roots->v[r], v));
		}
		for (size_t j = 0; j < paths.n; j++) {
			char *d = path_normalize(paths.v[j]);
			if (in_roots(w->roots, d) && !strv_contains(w->out, d))
				strv_push(w->out, d);
			else
				free(d);
		}
		strv_free(&paths);
	}
	strv_free(&vals);
}

static void git_dir_places(struct walk *w, const char *g, int depth);

/* A worktree's .git (a submodule's, a linked worktree's): the file itself,
 * and the git directory it names. */
static void dot_git_places(struct walk *w, const char *dotgit, int depth)
{
	struct stat st;
	if (lstat(dotgit, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		git_dir_places(w, dotgit, depth);
		return;
	}
	add(w->out, xstrdup(dotgit));
	char *base = path_dirname(dotgit);
	char *g = read_pointer(dotgit, "gitdir: ", base);
	if (g && is_dir(g))
		git_dir_places(w, g, depth);
	free(g);
	free(base);
}

/* Each git directory below G/modules (a submodule's name may hold '/'). */
static void modules_places(struct walk *w, const char *d, int depth)
{
	if (depth <= 0)
		return;
	DIR *dir = opendir(d);
	if (!dir)
		return;
	w->dirs++;
	struct dirent *e;
	int n = 0;
	bool was = w->truncated;
	while ((e = next_entry(w, dir, &n))) {
		char *m = path_join(d, e->d_name);
		if (is_git_dir(m)) {
			git_dir_places(w, m, depth - 1);
			char *wt = config_worktree(m);
			if (wt) {
				add(w->out, path_join(wt, ".git"));
				free(wt);
			}
		} else if (is_dir(m)) {
			modules_places(w, m, depth - 1);
		}
		free(m);
	}
	if (w->truncated && !was)
		strv_add(&w->cut, d);
	closedir(dir);
}

static void git_dir_places(struct walk *w, const char *g, int depth)
{
	if (!first_visit(w, &w->seen, GIT_DIRS, g, depth))
		return;
	for (size_t i = 0; git_dir_files[i]; i++)
		add(w->out, path_join(g, git_dir_files[i]));
	static const char *const configs[] = {"config", "config.worktree"};
	/* Where its hooks run: the directory G is the .git of, or the work
	 * tree its config names. */
	const char *slash = strrchr(g, '/');
	char *top = slash && strcmp(slash + 1, ".git") == 0 ? path_dirname(g) : config_worktree(g);
	for (size_t i = 0; i < 2; i++) {
		char *c = path_join(g, configs[i]);
		config_includes(w, c, INC_DEPTH);
		hooks_path_places(w, c, top);
		free(c);
	}
	free(top);
	/* A linked worktree's git directory takes hooks and config from the
	 * common one; and the worktree's .git file points back here. */
	char *cf = path_join(g, "commondir");
	char *common = read_pointer(cf, "", g);
	if (common && is_dir(common))
		git_dir_places(w, common, depth - 1);
	free(common);
	free(cf);
	char *gf = path_join(g, "gitdir");
	char *back = read_pointer(gf, "", g);
	if (back)
		add(w->out, back);
	free(gf);

	char *mods = path_join(g, "modules");
	modules_places(w, mods, depth - 1);
	free(mods);
	char *wts = path_join(g, "worktrees");
	DIR *dir = opendir(wts);
	if (dir) {
		w->dirs++;
		struct dirent *e;
		int n = 0;
		bool was = w->truncated;
		while ((e = next_entry(w, dir, &n))) {
			char *wt = path_join(wts, e->d_name);
			if (is_dir(wt))
				git_dir_places(w, wt, depth - 1);
			free(wt);
		}
		if (w->truncated && !was)
			strv_add(&w->cut, wts);
		closedir(dir);
	}
	free(wts);
}

/* The git directory ROOT is, or lies in: the nearest of ROOT and its
 * ancestors that is one (a bare repository, a .git), or NULL. */
static char *enclosing_git_dir(const char *root)
{
	char *d = xstrdup(root);
	for (int i = 0; i < 64; i++) {
		const char *base = strrchr(d, '/');
		if ((base && strcmp(base + 1, ".git") == 0) || is_git_dir(d))
			return d;
		if (strcmp(d, "/") == 0)
			break;
		char *up = path_dirname(d);
		free(d);
		d = up;
		/* Above a .git component git would not look for a bare one. */
		if (!strstr(d, "/.git"))
			break;
	}
	free(d);
	return NULL;
}

/* The .git of the repository whose work tree holds ROOT, as git finds
 * it from inside: the nearest ancestor of ROOT with a .git entry, or
 * NULL. Its config lies outside the root, but may name a hooks directory
 * or include a file inside it (husky in a package of a monorepo:
 * core.hooksPath = frontend/.husky/_). */
static char *enclosing_dot_git(const char *root)
{
	char *d = path_dirname(root);
	for (int i = 0; i < 256; i++) {
		char *dg = path_join(d, ".git");
		struct stat st;
		if (lstat(dg, &st) == 0) {
			free(d);
			return dg;
		}
		free(dg);
		if (strcmp(d, "/") == 0)
			break;
		char *up = path_dirname(d);
		free(d);
		d = up;
	}
	free(d);
	return NULL;
}

/* autorun_git_places, and where a bound was reached, to CUT (not NULL). */
static bool git_places(const struct strv *roots, const char *const *homes, struct strv *out,
		       struct strv *cut)
{
	bool complete = true;
	for (size_t i = 0; i < roots->n; i++) {
		const char *w = roots->v[i];
		struct strv here = {0};
		struct walk wk = {.out = &here, .roots = roots, .homes = homes};
		char *dg = path_join(w, ".git");
		dot_git_places(&wk, dg, GIT_DEPTH);
		free(dg);
		char *g = enclosing_git_dir(w);
		if (g)
			git_dir_places(&wk, g, GIT_DEPTH);
		free(g);
		char *eg = enclosing_dot_git(w);
		if (eg)
			dot_git_places(&wk, eg, GIT_DEPTH);
		free(eg);
		strv_free(&wk.seen);
		strv_free(&wk.read);
		if (wk.truncated)
			complete = false;
		for (size_t j = 0; cut && j < wk.cut.n; j++)
			strv_add(cut, wk.cut.v[j]);
		strv_free(&wk.cut);
		for (size_t j = 0; j < here.n; j++) {
			/* A root inside one of them (--write .git/hooks) is one
			 * of them: the root itself is kept read-only. */
			if (path_is_under(w, here.v[j]) && strcmp(w, here.v[j]) != 0)
				add(out, xstrdup(w));
			else
				add(out, xstrdup(here.v[j]));
		}
		strv_free(&here);
	}
	return complete;
}

bool autorun_git_places(const struct strv *roots, const char *const *homes, struct strv *out)
{
	return git_places(roots, homes, out, NULL);
}

/* Where P really is: its real path, or for one that does not exist (a
 * link whose target is missing, a file in a linked directory), its
 * directory's real path and its name; NULL when neither exists. */
static char *real_place_n(const char *p, int links)
{
	if (links > 40) /* like the kernel's bound: a loop */
		return NULL;
	char *r = wk_realpath(p);
	if (r)
		return r;
	char *dir = path_dirname(p), *rd = wk_realpath(dir);
	free(dir);
	if (!rd)
		return NULL;
	char *t = NULL;
	struct stat st;
	if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) {
		/* A link to what does not exist yet: where it points. */
		char buf[PATH_MAX];
		ssize_t n = readlink(p, buf, sizeof buf - 1);
		if (n > 0) {
			buf[n] = '\0';
			char *abs = buf[0] == '/' ? xstrdup(buf) : path_join(rd, buf);
			t = real_place_n(abs, links + 1);
			free(abs);
		}
	} else {
		const char *base = strrchr(p, '/');
		t = path_join(rd, base ? base + 1 : p);
	}
	free(rd);
	return t;
}

static char *real_place(const char *p)
{
	return real_place_n(p, 0);
}

/* Where the user's tools look, for wk_runs_later: the homes' real paths,
 * and $ZDOTDIR, $XDG_CONFIG_HOME and $XDG_DATA_HOME as wicket was started
 * with them (the user's own, which the session cannot change), real where
 * they exist. Released by later_env_free. */
struct later_env {
	struct wk_later_env env;
	struct strv homes;
	char *vars[3];
};

static char *env_dir(const char *name)
{
	const char *v = getenv(name);
	if (!v || v[0] != '/')
		return NULL;
	char *r = wk_realpath(v);
	return r ? r : path_normalize(v);
}

static void later_env_of(const char *const *homes, struct later_env *le)
{
	memset(le, 0, sizeof *le);
	for (size_t h = 0; homes && homes[h]; h++) {
		char *home = wk_realpath(homes[h]);
		if (home && !strv_contains(&le->homes, home))
			strv_push(&le->homes, home);
		else
			free(home);
	}
	le->vars[0] = env_dir("ZDOTDIR");
	le->vars[1] = env_dir("XDG_CONFIG_HOME");
	le->vars[2] = env_dir("XDG_DATA_HOME");
	le->env = (struct wk_later_env){.homes = (const char *const *)le->homes.v,
					.zdotdir = le->vars[0],
					.xdg_config = le->vars[1],
					.xdg_data = le->vars[2]};
}

static void later_env_free(struct later_env *le)
{
	strv_free(&le->homes);
	for (size_t i = 0; i < 3; i++)
		free(le->vars[i]);
}

/* File systems stamp ctime from a coarse clock (one tick, up to 10 ms):
 * a .git made right at the start may look a little older, and a
 * directory changed within a tick of the look that recorded it may look
 * unchanged; so a directory whose change time lies within the margin
 * before the look that recorded it is looked at again. FAT keeps 2 s steps.
 * Too wide a margin would take a .git the user made just before the
 * session for the session's. */
#define NEST_MARGIN_NS 20000000LL
#define NEST_MARGIN_FAT_NS 2000000000LL
#ifndef EXFAT_SUPER_MAGIC
#define EXFAT_SUPER_MAGIC 0x2011BAB0
#endif

/* FAT's change times are not kept apart from the others (a session that
 * sets a time sets them): nothing there is taken as unchanged. */
static bool fat_times(const struct statfs *sf)
{
	return sf->f_type == MSDOS_SUPER_MAGIC || sf->f_type == EXFAT_SUPER_MAGIC;
}

/* The directories of the list as the start saw them, for the end: one
 * whose path has no symbolic link on it and holds none of the list's
 * places as a link, and which is the same directory with the same change
 * time at the end (no entry made, removed or renamed in it; the kernel
 * sets the change time, a session cannot set it back), gives the end
 * the start's answer for every place in it, so those are not looked at
 * again. The session cannot change anything outside its writable roots,
 * and within them every change it makes shows in a change time: so the
 * end's cost follows what changed, not the length of the list. */
struct seen_dir {
	char *dir;
	int err;       /* stat's errno at the start, or 0 */
	dev_t dev;
	ino_t ino;
	long long ctime_ns;
	bool plain;    /* no link on its path, nor as a place in it, not FAT */
};
static struct {
	struct seen_dir *v;
	size_t n;
} seen;

static long long ns_of(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static struct seen_dir *seen_find(const char *dir)
{
	for (size_t i = 0; i < seen.n; i++)
		if (strcmp(seen.v[i].dir, dir) == 0)
			return &seen.v[i];
	return NULL;
}

enum list_pass {
	LIST_ANY,   /* a look of its own (a grant's, a denial's) */
	LIST_START, /* the session's start: what it saw is kept */
	LIST_END,   /* the session's end: what did not change is skipped */
};

/* The last directory resolved: most places share one (the home,
 * ~/.config), and most do not exist, so where one would be made is that
 * directory's real place and its name. */
struct dir_cache {
	char *dir, *real;
	enum list_pass pass;
	struct seen_dir *seen; /* the start's record of DIR */
	bool link;             /* the last place looked at is a link */
	bool way_done;         /* way_proc and way_links are DIR's */
	bool way_proc;
	struct strv way_links;
};

/* Where P really is (real_place), the directory of one that does not
 * exist resolved once for all its neighbours. */
static char *real_place_cached(const char *p, struct dir_cache *dc)
{
	struct stat st;
	char *d = path_dirname(p);
	if (!dc->dir || strcmp(d, dc->dir) != 0) {
		free(dc->dir);
		free(dc->real);
		dc->dir = d;
		/* One stat for a directory that is not there (most of the
		 * list's), rather than realpath's look at each component. */
		int e = stat(d, &st) == 0 ? 0 : errno;
		dc->real = !e ? wk_realpath(d) : NULL;
		dc->seen = NULL;
		dc->way_done = false;
		strv_free(&dc->way_links);
		if (dc->pass == LIST_START && !seen_find(d)) {
			seen.v = xrealloc(seen.v, (seen.n + 1) * sizeof *seen.v);
			struct seen_dir *sd = &seen.v[seen.n++];
			memset(sd, 0, sizeof *sd);
			sd->dir = xstrdup(d);
			sd->err = e;
			struct statfs sf;
			/* Only ENOENT is an answer that stays: a directory the
			 * start could not look into is looked at again. */
			sd->plain = e == ENOENT || (!e && dc->real && strcmp(dc->real, d) == 0);
			if (!e) {
				sd->dev = st.st_dev;
				sd->ino = st.st_ino;
				sd->ctime_ns = ns_of(&st.st_ctim);
				if (statfs(d, &sf) == 0 && fat_times(&sf))
					sd->plain = false;
			}
			dc->seen = sd;
		}
	} else {
		free(d);
	}
	dc->link = false;
	/* No directory: nothing of P can be there, nor be made. */
	if (!dc->real)
		return NULL;
	if (lstat(p, &st) == 0) {
		dc->link = S_ISLNK(st.st_mode);
		if (dc->link && dc->seen)
			dc->seen->plain = false;
		return real_place(p);
	}
	const char *base = strrchr(p, '/');
	return path_join(dc->real, base + 1);
}

/* At the end: true when DIR, as the start saw it (plain), is as it was,
 * and was already so a margin before the session started (a change
 * within a tick of the start's look would not show: walkidx.h). */
static bool dir_unchanged(const char *dir, long long started_ns)
{
	const struct seen_dir *sd = seen_find(dir);
	if (!sd || !sd->plain)
		return false;
	/* Missing at the start: still missing, with no link on the way
	 * (one lookup, as the stat). A link the session made in a root
	 * (to /proc/self/cwd/..., missing where the end runs and not for
	 * the user's tool in its own directory) has it looked at again. */
	if (sd->err)
		return sd->err == ENOENT && wk_look_no_link(dir) == ENOENT;
	struct stat st;
	if (stat(dir, &st) < 0)
		return false;
	return st.st_dev == sd->dev && st.st_ino == sd->ino && ns_of(&st.st_ctim) == sd->ctime_ns &&
	       sd->ctime_ns < started_ns - NEST_MARGIN_NS;
}

/* P (a place of the list, existing or not) where a root holds it: as
 * named, and where it really is (a dotfiles repository linked from the
 * home, stow's way, may be a writable root); a root inside P is kept
 * read-only whole, as P is. */
static void startup_place(const struct strv *roots, const char *p, struct strv *out,
			  struct dir_cache *dc)
{
	char *r = real_place_cached(p, dc);
	if (in_roots(roots, p))
		add(out, xstrdup(p));
	if (r && in_roots(roots, r))
		add(out, xstrdup(r));
	for (size_t i = 0; i < roots->n; i++)
		if (path_is_under(roots->v[i], p) || (r && path_is_under(roots->v[i], r)))
			add(out, xstrdup(roots->v[i]));
	free(r);
	/* A way through /proc at the end: the links of the roots that lead
	 * there are what the session aimed, and what is moved aside (the
	 * place then leads nowhere). */
	if (dc->pass != LIST_END)
		return;
	if (!dc->way_done) {
		dc->way_done = true;
		dc->way_proc = plan_way_through_proc(roots, dc->dir, &dc->way_links);
	}
	for (size_t i = 0; dc->way_proc && i < dc->way_links.n; i++)
		add(out, xstrdup(dc->way_links.v[i]));
	struct strv links = {0};
	if (dc->link && plan_way_through_proc(roots, p, &links))
		for (size_t i = 0; i < links.n; i++)
			add(out, xstrdup(links.v[i]));
	strv_free(&links);
}

/* By directory, then name: the places of one directory together. */
static int by_dir(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t dx = (size_t)(strrchr(x, '/') - x), dy = (size_t)(strrchr(y, '/') - y);
	int c = strncmp(x, y, dx < dy ? dx : dy);
	if (c || dx == dy)
		return c ? c : strcmp(x + dx, y + dy);
	return dx < dy ? -1 : 1;
}

static bool startup_places(const struct strv *roots, const char *const *homes, struct strv *out,
			   enum list_pass pass, long long started_ns)
{
	struct walk wk = {.out = out, .roots = roots, .homes = homes};
	struct later_env le;
	later_env_of(homes, &le);
	/* Every fixed place of the list: those beneath "/". */
	struct strv all = {0};
	struct dir_cache dc = {.pass = pass};
	wk_later_places(&le.env, "/", &all);
	/* In order, so that places in one directory come together and the
	 * directory is resolved once (a grant's check runs this each time). */
	qsort(all.v, all.n, sizeof *all.v, by_dir);
	/* At the end: the directory of the places at hand, and whether it
	 * is as the start saw it (dir_unchanged). */
	char *cur = NULL;
	bool cur_same = false;
	for (size_t i = 0; i < all.n; i++) {
		const char *p = all.v[i];
		if (!strchr(p, '*')) {
			if (pass == LIST_END) {
				char *d = path_dirname(p);
				if (!cur || strcmp(d, cur) != 0) {
					free(cur);
					cur = d;
					cur_same = dir_unchanged(d, started_ns);
				} else {
					free(d);
				}
				if (cur_same)
					continue;
			}
			startup_place(roots, p, out, &dc);
			continue;
		}
		/* A pattern (a python version): the ones there now. */
		glob_t g;
		if (glob(p, GLOB_NOSORT, NULL, &g) == 0)
			for (size_t j = 0; j < g.gl_pathc; j++)
				startup_place(roots, g.gl_pathv[j], out, &dc);
		globfree(&g);
	}
	free(cur);
	free(dc.dir);
	free(dc.real);
	strv_free(&dc.way_links);
	strv_free(&all);
	later_env_free(&le);
	for (size_t h = 0; homes[h]; h++) {
		char *home = wk_realpath(homes[h]);
		if (!home)
			continue;
		/* What the home's git config includes, writable or not
		 * (~/.gitconfig can include a file of the workspace). */
		for (size_t i = 0; home_git_configs[i]; i++) {
			char *c = path_join(home, home_git_configs[i]);
			config_includes(&wk, c, INC_DEPTH);
			hooks_path_places(&wk, c, NULL);
			free(c);
		}
		free(home);
	}
	/* Git's other global and system config: $XDG_CONFIG_HOME/git/config
	 * (where it is not ~/.config) and /etc/gitconfig (both in the list),
	 * followed as the home's are. */
	const char *x = getenv("XDG_CONFIG_HOME");
	char *cfgs[] = {x && x[0] == '/' ? path_join(x, "git/config") : NULL,
			xstrdup("/etc/gitconfig")};
	for (size_t i = 0; i < 2; i++) {
		if (cfgs[i]) {
			config_includes(&wk, cfgs[i], INC_DEPTH);
			hooks_path_places(&wk, cfgs[i], NULL);
		}
		free(cfgs[i]);
	}
	strv_free(&wk.read);
	strv_free(&wk.cut);
	return !wk.truncated;
}

bool autorun_startup_places(const struct strv *roots, const char *const *homes, struct strv *out)
{
	return startup_places(roots, homes, out, LIST_ANY, 0);
}

bool autorun_startup_places_start(const struct strv *roots, const char *const *homes,
				  struct strv *out)
{
	return startup_places(roots, homes, out, LIST_START, 0);
}

char *autorun_write_runs_later(const char *const *homes, const char *dir, const char *obj)
{
	struct later_env le;
	later_env_of(homes, &le);
	char *place = NULL;
	if (wk_runs_later(&le.env, obj, &place) != WK_LATER_IN) {
		free(place);
		/* DIR holds one that a root there would not keep read-only
		 * (the .pth files of a site directory): only the fixed ones
		 * are (autorun_startup_places). */
		if (wk_runs_later(&le.env, dir, &place) == WK_LATER_HOLDS) {
			struct strv fixed = {0};
			wk_later_places(&le.env, dir, &fixed);
			if (strv_contains(&fixed, place)) {
				free(place);
				place = NULL;
			}
			strv_free(&fixed);
		} else {
			free(place);
			place = NULL;
		}
	}
	later_env_free(&le);
	return place;
}

bool autorun_places(const struct strv *roots, const char *const *homes, struct strv *out)
{
	bool complete = autorun_git_places(roots, homes, out);
	return autorun_startup_places(roots, homes, out) && complete;
}

void autorun_check_new(const struct session *s, const char *const *homes)
{
	struct strv now = {0}, cut = {0};
	bool complete = git_places(&s->pol.write, homes, &now, &cut);
	if (!startup_places(&s->pol.write, homes, &now, LIST_END, ns_of(&s->started)) || !complete)
		warnmsg("WARNING: a writable root holds too many git directories (modules, "
			"worktrees: more than %d, or %d in one directory) or git config includes "
			"(more than %d files, or one over %d KiB); what was not checked for hooks "
			"or config the session planted is moved aside (below)",
			GIT_DIRS, GIT_ENTRIES, INC_FILES, INC_BYTES / 1024);
	/* A bound reached never leaves a plant live: what lies past it (the
	 * git directory, the listing, the config) goes, unless the session
	 * could not change it (protected from the start). */
	for (size_t i = 0; i < cut.n; i++)
		if (!strv_contains(&s->autorun_start, cut.v[i]))
			plan_quarantine(&s->pol, cut.v[i], s->session_id);
	strv_free(&cut);
	for (size_t i = 0; i < now.n; i++) {
		const char *p = now.v[i];
		struct stat st;
		/* Protected from the start (mounted read-only, or watched as
		 * absent by plan_check_absent): nothing new. */
		if (!strv_contains(&s->autorun_start, p) && !strv_contains(&s->plan.absent_protect, p) &&
		    lstat(p, &st) == 0)
			plan_quarantine(&s->pol, p, s->session_id);
	}
	strv_free(&now);
}

/* The walk for nested .git entries, made once a session, after it ends
 * (those it made, to move aside); the start protects the repositories the
 * last walk's index lists (a root without one is walked before the
 * command), and the end checks the places of those it did not protect
 * (made outside since) by their change times. Its cost follows what
 * changed, not the size of the roots: an index of each root's directories
 * (walkidx.h), kept in the state directory, says which directories are as
 * the last walk saw them (no entry made, removed or renamed: the same
 * change time, which the kernel sets and a session cannot set back), and
 * those are not listed again, only stat'ed (by two threads), their
 * subdirectories visited, and their .git or HEAD looked at where they had
 * one. So no amount of content a session leaves can wear the walk out: it
 * is never cut short (a walk that stopped at a bound would leave a planted
 * repository in place); what it lists at most once, it then knows. Only
 * the depth is bounded, and the directory holding what lies below is
 * moved aside, as is one the walk cannot read: never left unchecked. */
#define NEST_DEPTH 256

struct nest {
	const struct session *s;
	/* Not NULL: the walk of the start, which lists every .git entry and
	 * bare-style git directory here (what the session could change)
	 * instead of moving aside the new ones. */
	struct strv *found;
	/* At the end: the nested .git entries and git directories older than
	 * the session that the start did not protect (an index older than
	 * them), whose places are checked for changes (nest_changed). */
	struct strv existing;
	long long since_ns; /* ctime at or after this: made in the session */
	const struct widx *old; /* the root's index of the last walk */
	struct prestat *pre;    /* for each node of OLD, its path's stat now */
	struct widx *now;       /* the one this walk makes */
	long long stable_ns;    /* recorded before this: taken as unchanged */
	int rootfd;             /* the root being walked */
	size_t rootlen;
	unsigned long listed;   /* directories listed (changed or new) */
	/* Directories deeper than NEST_DEPTH: not walked, the rest is (a deep
	 * chain must not switch the walk off for the whole root). */
	unsigned long deep;
	char first_deep[PATH_MAX];
	unsigned long unlisted; /* directories that could not be read */
	char first_unlisted[PATH_MAX];
	/* At the end, the directories (ids in N->now) holding what was not
	 * walked, too deep or unreadable: moved aside after the walk, as what
	 * could not be checked (a bound reached never leaves a plant live). */
	uint32_t *unchecked;
	size_t n_unchecked, cap_unchecked;
	long long changed_ns; /* the earliest since_ns of the roots */
	char path[PATH_MAX];
};

/* The walk of the end stats every directory the last walk knew: that is
 * its cost (listing is only for what changed). The stats are made first,
 * for the nodes of the last index by their paths there, split between
 * two threads (the machine's CPUs, when free), and the walk takes a
 * node's from here when it reaches it by the same path: through parents
 * it found to be directories, as the last walk knew them (the session's
 * processes are gone by then, so nothing re-aims a parent between). */
struct prestat {
	uint64_t dev, ino;
	struct timespec ctim;
	bool ok; /* stat'ed, and a directory */
};

/* The path of X's node ID below the root: "/NAME" for each directory on
 * the way, written to BUF (CAP bytes) at AT; its new length, or 0 when it
 * does not fit (or the chain is longer than a walk goes). */
static size_t node_path(const struct widx *x, uint32_t id, char *buf, size_t at, size_t cap)
{
	uint32_t chain[NEST_DEPTH + 2];
	size_t k = 0;
	for (uint32_t c = id; c != 0 && c != WIDX_NONE && k < NEST_DEPTH + 2; c = x->v[c].parent)
		chain[k++] = c;
	if (!k || k >= NEST_DEPTH + 2)
		return 0;
	while (k--) {
		const char *nm = widx_name(x, chain[k]);
		size_t nl = strlen(nm);
		if (at + 1 + nl >= cap)
			return 0;
		buf[at] = '/';
		memcpy(buf + at + 1, nm, nl + 1);
		at += 1 + nl;
	}
	return at;
}

struct prestat_job {
	const struct widx *x;
	struct prestat *pre;
	int rootfd;
	uint32_t from, to;
};

static void *prestat_run(void *arg)
{
	const struct prestat_job *j = arg;
	char path[PATH_MAX] = ".";
	for (uint32_t i = j->from; i < j->to; i++) {
		struct stat st;
		struct prestat *pr = &j->pre[i];
		pr->ok = node_path(j->x, i, path, 1, sizeof path) &&
			 fstatat(j->rootfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
		if (!pr->ok)
			continue;
		pr->dev = (uint64_t)st.st_dev;
		pr->ino = (uint64_t)st.st_ino;
		pr->ctim = st.st_ctim;
	}
	return NULL;
}

/* The stats of X's nodes (but the root's), from ROOTFD; NULL when X is
 * too small to be worth a thread. */
static struct prestat *prestat_all(const struct widx *x, int rootfd)
{
	if (x->n < 2048)
		return NULL;
	struct prestat *pre = xcalloc(x->n, sizeof *pre);
	uint32_t half = (uint32_t)(x->n / 2);
	struct prestat_job a = {x, pre, rootfd, 1, half}, b = {x, pre, rootfd, half, (uint32_t)x->n};
	pthread_t t;
	bool two = pthread_create(&t, NULL, prestat_run, &b) == 0;
	prestat_run(&a);
	if (two)
		pthread_join(t, NULL);
	else
		prestat_run(&b);
	return pre;
}

/* PATH (N->path) is a .git made during the session, not one of the
 * places of the start (a root's own .git, a submodule's .git file):
 * those are autorun_check_new's. */
static bool nested_new(const struct nest *n, const struct stat *st)
{
	const struct session *s = n->s;
	if (ns_of(&st->st_ctim) < n->since_ns || strv_contains(&s->autorun_start, n->path))
		return false;
	for (size_t i = 0; i < s->pol.write.n; i++) {
		char *own = path_join(s->pol.write.v[i], ".git");
		bool is_own = strcmp(own, n->path) == 0;
		free(own);
		if (is_own)
			return false;
	}
	return true;
}

/* N->path (LEN long) is a nested .git entry or git directory older than
 * the session: unless the start protected it (N->path and SUFFIX, one of
 * its places, among those of the start), kept for nest_changed. */
static void nest_existing(struct nest *n, size_t len, const char *suffix)
{
	size_t sl = strlen(suffix);
	if (len + sl >= sizeof n->path)
		return;
	memcpy(n->path + len, suffix, sl + 1);
	bool known = strv_contains(&n->s->autorun_git_start, n->path);
	n->path[len] = '\0';
	if (!known)
		strv_add(&n->existing, n->path);
}

/* The .git entry of the directory FD (its path in N->path, LEN long):
 * listed at the start; moved aside at the end when the session made it. */
static void nest_git(struct nest *n, int fd, size_t len)
{
	struct stat st;
	if (len + 5 >= sizeof n->path || fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	memcpy(n->path + len, "/.git", 6);
	if (n->found)
		strv_add(n->found, n->path);
	else if (nested_new(n, &st))
		plan_quarantine(&n->s->pol, n->path, n->s->session_id);
	else
		nest_existing(n, len + 5, S_ISDIR(st.st_mode) ? "/config" : "");
	n->path[len] = '\0';
}

/* An entry NAME of FD that git's is_git_directory() accepts: present,
 * and for objects and refs, searchable (a directory, or any file with an
 * execute bit: git asks access(X_OK) only). Git follows a symlink; its
 * ctime and its target's, the later of the two, in *CT (a new link to an
 * old file is new). */
static bool git_part(int fd, const char *name, bool searchable, long long *ct)
{
	struct stat st, to;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	*ct = ns_of(&st.st_ctim);
	if (S_ISLNK(st.st_mode)) {
		if (fstatat(fd, name, &to, 0) < 0)
			return false;
		if (ns_of(&to.st_ctim) > *ct)
			*ct = ns_of(&to.st_ctim);
		st.st_mode = to.st_mode;
	}
	return !searchable || S_ISDIR(st.st_mode) || (st.st_mode & 0111);
}

/* The directory FD (its path in N->path) is itself a git directory, as
 * git looks for one in each directory it passes (a bare repository's
 * layout: HEAD, objects or a commondir, refs), and one of those or its
 * config was made or changed during the session: git run there outside
 * would take its config and hooks. Its HEAD is moved aside, which is
 * enough for git not to take the directory for a repository, and leaves
 * what else it holds (the sandbox may have made a source directory one)
 * where it is. */
static void nest_bare(struct nest *n, int fd, size_t len)
{
	long long head, objects, refs, common = 0, config = 0;
	if (!git_part(fd, "HEAD", false, &head) || !git_part(fd, "refs", true, &refs) ||
	    (!git_part(fd, "objects", true, &objects) && !git_part(fd, "commondir", false, &objects)))
		return;
	if (n->found) {
		strv_add(n->found, n->path);
		return;
	}
	git_part(fd, "commondir", false, &common);
	git_part(fd, "config", false, &config);
	if (len + 8 >= sizeof n->path)
		return;
	/* A repository known at the start: its config and hooks were
	 * protected and a commondir watched (autorun_git_places), so new refs
	 * and objects are git's own work (a push to it), not a plant. */
	memcpy(n->path + len, "/config", 8);
	bool known = strv_contains(&n->s->autorun_git_start, n->path);
	n->path[len] = '\0';
	if (known)
		return;
	if (head < n->since_ns && objects < n->since_ns && refs < n->since_ns &&
	    common < n->since_ns && config < n->since_ns) {
		strv_add(&n->existing, n->path);
		return;
	}
	if (len + 6 >= sizeof n->path)
		return;
	memcpy(n->path + len, "/HEAD", 6);
	if (!strv_contains(&n->s->autorun_start, n->path))
		plan_quarantine(&n->s->pol, n->path, n->s->session_id);
	n->path[len] = '\0';
}

static void nest_dir(struct nest *n, size_t len, int depth, uint32_t old, uint32_t parent,
		     const char *name, const struct stat *st);

/* The directory ME (in N->now) holds what the walk of the end could not
 * look at (once: its entries come one after another). */
static void nest_unchecked(struct nest *n, uint32_t me)
{
	if (n->found || (n->n_unchecked && n->unchecked[n->n_unchecked - 1] == me))
		return;
	if (n->n_unchecked == n->cap_unchecked) {
		n->cap_unchecked = n->cap_unchecked ? 2 * n->cap_unchecked : 16;
		n->unchecked = xrealloc(n->unchecked, n->cap_unchecked * sizeof *n->unchecked);
	}
	n->unchecked[n->n_unchecked++] = me;
}

/* Those directories of the root just walked (its path N->path, LEN long,
 * its index N->now) moved aside: what lies below them was not checked. */
static void nest_unchecked_aside(struct nest *n, size_t len)
{
	for (size_t i = 0; i < n->n_unchecked; i++) {
		if (node_path(n->now, n->unchecked[i], n->path, len, sizeof n->path))
			plan_quarantine(&n->s->pol, n->path, n->s->session_id);
		n->path[len] = '\0';
	}
	n->n_unchecked = 0;
}

/* N->path, LEN long, relative to the root being walked. */
static const char *rel(const struct nest *n, size_t len)
{
	return len > n->rootlen ? n->path + n->rootlen + 1 : ".";
}

/* The subdirectory NAME of the directory N->path (LEN long); OLD its
 * node in the last walk's index, ME its parent's in this one. One stat,
 * from the root's descriptor: every directory on the way was stat'ed as
 * one by this walk, and nothing of the session's runs while it walks
 * (before the command starts, after its pid namespace is gone), so no
 * symlink is on the way; the last component is not followed. */
static void nest_sub(struct nest *n, size_t len, int depth, uint32_t old, uint32_t me,
		     const char *name)
{
	size_t nl = strlen(name);
	struct stat st;
	if (depth + 1 > NEST_DEPTH || len + 1 + nl >= sizeof n->path) {
		/* (the directory holding it: what lies below is not walked) */
		if (!n->deep++)
			memcpy(n->first_deep, n->path, len + 1);
		nest_unchecked(n, me);
		return;
	}
	n->path[len] = '/';
	memcpy(n->path + len + 1, name, nl + 1);
	if (n->pre && old != WIDX_NONE) {
		const struct prestat *pr = &n->pre[old];
		if (pr->ok) {
			st.st_dev = (dev_t)pr->dev;
			st.st_ino = (ino_t)pr->ino;
			st.st_ctim = pr->ctim;
			nest_dir(n, len + 1 + nl, depth + 1, old, me, name, &st);
		}
	} else if (fstatat(n->rootfd, rel(n, len + 1 + nl), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		   S_ISDIR(st.st_mode)) {
		nest_dir(n, len + 1 + nl, depth + 1, old, me, name, &st);
	}
	n->path[len] = '\0';
}

/* The directory N->path (LEN long; ST its stat), named NAME under
 * PARENT in the index this walk makes, OLD in the last one. */
static void nest_dir(struct nest *n, size_t len, int depth, uint32_t old, uint32_t parent,
		     const char *name, const struct stat *st)
{
	const struct widx *o = n->old;
	const struct widx_node *on = old != WIDX_NONE ? &o->v[old] : NULL;
	if (on && (on->dev != (uint64_t)st->st_dev || on->ino != (uint64_t)st->st_ino)) {
		on = NULL; /* another directory under that name: all of it is new */
		old = WIDX_NONE;
	}
	uint32_t me = widx_add(n->now, parent, name, st);
	const char *r = rel(n, len);
	if (on && !(on->flags & WIDX_UNLISTED) && on->ctime_ns == ns_of(&st->st_ctim) &&
	    on->ctime_ns < n->stable_ns) {
		/* Unchanged: its entries are those of the last walk. */
		n->now->v[me].flags = on->flags;
		int fd = on->flags & (WIDX_HEAD | WIDX_GIT)
				 ? openat(n->rootfd, r, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
				 : -1;
		if (fd >= 0 && (on->flags & WIDX_HEAD))
			nest_bare(n, fd, len);
		if (fd >= 0 && (on->flags & WIDX_GIT))
			nest_git(n, fd, len);
		if (fd >= 0)
			close(fd);
		for (uint32_t c = on->first_child; c != WIDX_NONE; c = o->v[c].next_sibling)
			nest_sub(n, len, depth, c, me, widx_name(o, c));
		return;
	}
	n->listed++;
	int rd = openat(n->rootfd, r, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	bool closed = rd < 0 && errno == EACCES && faccessat(n->rootfd, r, X_OK, AT_EACCESS) < 0;
	if (closed && on && (on->flags & WIDX_CLOSED) &&
	    on->ctime_ns == ns_of(&st->st_ctim)) {
		/* Closed to its own user (no search permission) when the last
		 * walk saw it, and its mode not changed since (a chmod, even
		 * to the same mode, changes the ctime): the session's
		 * processes, that user without capabilities, never entered
		 * it, so nothing below can have changed. Left as it is: the
		 * user's own. */
		n->now->v[me].flags = WIDX_UNLISTED | WIDX_CLOSED;
		return;
	}
	if (rd < 0) {
		/* The session took its read permission away: its .git, if git
		 * can reach it (search permission is all git needs), is looked
		 * at all the same; what lies deeper is not, and the end says so. */
		n->now->v[me].flags = WIDX_UNLISTED | (closed ? WIDX_CLOSED : 0);
		if (!n->unlisted++)
			memcpy(n->first_unlisted, n->path, len + 1);
		nest_unchecked(n, me);
		int fd = openat(n->rootfd, r, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			nest_git(n, fd, len);
			close(fd);
		}
		return;
	}
	DIR *dir = fdopendir(rd);
	if (!dir) {
		close(rd);
		return;
	}
	uint32_t flags = 0, *sorted = NULL;
	size_t ns = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		const char *en = e->d_name;
		if (en[0] == '.' && (!en[1] || (en[1] == '.' && !en[2])))
			continue;
		if (strcmp(en, ".git") == 0) {
			flags |= WIDX_GIT;
			continue;
		}
		if (strcmp(en, "HEAD") == 0)
			flags |= WIDX_HEAD;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		/* The ones moved aside (a .git directory's insides are git's). */
		if (strncmp(en, ".git.quarantined-by-wicket-", 27) == 0)
			continue;
		nest_sub(n, len, depth, widx_child(o, old, en, &sorted, &ns), me, en);
	}
	free(sorted);
	n->now->v[me].flags = flags;
	if (flags & WIDX_HEAD)
		nest_bare(n, dirfd(dir), len);
	if (flags & WIDX_GIT)
		nest_git(n, dirfd(dir), len);
	closedir(dir);
}

/* The start of a session whose root has an index (the last walk's, at
 * the end of the last session): the nested repositories it lists are
 * protected without a stat of every directory. What changed since, out
 * of the sessions' reach, the walk of the end finds (its index is this
 * one): a repository made there outside is not protected, so its places
 * are checked at the end (nest_changed) instead. */
static void nest_from_index(struct nest *n, const struct widx *x, size_t len)
{
	for (uint32_t i = 1; i < x->n; i++) {
		if (!(x->v[i].flags & (WIDX_GIT | WIDX_HEAD)))
			continue;
		size_t at = node_path(x, i, n->path, len, sizeof n->path);
		int fd = at ? openat(n->rootfd, rel(n, at), O_PATH | O_DIRECTORY | O_NOFOLLOW |
				       O_CLOEXEC) : -1;
		if (fd >= 0 && (x->v[i].flags & WIDX_HEAD))
			nest_bare(n, fd, at);
		if (fd >= 0 && (x->v[i].flags & WIDX_GIT))
			nest_git(n, fd, at);
		if (fd >= 0)
			close(fd);
		n->path[len] = '\0';
	}
}

/* P, or an entry of the directory P, or what a link there names, has a
 * change time at or after SINCE (a file's content written, an entry made,
 * a link re-aimed: the kernel sets it, the session cannot set it back). */
static bool changed_since(const char *p, long long since)
{
	struct stat st, to;
	/* host: a place of a repository in a writable root, after the session */
	if (lstat(p, &st) < 0)
		return false;
	if (ns_of(&st.st_ctim) >= since ||
	    (S_ISLNK(st.st_mode) && stat(p, &to) == 0 && ns_of(&to.st_ctim) >= since))
		return true;
	if (!S_ISDIR(st.st_mode))
		return false;
	DIR *d = opendir(p);
	if (!d)
		return true; /* what cannot be looked at is not taken as unchanged */
	bool changed = false;
	struct dirent *e;
	while (!changed && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		changed = fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			  ns_of(&st.st_ctim) >= since ||
			  (S_ISLNK(st.st_mode) && fstatat(dirfd(d), e->d_name, &to, 0) == 0 &&
			   ns_of(&to.st_ctim) >= since);
	}
	closedir(d);
	return changed;
}

/* The places of the nested repositories older than the session that the
 * start did not protect (N->existing): those changed during the session
 * are moved aside; when there are too many to list them all, the
 * repositories themselves are (a bound reached never leaves one live). */
static void nest_changed(struct nest *n)
{
	const struct session *s = n->s;
	if (!n->existing.n)
		return;
	struct strv places = {0};
	struct walk wk = {.out = &places, .roots = &s->pol.write, .homes = s->homes};
	for (size_t i = 0; i < n->existing.n; i++) {
		const char *p = n->existing.v[i];
		const char *base = strrchr(p, '/');
		if (base && strcmp(base + 1, ".git") == 0)
			dot_git_places(&wk, p, GIT_DEPTH);
		else
			git_dir_places(&wk, p, GIT_DEPTH);
	}
	if (wk.truncated) {
		warnmsg("WARNING: the repositories nested in the writable roots that were not "
			"protected at the start hold too many git directories or config includes "
			"to check them all; each is moved aside");
		for (size_t i = 0; i < n->existing.n; i++) {
			const char *p = n->existing.v[i];
			const char *base = strrchr(p, '/');
			if (base && strcmp(base + 1, ".git") == 0) {
				plan_quarantine(&s->pol, p, s->session_id);
			} else {
				char *h = path_join(p, "HEAD");
				plan_quarantine(&s->pol, h, s->session_id);
				free(h);
			}
		}
	}
	for (size_t i = 0; i < places.n && !wk.truncated; i++) {
		const char *p = places.v[i];
		if (strv_contains(&s->autorun_start, p) || !in_roots(&s->pol.write, p) ||
		    !changed_since(p, n->changed_ns))
			continue;
		warnmsg("WARNING: %s, of a repository nested in a writable root that the start "
			"did not protect, changed during the session", p);
		plan_quarantine(&s->pol, p, s->session_id);
	}
	strv_free(&places);
	strv_free(&wk.seen);
	strv_free(&wk.read);
	strv_free(&wk.cut);
}

/* The index a walk of the start made, for the walk of the end. */
static struct strv kept_roots;
static struct widx *kept;
static bool *kept_saved; /* that index is the one saved (the start walked none) */

/* Walk each of ROOTS (a root inside another is walked with it); since
 * STARTED, for the walk of the end, which saves the indexes. WHAT: what
 * the walk looks for, in the warnings of what it could not look at. */
static void nest_roots(struct nest *n, const struct strv *roots, const struct timespec *started,
		       const char *what)
{
	bool end = started != NULL;
	if (!end && !kept) {
		kept = xcalloc(roots->n ? roots->n : 1, sizeof *kept);
		kept_saved = xcalloc(roots->n ? roots->n : 1, sizeof *kept_saved);
		strv_free(&kept_roots);
	}
	for (size_t i = 0; i < roots->n; i++) {
		const char *w = roots->v[i];
		bool inner = false;
		for (size_t j = 0; j < roots->n && !inner; j++)
			inner = j != i && path_is_under(w, roots->v[j]) && strcmp(w, roots->v[j]) != 0;
		size_t len = strlen(w);
		if (inner || len >= sizeof n->path)
			continue;
		int fd = open(w, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		memcpy(n->path, w, len + 1);
		n->rootfd = fd;
		n->rootlen = len;
		struct statfs sf;
		bool fat = fstatfs(fd, &sf) == 0 && fat_times(&sf);
		long long margin = fat ? NEST_MARGIN_FAT_NS : NEST_MARGIN_NS;
		n->since_ns = end ? ns_of(started) - margin : 0;
		/* The last walk's index: the start's, kept; else the one saved. */
		struct widx old = {0}, now = {0};
		bool saved = !end;
		size_t k = kept_roots.n;
		for (size_t j = 0; j < kept_roots.n; j++)
			if (strcmp(kept_roots.v[j], w) == 0)
				k = j;
		if (k < kept_roots.n) {
			old = kept[k];
			saved = kept_saved[k];
			memset(&kept[k], 0, sizeof kept[k]);
		} else if (!fat) {
			saved = true;
			widx_load(w, &old);
		}
		/* FAT's change times are not kept apart from the others': no
		 * directory there is taken as unchanged. */
		if (fat)
			widx_free(&old);
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		now.made_ns = ns_of(&t);
		n->old = &old;
		n->now = &now;
		n->stable_ns = old.made_ns - margin;
		if (!end && old.n) {
			nest_from_index(n, &old, len);
			close(fd);
			n->rootfd = -1;
			kept_saved[kept_roots.n] = true;
			kept[kept_roots.n] = old;
			strv_add(&kept_roots, w);
			continue;
		}
		n->pre = end ? prestat_all(&old, fd) : NULL;
		if (end && old.n) {
			/* As big as the last one: no copies as it grows. */
			now.cap = old.n;
			now.v = xmalloc(now.cap * sizeof *now.v);
			now.names_cap = old.names_len + 1;
			now.names = xmalloc(now.names_cap);
		}
		unsigned long listed = n->listed;
		/* "/" is refused as a root; a trailing slash never comes. */
		nest_dir(n, len, 0, old.n ? 0 : WIDX_NONE, WIDX_NONE, "", &st);
		free(n->pre);
		n->pre = NULL;
		/* Nothing listed, from the index saved: that one is this one. */
		bool same = saved && old.n && now.n == old.n && n->listed == listed &&
			    !n->n_unchecked;
		if (end)
			nest_unchecked_aside(n, len);
		if (end && (!n->changed_ns || n->since_ns < n->changed_ns))
			n->changed_ns = n->since_ns;
		close(fd);
		n->rootfd = -1;
		widx_free(&old);
		widx_link(&now);
		if (end) {
			if (!same)
				widx_save(w, &now);
			else
				widx_touch(w);
			widx_free(&now);
		} else {
			kept_saved[kept_roots.n] = false;
			kept[kept_roots.n] = now;
			strv_add(&kept_roots, w);
		}
	}
	const char *then = end ? "so they were moved aside (above)" : "the end of the session "
				 "moves them aside";
	if (n->deep)
		warnmsg("WARNING: %lu directories in the writable roots lie deeper than %d levels "
			"(%s first): what lies below them cannot be checked for %s; %s", n->deep,
			NEST_DEPTH, n->first_deep, what, then);
	if (n->unlisted)
		warnmsg("WARNING: %lu directories in the writable roots could not be read (%s "
			"first): what lies below them cannot be checked for %s; %s", n->unlisted,
			n->first_unlisted, what, then);
}

void autorun_check_nested(const struct session *s)
{
	struct nest *n = xcalloc(1, sizeof *n);
	n->s = s;
	nest_roots(n, &s->pol.write, &s->started,
		   ".git directories or files the session made, which git outside would use "
		   "(find DIR -name .git -newer ...)");
	nest_changed(n);
	strv_free(&n->existing);
	free(n->unchecked);
	free(n);
	for (size_t i = 0; i < kept_roots.n; i++)
		widx_free(&kept[i]);
	free(kept);
	kept = NULL;
	free(kept_saved);
	kept_saved = NULL;
	strv_free(&kept_roots);
}

bool autorun_nested_git_places(const struct strv *roots, const char *const *homes,
			       struct strv *out)
{
	struct nest *n = xcalloc(1, sizeof *n);
	struct strv found = {0};
	n->found = &found;
	nest_roots(n, roots, NULL, "repositories nested in them, whose hooks and config stay "
		   "writable in the session");
	free(n);
	struct strv here = {0};
	struct walk wk = {.out = &here, .roots = roots, .homes = homes};
	for (size_t i = 0; i < found.n; i++) {
		const char *p = found.v[i];
		const char *base = strrchr(p, '/');
		if (base && strcmp(base + 1, ".git") == 0)
			dot_git_places(&wk, p, GIT_DEPTH);
		else
			git_dir_places(&wk, p, GIT_DEPTH);
	}
	strv_free(&found);
	strv_free(&wk.seen);
	strv_free(&wk.read);
	strv_free(&wk.cut);
	/* A place reached through a symbolic link in the root (a config
	 * linked to a file elsewhere in it) is protected where it really is:
	 * the plan refuses a protected path through a link the session could
	 * re-aim, and a layout found deep in a root must not end the session
	 * before it starts. */
	for (size_t j = 0; j < here.n; j++) {
		char *r = real_place(here.v[j]);
		if (r && strcmp(r, here.v[j]) != 0 && !in_roots(roots, r)) {
			free(r);
			continue;
		}
		add(out, r ? r : xstrdup(here.v[j]));
	}
	strv_free(&here);
	return !wk.truncated;
}
