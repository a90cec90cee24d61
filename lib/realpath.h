/* realpath() at the cost of one lookup. */
#ifndef WICKET_REALPATH_H
#define WICKET_REALPATH_H

#include <stdbool.h>

/* What realpath(PATH, NULL) returns, errno included, in one openat2 and
 * a close where PATH is absolute and names no link, and by realpath()
 * itself otherwise. glibc's realpath() reads every component of the path
 * as a link (a readlink each, most of them failing), and the planner asks
 * it of a hundred paths per session, most of them short and without a
 * link: /etc/..., ~/.config/.... Once the kernel has found PATH with no
 * link on the way (RESOLVE_NO_SYMLINKS), the real path is PATH made
 * lexically normal, as nothing but a link makes them differ. A lookup
 * that fails before any link on a missing component or one not a
 * directory fails realpath() with the same errno at the same component;
 * anything else (a link, no search permission, a path too long for the
 * kernel, an old kernel) goes to realpath(). */
char *wk_realpath(const char *path);

/* True when the kernel finds no symbolic link on PATH (absolute) as far
 * as it exists: one call where lstat() of each leading part would take
 * one each. False: a link on the way, or nothing known (EACCES...). */
bool wk_no_link_on_way(const char *path);

/* PATH (absolute) looked up with no symbolic link followed: 0 when it
 * is there with no link on the way, else the lookup's errno (ELOOP: a
 * link; ENOENT: a part missing, with no link before it). */
int wk_look_no_link(const char *path);

#endif
