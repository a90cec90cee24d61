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
bool autorun_places(const struct strv *roots, const char *const *homes, struct strv *out);
void autorun_check_new(const struct session *s, const char *const *homes);
/* The .git entries (directories, files, symlinks) the session made deeper
 * in a writable root, moved aside: after a session that made directories
 * or names (or could have, unwatched), a bounded walk of the roots. */
void autorun_check_nested(const struct session *s);

#endif
