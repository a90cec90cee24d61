/* WICKET_FD and WICKET_STATUS_FD (lib/fdspec.c): what control.c writes the
 * shim, `wicket why` and `wicket ask` read back; anything else is no
 * descriptor; a number reused for another file, or not a socket, is not
 * the control socket. */
#include "config.h"
#include "tap.h"
#include "fdspec.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

static bool refused(const char *s)
{
	struct fdspec sp = {.fd = 7, .checked = true, .dev = 1, .ino = 1};
	return !fdspec_parse(s, &sp) && sp.fd == -1 && !sp.checked && sp.dev == 0 && sp.ino == 0;
}

int main(void)
{
	int sv[2], p[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 || pipe2(p, O_CLOEXEC) < 0)
		return 1;
	struct stat st;
	fstat(sv[0], &st);
	char buf[FDSPEC_LEN], want[FDSPEC_LEN];
	size_t n = fdspec_format(buf, sv[0], &st);
	snprintf(want, sizeof want, "%d:%llu:%llu", sv[0], (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	is_str(buf, want, "written as FD:DEV:INO");
	ok(n == strlen(want), "its length");
	struct fdspec sp;
	ok(fdspec_parse(buf, &sp) && sp.fd == sv[0] && sp.checked &&
	   sp.dev == (unsigned long long)st.st_dev && sp.ino == (unsigned long long)st.st_ino,
	   "read back the same");
	ok(fdspec_socket(&sp) == sv[0], "the socket it names");

	struct stat big = {.st_dev = (dev_t)~0ULL, .st_ino = (ino_t)~0ULL};
	n = fdspec_format(buf, INT_MAX - 1, &big);
	ok(n < FDSPEC_LEN && fdspec_parse(buf, &sp) && sp.fd == INT_MAX - 1 && sp.ino == ~0ULL,
	   "the largest values fit and read back: %s", buf);

	ok(fdspec_parse("12", &sp) && sp.fd == 12 && !sp.checked, "a bare number: unchecked");
	ok(fdspec_parse("0:0:0", &sp) && sp.fd == 0 && sp.checked, "zeros: checked");

	ok(refused(NULL), "unset");
	ok(refused(""), "empty");
	ok(refused("-1") && refused("+5") && refused(" 5") && refused("5 "), "signs and spaces");
	ok(refused("5:") && refused("5:1") && refused("5:1:") && refused(":1:2"), "a missing part");
	ok(refused("5:1:2x") && refused("5:1:2:3") && refused("5x"), "trailing text");
	ok(refused("5:-1:2") && refused("5:1: 2"), "a sign or space inside");
	ok(refused("2147483647") && refused("99999999999999999999999") &&
	   refused("5:1:18446744073709551616"), "numbers too large");

	/* What the number holds now. */
	snprintf(buf, sizeof buf, "%d", sv[1]);
	fdspec_parse(buf, &sp);
	ok(fdspec_socket(&sp) == sv[1], "unchecked: any socket");
	snprintf(buf, sizeof buf, "%d", p[0]);
	fdspec_parse(buf, &sp);
	ok(fdspec_socket(&sp) == -1, "a pipe is not the control socket");
	snprintf(buf, sizeof buf, "%d:%llu:%llu", sv[1], (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	fdspec_parse(buf, &sp);
	struct stat st1;
	fstat(sv[1], &st1);
	ok(fdspec_socket(&sp) == -1 && !fdspec_same(&sp, &st1),
	   "another socket under the number: not it");
	ok(fdspec_same(&sp, &st), "the one named: it");
	int fd = sv[0];
	fdspec_format(buf, fd, &st);
	close(sv[0]);
	fdspec_parse(buf, &sp);
	ok(fdspec_socket(&sp) == -1, "closed: none");
	return done_testing();
}
