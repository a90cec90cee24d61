/* runslater (lib/runslater.c): the one list of places that run code
 * later, as text: a place, a path inside one, a path that holds one. */
#include "config.h"
#include "runslater.h"
#include "util.h"
#include "tap.h"

#include <stdlib.h>

static const char *const homes[] = {"/home/u", NULL};

static void is(const struct wk_later_env *env, const char *path, enum wk_later want,
	       const char *place)
{
	char *got = NULL;
	enum wk_later how = wk_runs_later(env, path, &got);
	ok(how == want, "%s: %d (want %d)", path, (int)how, (int)want);
	if (place)
		is_str(got, place, "%s: the place", path);
	free(got);
}

int main(void)
{
	struct wk_later_env env = {.homes = homes};
	/* The attacks' own: each one in, a path inside one in. */
	is(&env, "/home/u/.bashrc", WK_LATER_IN, "/home/u/.bashrc");
	is(&env, "/home/u/.cargo/config.toml", WK_LATER_IN, NULL);
	is(&env, "/home/u/.gdbinit", WK_LATER_IN, NULL);
	is(&env, "/home/u/.psqlrc", WK_LATER_IN, NULL);
	is(&env, "/home/u/.pam_environment", WK_LATER_IN, NULL);
	is(&env, "/etc/profile.d/x.sh", WK_LATER_IN, "/etc/profile.d");
	is(&env, "/home/u/.ipython/profile_default/startup/a.py", WK_LATER_IN, "/home/u/.ipython");
	is(&env, "/home/u/.gradle/init.d/a.gradle", WK_LATER_IN, "/home/u/.gradle/init.d");
	is(&env, "/home/u/.local/lib/python3.12/site-packages/x.pth", WK_LATER_IN,
	   "/home/u/.local/lib/python3.12/site-packages");
	is(&env, "/home/u/.config/autostart/a.desktop", WK_LATER_IN, "/home/u/.config/autostart");
	is(&env, "/home/u/.config/zsh/.zshrc", WK_LATER_IN, NULL);
	/* Anywhere: git's, a site directory's. */
	is(&env, "/w/sub/.git/config", WK_LATER_IN, "/w/sub/.git/config");
	is(&env, "/w/sub/.git/hooks/pre-commit", WK_LATER_IN, "/w/sub/.git/hooks");
	is(&env, "/w/.venv/lib/python3/site-packages/a.pth", WK_LATER_IN, NULL);
	is(&env, "/w/.venv/lib/python3/site-packages/mod.py", WK_LATER_NONE, NULL);
	is(&env, "/w/sub/.git", WK_LATER_HOLDS, "/w/sub/.git/hooks");
	is(&env, "/w/.venv/lib/python3/site-packages", WK_LATER_HOLDS, NULL);
	/* What holds one. */
	is(&env, "/home/u", WK_LATER_HOLDS, NULL);
	is(&env, "/home/u/.cargo", WK_LATER_HOLDS, "/home/u/.cargo/config");
	is(&env, "/home/u/.local/lib", WK_LATER_HOLDS, "/home/u/.local/lib/python*/site-packages");
	is(&env, "/", WK_LATER_HOLDS, NULL);
	/* None. */
	is(&env, "/home/u/src/app/main.c", WK_LATER_NONE, NULL);
	is(&env, "/home/u/.cargo/registry/x", WK_LATER_NONE, NULL);
	is(&env, "/home/u/.bashrc.d", WK_LATER_NONE, NULL);
	is(&env, "/home/u/.config/zsh/notes", WK_LATER_NONE, NULL);
	is(&env, "/w/git/config", WK_LATER_NONE, NULL);
	is(&env, "/home/u2/.bashrc", WK_LATER_NONE, NULL);
	is(&env, "relative/.bashrc", WK_LATER_NONE, NULL);
	/* Config homes where the environment puts them. */
	env.zdotdir = "/w/zsh";
	env.xdg_config = "/w/cfg";
	env.xdg_data = "/w/data";
	is(&env, "/w/zsh/.zshrc", WK_LATER_IN, "/w/zsh/.zshrc");
	is(&env, "/w/zsh/.zlogin", WK_LATER_IN, NULL);
	is(&env, "/w/zsh/other", WK_LATER_NONE, NULL);
	is(&env, "/w/cfg/.curlrc", WK_LATER_IN, "/w/cfg/.curlrc");
	is(&env, "/w/cfg/tmux/tmux.conf", WK_LATER_IN, "/w/cfg/tmux");
	is(&env, "/w/data/applications/a.desktop", WK_LATER_IN, NULL);
	is(&env, "/w", WK_LATER_HOLDS, NULL);
	is(&env, "/home/u/.config/tmux/tmux.conf", WK_LATER_IN, NULL);

	/* The fixed places a root holds or lies in. */
	struct strv out = {0};
	wk_later_places(&env, "/w/cfg", &out);
	ok(strv_contains(&out, "/w/cfg/.curlrc") && strv_contains(&out, "/w/cfg/git") &&
		   !strv_contains(&out, "/home/u/.bashrc"),
	   "a config home's places");
	strv_free(&out);
	wk_later_places(&env, "/home/u/.vim/pack", &out);
	ok(out.n == 1 && strv_contains(&out, "/home/u/.vim/pack"), "a root inside a place is one");
	strv_free(&out);
	wk_later_places(&env, "/home/u/src", &out);
	ok(out.n == 0, "a project holds none");
	strv_free(&out);
	return done_testing();
}
