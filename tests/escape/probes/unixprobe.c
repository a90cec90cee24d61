/* unixprobe: a client of pathname unix sockets, for the attacks on host
 * services outside the sandbox's writable roots.
 *
 *   unixprobe connect PATH MSG     SOCK_STREAM connect(), then send MSG
 *   unixprobe sendto PATH MSG      SOCK_DGRAM sendto() PATH
 *   unixprobe sendmsg PATH MSG     SOCK_DGRAM sendmsg() with PATH as msg_name
 *   unixprobe sendmmsg PATH MSG    SOCK_DGRAM sendmmsg(), one message to PATH
 *   unixprobe fdpath PATH MSG      open PATH with O_PATH, connect() to
 *                                  /proc/self/fd/N (stream), send MSG
 *   unixprobe race GOOD BAD MSG    listen on GOOD (a stream and a datagram
 *                                  socket, GOOD and GOOD.d), then for up to
 *                                  3 s (at most 3000 rounds) connect() and
 *                                  sendto() while another thread rewrites
 *                                  the address between GOOD and BAD
 *                                  (BAD.d for datagrams) all the time
 *   unixprobe fastrace BAD MSG     messages that need no destination, on a
 *                                  datagram socket pair, for up to 3 s (at
 *                                  most 3000 rounds), while another thread
 *                                  turns them into sends to BAD all the
 *                                  time: the msghdr's name flips between
 *                                  none and BAD, and dup2 flips the
 *                                  descriptor between the pair's end and
 *                                  an unconnected datagram socket; and a
 *                                  sendmmsg of three, the middle one to
 *                                  BAD, sent on as a caller would
 *
 * Prints "OP: OK" or "OP: ERRNAME" ("race: N good, M other" for race,
 * "fastrace: N good, M other" for fastrace, good: received in the pair).
 * Exit status 0 on success, 1 on failure, 2 on usage. The tests judge by
 * the service on the host (what it received), not by this output. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char *ename(int e)
{
	const char *n = strerrorname_np(e);
	return n ? n : "E?";
}

static int say(const char *op, long r, int e)
{
	if (r >= 0)
		printf("%s: OK\n", op);
	else
		printf("%s: %s\n", op, ename(e));
	fflush(stdout);
	return r >= 0 ? 0 : 1;
}

static socklen_t mkaddr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	size_t n = strlen(path);
	if (n >= sizeof a->sun_path) {
		fprintf(stderr, "unixprobe: path too long: %s\n", path);
		exit(2);
	}
	memcpy(a->sun_path, path, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
}

/* A socket of TYPE and the address of PATH in *A (*L); -1 on failure. */
static int sock_for(int type, const char *path, struct sockaddr_un *a, socklen_t *l)
{
	*l = mkaddr(a, path);
	return socket(AF_UNIX, type, 0);
}

static int stream_to(const char *op, const char *path, const char *msg)
{
	struct sockaddr_un a;
	socklen_t l;
	int s = sock_for(SOCK_STREAM, path, &a, &l);
	if (s < 0)
		return say(op, -1, errno);
	struct timeval tv = {3, 0};
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (connect(s, (struct sockaddr *)&a, l) < 0)
		return say(op, -1, errno);
	ssize_t w = send(s, msg, strlen(msg), MSG_NOSIGNAL);
	close(s);
	return say(op, w, errno);
}

static int dgram_to(const char *op, const char *path, const char *msg)
{
	struct sockaddr_un a;
	socklen_t l;
	int s = sock_for(SOCK_DGRAM, path, &a, &l);
	if (s < 0)
		return say(op, -1, errno);
	struct iovec iov = {(void *)msg, strlen(msg)};
	struct msghdr m = {.msg_name = &a, .msg_namelen = l, .msg_iov = &iov, .msg_iovlen = 1};
	ssize_t w;
	if (strcmp(op, "sendto") == 0) {
		w = sendto(s, msg, strlen(msg), MSG_DONTWAIT, (struct sockaddr *)&a, l);
	} else if (strcmp(op, "sendmsg") == 0) {
		w = sendmsg(s, &m, MSG_DONTWAIT);
	} else {
		struct mmsghdr mm = {.msg_hdr = m};
		w = sendmmsg(s, &mm, 1, MSG_DONTWAIT);
		if (w == 1 && mm.msg_len != strlen(msg))
			w = -1, errno = EIO;
	}
	int e = errno;
	close(s);
	return say(op, w, e);
}

/* --- race --------------------------------------------------------------- */

/* A race's other thread FN started (*T), and its start (*T0). */
static int race_start(pthread_t *t, void *(*fn)(void *), struct timespec *t0)
{
	if (pthread_create(t, NULL, fn, NULL) != 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, t0);
	return 1;
}

/* A race's rounds: at most 3000, for 3 s at most from T0. */
static int more_rounds(int i, const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return i < 3000 && now.tv_sec - t0->tv_sec < 3;
}

static struct sockaddr_un shared_s, shared_d; /* rewritten all the time */
static struct sockaddr_un good_s, bad_s, good_d, bad_d;
static atomic_int stop;

static void *flipper(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; !atomic_load(&stop); i++) {
		memcpy(&shared_s, i & 1 ? &bad_s : &good_s, sizeof shared_s);
		memcpy(&shared_d, i & 1 ? &bad_d : &good_d, sizeof shared_d);
	}
	return NULL;
}

