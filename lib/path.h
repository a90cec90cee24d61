/* Pure path arithmetic: no system calls, unit-tested without a kernel. */
#ifndef WICKET_PATH_H
#define WICKET_PATH_H

#include <stdbool.h>

/* Lexically normalise an absolute path: collapse "//", drop ".", resolve
 * ".." against the parent, strip a trailing "/" (lib/pathlex.c, on a
 * copy). Returns NULL for a relative path. Does not follow symlinks:
 * callers that need the real object use realpath() first. */
char *path_normalize(const char *path);

/* True if PATH is ROOT or lies beneath it (both normalised, absolute). */
bool path_is_under(const char *path, const char *root);

/* "a" + "/" + "b" with exactly one slash between them. */
char *path_join(const char *a, const char *b);
#if defined(__clang_analyzer__) && !defined(WK_PATH_C)
/* For clang's analyzer: allocated as strdup allocates (lib/util.h). */
#include <stdlib.h>
#include <string.h>
static inline char *wk_an_path(const char *a, const char *b)
{
	(void)b;
	char *p = strdup(a);
	if (!p)
		abort();
	return p;
}
#define path_join wk_an_path
#define path_normalize(p) wk_an_path(p, NULL)
#endif

/* Expand a leading "~" or "~/" with HOME; other strings are copied. */
char *path_expand_home(const char *path, const char *home);

/* Parent directory of a normalised absolute path ("/" for "/x"). */
char *path_dirname(const char *path);

/* PATH is a file programs keep their history or state in, directly in
 * one of HOMES (NULL-terminated): a shell's or REPL's history
 * (.bash_history, .zsh_history, .python_history ..., with the temporary
 * and lock files written next to it), .viminfo, .lesshst, or anything in
 * .npm/ or .cache/. A refused write there is expected in a sandbox and
 * not worth a line after every command (wicket(1), DIAGNOSTICS). */
bool path_is_home_state(const char *path, const char *const *homes);

#endif
