/* The state kept after a session (state.c): where it lives and how the
 * records of the sessions that ended are named. control.c writes it,
 * why.c reads it, ask.c keeps its audit log there. */
#ifndef WICKET_STATE_H
#define WICKET_STATE_H

#include <stdbool.h>

/* $XDG_STATE_HOME/wicket, else ~/.local/state/wicket; NULL: no home. */
char *wicket_state_dir(void);
/* mkdir -p DIR with mode 0700 for what it creates. */
bool wicket_state_dir_make(const char *dir);
/* The records of the sessions that ended, kept in STATE/sessions/ for
 * `wicket why --list` and `--session N|ID`: the newest, as many as fit
 * in this many bytes together (the newest always). By size, not count:
 * a harness's many short calls must not evict a person's session whose
 * record is large, nor each other's. */
#define WK_KEEP_BYTES (8u << 20)
/* How many names a listing of sessions/ reads at most. */
#define WK_KEEP_NAMES 100000
bool session_record_name(const char *name);

#endif
