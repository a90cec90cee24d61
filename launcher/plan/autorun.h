#ifndef WICKET_PLAN_AUTORUN_H
#define WICKET_PLAN_AUTORUN_H

#include "base/session.h"

/* autorun.c: where the user's own tools run code from later (git hooks
 * and config, shell and desktop startup files), in the writable roots
 * ROOTS (canonical); HOMES NULL-terminated. Appended to OUT, lexical,
 * existing or not. autorun_check_new moves aside those the session
 * created (after it ended; s->autorun_start: those of the start). */
/* false: too many to list (git directories, config includes) */
bool autorun_git_places(const struct strv *roots, const char *const *homes, struct strv *out);
bool autorun_startup_places(const struct strv *roots, const char *const *homes, struct strv *out);
/* The same, for the session's start: what it saw of each directory of
 * the list is kept, so that autorun_check_new looks again only into the
 * directories that changed since. */
bool autorun_startup_places_start(const struct strv *roots, const char *const *homes,
				  struct strv *out);
bool autorun_places(const struct strv *roots, const char *const *homes, struct strv *out);
/* Whether `--write DIR` to let the session write OBJ would make a place
 * that runs code later writable (runslater.h: OBJ in one, or one in DIR
 * that a writable root there would not keep read-only): the place
 * (allocated), or NULL. Text only, with the user's homes and
 * environment: nothing of DIR is looked at. */
char *autorun_write_runs_later(const char *const *homes, const char *dir, const char *obj);
void autorun_check_new(const struct session *s, const char *const *homes);
/* The .git entries (directories, files, symlinks) the session made deeper
 * in a writable root, moved aside: after every session, a walk of the
 * roots over the index of their directories (walkidx.h), never cut short;
 * it saves the index for the next session. So are the changed places of
 * the nested repositories the start did not protect, and the directories
 * holding what the walk could not look at (too deep, unreadable). */
void autorun_check_nested(const struct session *s);
/* The places of the repositories nested deeper in ROOTS at the start
 * (each .git entry, each bare-style git directory, and what git follows
 * from them), appended to OUT: those the index of the last walk of the
 * end lists (no walk; a root without one is walked), and the walk of the
 * end starts from that index. False: too many git directories to list. */
bool autorun_nested_git_places(const struct strv *roots, const char *const *homes,
			       struct strv *out);

#endif
