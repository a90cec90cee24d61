/* The one list of places that run code later (runslater.h). */
#include "config.h"
#include "runslater.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

enum anchor {
	A_HOME,   /* each home */
	A_ZDOT,   /* $ZDOTDIR, and each home (zsh's default) */
	A_CONFIG, /* $XDG_CONFIG_HOME, and each home's .config */
	A_DATA,   /* $XDG_DATA_HOME, and each home's .local/share */
	A_ROOT,   /* the system's */
};

struct place {
	enum anchor at;
	const char *rel;
};

/* What runs when it is there. Not .inputrc: readline's macros only type
 * keys into the shell the user is at, where the user sees them. Not the
 * directories on PATH: the planner refuses those as shared spaces. */
static const struct place places[] = {
	/* Shells and logins. Debian's default .bashrc sources .bash_aliases. */
	{A_HOME, ".bashrc"}, {A_HOME, ".bash_profile"}, {A_HOME, ".bash_login"},
	{A_HOME, ".bash_logout"}, {A_HOME, ".bash_aliases"}, {A_HOME, ".profile"},
	{A_HOME, ".kshrc"}, {A_HOME, ".mkshrc"}, {A_HOME, ".cshrc"}, {A_HOME, ".tcshrc"},
	{A_HOME, ".login"}, {A_HOME, ".logout"},
	{A_ZDOT, ".zshrc"}, {A_ZDOT, ".zshenv"}, {A_ZDOT, ".zprofile"}, {A_ZDOT, ".zlogin"},
	{A_ZDOT, ".zlogout"},
	/* Where $ZDOTDIR usually points, when wicket's own environment does
	 * not say (a .zshenv sets it for zsh alone). */
	{A_CONFIG, "zsh/.zshrc"}, {A_CONFIG, "zsh/.zshenv"}, {A_CONFIG, "zsh/.zprofile"},
	{A_CONFIG, "zsh/.zlogin"}, {A_CONFIG, "zsh/.zlogout"},
	{A_CONFIG, "fish"},
	/* Desktop sessions, user services and the environment of both. */
	{A_HOME, ".xprofile"}, {A_HOME, ".xinitrc"}, {A_HOME, ".xsession"},
	{A_HOME, ".xsessionrc"}, {A_HOME, ".pam_environment"},
	{A_CONFIG, "autostart"}, {A_CONFIG, "systemd/user"}, {A_CONFIG, "environment.d"},
	{A_DATA, "applications"}, {A_DATA, "systemd"}, {A_DATA, "dbus-1/services"},
	/* Git's global config (commands in core.fsmonitor, aliases, hooks). */
	{A_HOME, ".gitconfig"}, {A_CONFIG, "git"},
	/* Terminals' multiplexers and editors that run commands at start. */
	{A_HOME, ".tmux.conf"}, {A_CONFIG, "tmux"},
	{A_HOME, ".vimrc"}, {A_HOME, ".exrc"}, {A_HOME, ".gvimrc"}, {A_HOME, ".vim"},
	{A_CONFIG, "nvim"}, {A_DATA, "nvim/site"},
	{A_HOME, ".emacs"}, {A_HOME, ".emacs.el"}, {A_HOME, ".emacs.d"}, {A_CONFIG, "emacs"},
	{A_CONFIG, "Code/User/settings.json"}, {A_CONFIG, "Code/User/tasks.json"},
	/* Debuggers, database shells, REPLs: commands at start. */
	{A_HOME, ".gdbinit"}, {A_HOME, ".gdbearlyinit"}, {A_CONFIG, "gdb"},
	{A_HOME, ".lldbinit"}, {A_HOME, ".psqlrc"}, {A_HOME, ".sqliterc"},
	{A_HOME, ".ipython"}, {A_HOME, ".jupyter"}, {A_HOME, ".irbrc"}, {A_HOME, ".pryrc"},
	{A_HOME, ".Rprofile"}, {A_HOME, ".julia/config"},
	/* Python: the user's site-packages, imported before the system's
	 * third-party packages, and its .pth files run at every start. */
	{A_HOME, ".local/lib/python*/site-packages"}, {A_HOME, ".pydistutils.cfg"},
	{A_CONFIG, "pip"}, {A_HOME, ".pip"},
	/* Package managers and build tools: commands, hooks, init scripts,
	 * where they fetch code from. */
	{A_HOME, ".cargo/config"}, {A_HOME, ".cargo/config.toml"},
	{A_HOME, ".npmrc"}, {A_HOME, ".yarnrc"}, {A_HOME, ".yarnrc.yml"},
	{A_HOME, ".gemrc"}, {A_HOME, ".bundle/config"},
	{A_HOME, ".gradle/init.d"}, {A_HOME, ".gradle/init.gradle"},
	{A_HOME, ".gradle/init.gradle.kts"}, {A_HOME, ".gradle/gradle.properties"},
	{A_HOME, ".m2/settings.xml"},
	/* Tools whose config decides what they write or run. */
	{A_HOME, ".curlrc"}, {A_CONFIG, ".curlrc"}, {A_HOME, ".wgetrc"}, {A_CONFIG, "wgetrc"},
	{A_HOME, ".ssh/config"}, {A_HOME, ".ssh/rc"}, {A_CONFIG, "direnv"},
	{A_HOME, ".direnvrc"},
	/* The system's, for a session of root's. */
	{A_ROOT, "etc/profile"}, {A_ROOT, "etc/profile.d"}, {A_ROOT, "etc/bash.bashrc"},
	{A_ROOT, "etc/bashrc"}, {A_ROOT, "etc/zsh"}, {A_ROOT, "etc/zshenv"},
	{A_ROOT, "etc/zshrc"}, {A_ROOT, "etc/environment"}, {A_ROOT, "etc/gitconfig"},
	{A_ROOT, "etc/xdg/autostart"}, {A_ROOT, "etc/ld.so.preload"},
	{A_ROOT, "etc/bash_completion.d"},
};

