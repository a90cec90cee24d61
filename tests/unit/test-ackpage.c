/* The acknowledgement page (lib/ackpage.c): the supervisor writes it, the
 * sandbox can only read it (the seals); a waiter sees its own token and
 * no other, and never waits past the deadline, a closed page, or a ring
 * that went round past its token. */
#include "config.h"
#include "tap.h"
#include "ackpage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct timespec in_ms(long ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L)
		t.tv_sec++, t.tv_nsec -= 1000000000L;
	return t;
}

/* Until process PID sleeps (its state in /proc is S: in the futex, for
 * the waiter here), 20 s at most: whether it did. */
static bool sleeping(pid_t pid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 4000; i++) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = '\0';
		const char *st = strrchr(buf, ')');
		if (st && st[1] == ' ' && st[2] == 'S')
			return true;
		usleep(5000);
	}
	return false;
}

int main(void)
{
	struct ack_page *p;
	uint32_t count = 0;
	int fd = ack_page_make(&p);
	struct stat st;
	ok(fd >= 0 && p && fstat(fd, &st) == 0 && st.st_size == ACK_PAGE_SIZE,
	   "a page of %d bytes, mapped", ACK_PAGE_SIZE);
	if (fd < 0)
		return done_testing();

	/* What the sandbox, which holds the descriptor, can do with it. */
	ok(mmap(NULL, ACK_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED,
	   "no writable mapping of it");
	void *ro = mmap(NULL, ACK_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	ok(ro != MAP_FAILED, "a read-only one");
	ok(ro != MAP_FAILED && mprotect(ro, ACK_PAGE_SIZE, PROT_READ | PROT_WRITE) < 0,
	   "which cannot be made writable");
	ok(pwrite(fd, "x", 1, 0) < 0, "no write(2)");
	ok(ftruncate(fd, 0) < 0 && ftruncate(fd, 2 * ACK_PAGE_SIZE) < 0,
	   "its size cannot change (our stores would fault)");
	ok(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, ACK_PAGE_SIZE) < 0,
	   "no hole punched in it");
	ok(ro != MAP_FAILED && madvise(ro, ACK_PAGE_SIZE, MADV_REMOVE) < 0,
	   "nor through the read-only mapping");
	ok(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) < 0, "no more seals");
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	int again = open(self, O_RDWR);
	ok(again < 0 || mmap(NULL, ACK_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, again, 0) ==
				MAP_FAILED,
	   "nor through /proc/self/fd opened anew");
	if (again >= 0)
		close(again);
	ok(ro != MAP_FAILED && *(volatile uint32_t *)ro == 0, "the reader sees the writer's page");

	uint64_t t1 = ack_token(5, 1), t2 = ack_token(5, 2), t3 = ack_token(6, 1);
	ok(t1 && t2 && t3 && t1 != t2 && t1 != t3 && t2 != t3, "tokens differ by process and count");
	ok(ack_token(1 << 22, 0x3fffff) < 1ULL << 53 && ack_token(1, 0) != 0,
	   "never 0, below 2^53");

	/* Across processes, as in a session: the waiter maps the page
	 * read-only and waits; the publisher acknowledges another first,
	 * once the waiter sleeps, which wakes it for nothing. */
	pid_t c = fork();
	if (c == 0) {
		const struct ack_page *r = mmap(NULL, ACK_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
		struct timespec end = in_ms(20000);
		_exit(r != MAP_FAILED && ack_wait(r, 0, t3, &end) == ACK_SEEN ? 0 : 1);
	}
	bool slept = sleeping(c);
	ack_publish(p, &count, t1);
	slept &= sleeping(c);
	ack_publish(p, &count, t2);
	ack_publish(p, &count, t3);
	int ws = -1;
	waitpid(c, &ws, 0);
	ok(slept && WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
	   "another process sees its token among others, woken by another's first");
	ok(ro != MAP_FAILED && ((const struct ack_page *)ro)->done == 3, "the count, read-only");

	struct timespec end = in_ms(50);
	uint32_t start = count;
	ack_publish(p, &count, t1);
	ack_publish(p, &count, t2);
	ok(ack_wait(p, start, t3, &end) == ACK_TIMEOUT, "others' tokens are not its own");

	end = in_ms(50);
	start = count;
	ok(ack_wait(p, start, t2, &end) == ACK_TIMEOUT,
	   "a token acknowledged before the report was sent is not its acknowledgement");

	start = count;
	for (uint32_t i = 0; i + 1 < ACK_RING; i++)
		ack_publish(p, &count, ack_token(7, i));
	ack_publish(p, &count, t1);
	end = in_ms(2000);
	ok(ack_wait(p, start, t1, &end) == ACK_SEEN, "seen as the ring's last slot");

	start = count;
	for (uint32_t i = 0; i <= ACK_RING; i++)
		ack_publish(p, &count, ack_token(8, i));
	end = in_ms(2000);
	ok(ack_wait(p, start, t2, &end) == ACK_PASSED,
	   "a ring gone round past the token ends the wait");

	start = count;
	ack_close(p);
	end = in_ms(2000);
	ok(ack_wait(p, start, t3, &end) == ACK_PASSED, "a closed page ends the wait");
	return done_testing();
}
