/* The places that run code later: files and directories that the user's
 * shells, desktop and tools read when they next start, outside any
 * sandbox (startup files, config homes, autostart, git's hooks and
 * config, Python's site-packages, build tools' init scripts, editors'
 * startup files). A session that could write one would leave code behind
 * for the user's next shell, `git status`, `python3` or editor to run.
 *
 * One list (runslater.c), used by the planner's protection
 * (launcher/plan/autorun.c), by `wicket why`'s advice (which never
 * offers --write for one) and by escalation grants (which never make one
 * writable).
 *
 * Pure: no system calls; paths are compared as text. */
#ifndef WICKET_RUNSLATER_H
#define WICKET_RUNSLATER_H

#include <stdbool.h>

#include "util.h"

/* Where the user's tools look: each absolute and normalised (the homes
 * real paths), or NULL (not set: the default under each home). */
struct wk_later_env {
	const char *const *homes; /* NULL-terminated */
	const char *zdotdir;      /* $ZDOTDIR: zsh's startup files */
	const char *xdg_config;   /* $XDG_CONFIG_HOME (else HOME/.config) */
	const char *xdg_data;     /* $XDG_DATA_HOME (else HOME/.local/share) */
};

enum wk_later {
	WK_LATER_NONE,
	WK_LATER_IN,    /* the path is a place, or lies inside one */
	WK_LATER_HOLDS, /* a place lies beneath the path */
};

/* Is PATH (absolute, normalised) a place that runs code later, inside
 * one, or does one lie beneath it? With PLACE, the place (allocated; a
 * pattern such as HOME/.local/lib/python* /site-packages for one that
 * lies beneath). HOLDS is as far as text tells: a directory named .git,
 * site-packages or dist-packages holds places, and so does any ancestor
 * of a fixed place of the list; a repository deeper in PATH is a place
 * the file system would have to tell. */
enum wk_later wk_runs_later(const struct wk_later_env *env, const char *path, char **place);

/* The fixed places of the list (each home's, each config home's, the
 * system's) at or beneath DIR, or that DIR lies in, appended to OUT
 * (lexical; a "*" component is left for the caller to expand). */
void wk_later_places(const struct wk_later_env *env, const char *dir, struct strv *out);

#endif