/* Wherever they lie, in any directory (components, "*" within one):
 * git's hooks and the config that names commands, and Python's start
 * hooks in any site directory. */
static const char *const anywhere[] = {
	".git/hooks", ".git/config", ".git/config.worktree", ".git/commondir",
	".git/modules", ".git/worktrees",
	"site-packages/*.pth", "site-packages/sitecustomize.py", "site-packages/usercustomize.py",
	"dist-packages/*.pth", "dist-packages/sitecustomize.py", "dist-packages/usercustomize.py",
};

/* The next component of *P (its length in *N), *P moved past it; false
 * at the end. */
static bool next_comp(const char **p, const char **c, size_t *n)
{
	while (**p == '/')
		(*p)++;
	if (!**p)
		return false;
	*c = *p;
	*n = strcspn(*p, "/");
	*p += *n;
	return true;
}

static bool comp_match(const char *pat, size_t pn, const char *c, size_t cn)
{
	char pb[256], cb[256];
	if (pn >= sizeof pb || cn >= sizeof cb)
		return false;
	memcpy(pb, pat, pn);
	pb[pn] = '\0';
	memcpy(cb, c, cn);
	cb[cn] = '\0';
	return fnmatch(pb, cb, 0) == 0;
}

/* PATH against the pattern PAT (both absolute): IN when PAT matches a
 * leading part of PATH (*LEN: the length of that part of PATH), HOLDS
 * when all of PATH matches a leading part of PAT. */
static enum wk_later match(const char *pat, const char *path, size_t *len)
{
	const char *p = pat, *q = path, *pc, *qc;
	size_t pn, qn;
	for (;;) {
		bool more_p = next_comp(&p, &pc, &pn);
		if (!more_p) {
			*len = (size_t)(q - path);
			return WK_LATER_IN;
		}
		if (!next_comp(&q, &qc, &qn))
			return WK_LATER_HOLDS;
		if (!comp_match(pc, pn, qc, qn))
			return WK_LATER_NONE;
	}
}

