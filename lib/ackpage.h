/* The acknowledgement page: how a sandboxed process learns that the
 * supervisor has written the line of its denial, without a descriptor
 * made or passed per denial.
 *
 * One page of a sealed memfd per session (WICKET_ACK_FD), made by the
 * supervisor (launcher/supervisor/control.c), which alone writes it; the
 * sandbox maps it read-only (the seals refuse it a writable mapping,
 * write(2), and a change of size, which would make the supervisor's
 * stores fault). The supervisor never reads it back: what the sandbox
 * does to it cannot matter to the supervisor.
 *
 * A denial packet the shim waits for carries a token (ack_token: the
 * sender's pid and a count of its own). Once the line is out, the
 * supervisor stores the token in the next slot of a ring, then counts it
 * in "done", the futex word the shim waits on (ack_wait). "closed": no
 * line will be printed any more (the session's cap is reached, or the
 * socket is closed): nobody waits.
 *
 * No allocation, no lock, no stdio: the shim runs this in signal
 * handlers and vfork children. */
#ifndef WICKET_ACKPAGE_H
#define WICKET_ACKPAGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define ACK_PAGE_SIZE 4096
#define ACK_RING 500

struct ack_page {
	_Atomic uint32_t done;   /* acknowledgements so far (wraps); the futex word */
	_Atomic uint32_t closed; /* nonzero: no more lines, nobody waits */
	uint64_t reserved;
	_Atomic uint64_t ring[ACK_RING]; /* acknowledgement I's token at ring[I % ACK_RING] */
};
_Static_assert(sizeof(struct ack_page) <= ACK_PAGE_SIZE, "one page");

/* The supervisor's page: a memfd of ACK_PAGE_SIZE bytes, mapped for
 * writing at *PAGE, then sealed (no other writable mapping, no write(2),
 * no change of size, no more seals). Its descriptor (close-on-exec), or
 * -1 and *PAGE NULL. */
int ack_page_make(struct ack_page **page);

/* The token of a process's N-th report: never 0 (an empty slot), below
 * 2^53 (a JSON number any reader takes whole). */
uint64_t ack_token(long pid, uint32_t n);

/* The supervisor's side. *COUNT is its own count of acknowledgements
 * (the page is never read back): TOKEN into the ring, then "done", then
 * the waiters woken. */
void ack_publish(struct ack_page *p, uint32_t *count, uint64_t token);
/* No line will be printed any more: waiters go. */
void ack_close(struct ack_page *p);

/* The shim's side: whether the supervisor acknowledged TOKEN, whose
 * packet was sent after "done" was read as START, by DEADLINE
 * (CLOCK_MONOTONIC) at the latest. */
enum ack_result {
	ACK_SEEN,    /* the token is in the ring */
	ACK_PASSED,  /* the page is closed, or the ring went round past it */
	ACK_TIMEOUT, /* the deadline came first */
};
enum ack_result ack_wait(const struct ack_page *p, uint32_t start, uint64_t token,
			 const struct timespec *deadline);

#endif
