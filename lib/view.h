/* A view of the file system, through a descriptor of its root: the one
 * way the supervisor looks at a path the sandbox gave.
 *
 * The supervisor runs with the user's full rights in the host's view.
 * A path from the sandbox (an `ask` request's program and arguments, a
 * denial's object) means what it means in the sandbox's view, and the
 * sandbox controls the entries on the way (it can swap one for a link
 * between two looks). So every such path is resolved here, once, with
 * openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) beneath a descriptor
 * of the sandbox's root, to an O_PATH descriptor; the decision is made
 * on fstat() of that descriptor, and only a regular file is ever opened
 * for reading, through it. Nothing outside the sandbox's view can be
 * named (a link to /home/u/.ssh/x leads to the sandbox's stand-in), no
 * FIFO or device is ever opened, and the answer never depends on
 * whether a path exists where the sandbox cannot see.
 *
 * tests/check-view fails if the supervisor or lib/ looks at a path with
 * stat, open, access, realpath... anywhere else without saying why the
 * path is the host's own. */
#ifndef WICKET_VIEW_H
#define WICKET_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Where the lookups and opens are made: by default in the calling
 * thread, with its rights; RUN, when set, makes each (calls FN(ARG) and
 * returns what it returns, errno too) somewhere with the sandbox's own
 * rights instead: the supervisor's view thread, without capabilities and
 * under the session's Landlock ruleset (supervisor/viewthread.c), so that
 * it reads nothing the sandbox could not (another user's 0700 directory
 * in a root session, a file beneath no read root). */
void view_set_runner(int (*run)(int (*fn)(void *), void *arg));

/* PATH (absolute, in the view whose root is ROOT), opened O_PATH: the
 * last component followed when FOLLOW (within the view), else the link
 * itself. -1 with errno: ENOENT..., ELOOP/EXDEV for a magic link
 * (/proc/PID/root, /proc/self/fd/N), EINVAL for a relative path. */
int view_path(int root, const char *path, bool follow);

/* NAME (no slash) in the first of DIRS (colon-separated, absolute entries
 * only) where the view has a regular executable file of that name,
 * opened O_PATH; -1 (ENOENT) when there is none. One lookup for the whole
 * walk (a runner's round trip, not one per directory). ROOT -1: in the
 * caller's own files, in the calling thread (a name of the policy's: a
 * rule's program, the approver), no magic link followed. */
int view_program(int root, const char *dirs, const char *name);

/* stat/lstat of PATH in the view: true when it exists. */
bool view_stat(int root, const char *path, struct stat *st);
bool view_lstat(int root, const char *path, struct stat *st);

/* readlink of PATH in the view (the link itself): the length, or -1. */
ssize_t view_readlink(int root, const char *path, char *buf, size_t size);

/* PATH in the view, followed, opened for reading if and only if it is a
 * regular file (never a FIFO, a socket or a device: the open is of the
 * object already looked at); -1 otherwise. */
int view_open_regular(int root, const char *path);

/* The same, from an O_PATH descriptor FD the caller holds. */
int view_reopen_regular(int fd);

/* As read_text_at (util.h), of a regular file in the view. */
ssize_t view_read_text(int root, const char *path, char *buf, size_t size);

/* A regular file of the view as a stdio stream ("re"), or NULL. */
FILE *view_fopen(int root, const char *path);

#endif