static int race(const char *good, const char *bad, const char *msg)
{
	char gd[sizeof good_d.sun_path + 2], bd[sizeof bad_d.sun_path + 2];
	snprintf(gd, sizeof gd, "%s.d", good);
	snprintf(bd, sizeof bd, "%s.d", bad);
	socklen_t l = mkaddr(&good_s, good);
	socklen_t lb = mkaddr(&bad_s, bad);
	socklen_t ld = mkaddr(&good_d, gd);
	socklen_t lbd = mkaddr(&bad_d, bd);
	/* One length for both: the longer, zero-padded. */
	if (lb > l)
		l = lb;
	if (lbd > ld)
		ld = lbd;
	int ls = socket(AF_UNIX, SOCK_STREAM, 0), lds = socket(AF_UNIX, SOCK_DGRAM, 0);
	unlink(good);
	unlink(gd);
	if (ls < 0 || lds < 0 || bind(ls, (struct sockaddr *)&good_s, l) < 0 || listen(ls, 4096) < 0 ||
	    bind(lds, (struct sockaddr *)&good_d, ld) < 0)
		return say("race-listen", -1, errno);
	fcntl(ls, F_SETFL, O_NONBLOCK);
	fcntl(lds, F_SETFL, O_NONBLOCK);
	memcpy(&shared_s, &good_s, sizeof shared_s);
	memcpy(&shared_d, &good_d, sizeof shared_d);
	pthread_t t;
	struct timespec t0;
	if (!race_start(&t, flipper, &t0))
		return say("race-thread", -1, EAGAIN);
	unsigned ok = 0, other = 0;
	char buf[256];
	for (int i = 0; more_rounds(i, &t0); i++) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (s >= 0 && connect(s, (struct sockaddr *)&shared_s, l) == 0) {
			send(s, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
			ok++;
		} else {
			other++;
		}
		if (s >= 0)
			close(s);
		int c = accept(ls, NULL, NULL);
		if (c >= 0)
			close(c);
		int d = socket(AF_UNIX, SOCK_DGRAM, 0);
		if (d >= 0 && sendto(d, msg, strlen(msg), MSG_DONTWAIT, (struct sockaddr *)&shared_d,
				     ld) >= 0)
			ok++;
		else
			other++;
		if (d >= 0)
			close(d);
		while (recv(lds, buf, sizeof buf, MSG_DONTWAIT) > 0)
			;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("race: %u good, %u other\n", ok, other);
	unlink(good);
	unlink(gd);
	return ok ? 0 : 1;
}

/* --- fastrace ------------------------------------------------------------- */

static struct msghdr fast_m;
static struct sockaddr_un fast_bad;
static socklen_t fast_bad_len;
static int fast_fd, fast_pair, fast_loose;

static void *fast_flipper(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; !atomic_load(&stop); i++) {
		fast_m.msg_name = i & 1 ? &fast_bad : NULL;
		fast_m.msg_namelen = i & 1 ? fast_bad_len : 0;
		if ((i & 63) == 0)
			dup2((i >> 6) & 1 ? fast_loose : fast_pair, fast_fd);
	}
	return NULL;
}

static int fastrace(const char *bad, const char *msg)
{
	int sp[2];
	fast_bad_len = mkaddr(&fast_bad, bad);
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sp) < 0 ||
	    (fast_loose = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0 || (fast_fd = dup(sp[0])) < 0)
		return say("fastrace-setup", -1, errno);
	fast_pair = sp[0];
	struct iovec iov = {(void *)msg, strlen(msg)};
	fast_m.msg_iov = &iov;
	fast_m.msg_iovlen = 1;
	pthread_t t;
	struct timespec t0;
	if (!race_start(&t, fast_flipper, &t0))
		return say("fastrace-thread", -1, EAGAIN);
	unsigned ok = 0, other = 0;
	char buf[256];
	for (int i = 0; more_rounds(i, &t0); i++) {
		if (sendmsg(fast_fd, &fast_m, MSG_DONTWAIT) < 0)
			other++;
		/* Three messages, the middle one to BAD: on as a caller
		 * would, from the first one not sent. */
		struct mmsghdr mm[3];
		memset(mm, 0, sizeof mm);
		for (int k = 0; k < 3; k++) {
			mm[k].msg_hdr.msg_iov = &iov;
			mm[k].msg_hdr.msg_iovlen = 1;
		}
		mm[1].msg_hdr.msg_name = &fast_bad;
		mm[1].msg_hdr.msg_namelen = fast_bad_len;
		for (int k = 0; k < 3;) {
			int n = sendmmsg(sp[0], mm + k, 3 - k, MSG_DONTWAIT);
			if (n <= 0) {
				other++;
				k++;
			} else {
				k += n;
			}
		}
		while (recv(sp[1], buf, sizeof buf, MSG_DONTWAIT) > 0)
			ok++;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("fastrace: %u good, %u other\n", ok, other);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "connect") == 0)
		return stream_to("connect", argv[2], argv[3]);
	if (argc == 4 && (strcmp(argv[1], "sendto") == 0 || strcmp(argv[1], "sendmsg") == 0 ||
			  strcmp(argv[1], "sendmmsg") == 0))
		return dgram_to(argv[1], argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "fdpath") == 0) {
		int fd = open(argv[2], O_PATH | O_CLOEXEC);
		if (fd < 0)
			return say("fdpath", -1, errno);
		char p[64];
		snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
		return stream_to("fdpath", p, argv[3]);
	}
	if (argc == 5 && strcmp(argv[1], "race") == 0)
		return race(argv[2], argv[3], argv[4]);
	if (argc == 4 && strcmp(argv[1], "fastrace") == 0)
		return fastrace(argv[2], argv[3]);
	fprintf(stderr, "usage: unixprobe connect|sendto|sendmsg|sendmmsg|fdpath PATH MSG\n"
			"       unixprobe race GOOD BAD MSG\n"
			"       unixprobe fastrace BAD MSG\n");
	return 2;
}
