/* libwicket-preload, the guard half: the supervisor's descriptors outlive
 * programs that close what they inherited (DESIGN §6).
 *
 * Every sandboxed process inherits WICKET_FD (the control socket),
 * WICKET_ACK_FD (the acknowledgement page, lib/ackpage.h) and, while it
 * exists, WICKET_STATUS_FD (the count the shell hooks read), each as
 * "N:DEV:INO" (or a bare "N", taken unchecked). Python's subprocess,
 * closefrom()-using daemons and `exec N>&-` would lose them, and with
 * them every denial line of their children. So close, close_range,
 * closefrom, dup2/dup3 onto them and F_SETFD FD_CLOEXEC on them pretend
 * to succeed and leave them alone.
 *
 * Only while N still is the supervisor's descriptor: fstat must give
 * DEV:INO. A number the program reused (after a raw close(2), say) is the
 * program's, and every call on it goes through.
 *
 * Runs in vfork children and signal handlers: no malloc, no stdio, no
 * locks, errno as it was. The environment is read once, by the library's
 * constructor (or by the first call, should another library's
 * constructor close a descriptor before ours ran). */
#undef _FORTIFY_SOURCE
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fdguard.h"
#include "fdspec.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* A shell redirects 0-9 by number on purpose (`exec 9>lock`): dup2 onto
 * one of those goes through even when it is ours, or the script's data
 * would vanish into the supervisor's descriptor. (The launcher should
 * place them higher: DESIGN §6.) */
#define DUP_FLOOR 10

enum { G_UNSET, G_BUSY, G_READY };

_Atomic bool fdguard_ready;
int fdguard_fd[FDGUARD_MAX] = {-1, -1, -1};
static struct fdspec guards[FDGUARD_MAX];
static _Atomic int gstate = G_UNSET;

/* Never 0..2: programs close and reopen those on purpose, and the
 * launcher never puts its descriptors there. */
static void parse_guard(const char *s, struct fdspec *g)
{
	if (!fdspec_parse(s, g) || g->fd < 3)
		*g = (struct fdspec){.fd = -1};
}

static void parse_env(struct fdspec g[FDGUARD_MAX])
{
	parse_guard(getenv("WICKET_FD"), &g[0]);
	parse_guard(getenv("WICKET_STATUS_FD"), &g[1]);
	parse_guard(getenv("WICKET_ACK_FD"), &g[2]);
}

/* The guards, read once into static storage. A thread that finds another
 * one reading (or a signal handler that interrupted the reading) parses
 * into LOCAL instead: the same values, just not kept. */
static const struct fdspec *load(struct fdspec local[FDGUARD_MAX])
{
	int st = atomic_load_explicit(&gstate, memory_order_acquire);
	if (st == G_READY)
		return guards;
	int unset = G_UNSET;
	if (st == G_UNSET && atomic_compare_exchange_strong_explicit(&gstate, &unset, G_BUSY,
								     memory_order_acq_rel,
								     memory_order_acquire)) {
		int e = errno;
		parse_env(guards);
		errno = e;
		for (int i = 0; i < FDGUARD_MAX; i++)
			fdguard_fd[i] = guards[i].fd;
		atomic_store_explicit(&gstate, G_READY, memory_order_release);
		atomic_store_explicit(&fdguard_ready, true, memory_order_release);
		return guards;
	}
	if (atomic_load_explicit(&gstate, memory_order_acquire) == G_READY)
		return guards;
	int e = errno;
	parse_env(local);
	errno = e;
	return local;
}

__attribute__((constructor)) static void fdguard_init(void)
{
	struct fdspec local[FDGUARD_MAX];
	load(local);
}

/* G's descriptor is open and still the supervisor's. */
static bool intact(const struct fdspec *g)
{
	if (g->fd < 0)
		return false;
	int e = errno;
	struct stat st;
	bool ok = fstat(g->fd, &st) == 0 && fdspec_same(g, &st);
	errno = e;
	return ok;
}

bool fdguard_held_slow(int fd)
{
	struct fdspec local[FDGUARD_MAX];
	const struct fdspec *g = load(local);
	if (fd < 0)
		return false;
	for (int i = 0; i < FDGUARD_MAX; i++)
		if (g[i].fd == fd && intact(&g[i]))
			return true;
	return false;
}

