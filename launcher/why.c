/* `wicket why`: the session's recent denials, each with the rule that
 * blocked it and the ways to allow it. Inside a session the supervisor
 * answers over the control socket (control.c); outside, the last
 * session's list is read from $XDG_STATE_HOME/wicket/last-session.json. */
#include "config.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "path.h"
#include "sendfd.h"

#define REPLY_MAX (8u << 20)
#define REPLY_TIMEOUT_MS 10000

static void usage_why(FILE *f)
{
	fprintf(f,
		"Usage: wicket why [--json] [-n N]\n"
		"\n"
		"Inside a session: the denials so far, newest first, each with the rule\n"
		"that blocked it and the ways to allow it. Outside a session: the same\n"
		"for the last session that ended (kept in $XDG_STATE_HOME/wicket/).\n"
		"\n"
		"  -n, --count N   at most N denials (default 20, at most %d)\n"
		"      --json      the list as JSON\n"
		"  -h, --help      show this help\n",
		WK_MAX_DENIALS);
}

/* "FD:DEV:INO" names the control socket when the descriptor is still the
 * one the supervisor handed down. -1: not in a session, or lost. */
int control_socket_fd(void)
{
	const char *v = getenv("WICKET_FD");
	if (!v)
		return -1;
	unsigned long long fd, dev, ino;
	char tail;
	int n = sscanf(v, "%llu:%llu:%llu%c", &fd, &dev, &ino, &tail);
	if ((n != 3 && !(n == 1 && strchr(v, ':') == NULL)) || fd > 1 << 20)
		return -1;
	struct stat st;
	if (fstat((int)fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return -1;
	if (n == 3 && ((unsigned long long)st.st_dev != dev || (unsigned long long)st.st_ino != ino))
		return -1;
	return (int)fd;
}

static json_t *ask_supervisor(int ctl, long n)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die_errno("socketpair");
	char req[64];
	int len = snprintf(req, sizeof req, "{\"v\":1,\"type\":\"why\",\"n\":%ld}", n);
	ssize_t w = send_with_fd(ctl, req, (size_t)len, sv[1], 0);
	if (w < 0)
		die("why: cannot reach the session's supervisor: %s", strerror(errno));
	close(sv[1]);

	char *buf = NULL;
	size_t got = 0, cap = 0;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long left = REPLY_TIMEOUT_MS - ((now.tv_sec - t0.tv_sec) * 1000 +
						(now.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			die("why: the supervisor did not answer within %d s", REPLY_TIMEOUT_MS / 1000);
		struct pollfd p = {sv[0], POLLIN, 0};
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		if (got + 65536 > cap) {
			if (cap >= REPLY_MAX)
				die("why: the supervisor's answer is too large");
			buf = xrealloc(buf, cap = cap ? cap * 2 : 65536);
		}
		ssize_t k = read(sv[0], buf + got, cap - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			die("why: reading the supervisor's answer: %s", strerror(errno));
		if (k == 0)
			break;
		got += (size_t)k;
	}
	close(sv[0]);
	json_error_t err;
	json_t *doc = got ? json_loadb(buf, got, 0, &err) : NULL;
	free(buf);
	if (!json_is_object(doc))
		die("why: the supervisor's answer is not what was expected%s",
		    got ? "" : " (no answer: the session may be ending)");
	const char *type = json_string_value(json_object_get(doc, "type"));
	if (type && strcmp(type, "error") == 0)
		die("why: the supervisor says: %s",
		    json_string_value(json_object_get(doc, "error")) ?: "error");
	return doc;
}

static json_t *read_last(char **where)
{
	char *dir = wicket_state_dir();
	if (!dir)
		die("why: no home directory to find the last session's list in");
	*where = path_join(dir, "last-session.json");
	free(dir);
	int fd = open(*where, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return NULL;
		die("why: %s: %s", *where, strerror(errno));
	}
	json_error_t err;
	json_t *doc = json_loadfd(fd, 0, &err);
	close(fd);
	if (!json_is_object(doc))
		die("why: %s:%d: %s", *where, err.line, err.text);
	return doc;
}

static const char *str(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : "";
}

static void print_human(json_t *doc, long n)
{
	json_t *list = json_object_get(doc, "denials");
	json_t *counts = json_object_get(doc, "counts");
	long total = 0;
	const char *key;
	json_t *val;
	json_object_foreach(counts, key, val)
		total += (long)json_integer_value(val);
	bool ended = json_is_true(json_object_get(doc, "ended"));
	size_t distinct = json_array_size(list);
	printf("%s session %s (policy %s%s%s)", ended ? "The last" : "This", str(doc, "session"),
	       str(doc, "policy"), str(doc, "command")[0] ? ", " : "", str(doc, "command"));
	if (ended) {
		time_t t = (time_t)json_integer_value(json_object_get(doc, "time"));
		char when[64];
		struct tm tm;
		if (localtime_r(&t, &tm) && strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm))
			printf(", ended %s", when);
	}
	if (!total) {
		printf(": nothing was blocked.\n");
		return;
	}
	long shown = (long)distinct < n ? (long)distinct : n;
	long all = (long)json_integer_value(json_object_get(doc, "distinct"));
	printf(": %ld denial%s (%ld distinct); ", total, total == 1 ? "" : "s",
	       all > (long)distinct ? all : (long)distinct);
	printf(shown < all ? "the newest %ld:\n" : "newest first:\n", shown);
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		if ((long)i >= n)
			break;
		long count = (long)json_integer_value(json_object_get(e, "count"));
		printf("\n%s blocked: %s\n", str(e, "kind"), str(e, "object"));
		printf("  by %s[%lld]", str(e, "comm"),
		       (long long)json_integer_value(json_object_get(e, "pid")));
		if (str(e, "what")[0])
			printf(" (%s)", str(e, "what"));
		if (count > 1)
			printf(", %ld times (one report per process)", count);
		printf("\n  rule: %s\n", str(e, "rule"));
		json_t *allow = json_object_get(e, "allow");
		if (json_array_size(allow)) {
			printf("  to allow it:\n");
			size_t j;
			json_t *a;
			json_array_foreach(allow, j, a)
				printf("    %s\n", json_string_value(a) ? json_string_value(a) : "");
		}
	}
}

int cmd_why(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"count", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	long n = 20;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'n':
			if (!parse_long(optarg, 1, WK_MAX_DENIALS, &n))
				die("why: -n wants a number from 1 to %d, not '%s'", WK_MAX_DENIALS,
				    optarg);
			break;
		case 'h':
			usage_why(stdout);
			return 0;
		case '?':
			die("why: unknown option '%s' (see 'wicket why --help')", argv[optind - 1]);
		default:
			die("why: option '%s' needs an argument", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die("why: unexpected argument '%s' (see 'wicket why --help')", argv[optind]);

	json_t *doc;
	char *where = NULL;
	int ctl = control_socket_fd();
	if (ctl >= 0) {
		doc = ask_supervisor(ctl, n);
	} else if (getenv("WICKET_SESSION")) {
		die("why: this is a wicket session, but its control socket is gone (a program closed "
		    "descriptor %s?); run `wicket why` from the session's shell",
		    getenv("WICKET_FD") ? getenv("WICKET_FD") : "WICKET_FD");
	} else {
		doc = read_last(&where);
		if (!doc) {
			if (json)
				printf("{\"v\": 1, \"denials\": []}\n");
			else
				printf("No wicket session has ended yet (nothing in %s).\n", where);
			free(where);
			return 0;
		}
	}
	free(where);
	if (json) {
		json_t *list = json_object_get(doc, "denials");
		while (json_array_size(list) > (size_t)n)
			json_array_remove(list, json_array_size(list) - 1);
		char *text = json_dumps(doc, JSON_INDENT(2));
		if (text)
			puts(text);
		free(text);
	} else {
		print_human(doc, n);
	}
	json_decref(doc);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("why: writing the output: %s", strerror(errno));
	return 0;
}
