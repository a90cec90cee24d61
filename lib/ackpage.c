/* The acknowledgement page (ackpage.h). */
#define _GNU_SOURCE
#include "ackpage.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int ack_page_make(struct ack_page **page)
{
	*page = NULL;
	int m = (int)memfd_create("wicket-ack", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (m < 0)
		return -1;
	void *v = MAP_FAILED;
	if (ftruncate(m, ACK_PAGE_SIZE) == 0)
		v = mmap(NULL, ACK_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
	/* Sealed once our mapping is made: it stays writable, none made
	 * after it can be (F_SEAL_FUTURE_WRITE, Linux 5.1). */
	if (v == MAP_FAILED ||
	    fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) < 0) {
		if (v != MAP_FAILED)
			munmap(v, ACK_PAGE_SIZE);
		close(m);
		return -1;
	}
	*page = v;
	return m;
}

uint64_t ack_token(long pid, uint32_t n)
{
	/* pid below 2^30 (the kernel's limit is 2^22), n's low 22 bits: a
	 * process that has 4 million reports in flight at once has none. */
	return ((uint64_t)(pid & 0x3fffffff) << 22 | (n & 0x3fffff)) | 1ULL << 52;
}

/* Not FUTEX_PRIVATE_FLAG: the page is shared between processes. */
static void wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void ack_publish(struct ack_page *p, uint32_t *count, uint64_t token)
{
	atomic_store_explicit(&p->ring[*count % ACK_RING], token, memory_order_relaxed);
	++*count;
	/* Release: a waiter that sees the count sees the token. */
	atomic_store_explicit(&p->done, *count, memory_order_release);
	wake(&p->done);
}

void ack_close(struct ack_page *p)
{
	atomic_store_explicit(&p->closed, 1, memory_order_release);
	/* "done" is the word they sleep on: they wake and read "closed". */
	wake(&p->done);
}

/* What the ring says of TOKEN from *FROM on (advanced), or -1: not yet. */
static int look(const struct ack_page *p, uint32_t start, uint32_t *from, uint64_t token,
		uint32_t *done)
{
	uint32_t d = atomic_load_explicit(&p->done, memory_order_acquire);
	*done = d;
	/* Slots older than the ring hold newer tokens by now: the count is
	 * read before the slots, so a slot overwritten while it was read
	 * shows here on the next look. */
	if (d - start > ACK_RING)
		return ACK_PASSED;
	for (; *from != d; ++*from)
		if (atomic_load_explicit(&p->ring[*from % ACK_RING], memory_order_relaxed) == token)
			return ACK_SEEN;
	if (atomic_load_explicit(&p->closed, memory_order_acquire))
		return ACK_PASSED;
	return -1;
}

enum ack_result ack_wait(const struct ack_page *p, uint32_t start, uint64_t token,
			 const struct timespec *deadline)
{
	uint32_t from = start, d;
	/* After the deadline (or an error), one more look, then no more. */
	for (bool last = false;; ) {
		int r = look(p, start, &from, token, &d);
		if (r >= 0)
			return (enum ack_result)r;
		if (last)
			return ACK_TIMEOUT;
		/* Sleeps only while "done" is still D; an absolute deadline, so
		 * a signal or a spurious wake does not stretch the wait. Any
		 * error but a changed word or a signal ends it (a futex the
		 * kernel refuses must not make a loop). */
		last = syscall(SYS_futex, &p->done, FUTEX_WAIT_BITSET, d, deadline, NULL,
			       FUTEX_BITSET_MATCH_ANY) < 0 &&
		       errno != EAGAIN && errno != EINTR;
	}
}
