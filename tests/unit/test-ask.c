/* Which /proc entry `wicket ask` trusts as its requester's (ask.c,
 * control.c): with the pidfd the kernel sends with each packet
 * (SCM_PIDFD, Linux 6.5), the requester's own and no other, even when its
 * number has gone to another process since; without one, the pid alone. */
#include "config.h"
#include "base/session.h"
#include "supervisor/ask.h"
#include "tap.h"
#include "askproto.h"
#include "fdpass.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif

/* A child that sends one packet and then waits on HOLD (closed: it
 * exits). What arrived: the pid and pidfd, as control.c reads them. */
struct sent {
	pid_t child, pid;
	int pidfd;
};

/* Read one packet from RX: the sender's pid and pidfd, as control.c
 * takes them (WK_PIDFD_GONE when no pidfd came). */
static bool recv_one(int rx, struct sent *out)
{
	char buf[8];
	struct fdpass_in in;
	ssize_t n = fdpass_recv(rx, buf, sizeof buf, 0, FDPASS_CREDS | FDPASS_PIDFD, 0, &in);
	out->pid = in.pid;
	out->pidfd = in.pidfd >= 0 ? in.pidfd : WK_PIDFD_GONE;
	return n == 1;
}

static bool send_one(int rx, int tx, const int hold[2], struct sent *out)
{
	out->child = fork();
	if (out->child < 0)
		return false;
	if (out->child == 0) {
		char c;
		close(hold[1]);
		if (send(tx, "x", 1, 0) != 1)
			_exit(1);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	return recv_one(rx, out);
}

static void reap(pid_t p)
{
	while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
		;
}

/* DIR is the /proc entry of PID: the same inode a fresh lookup finds. */
static bool is_proc_of(int dir, pid_t pid)
{
	char p[64];
	struct stat a, b;
	snprintf(p, sizeof p, "/proc/%ld", (long)pid);
	return dir >= 0 && fstat(dir, &a) == 0 && stat(p, &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

/* "fds": the request names its four descriptors (askproto.c): exactly
 * four numbers, each a descriptor number; anything else refuses the
 * request. */
static void named_fds(void)
{
	static const struct {
		const char *fds;
		bool good;
	} c[] = {
		{"[0,1,2,7]", true},       {"[5,6,7,2147483647]", true}, {"[0,1,2]", false},
		{"[0,1,2,3,4]", false},    {"[0,1,2,-1]", false},        {"[0,1,2,2147483648]", false},
		{"[0,1,2,\"3\"]", false}, {"[0,1,2,3.0]", false},       {"{}", false},
		{"null", false},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char *text = xasprintf("{\"v\":1,\"type\":\"ask\",\"argv\":[\"true\"],\"fds\":%s}",
				       c[i].fds);
		struct ask_req r;
		const char *err;
		bool got = ask_parse(text, strlen(text), &r, &err);
		ok(got == c[i].good, "\"fds\": %s %s", c[i].fds, c[i].good ? "taken" : "refused");
		if (got) {
			ok(r.take, "a request with \"fds\" is one to take them");
			ask_req_free(&r);
		}
		free(text);
	}
	struct ask_req r;
	const char *err;
	const char plain[] = "{\"v\":1,\"type\":\"ask\",\"argv\":[\"true\"]}";
	ok(ask_parse(plain, strlen(plain), &r, &err) && !r.take,
	   "without \"fds\" the descriptors come with the packet");
	ask_req_free(&r);
	const char nums[] = "{\"v\":1,\"type\":\"ask\",\"argv\":[\"true\"],\"fds\":[4,5,6,9]}";
	ok(ask_parse(nums, strlen(nums), &r, &err) && r.fds[0] == 4 && r.fds[1] == 5 &&
		   r.fds[2] == 6 && r.fds[3] == 9,
	   "the numbers in their order: stdin, stdout, stderr, reply");
	ask_req_free(&r);
}

/* TEXT (a request) is taken, or refused. */
static bool parses(const char *text)
{
	struct ask_req r;
	const char *err;
	bool got = ask_parse(text, strlen(text), &r, &err);
	if (got)
		ask_req_free(&r);
	return got;
}

/* The request with argv ARGV (JSON) and the fields MORE after it. */
static bool parses_with(const char *argv, const char *more)
{
	char *text = xasprintf("{\"v\":1,\"type\":\"ask\",\"argv\":%s%s}", argv, more);
	bool got = parses(text);
	free(text);
	return got;
}

/* What the request carries, and each field's bounds: the last value
 * taken and the first refused. */
static void request(void)
{
	ok(parses_with("[\"x\"]", ",\"reason\":\"why\",\"timeout\":5"),
	   "\"reason\" and \"timeout\" are known fields");
	ok(!parses_with("[\"x\"]", ",\"extra\":1"), "an unknown field refused");
	ok(!parses("{\"v\":2,\"type\":\"ask\",\"argv\":[\"x\"]}") &&
		   !parses("{\"v\":\"1\",\"type\":\"ask\",\"argv\":[\"x\"]}"),
	   "version 2, or \"1\" as a string, refused");
	ok(!parses("{\"v\":1,\"type\":\"signal\",\"argv\":[\"x\"]}") &&
		   !parses("{\"v\":1,\"type\":7,\"argv\":[\"x\"]}"),
	   "another type, or none that is a string, refused");
	ok(!parses_with("[]", "") && !parses_with("\"x\"", "") && !parses_with("[\"\"]", "") &&
		   !parses_with("[\"a\\u0000b\"]", "") && !parses_with("[7]", ""),
	   "argv empty, no array, an empty first word, a NUL, a number: refused");
	char *many = xstrdup("[\"x\"");
	for (int i = 1; i < ASK_ARGC_MAX; i++) {
		char *m = xasprintf("%s,\"y\"", many);
		free(many);
		many = m;
	}
	char *full = xasprintf("%s]", many), *over = xasprintf("%s,\"y\"]", many);
	ok(parses_with(full, "") && !parses_with(over, ""), "256 words taken, 257 refused");
	free(many);
	free(full);
	free(over);
	char *big = xmalloc(ASK_ARGV_BYTES + 8);
	memset(big, 'a', ASK_ARGV_BYTES + 8);
	big[0] = '[', big[1] = '"';
	/* [" then 32767 bytes of one word and its NUL: 32768 in all. */
	memcpy(big + ASK_ARGV_BYTES + 1, "\"]", 3);
	ok(parses_with(big, ""), "argv of 32768 bytes, NULs counted");
	memcpy(big + ASK_ARGV_BYTES + 1, "a\"]", 4);
	ok(!parses_with(big, ""), "32769 refused");
	free(big);

	struct ask_req r;
	const char *err;
	const char why[] = "{\"v\":1,\"type\":\"ask\",\"argv\":[\"x\"],\"reason\":\"why\",\"timeout\":1}";
	ok(ask_parse(why, strlen(why), &r, &err) && r.reason && strcmp(r.reason, "why") == 0 &&
		   r.timeout == 1,
	   "the reason and the timeout given");
	ask_req_free(&r);
	char *reason = xmalloc(ASK_REASON_MAX + 2);
	memset(reason, 'r', ASK_REASON_MAX + 1);
	reason[ASK_REASON_MAX] = '\0';
	char *f = xasprintf(",\"reason\":\"%s\"", reason);
	ok(parses_with("[\"x\"]", f), "a reason of 1024 bytes");
	free(f);
	reason[ASK_REASON_MAX] = 'r';
	reason[ASK_REASON_MAX + 1] = '\0';
	f = xasprintf(",\"reason\":\"%s\"", reason);
	ok(!parses_with("[\"x\"]", f), "1025 refused");
	free(f);
	free(reason);
	ok(!parses_with("[\"x\"]", ",\"reason\":5") && !parses_with("[\"x\"]", ",\"reason\":\"a\\u0000\""),
	   "a reason that is a number or holds a NUL refused");
	ok(parses_with("[\"x\"]", ",\"timeout\":86400") && !parses_with("[\"x\"]", ",\"timeout\":86401") &&
		   !parses_with("[\"x\"]", ",\"timeout\":0") && !parses_with("[\"x\"]", ",\"timeout\":\"5\""),
	   "timeouts from 1 to 86400 seconds, as numbers");

	/* A grant, or outside: never both. */
	const char grant[] = "{\"v\":1,\"type\":\"ask\",\"argv\":[\"x\"],"
			     "\"grant\":{\"write\":[\"/a/./b\"],\"net\":[\"Example.org:443\"]}}";
	ok(ask_parse(grant, strlen(grant), &r, &err) && !r.outside &&
		   r.grant.v[WK_GRANT_WRITE].n == 1 && strcmp(r.grant.v[WK_GRANT_WRITE].v[0], "/a/b") == 0 &&
		   strcmp(r.grant.v[WK_GRANT_NET].v[0], "example.org:443") == 0,
	   "a grant taken, canonical");
	ask_req_free(&r);
	ok(!parses_with("[\"x\"]", ",\"grant\":{\"write\":[\"rel\"]}") &&
		   !parses_with("[\"x\"]", ",\"grant\":{\"run\":[\"/x\"]}") &&
		   !parses_with("[\"x\"]", ",\"grant\":[]"),
	   "a relative path, an unknown kind, no object: refused");
	const char out[] = "{\"v\":1,\"type\":\"ask\",\"argv\":[\"x\"],\"outside\":true}";
	ok(ask_parse(out, strlen(out), &r, &err) && r.outside && wk_grant_empty(&r.grant),
	   "outside taken");
	ask_req_free(&r);
	const char in[] = "{\"v\":1,\"type\":\"ask\",\"argv\":[\"x\"],\"outside\":false}";
	ok(ask_parse(in, strlen(in), &r, &err) && !r.outside, "outside false: a grant (empty)");
	ask_req_free(&r);
	ok(!parses_with("[\"x\"]", ",\"outside\":1") && !parses_with("[\"x\"]", ",\"outside\":\"true\""),
	   "outside is true or false, nothing else");
	ok(!parses_with("[\"x\"]", ",\"outside\":true,\"grant\":{\"write\":[\"/a\"]}"),
	   "outside with a grant refused");
	ok(parses_with("[\"x\"]", ",\"outside\":false,\"grant\":{\"write\":[\"/a\"]}") &&
		   parses_with("[\"x\"]", ",\"outside\":true,\"grant\":{}"),
	   "a grant not outside, or an empty one outside: taken");
}

static int sig(const char *text)
{
	return ask_parse_signal(text, strlen(text));
}

/* The four signals `wicket ask` passes on, and nothing else. */
static void signals(void)
{
	ok(sig("{\"v\":1,\"type\":\"signal\",\"signal\":1}") == SIGHUP &&
		   sig("{\"v\":1,\"type\":\"signal\",\"signal\":2}") == SIGINT &&
		   sig("{\"v\":1,\"type\":\"signal\",\"signal\":3}") == SIGQUIT &&
		   sig("{\"v\":1,\"type\":\"signal\",\"signal\":15}") == SIGTERM,
	   "SIGHUP, SIGINT, SIGQUIT, SIGTERM");
	ok(sig("{\"v\":1,\"type\":\"signal\",\"signal\":9}") == -1 &&
		   sig("{\"v\":1,\"type\":\"signal\",\"signal\":0}") == -1,
	   "no other signal");
	ok(sig("{\"v\":1,\"type\":\"signal\",\"signal\":2,\"x\":1}") == -1 &&
		   sig("{\"v\":1,\"type\":\"signal\"}") == -1 &&
		   sig("{\"v\":1,\"type\":\"signal\",\"x\":2}") == -1,
	   "three fields, the signal one of them");
	ok(sig("{\"v\":2,\"type\":\"signal\",\"signal\":2}") == -1 &&
		   sig("{\"v\":\"1\",\"type\":\"signal\",\"signal\":2}") == -1 &&
		   sig("{\"v\":1,\"type\":\"ask\",\"signal\":2}") == -1 &&
		   sig("{\"v\":1,\"type\":5,\"signal\":2}") == -1 &&
		   sig("{\"v\":1,\"type\":\"signal\",\"signal\":\"2\"}") == -1 && sig("[1,2,3]") == -1,
	   "the version, the type and the number checked");
}

/* How each kind of text is quoted for a shell, and what a terminal
 * would show as text. */
static void quoting(void)
{
	static const struct {
		const char *in, *want, *what;
	} w[] = {
		{"az-AZ_09@%+=:,./", "az-AZ_09@%+=:,./", "safe characters bare"},
		{"a", "a", "a letter bare"},
		{"Z", "Z", "a capital bare"},
		{"9", "9", "a digit bare"},
		{"", "''", "the empty word quoted"},
		{"!", "'!'", "'!' quoted"},
		{"a b", "'a b'", "a space: in single quotes"},
		{"it's", "'it'\\''s'", "a single quote closed and escaped"},
		{"caf\xc3\xa9", "'caf\xc3\xa9'", "UTF-8 text in single quotes"},
		{"a\n'\\", "$'a\\x0a\\'\\\\'", "a control character: $'...'"},
		{"\xff", "$'\\xff'", "invalid UTF-8: $'...'"},
	};
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
		char *q = ask_quote(w[i].in);
		is_str(q, w[i].want, "%s", w[i].what);
		free(q);
	}
	char *argv[] = {"x", "a b", "y", NULL};
	char *q = ask_quote_argv("FIRST", argv, 3);
	is_str(q, "FIRST 'a b' y", "the words, the first as the caller names it");
	free(q);
	q = ask_quote_argv(NULL, argv, 2);
	is_str(q, "x 'a b'", "the words as they are");
	free(q);

	static const struct {
		const char *s;
		size_t len;
	} t[] = {
		{"\x1f", 0}, {" ", 1}, {"~", 1}, {"\x7f", 0}, {"\x80", 0}, {"\xc3\xa9", 2},
		{"\xc1\xbf", 0}, {"\xc2\x9f", 0}, {"\xc2\xa0", 2}, {"\xd8\x9c", 0},
		{"\xe0\x9f\xbf", 0}, {"\xe0\xa0\x80", 3}, {"\xe2\x82\xac", 3},
		{"\xed\x9f\xbf", 3}, {"\xed\xa0\x80", 0}, {"\xed\xbf\xbf", 0}, {"\xee\x80\x80", 3},
		{"\xe2\x80\x8d", 3}, {"\xe2\x80\x8e", 0}, {"\xe2\x80\x8f", 0}, {"\xe2\x80\xa9", 3},
		{"\xe2\x80\xaa", 0}, {"\xe2\x80\xae", 0}, {"\xe2\x80\xaf", 3}, {"\xe2\x81\xa5", 3},
		{"\xe2\x81\xa6", 0}, {"\xe2\x81\xa9", 0}, {"\xe2\x81\xaa", 3},
		{"\xf0\x8f\xbf\xbf", 0}, {"\xf0\x90\x80\x80", 4}, {"\xf0\x9f\x98\x80", 4},
		{"\xf4\x8f\xbf\xbf", 4}, {"\xf4\x90\x80\x80", 0}, {"\xf8\x80\x80\x80", 0},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		size_t n = strlen(t[i].s);
		unsigned char *exact = xmalloc(n);
		memcpy(exact, t[i].s, n);
		size_t got = text_utf8_len(exact, n);
		ok(got == t[i].len, "text_utf8_len %zu: %zu bytes of text, not %zu", i, t[i].len, got);
		free(exact);
	}
	ok(text_utf8_len((const unsigned char *)"\xc3\xa9", 1) == 0,
	   "a sequence cut short by the end is none");
	ok(text_utf8_len((const unsigned char *)"\xc3\xa9x", 3) == 2, "one sequence, not what follows");
	ok(text_utf8_len((const unsigned char *)"\xc3x", 2) == 0, "a lead byte without its follower");

	char *c = text_clean("a\x1b[1m\xc3\xa9\xc0\x80x\xc3y", 99);
	is_str(c, "a?[1m\xc3\xa9?x?y", "controls and invalid sequences each one '?'");
	free(c);
	c = text_clean("\xf0\x80\x80\x80\x80", 99);
	is_str(c, "??", "a sequence spans at most four bytes");
	free(c);
	c = text_clean("abc", 2);
	is_str(c, "ab", "at most MAX bytes");
	free(c);
	char *cut = xmalloc(2);
	memcpy(cut, "\xe2\x82", 2);
	c = text_clean(cut, 2);
	is_str(c, "?", "a sequence cut at MAX read to there and no further");
	free(c);
	free(cut);

	struct strv rule = {0};
	strv_add(&rule, "**");
	ok(!ask_rule_open(&rule), "\"**\" alone names a program, not the rest");
	strv_free(&rule);
	/* The program alone (compared by the caller): no argument, or any. */
	char *ls[] = {"ls", "-l", NULL};
	strv_add(&rule, "ls");
	ok(ask_args_match(&rule, ls, 1) && !ask_args_match(&rule, ls, 2),
	   "a rule of the program alone: that program without arguments");
	strv_add(&rule, "**");
	ok(ask_args_match(&rule, ls, 1) && ask_args_match(&rule, ls, 2),
	   "the program and \"**\": with any arguments");
	strv_free(&rule);
}

int main(void)
{
	named_fds();
	request();
	signals();
	quoting();
	/* Without a pidfd (older kernels): the pid alone decides. */
	int d = proc_dir_of(getpid(), WK_PIDFD_NONE);
	ok(is_proc_of(d, getpid()), "no pidfd from the kernel: the sender's pid names its /proc entry");
	if (d >= 0)
		close(d);
	ok(proc_dir_of(getpid(), WK_PIDFD_GONE) < 0,
	   "pidfds are passed but none came: the sender is taken to be gone");
	ok(proc_dir_of(0, WK_PIDFD_NONE) < 0, "pid 0 (no credentials) is nobody");

	int sv[2], one = 1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
	    setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0) {
		ok(0, "socketpair: %s", strerror(errno));
		return done_testing();
	}
	if (setsockopt(sv[0], SOL_SOCKET, SO_PASSPIDFD, &one, sizeof one) < 0) {
		/* Before Linux 6.5: the pidfd checks cannot run here. */
		printf("ok %d # skip SO_PASSPIDFD: %s (Linux 6.5 and later)\n", ++tap_n,
		       strerror(errno));
		return done_testing();
	}

	/* A live sender: its own entry. */
	int hold[2];
	struct sent a;
	if (pipe2(hold, O_CLOEXEC) < 0 || !send_one(sv[0], sv[1], hold, &a)) {
		ok(0, "send: %s", strerror(errno));
		return done_testing();
	}
	ok(a.pid == a.child && a.pidfd >= 0, "the kernel sends pid %ld and a pidfd (%d)",
	   (long)a.pid, a.pidfd);
	d = proc_dir_of(a.pid, a.pidfd);
	ok(is_proc_of(d, a.child), "a live sender: its own /proc entry");

	/* Another live process's number with this pidfd (as after a reuse). */
	int other = proc_dir_of(getpid(), a.pidfd);
	ok(other < 0, "a pidfd and a pid of two different processes: refused");
	if (other >= 0)
		close(other);

	/* The sender ends and is reaped: the number may now be anybody's. */
	close(hold[1]);
	reap(a.child);
	int gone = proc_dir_of(a.pid, a.pidfd);
	ok(gone < 0, "the sender ended and was reaped: refused, whoever has its number now");
	if (gone >= 0)
		close(gone);
	/* The entry opened while it lived leads nowhere now. */
	int cwd = d >= 0 ? openat(d, "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC) : 0;
	ok(cwd < 0, "the entry opened while it lived cannot reach a cwd once it is gone");
	if (cwd >= 0)
		close(cwd);
	if (d >= 0)
		close(d);
	close(hold[0]);
	close(a.pidfd);

	/* A sender reaped before the packet is even read: the pidfd the
	 * kernel then makes names no process (or none is sent). */
	struct sent b;
	pid_t c = fork();
	if (c == 0) {
		(void)!send(sv[1], "y", 1, 0);
		_exit(0);
	}
	reap(c);
	recv_one(sv[0], &b);
	ok(b.pid == c, "the reaped sender's packet still names pid %ld", (long)c);
	d = proc_dir_of(b.pid, b.pidfd);
	ok(d < 0, "a sender reaped before its packet was read: refused");
	if (d >= 0)
		close(d);
	if (b.pidfd >= 0)
		close(b.pidfd);
	return done_testing();
}
