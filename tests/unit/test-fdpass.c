/* Descriptors over unix sockets (lib/fdpass.c): what arrives, close-on-
 * exec; never more than the receiver made room for, the rest closed and
 * not leaked; a truncation said, for the caller to refuse. */
#include "config.h"
#include "tap.h"
#include "fdpass.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* How many descriptors this process holds. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static bool same_file(int a, int b)
{
	struct stat x, y;
	return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

static void exchange(int sv[2], size_t nsend, size_t room, unsigned want, const char *what)
{
	int p[2], fds[FDPASS_MAX];
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	for (size_t i = 0; i < nsend; i++)
		fds[i] = i % 2 ? p[1] : p[0];
	int before = open_fds();
	ok(fdpass_send(sv[0], "xy", 2, fds, nsend, 0) == 2, "%s: sent", what);
	char buf[8];
	struct fdpass_in in;
	ssize_t n = fdpass_recv(sv[1], buf, sizeof buf, room, want, MSG_DONTWAIT, &in);
	size_t want_n = nsend < room ? nsend : room;
	ok(n == 2 && in.nfds == want_n, "%s: %zu of %zu taken (got %zu)", what, want_n, nsend,
	   in.nfds);
	if (!(in.flags & MSG_CTRUNC))
		ok(in.extra == nsend - want_n, "%s: %zu more said (got %zu)", what, nsend - want_n,
		   in.extra);
	bool match = true, cloexec = true;
	for (size_t i = 0; i < in.nfds; i++) {
		match = match && same_file(in.fds[i], fds[i]);
		cloexec = cloexec && (fcntl(in.fds[i], F_GETFD) & FD_CLOEXEC);
	}
	ok(match && cloexec, "%s: the same files, in order, close-on-exec", what);
	ok(open_fds() == before + (int)in.nfds, "%s: nothing else left open", what);
	if (room < nsend && nsend * sizeof(int) > CMSG_SPACE(room * sizeof(int)) - CMSG_LEN(0))
		ok(in.flags & MSG_CTRUNC, "%s: the truncation is said", what);
	fdpass_close(&in);
	ok(open_fds() == before && in.nfds == 0 && in.pidfd == -1, "%s: closed", what);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return 1;
	exchange(sv, 1, 1, 0, "one for one");
	exchange(sv, 4, 4, 0, "four for four");
	/* CMSG_SPACE rounds up: room for one holds two on 64-bit, which the
	 * kernel then passes. The second must not stay open. */
	exchange(sv, 2, 1, 0, "two for one");
	exchange(sv, 4, 1, 0, "four for one");
	exchange(sv, 3, 2, 0, "three for two");

	/* None for the receiver: the kernel drops them all. */
	exchange(sv, 2, 0, 0, "two for none");

	/* The sender's credentials, with SO_PASSCRED. */
	int one = 1;
	if (setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == 0) {
		exchange(sv, 1, 1, FDPASS_CREDS, "with credentials");
		int p[2];
		if (pipe(p) == 0) {
			fdpass_send(sv[0], "c", 1, &p[0], 1, 0);
			char c;
			struct fdpass_in in;
			fdpass_recv(sv[1], &c, 1, 1, FDPASS_CREDS, 0, &in);
			ok(in.pid == getpid() && in.nfds == 1, "the sender's pid comes along");
			fdpass_close(&in);
			close(p[0]);
			close(p[1]);
		}
	}

	int fd = 0;
	errno = 0;
	ok(fdpass_send(sv[0], "z", 1, &fd, 0, 0) < 0 && errno == EINVAL, "no descriptor: refused");
	errno = 0;
	int many[FDPASS_MAX + 1] = {0};
	ok(fdpass_send(sv[0], "z", 1, many, FDPASS_MAX + 1, 0) < 0 && errno == EINVAL,
	   "more than FDPASS_MAX: refused");
	struct fdpass_in in;
	ok(fdpass_recv(sv[1], &fd, 1, 1, 0, MSG_DONTWAIT, &in) < 0 && in.nfds == 0 &&
	   in.pidfd == -1, "nothing waiting: nothing taken");
	/* fdpass_pair: the reader's end non-blocking, the sender's
	 * credentials with each packet. */
	int pr[2];
	ok(fdpass_pair(pr) == 0, "fdpass_pair");
	ok((fcntl(pr[0], F_GETFL) & O_NONBLOCK) && !(fcntl(pr[1], F_GETFL) & O_NONBLOCK) &&
	   (fcntl(pr[0], F_GETFD) & FD_CLOEXEC) && (fcntl(pr[1], F_GETFD) & FD_CLOEXEC),
	   "the reader's end non-blocking, both close-on-exec");
	char c = 'x', got = 0;
	struct fdpass_in pin;
	ok(fdpass_recv(pr[0], &got, 1, 0, FDPASS_CREDS, 0, &pin) < 0 && errno == EAGAIN,
	   "nothing to read: EAGAIN, not a wait");
	ok(write(pr[1], &c, 1) == 1 && fdpass_recv(pr[0], &got, 1, 0, FDPASS_CREDS, 0, &pin) == 1 &&
	   got == 'x' && pin.pid == getpid(), "the sender's pid with the packet");
	close(pr[0]);
	close(pr[1]);
	return done_testing();
}
