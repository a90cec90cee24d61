/* Warm sessions, the commands (warmcmd.c): `wicket exec`, `wicket session
 * stop|list`, `session start`'s detaching, and the server that runs
 * inside the sandbox (`wicket session serve FD`, started by the session
 * itself). */
#ifndef WICKET_CLI_WARMCMD_H
#define WICKET_CLI_WARMCMD_H

#include <stddef.h>

int cmd_exec(int argc, char **argv);
int warm_stop_cmd(int argc, char **argv);
int warm_list_cmd(int argc, char **argv);
int warm_serve(int argc, char **argv);
/* `session start NAME`: refused when NAME runs already; else forks. The
 * caller's process waits for the session to be ready and exits (0, or
 * 125 with the session's log); the other returns, detached, its streams
 * the log, with the state directory (*DIRFD) and the pipe to say it is
 * ready on (*READY); of the caller's descriptors above 2 it keeps the
 * NKEEP in KEEP (the session's own: --events FD, the approver's). */
void warm_detach(const char *name, const int *keep, size_t nkeep, int *dirfd, int *ready);

#endif
