/* The guard half of libwicket-preload: the descriptors the supervisor
 * hands every sandboxed process (WICKET_FD, the control socket; and
 * WICKET_STATUS_FD, the count the shell hooks read) survive programs that close what
 * they inherited (DESIGN §6).
 *
 * The wrappers in preload.c ask here before they close, overwrite or mark
 * close-on-exec a descriptor. Everything here is async-signal-safe (close
 * runs in vfork children and signal handlers), allocates nothing and
 * leaves errno as it found it. */
#ifndef WICKET_PRELOAD_FDGUARD_H
#define WICKET_PRELOAD_FDGUARD_H

#include <stdatomic.h>
#include <stdbool.h>

#define FDGUARD_MAX 3 /* WICKET_FD, WICKET_STATUS_FD and WICKET_ACK_FD */

/* Set once the environment has been read (the library's constructor,
 * or the first call); fdguard_fd then holds the guarded numbers, -1 for
 * an unused slot. Read by the inline test below, written by fdguard.c. */
extern _Atomic bool fdguard_ready;
extern int fdguard_fd[FDGUARD_MAX];

bool fdguard_held_slow(int fd);

/* FD is a guarded descriptor, still the one the supervisor passed (its
 * DEV:INO checked with fstat). For any other descriptor, once the
 * environment was read: two compares. */
static inline bool fdguard_held(int fd)
{
	if (__builtin_expect(atomic_load_explicit(&fdguard_ready, memory_order_acquire), 1) &&
	    __builtin_expect(fd != fdguard_fd[0] && fd != fdguard_fd[1] &&
				     fd != fdguard_fd[2], 1))
		return false;
	return fdguard_held_slow(fd);
}

/* dup2/dup3(OLD, FD, ...) would replace a guarded descriptor: true when
 * the wrapper must pretend it did (return FD, change nothing). False when
 * OLD is not open (the call fails, FD untouched) or FD is below 10. */
bool fdguard_refuse_dup(int old, int fd);

/* close_range(LO, HI, FLAGS) around the guarded descriptors in the range,
 * with REAL the next close_range (NULL: ENOSYS). */
typedef int (*fdguard_range_fn)(unsigned lo, unsigned hi, int flags);
int fdguard_close_range(unsigned lo, unsigned hi, int flags, fdguard_range_fn real);

/* closefrom(LO) around the guarded descriptors, with the next closefrom
 * and close_range (either may be NULL), and close for the fallback. */
typedef void (*fdguard_from_fn)(int lo);
typedef int (*fdguard_close_fn)(int fd);
void fdguard_closefrom(int lo, fdguard_from_fn from, fdguard_range_fn range,
		       fdguard_close_fn close_fn);

/* A guarded descriptor lies in [LO, HI] (unsigned, as close_range takes
 * them): the wrapper must not pass the range on as it is. */
bool fdguard_in_range(unsigned lo, unsigned hi);

#endif
