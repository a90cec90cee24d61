/* uring: create a file through io_uring (IORING_OP_OPENAT), behind the
 * back of any filter that only sees openat(2).
 *
 *   uring PATH
 *
 * Prints "io_uring_setup: ERRNAME" when the ring cannot be made, else
 * "openat: OK" or "openat: ERRNAME" for the queued open. Exit 0 only when
 * PATH was created through the ring. The tests judge whether PATH exists. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fail(const char *what, int err)
{
	const char *n = strerrorname_np(err);
	printf("%s: %s\n", what, n ? n : "E?");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: uring PATH\n");
		return 2;
	}
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	int ring = (int)syscall(SYS_io_uring_setup, 4, &p);
	if (ring < 0)
		return fail("io_uring_setup", errno);

	size_t sq_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	size_t cq_sz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	int single = (p.features & IORING_FEAT_SINGLE_MMAP) != 0;
	if (single && cq_sz > sq_sz)
		sq_sz = cq_sz;
	char *sq = mmap(NULL, sq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
			IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return fail("mmap sq", errno);
	char *cq = sq;
	if (!single) {
		cq = mmap(NULL, cq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
			  IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return fail("mmap cq", errno);
	}
	struct io_uring_sqe *sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
					 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
					 IORING_OFF_SQES);
	if (sqes == MAP_FAILED)
		return fail("mmap sqes", errno);

	unsigned *sq_tail = (unsigned *)(sq + p.sq_off.tail);
	unsigned *sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	unsigned *sq_array = (unsigned *)(sq + p.sq_off.array);
	unsigned tail = __atomic_load_n(sq_tail, __ATOMIC_ACQUIRE);
	unsigned idx = tail & *sq_mask;
	struct io_uring_sqe *sqe = &sqes[idx];
	memset(sqe, 0, sizeof *sqe);
	sqe->opcode = IORING_OP_OPENAT;
	sqe->fd = AT_FDCWD;
	sqe->addr = (uint64_t)(uintptr_t)argv[1];
	sqe->len = 0644;
	sqe->open_flags = O_CREAT | O_WRONLY | O_CLOEXEC;
	sqe->user_data = 1;
	sq_array[idx] = idx;
	__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);

	if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return fail("io_uring_enter", errno);
	unsigned *cq_head = (unsigned *)(cq + p.cq_off.head);
	unsigned *cq_tail = (unsigned *)(cq + p.cq_off.tail);
	unsigned *cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	unsigned head = __atomic_load_n(cq_head, __ATOMIC_ACQUIRE);
	if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE))
		return fail("openat (no completion)", EAGAIN);
	int res = cqes[head & *cq_mask].res;
	__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
	if (res < 0)
		return fail("openat", -res);
	printf("openat: OK\n");
	return 0;
}
