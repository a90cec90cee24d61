/* `wicket ask`: inside a session, ask the supervisor to run one command
 * in a sandbox of its own with more rights (a grant), or, with
 * --outside, outside any sandbox (ask.c decides and runs it). The request carries
 * this process's stdin, stdout and stderr and a reply socket; the
 * command's status comes back on it, and SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT go the other way, to the command. */
#include "config.h"
#include "base/session.h"
#include "cli/askcmd.h"
#include "cli/why.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "askproto.h"
#include "fdpass.h"
#include "grant.h"

static void usage_ask(FILE *f)
{
	fprintf(f,
		"Usage: wicket ask [GRANT...] [--reason TEXT] [--timeout SECONDS] -- CMD [ARGS...]\n"
		"       wicket ask --outside [--reason TEXT] -- CMD [ARGS...]\n"
		"\n"
		"Inside a session: ask to run CMD once in a sandbox of its own: this\n"
		"session's policy and the rights of the grant, with this process's stdin,\n"
		"stdout, stderr and working directory. The policy's escalation rules, an\n"
		"approver program or you, on the terminal, decide what is granted.\n"
		"\n"
		"Grant (each repeatable):\n"
		"  -w, --write PATH      PATH writable (what runs code later stays protected)\n"
		"      --read PATH       PATH readable, a hidden store (~/.ssh...) included\n"
		"      --net HOST[:PORT] HOST reached through wicket's proxy: a name, *.NAME,\n"
		"                        or an address ([ADDRESS]:PORT for IPv6)\n"
		"      --socket PATH     the host's unix socket at PATH may be connected to\n"
		"                        (e.g. \"$SSH_AUTH_SOCK\")\n"
		"  -e, --env NAME        pass the variable NAME, which the policy removes\n"
		"\n"
		"      --outside         run CMD outside any sandbox, with your own rights:\n"
		"                        only you, at the terminal, can approve that\n"
		"  -r, --reason TEXT     why (shown to whoever decides, and logged)\n"
		"  -t, --timeout SECONDS wait at most this long for an answer (it can only\n"
		"                        shorten the policy's escalation.timeout)\n"
		"  -h, --help            show this help\n"
		"\n"
		"Exit status: the command's own (128+N for signal N); %d refused; %d no one\n"
		"answered (no terminal to ask on, or no answer in time); 125 wicket failed\n"
		"or not in a session; 127 command not found. See wicket(1).\n",
		ASK_EXIT_DENIED, ASK_EXIT_UNANSWERED);
}

static int sig_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
	int e = errno;
	unsigned char b = (unsigned char)sig;
	(void)!write(sig_pipe[1], &b, 1);
	errno = e;
}

/* The four descriptors of a request: stdin, stdout, stderr, REPLY; a
 * closed stdio descriptor goes as /dev/null (a request carries exactly
 * four). */
static void request_fds(int fds[4], int reply)
{
	for (int i = 0; i < 3; i++) {
		fds[i] = i;
		if (fcntl(i, F_GETFD) < 0 &&
		    (fds[i] = open("/dev/null", (i ? O_WRONLY : O_RDONLY) | O_CLOEXEC)) < 0)
			die_errno("ask: /dev/null");
	}
	fds[3] = reply;
}

/* TEXT with the descriptors FDS passed along (SCM_RIGHTS); or, when the
 * supervisor takes them itself (TAKE: TEXT names them), with send(),
 * which the seccomp filter does not refer to the supervisor. */
static int send_request(int ctl, const char *text, const int fds[4], bool take)
{
	ssize_t w;
	if (take) {
		do
			w = send(ctl, text, strlen(text), MSG_NOSIGNAL);
		while (w < 0 && errno == EINTR);
		return w < 0 ? -1 : 0;
	}
	return fdpass_send(ctl, text, strlen(text), fds, 4, 0) < 0 ? -1 : 0;
}

