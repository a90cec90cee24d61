#ifndef WICKET_PLAN_HISTORY_H
#define WICKET_PLAN_HISTORY_H

#include "base/session.h"

struct passwd;
/* history.c: the shell's history of the session. history_plan, before
 * the mount plan: a session file (a writable root) when the user's file
 * is not writable inside; history_merge, after the session: its new
 * lines, filtered, appended to the user's file. history_filter (pure):
 * the whole lines of IN (N bytes; the first one cut when PARTIAL_FIRST)
 * of printable text and not too long, one entry each, without the
 * shell's time stamps (*STAMPED: there were some), into OUT (room for
 * N); ZSH: IN is zsh's format, its entries of several lines dropped;
 * returns the length. */
void history_plan(struct session *s, const char *want, const struct passwd *pw);
void history_merge(struct session *s);
size_t history_filter(const char *in, size_t n, char *out, bool partial_first, bool zsh,
		      bool *stamped);

#endif