/* The anchors of A, NULL-terminated, in BASES (allocated strings). */
static size_t bases_of(const struct wk_later_env *env, enum anchor a, char **bases, size_t max)
{
	size_t n = 0;
	const char *set = a == A_ZDOT ? env->zdotdir : a == A_CONFIG ? env->xdg_config :
			  a == A_DATA ? env->xdg_data : NULL;
	const char *under = a == A_CONFIG ? ".config" : a == A_DATA ? ".local/share" : NULL;
	if (a == A_ROOT) {
		bases[n++] = xstrdup("/");
		return n;
	}
	if (set && set[0] == '/')
		bases[n++] = path_normalize(set);
	for (size_t h = 0; env->homes && env->homes[h] && n < max; h++) {
		if (env->homes[h][0] != '/')
			continue;
		bases[n++] = under ? path_join(env->homes[h], under) : xstrdup(env->homes[h]);
	}
	return n;
}

#define MAX_BASES 16

/* Each fixed place of the list, as a pattern (allocated), to F. */
static void each_fixed(const struct wk_later_env *env, void (*f)(char *pat, void *arg), void *arg)
{
	for (size_t i = 0; i < sizeof places / sizeof *places; i++) {
		char *bases[MAX_BASES];
		size_t n = bases_of(env, places[i].at, bases, MAX_BASES);
		for (size_t b = 0; b < n; b++) {
			f(path_join(bases[b], places[i].rel), arg);
			free(bases[b]);
		}
	}
}

struct verdict {
	const char *path;
	enum wk_later how;
	char *place;
};

/* IN is the stronger answer: a path in one place may hold another. */
static void take(struct verdict *v, enum wk_later how, char *place)
{
	if (how == WK_LATER_NONE || (v->how == WK_LATER_IN) ||
	    (v->how == WK_LATER_HOLDS && how == WK_LATER_HOLDS)) {
		free(place);
		return;
	}
	free(v->place);
	v->how = how;
	v->place = place;
}

static void judge_fixed(char *pat, void *arg)
{
	struct verdict *v = arg;
	size_t len = 0;
	enum wk_later how = match(pat, v->path, &len);
	if (how == WK_LATER_IN) {
		char *p = xstrdup(v->path);
		p[len] = '\0';
		free(pat);
		pat = p;
	}
	take(v, how, pat);
}

/* PATH against one anywhere-pattern, at each of PATH's components. */
static void judge_anywhere(struct verdict *v, const char *pat)
{
	const char *q = v->path, *qc;
	size_t qn;
	while (next_comp(&q, &qc, &qn)) {
		char *fake = xasprintf("/%s", pat);
		size_t len = 0;
		/* The pattern anchored at this component. */
		enum wk_later how = match(fake, qc - 1, &len);
		free(fake);
		if (how == WK_LATER_IN)
			take(v, how, xasprintf("%.*s", (int)(qc - 1 - v->path + len), v->path));
		else if (how == WK_LATER_HOLDS)
			take(v, how, xasprintf("%.*s/%s", (int)(qc - 1 - v->path), v->path, pat));
	}
}

enum wk_later wk_runs_later(const struct wk_later_env *env, const char *path, char **place)
{
	struct verdict v = {.path = path, .how = WK_LATER_NONE};
	if (place)
		*place = NULL;
	if (!path || path[0] != '/')
		return WK_LATER_NONE;
	each_fixed(env, judge_fixed, &v);
	for (size_t i = 0; i < sizeof anywhere / sizeof *anywhere; i++)
		judge_anywhere(&v, anywhere[i]);
	if (place)
		*place = v.place;
	else
		free(v.place);
	return v.how;
}

struct gather {
	const char *dir;
	struct strv *out;
};

static void gather_fixed(char *pat, void *arg)
{
	struct gather *g = arg;
	size_t len = 0;
	enum wk_later how = match(pat, g->dir, &len);
	if (how == WK_LATER_HOLDS && !strv_contains(g->out, pat)) {
		strv_push(g->out, pat);
		return;
	}
	/* DIR is the place, or lies inside it: DIR, as far as it goes. */
	if (how == WK_LATER_IN && !strv_contains(g->out, g->dir))
		strv_add(g->out, g->dir);
	free(pat);
}

void wk_later_places(const struct wk_later_env *env, const char *dir, struct strv *out)
{
	struct gather g = {.dir = dir, .out = out};
	each_fixed(env, gather_fixed, &g);
}
