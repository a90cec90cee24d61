/* runslater (lib/runslater.c): the one list of places that run code
 * later, as text: a place, a path inside one, a path that holds one. */
#include "config.h"
#include "runslater.h"
#include "util.h"
#include "tap.h"

#include <stdlib.h>

static const char *const homes[] = {"/home/u", NULL};

struct want {
	const char *path;
	enum wk_later how;
	const char *place; /* NULL: not checked */
};

/* The home's list: the attacks' own places, git's and Python's
 * anywhere, what holds one, and what is none. */
static const struct want home[] = {
	{"/home/u/.bashrc", WK_LATER_IN, "/home/u/.bashrc"},
	{"/home/u/.cargo/config.toml", WK_LATER_IN, NULL},
	{"/home/u/.gdbinit", WK_LATER_IN, NULL},
	{"/home/u/.psqlrc", WK_LATER_IN, NULL},
	{"/home/u/.pam_environment", WK_LATER_IN, NULL},
	{"/etc/profile.d/x.sh", WK_LATER_IN, "/etc/profile.d"},
	{"/home/u/.ipython/profile_default/startup/a.py", WK_LATER_IN, "/home/u/.ipython"},
	{"/home/u/.gradle/init.d/a.gradle", WK_LATER_IN, "/home/u/.gradle/init.d"},
	{"/home/u/.local/lib/python3.12/site-packages/x.pth", WK_LATER_IN, "/home/u/.local/lib/python3.12/site-packages"},
	{"/home/u/.config/autostart/a.desktop", WK_LATER_IN, "/home/u/.config/autostart"},
	{"/home/u/.config/zsh/.zshrc", WK_LATER_IN, NULL},
	{"/w/sub/.git/config", WK_LATER_IN, "/w/sub/.git/config"},
	{"/w/sub/.git/hooks/pre-commit", WK_LATER_IN, "/w/sub/.git/hooks"},
	{"/w/.venv/lib/python3/site-packages/a.pth", WK_LATER_IN, NULL},
	{"/w/.venv/lib/python3/site-packages/mod.py", WK_LATER_NONE, NULL},
	{"/w/sub/.git", WK_LATER_HOLDS, "/w/sub/.git/hooks"},
	{"/w/.venv/lib/python3/site-packages", WK_LATER_HOLDS, NULL},
	{"/home/u", WK_LATER_HOLDS, NULL},
	{"/home/u/.cargo", WK_LATER_HOLDS, "/home/u/.cargo/config"},
	{"/home/u/.local/lib", WK_LATER_HOLDS, "/home/u/.local/lib/python*/site-packages"},
	{"/", WK_LATER_HOLDS, NULL},
	{"/home/u/src/app/main.c", WK_LATER_NONE, NULL},
	{"/home/u/.cargo/registry/x", WK_LATER_NONE, NULL},
	{"/home/u/.bashrc.d", WK_LATER_NONE, NULL},
	{"/home/u/.config/zsh/notes", WK_LATER_NONE, NULL},
	{"/w/git/config", WK_LATER_NONE, NULL},
	{"/home/u2/.bashrc", WK_LATER_NONE, NULL},
	{"relative/.bashrc", WK_LATER_NONE, NULL},
};

/* Config homes where the environment puts them. */
static const struct want moved[] = {
	{"/w/zsh/.zshrc", WK_LATER_IN, "/w/zsh/.zshrc"},
	{"/w/zsh/.zlogin", WK_LATER_IN, NULL},
	{"/w/zsh/other", WK_LATER_NONE, NULL},
	{"/w/cfg/.curlrc", WK_LATER_IN, "/w/cfg/.curlrc"},
	{"/w/cfg/tmux/tmux.conf", WK_LATER_IN, "/w/cfg/tmux"},
	{"/w/data/applications/a.desktop", WK_LATER_IN, NULL},
	{"/w", WK_LATER_HOLDS, NULL},
	{"/home/u/.config/tmux/tmux.conf", WK_LATER_IN, NULL},
};

static void check(const struct wk_later_env *env, const struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *got = NULL;
		enum wk_later how = wk_runs_later(env, w[i].path, &got);
		ok(how == w[i].how, "%s: %d (want %d)", w[i].path, (int)how, (int)w[i].how);
		if (w[i].place)
			is_str(got, w[i].place, "%s: the place", w[i].path);
		free(got);
	}
}

int main(void)
{
	struct wk_later_env env = {.homes = homes};
	check(&env, home, sizeof home / sizeof *home);
	env.zdotdir = "/w/zsh";
	env.xdg_config = "/w/cfg";
	env.xdg_data = "/w/data";
	check(&env, moved, sizeof moved / sizeof *moved);

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
