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
#include <stddef.h>
#include <sys/types.h>

struct fdpass_in;

/* The closer's thread started, before the sandbox exists: later, the
 * sandbox could use up the processes a thread needs (RLIMIT_NPROC).
 * False: it could not be. */
bool closer_start(void);
/* FD (>= 0) is closed by the closer's thread, soon. Should its queue be
 * full, FD stays open until the supervisor exits. */
void closer_close(int fd);

/* fdpass_recv (fdpass.h) from a socket the sandbox writes to, in the
 * relay loop's thread (the one that called closer_start). Should the
 * kernel drop descriptors a packet carries all the same (the
 * supervisor's table full), it closes them in this thread on the way
 * out of the call: a close that waits is cut short there too, after
 * CLOSER_WAIT_NS (red team 16, F2). */
ssize_t closer_recv(int sock, void *buf, size_t len, size_t maxfds, unsigned want, int flags,
		    struct fdpass_in *in);
/* Backpressure: the closer's work must not pile up in the supervisor
 * (red team 16, F2: the sandbox can hand over lingering sockets faster
 * than they can be closed). True: as many wait as may; take no more
 * descriptors from the sandbox until closer_room_fd (an eventfd) is
 * readable. Watches that take them (watch.h) are then not polled. */
bool closer_busy(void);
int closer_room_fd(void);
/* For the threads that take descriptors (unixnotify.c): room for N
 * more, reserved once there is (MS milliseconds at most; false: there
 * is none yet), and given back with closer_unreserve(N) once they are
 * the closer's (red team 17, F3: eight workers each took 254 at once). */
bool closer_reserve(size_t n, int ms);
void closer_unreserve(size_t n);

#endif
