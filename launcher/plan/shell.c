/* The interactive shell (DESIGN §7): which shell, and how wicket's hooks
 * load after the user's own start-up files. bash gets `--rcfile
 * wicket.bash -i` (bash still reads its system bashrc first; wicket.bash
 * reads ~/.bashrc); zsh gets ZDOTDIR pointing at wicket's zdotdir/, whose
 * .zshenv and .zshrc read the user's own and restore ZDOTDIR. Any other
 * shell runs as it is, without hooks, after one line saying so. */
#include "config.h"
#include "base/session.h"
#include "plan/plan.h"
#include "plan/shell.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "envscrub.h"
#include "path.h"
#include "realpath.h"

/* DIR (malloc'ed, taken) when it holds the hooks, else NULL. */
static char *hooks_in(char *dir)
{
	if (!dir)
		return NULL;
	char *f = path_join(dir, "wicket.bash");
	bool ok = access(f, R_OK) == 0;
	free(f);
	if (ok)
		return dir;
	free(dir);
	return NULL;
}

/* shellhooks/ next to this wicket (a build tree; an installed tree,
 * PREFIX/bin/wicket and PREFIX/share/wicket/, whatever prefix was
 * compiled in), else the configured one. */
static char *find_hooks(void)
{
	char *c = hooks_in(self_relative("../shellhooks"));
	if (!c)
		c = hooks_in(self_relative("../share/wicket/shellhooks"));
	return c ? c : hooks_in(wk_realpath(PKGDATADIR "/shellhooks"));
}

static bool executable_file(const char *p)
{
	struct stat st;
	return p && p[0] == '/' && stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* NAME ("bash", "zsh") looked up in PATH. */
static char *in_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *copy = xstrdup(path), *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (d[0] != '/')
			continue;
		char *c = path_join(d, name);
		if (executable_file(c)) {
			free(copy);
			return c;
		}
		free(c);
	}
	free(copy);
	return NULL;
}

char *shell_path(const char *want, const struct passwd *pw)
{
	char *sh = NULL;
	if (want) {
		if (strcmp(want, "bash") != 0 && strcmp(want, "zsh") != 0)
			die("--shell %s: wicket knows bash and zsh (set SHELL to run another one)", want);
		sh = in_path(want);
		if (!sh)
			die("--shell %s: %s is not installed (not found in PATH)", want, want);
	} else {
		const char *env = getenv("SHELL");
		if (executable_file(env))
			sh = xstrdup(env);
		else if (pw && executable_file(pw->pw_shell))
			sh = xstrdup(pw->pw_shell);
		else
			sh = xstrdup("/bin/sh");
	}
	return sh;
}

void shell_plan(struct session *s, const char *want, const struct passwd *pw)
{
	char *sh = shell_path(want, pw);
	const char *base = strrchr(sh, '/') ? strrchr(sh, '/') + 1 : sh;
	bool bash = strcmp(base, "bash") == 0, zsh = strcmp(base, "zsh") == 0;
	char *hooks = bash || zsh ? find_hooks() : NULL;
	if (hooks && plan_covered(&s->plan, hooks)) {
		free(hooks);
		hooks = NULL;
	}
	s->argv = xcalloc(4, sizeof *s->argv);
	s->argv[0] = sh;
	if (bash && hooks) {
		s->argv[1] = xstrdup("--rcfile");
		s->argv[2] = path_join(hooks, "wicket.bash");
	} else if (zsh && hooks) {
		const char *z = getenv("ZDOTDIR");
		if (z)
			strv_push(&s->shell_env, xasprintf("WICKET_ZDOTDIR=%s", z));
		strv_push(&s->shell_env, xasprintf("ZDOTDIR=%s/zdotdir", hooks));
	} else if (bash || zsh) {
		warnmsg("%s: wicket's shell hooks are not installed; no prompt marker and no "
			"summary after a blocked command", base);
	} else {
		warnmsg("%s: no wicket hooks for this shell (bash and zsh have them): no prompt "
			"marker and no summary after a blocked command", base);
	}
	s->shell_hooks = hooks != NULL;
	free(hooks);
}

/* The policy's env.unset patterns the hooks can match as shell patterns
 * (names, '*' and '?'), space-separated, or NULL when there are none. */
