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

#endif
