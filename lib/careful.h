/* CAREFUL: a `wicket ask` command whose code the sandbox could write.
 *
 * An approved command runs outside the sandbox. When the code it would
 * run is one the sandbox can write (the program, a script an interpreter
 * is given, a repository's hooks and config for git, the repository a
 * push goes to), approving the command approves whatever the sandbox puts
 * there, after the question too. Such a command is CAREFUL: no allow rule
 * and no approver may approve it; only the person at the terminal, shown
 * the reason (ask.c).
 *
 * The decision is here, apart from the supervisor, so that it can be
 * tested: it reads the file system, only through the sandbox's view
 * (view.h, beneath wset->root), but keeps no state and takes everything
 * else as input. */
#ifndef WICKET_CAREFUL_H
#define WICKET_CAREFUL_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* What the sandbox can write, as canonical absolute paths. */
struct wk_wset {
	struct strv roots; /* writable trees: roots, the private /tmp, /dev/shm */
	struct strv ro;    /* read-only inside them (protected paths in place) */
	struct strv keep;  /* host directories kept read-only in the private /tmp
			    * (a writable root may lie inside one) */
	struct strv fixed; /* directories inside them that cannot be renamed or
			    * replaced (ancestors of protected paths, pinned) */
	int root;          /* the sandbox's root (view.h): every path a command
			    * names is looked at in the sandbox's view, never
			    * the supervisor's own */
};

/* PATH (canonical) lies in a writable tree and not under a read-only one:
 * the sandbox can change it, or create it. */
bool wk_wset_writable(const struct wk_wset *w, const char *path);
void wk_wset_free(struct wk_wset *w);

/* Where a path leads in the sandbox's view (W->root), resolved component
 * by component like the kernel would, relative ones against CWD. Returns the
 * canonical path (components that do not exist appended as written) and
 * sets *REASON (malloc'd) when the sandbox could change what the path
 * names: the object or a symbolic link on the way is in a writable place.
 * A path into /proc (its magic links lead into other mount namespaces)
 * or one that loops yields NULL, with *REASON set. */
char *wk_path_place(const struct wk_wset *w, const char *cwd, const char *path, char **reason);

/* The sandbox can change the program at PROGRAM (canonical): NULL, or
 * the reason (malloc'd, one line). One test for everything that asks it:
 * the first reason a command is CAREFUL (wk_careful), what an approver is
 * told ("path_writable_in_sandbox"), and why an approver in such a place
 * is never run (ask.c). */
char *wk_program_writable(const struct wk_wset *w, const char *program);

struct wk_careful_in {
	const struct wk_wset *wset;
	const char *cwd;      /* the command's, canonical */
	const char *path_env; /* the PATH the command gets (wrappers use it) */
	const char *home;     /* the HOME the command gets (git's own config) */
	const char *xdg_config; /* its XDG_CONFIG_HOME, or NULL (git reads git/config there) */
	const char *program;  /* canonical path of the file that will run */
	char *const *argv;
	size_t argc;
};

/* NULL, or why the command is CAREFUL (malloc'd, one line). */
char *wk_careful(const struct wk_careful_in *in);

#endif