static char *unset_patterns(const struct session *s)
{
	size_t len = 1;
	for (size_t i = 0; i < s->pol.env_unset.n; i++)
		len += strlen(s->pol.env_unset.v[i]) + 1;
	char *o = xmalloc(len);
	o[0] = '\0';
	for (size_t i = 0; i < s->pol.env_unset.n; i++) {
		const char *p = s->pol.env_unset.v[i];
		if (!*p || p[strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_*?")])
			continue;
		if (o[0])
			strcat(o, " ");
		strcat(o, p);
	}
	if (!o[0]) {
		free(o);
		return NULL;
	}
	return o;
}

static bool has_var(const struct strv *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < env->n; i++)
		if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=')
			return true;
	return false;
}

void shell_scrub_env(struct session *s)
{
	if (!s->pol.sandbox)
		return;
	char *pats = unset_patterns(s);
	if (!pats)
		return;
	char *hooks = find_hooks();
	if (hooks && plan_covered(&s->plan, hooks)) {
		free(hooks);
		hooks = NULL;
	}
	if (!hooks) {
		free(pats);
		return;
	}
	strv_push(&s->shell_env, xasprintf("WICKET_ENV_UNSET=%s", pats));
	free(pats);
	/* bash -lc: BASH_ENV is read after the login files. */
	const char *be = getenv("BASH_ENV");
	if (be && be[0])
		strv_push(&s->shell_env, xasprintf("WICKET_BASH_ENV=%s", be));
	strv_push(&s->shell_env, xasprintf("BASH_ENV=%s/env.bash", hooks));
	/* zsh -c: wicket's .zshenv reads the user's, then removes them; a
	 * login zsh (zsh -lc) does so after .zlogin, its last startup file.
	 * The interactive zsh has it already (shell_plan). */
	if (!has_var(&s->shell_env, "ZDOTDIR")) {
		const char *z = getenv("ZDOTDIR");
		if (z)
			strv_push(&s->shell_env, xasprintf("WICKET_ZDOTDIR=%s", z));
		strv_push(&s->shell_env, xasprintf("ZDOTDIR=%s/zdotdir", hooks));
	}
	free(hooks);
}

/* The names a shell startup file TEXT assigns ("NAME=", "export NAME=",
 * "typeset -x NAME=" ...: any NAME= at a line's start or after a blank)
 * that PATS match, appended to NAMES. */
static void assigned(const char *text, const char *const *pats, struct strv *names)
{
	static const char word[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";
	for (const char *p = text; *p; p++) {
		if (p != text && p[-1] != ' ' && p[-1] != '\t' && p[-1] != '\n' && p[-1] != ';')
			continue;
		size_t n = strspn(p, word);
		if (!n || p[n] != '=' || (*p >= '0' && *p <= '9') || n >= 128)
			continue;
		char name[128];
		memcpy(name, p, n);
		name[n] = '\0';
		if (envscrub_match(name, pats) && !strv_contains(names, name))
			strv_add(names, name);
	}
}

/* V's strings joined with SEP (allocated). */
static char *joined(const struct strv *v, const char *sep)
{
	size_t len = 1;
	for (size_t i = 0; i < v->n; i++)
		len += strlen(v->v[i]) + strlen(sep);
	char *o = xmalloc(len);
	o[0] = '\0';
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			strcat(o, sep);
		strcat(o, v->v[i]);
	}
	return o;
}

/* The startup file F (the user's own, read up to 256 KiB; not opened
 * unless regular), its names PATS match, as "F: NAME, NAME" to SAID. */
static void note_file(const char *f, const char *const *pats, struct strv *seen, struct strv *said)
{
	char *r = wk_realpath(f);
	if (!r || strv_contains(seen, r)) {
		free(r);
		return;
	}
	struct stat st;
	int fd = stat(r, &st) == 0 && S_ISREG(st.st_mode)
			 ? open(r, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) : -1;
	strv_push(seen, r);
	if (fd < 0)
		return;
	char *buf = xmalloc(256 * 1024 + 1);
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, 256 * 1024) : -1;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	struct strv names = {0};
	assigned(buf, pats, &names);
	free(buf);
	if (names.n) {
		char *list = joined(&names, ", ");
		strv_push(said, xasprintf("%s: %s", f, list));
		free(list);
	}
	strv_free(&names);
}

void shell_scrub_note(const struct session *s)
{
	if (!s->pol.sandbox || !s->pol.env_unset.n)
		return;
	static const char *const files[] = {".bashrc", ".bash_profile", ".bash_login", ".profile",
					    ".zshenv", ".zprofile", ".zshrc", ".zlogin", NULL};
	const char *const *pats = (const char *const *)s->pol.env_unset.v;
	struct strv seen = {0}, said = {0};
	for (size_t h = 0; s->homes[h]; h++)
		for (size_t i = 0; files[i]; i++) {
			char *f = path_join(s->homes[h], files[i]);
			note_file(f, pats, &seen, &said);
			free(f);
		}
	const char *z = getenv("ZDOTDIR");
	for (size_t i = 0; z && z[0] == '/' && files[i]; i++) {
		if (strncmp(files[i], ".z", 2) != 0)
			continue;
		char *f = path_join(z, files[i]);
		note_file(f, pats, &seen, &said);
		free(f);
	}
	if (said.n) {
		char *all = joined(&said, "; ");
		warnmsg("your shell startup files set names the policy removes from the environment "
			"(%s); wicket's hooks remove them again in bash and zsh (interactive, bash -lc, "
			"zsh -c, zsh -lc), but other programs that read those files get them", all);
		free(all);
	}
	strv_free(&said);
	strv_free(&seen);
}
