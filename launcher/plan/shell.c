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
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"

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
	return c ? c : hooks_in(realpath(PKGDATADIR "/shellhooks", NULL));
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
