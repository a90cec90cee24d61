/* Path arithmetic on the text of a path, in place or on a span: no
 * allocation, no system calls, so the preload shim uses the same code as
 * the launcher (lib/path.c builds on it). */
#ifndef WICKET_PATHLEX_H
#define WICKET_PATHLEX_H

#include <stdbool.h>
#include <stddef.h>

/* The absolute path P lexically normalised in place: "//" collapsed, "."
 * dropped, ".." resolved against the text ("/.." is "/"), no trailing
 * "/". Symlinks are not followed. Its new length. */
size_t pathlex_normalize(char *p);

/* PATH (absolute) is ROOT (RLEN bytes, trailing slashes ignored, "/":
 * every absolute path) or beneath it. */
bool pathlex_under(const char *path, const char *root, size_t rlen);

/* The next component of a path from P on: its start (slashes skipped)
 * and its length in *N; NULL at the end of the path. */
const char *pathlex_next(const char *p, size_t *n);

/* A walk of a path one component at a time (links followed by the
 * caller): when the component C (N bytes) is "." or "..", what it does to
 * CUR, the part resolved so far ("" is "/"), is done in place (".." drops
 * CUR's last component) and true is returned: the walk goes on past it. */
bool pathlex_dot_step(char *cur, const char *c, size_t n);

#endif