static int result_code(json_t *doc)
{
	const char *type = json_string_value(json_object_get(doc, "type"));
	const char *msg = json_string_value(json_object_get(doc, "message"));
	json_t *st = json_object_get(doc, "status");
	if (type && strcmp(type, "error") == 0) {
		warnmsg("ask: the supervisor refused the request: %s",
			json_string_value(json_object_get(doc, "error")) ?: "error");
		return EXIT_WICKET;
	}
	const char *decision = json_string_value(json_object_get(doc, "decision"));
	const char *by = json_string_value(json_object_get(doc, "by"));
	if (!decision || !by)
		die("ask: the supervisor's answer is not what was expected");
	if (strcmp(decision, "approved") == 0) {
		if (msg)
			warnmsg("ask: %s", msg);
		return json_is_integer(st) ? (int)json_integer_value(st) : EXIT_WICKET;
	}
	if (strcmp(decision, "error") == 0 || strcmp(by, "error") == 0) {
		warnmsg("ask: not run: %s", msg ? msg : "error");
		return json_is_integer(st) ? (int)json_integer_value(st) : EXIT_WICKET;
	}
	if (strcmp(by, "cancelled") == 0)
		return json_is_integer(st) ? (int)json_integer_value(st) : ASK_EXIT_DENIED;
	/* The message's first words say which of the two statuses it is. */
	if (strcmp(by, "timeout") == 0 || strcmp(by, "no-terminal") == 0) {
		warnmsg("ask: no one answered: %s", msg ? msg : "no answer");
		return ASK_EXIT_UNANSWERED;
	}
	warnmsg("ask: refused: %s", msg ? msg : "no");
	return ASK_EXIT_DENIED;
}

