/* Descriptors the sandbox handed over (or that were made from them),
 * closed off the calling thread. The last close of such an object can
 * block: a TCP socket with SO_LINGER and unsent data to a peer that does
 * not read waits for the linger time, and one in flight inside a unix
 * socket's queue is closed with it, by whoever closes that socket. The
 * relay loop, which keeps the terminal, Ctrl-C and the questions alive,
 * must never wait for that (red team 12, F2/F3), nor may the closer for
 * long (red team 14, F4): a socket's close is cut short by a signal to
 * the closer's thread (the kernel stops waiting when one is pending). */
#ifndef WICKET_SUPERVISOR_CLOSER_H
#define WICKET_SUPERVISOR_CLOSER_H

#include <stdbool.h>

/* The closer's thread started, before the sandbox exists: later, the
 * sandbox could use up the processes a thread needs (RLIMIT_NPROC).
 * False: it could not be. */
bool closer_start(void);
/* FD (>= 0) is closed by the closer's thread, soon. Should its queue be
 * full, FD stays open until the supervisor exits. */
void closer_close(int fd);

#endif