bool fdguard_refuse_dup(int old, int fd)
{
	if (fd < DUP_FLOOR || old == fd)
		return false;
	/* An OLD that is not open makes the call fail with EBADF, FD
	 * untouched: let it. */
	int e = errno;
	bool valid = syscall(SYS_fcntl, old, F_GETFD) >= 0;
	errno = e;
	return valid;
}

/* The guarded descriptors in [LO, HI] that are intact, ascending, without
 * duplicates, into KEEP; their number. */
static int held_in(unsigned lo, unsigned hi, unsigned keep[FDGUARD_MAX])
{
	struct fdspec local[FDGUARD_MAX];
	const struct fdspec *g = load(local);
	int n = 0;
	for (int i = 0; i < FDGUARD_MAX; i++) {
		if (g[i].fd < 0 || (unsigned)g[i].fd < lo || (unsigned)g[i].fd > hi ||
		    !intact(&g[i]))
			continue;
		/* Into its place, once. */
		unsigned fd = (unsigned)g[i].fd;
		int at = n;
		while (at > 0 && keep[at - 1] > fd)
			at--;
		if (at > 0 && keep[at - 1] == fd)
			continue;
		for (int j = n; j > at; j--)
			keep[j] = keep[j - 1];
		keep[at] = fd;
		n++;
	}
	return n;
}

bool fdguard_in_range(unsigned lo, unsigned hi)
{
	if (atomic_load_explicit(&fdguard_ready, memory_order_acquire)) {
		bool maybe = false;
		for (int i = 0; i < FDGUARD_MAX; i++)
			maybe |= fdguard_fd[i] >= 0 && (unsigned)fdguard_fd[i] >= lo &&
				 (unsigned)fdguard_fd[i] <= hi;
		if (!maybe)
			return false;
	}
	unsigned keep[FDGUARD_MAX];
	return held_in(lo, hi, keep) > 0;
}

int fdguard_close_range(unsigned lo, unsigned hi, int flags, fdguard_range_fn real)
{
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	unsigned keep[FDGUARD_MAX];
	int n;
	/* What the kernel refuses as a whole, it refuses before touching any
	 * descriptor: pass it on as it is. */
	if (lo > hi || ((unsigned)flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC)) ||
	    (n = held_in(lo, hi, keep)) == 0)
		return real(lo, hi, flags);
	/* The pieces around the guarded descriptors. The first call made
	 * carries CLOSE_RANGE_UNSHARE (one unshare, before anything closes;
	 * the later pieces act on the private table); CLOSE_RANGE_CLOEXEC
	 * stays on every piece and never reaches ours, which must survive
	 * exec. */
	int f = flags;
	unsigned from = lo;
	for (int i = 0; i < n; i++) {
		if (keep[i] > from) {
			if (real(from, keep[i] - 1, f) < 0)
				return -1;
			f &= ~(int)CLOSE_RANGE_UNSHARE;
		}
		from = keep[i] + 1; /* below INT_MAX: no wrap */
	}
	if (from <= hi) {
		if (real(from, hi, f) < 0)
			return -1;
		f &= ~(int)CLOSE_RANGE_UNSHARE;
	}
	/* Nothing but ours in the range: unshare alone, by closing a number
	 * no descriptor can have (they end below INT_MAX). */
	if (f & CLOSE_RANGE_UNSHARE)
		return real(~0U, ~0U, f);
	return 0;
}

/* Closes [LO, HI] (HI below a guarded descriptor, so bounded): with
 * close_range, else one close at a time. */
static void close_span(unsigned lo, unsigned hi, fdguard_range_fn range, fdguard_close_fn close_fn)
{
	if (range && range(lo, hi, 0) == 0)
		return;
	for (unsigned fd = lo; close_fn && fd <= hi; fd++)
		close_fn((int)fd);
}

void fdguard_closefrom(int lo, fdguard_from_fn from, fdguard_range_fn range,
		       fdguard_close_fn close_fn)
{
	unsigned keep[FDGUARD_MAX];
	int e = errno;
	unsigned start = lo < 0 ? 0 : (unsigned)lo; /* as libc takes it */
	int n = held_in(start, ~0U, keep);
	for (int i = 0; i < n; i++) {
		if (keep[i] > start)
			close_span(start, keep[i] - 1, range, close_fn);
		start = keep[i] + 1;
	}
	/* Above the last guarded descriptor: libc's own closefrom, with its
	 * fallback for kernels without close_range. */
	if (from)
		from(n ? (int)start : lo);
	else if (range)
		range(start, ~0U, 0);
	errno = e;
}