int cmd_ask(int argc, char **argv)
{
	static const struct option opts[] = {
		{"reason", required_argument, NULL, 'r'},
		{"write", required_argument, NULL, 'w'},
		{"read", required_argument, NULL, 'R'},
		{"net", required_argument, NULL, 'n'},
		{"socket", required_argument, NULL, 'S'},
		{"env", required_argument, NULL, 'e'},
		{"outside", no_argument, NULL, 'O'},
		{"timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *reason = NULL;
	long timeout = 0;
	struct wk_grant grant = {0};
	bool outside = false;
	char *cwd = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:r:t:hw:e:", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
		case 'R':
		case 'n':
		case 'S':
		case 'e': {
			enum wk_grant_kind k = c == 'w' ? WK_GRANT_WRITE : c == 'R' ? WK_GRANT_READ
					       : c == 'n' ? WK_GRANT_NET : c == 'S' ? WK_GRANT_SOCKET
					       : WK_GRANT_ENV;
			char *abs = NULL;
			if ((k == WK_GRANT_WRITE || k == WK_GRANT_READ || k == WK_GRANT_SOCKET) &&
			    optarg[0] != '/') {
				/* Relative to here, as the sandbox names it. */
				if (!cwd && !(cwd = getcwd(NULL, 0)))
					die_errno("ask: getcwd");
				abs = xasprintf("%s/%s", cwd, optarg);
			}
			char *why = wk_grant_add(&grant, k, abs ? abs : optarg);
			free(abs);
			if (why)
				die("ask: %s", why);
			break;
		}
		case 'O':
			outside = true;
			break;
		case 'r':
			reason = optarg;
			if (strlen(reason) > ASK_REASON_MAX)
				die("ask: --reason is longer than %d bytes", ASK_REASON_MAX);
			break;
		case 't':
			if (!parse_long(optarg, 1, ASK_TIMEOUT_MAX, &timeout))
				die("ask: --timeout wants seconds from 1 to %d, not '%s'", ASK_TIMEOUT_MAX,
				    optarg);
			break;
		case 'h':
			usage_ask(stdout);
			return 0;
		case ':':
			die("ask: option '%s' needs an argument (see 'wicket ask --help')",
			    argv[optind - 1]);
		default:
			die("ask: unknown option '%s' (see 'wicket ask --help')", argv[optind - 1]);
		}
	}
	free(cwd);
	if (outside && !wk_grant_empty(&grant))
		die("ask: --outside runs the command with all your rights; it takes no grant "
		    "(leave out --outside to ask for a grant)");
	if (optind >= argc)
		die("ask: missing command (usage: wicket ask [--reason TEXT] -- CMD [ARGS...])");
	if (argc - optind > ASK_ARGC_MAX)
		die("ask: too many arguments (at most %d)", ASK_ARGC_MAX);

	int ctl = control_socket_fd();
	if (ctl < 0) {
		if (getenv("WICKET_SESSION"))
			die("ask: this is a wicket session, but its control socket is gone (a program "
			    "closed descriptor %s?); run `wicket ask` from the session's shell",
			    getenv("WICKET_FD") ? getenv("WICKET_FD") : "WICKET_FD");
		die("ask: not inside a wicket session (outside one, run the command itself)");
	}

	json_t *av = json_array();
	size_t total = 0;
	for (int i = optind; i < argc; i++) {
		total += strlen(argv[i]) + 1;
		json_t *s = json_string(argv[i]);
		if (!s)
			die("ask: argument %d is not valid UTF-8, which the request cannot carry",
			    i - optind);
		json_array_append_new(av, s);
	}
	if (total > ASK_ARGV_BYTES)
		die("ask: the command line is longer than %d bytes", ASK_ARGV_BYTES);
	json_t *req = json_pack("{s:i, s:s, s:o}", "v", 1, "type", "ask", "argv", av);
	if (reason) {
		json_t *r = json_string(reason);
		if (!r)
			die("ask: --reason is not valid UTF-8");
		json_object_set_new(req, "reason", r);
	}
	if (timeout)
		json_object_set_new(req, "timeout", json_integer(timeout));
	if (outside)
		json_object_set_new(req, "outside", json_true());
	else if (!wk_grant_empty(&grant))
		json_object_set_new(req, "grant", wk_grant_to_json(&grant));
	wk_grant_free(&grant);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
	    pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		die_errno("ask: socketpair");
	int fds[4];
	request_fds(fds, sv[1]);
	const char *tk = getenv("WICKET_ASK_TAKE");
	bool take = tk && strcmp(tk, "1") == 0;
	if (take)
		json_object_set_new(req, "fds", json_pack("[i, i, i, i]", fds[0], fds[1], fds[2], fds[3]));
	char *text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!text || strlen(text) > 65536)
		die("ask: the request is too large");
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	static const int relayed[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	for (size_t i = 0; i < sizeof relayed / sizeof relayed[0]; i++)
		sigaction(relayed[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (send_request(ctl, text, fds, take) < 0)
		die("ask: cannot reach the session's supervisor: %s", strerror(errno));
	free(text);
	/* Taken, the reply socket stays open here until the supervisor has
	 * answered once (it has its own copy then); passed, at once. */
	if (!take) {
		close(sv[1]);
		sv[1] = -1;
	}

	for (;;) {
		struct pollfd p[2] = {{sv[0], POLLIN, 0}, {sig_pipe[0], POLLIN, 0}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die_errno("ask: poll");
		}
		if (p[1].revents & POLLIN) {
			unsigned char b;
			while (read(sig_pipe[0], &b, 1) == 1) {
				char msg[64];
				int n = snprintf(msg, sizeof msg, "{\"v\":1,\"type\":\"signal\",\"signal\":%d}",
						 b);
				(void)!send(sv[0], msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
			}
		}
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		char buf[8192];
		ssize_t n = recv(sv[0], buf, sizeof buf, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("ask: the supervisor ended the request without an answer (the session may "
			    "be ending)");
		if (sv[1] >= 0) {
			close(sv[1]);
			sv[1] = -1;
		}
		json_error_t je;
		json_t *doc = json_loadb(buf, (size_t)n, 0, &je);
		const char *type = json_string_value(json_object_get(doc, "type"));
		if (!json_is_object(doc) || !type)
			die("ask: the supervisor's answer is not what was expected");
		if (strcmp(type, "running") == 0) {
			if (json_is_true(json_object_get(doc, "stdin_null")))
				fprintf(stderr, "%s: ask: approved by %s, with /dev/null as its standard "
					"input: the sandbox wrote the one given, and only you at the "
					"terminal or a rule with \"stdin\": true pass that on\n",
					wicket_progname,
					strcmp(json_string_value(json_object_get(doc, "by")) ?: "",
					       "rule") == 0 ? "a rule" : "the approver");
			json_decref(doc);
			continue;
		}
		int rc = result_code(doc);
		json_decref(doc);
		return rc;
	}
}
