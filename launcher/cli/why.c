/* `wicket why`: the session's recent denials, each with the rule that
 * blocked it and the ways to allow it. Inside a session the supervisor
 * answers over the control socket (control.c); outside, the last
 * session's list is read from $XDG_STATE_HOME/wicket/last-session.json. */
#include "config.h"
#include "base/session.h"
#include "base/state.h"
#include "cli/why.h"
#include "supervisor/control.h"

#include <dirent.h>
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
#include "fdpass.h"
#include "fdspec.h"
#include "grant.h"

#define REPLY_MAX (8u << 20)
#define REPLY_TIMEOUT_MS 10000

static void usage_why(FILE *f)
{
	fprintf(f,
		"Usage: wicket why [--json] [-n N] [--session N|ID]\n"
		"       wicket why --list [--json]\n"
		"\n"
		"Inside a session: the denials so far, newest first, each with the rule\n"
		"that blocked it and the ways to allow it. Outside a session: the same\n"
		"for the last session that ended (kept in $XDG_STATE_HOME/wicket/).\n"
		"\n"
		"  -n, --count N   at most N denials (default 20, at most %d)\n"
		"      --session N|ID  an earlier session: the Nth newest (1: the last),\n"
		"                  or the one whose id starts with ID (outside a session)\n"
		"      --list      the sessions kept (the newest, %u MiB of records), newest\n"
		"                  first\n"
		"      --json      as JSON (each way to allow a denial as data: \"fixes\"; the\n"
		"                  grant that allows it, its command's words, the command)\n"
		"      --grant PID the grant that allows every denial of process PID (the\n"
		"                  number on its lines) as wicket ask's options, a word a\n"
		"                  line; status 1 when one of them has none (inside a session)\n"
		"  -h, --help      show this help\n",
		WK_MAX_DENIALS, WK_KEEP_BYTES >> 20);
}

/* "FD:DEV:INO" names the control socket when the descriptor is still the
 * one the supervisor handed down. -1: not in a session, or lost. */
int control_socket_fd(void)
{
	struct fdspec sp;
	return fdspec_parse(getenv("WICKET_FD"), &sp) ? fdspec_socket(&sp) : -1;
}

static json_t *ask_supervisor(int ctl, long n)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die_errno("socketpair");
	char req[64];
	int len = snprintf(req, sizeof req, "{\"v\":1,\"type\":\"why\",\"n\":%ld}", n);
	ssize_t w = fdpass_send(ctl, req, (size_t)len, &sv[1], 1, 0);
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

static const char *str(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : "";
}

static json_t *load_record(int dfd, const char *name, const char *where)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return NULL;
		die("why: %s: %s", where, strerror(errno));
	}
	json_error_t err;
	json_t *doc = json_loadfd(fd, 0, &err);
	close(fd);
	if (!json_is_object(doc))
		die("why: %s:%d: %s", where, err.line, err.text);
	return doc;
}

static int cmp_desc(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

/* The records in DIR/sessions, newest first (none: an empty list). */
static void list_records(const char *dir, struct strv *names)
{
	char *sdir = path_join(dir, "sessions");
	DIR *d = opendir(sdir);
	free(sdir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) && names->n < WK_KEEP_NAMES)
		if (session_record_name(de->d_name))
			strv_add(names, de->d_name);
	closedir(d);
	if (names->n > 1)
		qsort(names->v, names->n, sizeof *names->v, cmp_desc);
}

/* A session's record: WHICH is NULL (the last one), N (the Nth newest)
 * or the start of a session id. NULL when there is none yet (WHICH
 * NULL); an unknown WHICH is an error. *WHERE: the file, for messages. */
static json_t *read_record(const char *which, char **where)
{
	char *dir = wicket_state_dir();
	if (!dir)
		die("why: no home directory to find the sessions' records in");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	json_t *doc = NULL;
	if (!which) {
		*where = path_join(dir, "last-session.json");
		doc = dfd >= 0 ? load_record(dfd, "last-session.json", *where) : NULL;
		if (doc || dfd < 0) {
			if (dfd >= 0)
				close(dfd);
			free(dir);
			return doc;
		}
		which = "1"; /* no second name for it: the newest record */
	} else {
		*where = path_join(dir, "sessions");
	}
	struct strv names = {0};
	list_records(dir, &names);
	long n = 0;
	const char *pick = NULL;
	size_t wl = strlen(which);
	/* N has at most 3 digits (older sessions are named by id); an id's
	 * start has at least 4 of its hex digits, so the two never meet. */
	if (wl <= 3 && strspn(which, "0123456789") == wl) {
		if (!parse_long(which, 1, 1000000, &n))
			die("why: --session %s: N counts from 1 (the last session)", which);
		if ((size_t)n <= names.n)
			pick = names.v[n - 1];
	} else if (wl >= 4 && wl <= 16 && strspn(which, "0123456789abcdef") == wl) {
		for (size_t i = 0; i < names.n; i++)
			if (strncmp(names.v[i] + 21, which, strlen(which)) == 0) {
				if (pick)
					die("why: --session %s: more than one session starts with that id",
					    which);
				pick = names.v[i];
			}
	} else {
		die("why: --session wants N (1: the last session) or a session id (at least its "
		    "first 4 digits), not '%s'", which);
	}
	if (!pick && strcmp(which, "1") != 0)
		die("why: --session %s: no such session among the %zu kept (see 'wicket why --list')",
		    which, names.n);
	if (pick) {
		char *sub = path_join(dir, "sessions");
		int sfd = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		free(*where);
		*where = path_join(sub, pick);
		free(sub);
		if (sfd >= 0) {
			doc = load_record(sfd, pick, *where);
			close(sfd);
		}
	}
	strv_free(&names);
	if (dfd >= 0)
		close(dfd);
	free(dir);
	return doc;
}

static long total_of(json_t *doc)
{
	long total = 0;
	const char *key;
	json_t *val;
	json_object_foreach(json_object_get(doc, "counts"), key, val)
		total += (long)json_integer_value(val);
	return total;
}

/* `wicket why --list`: the sessions kept, newest first. */
static int list_sessions(bool json)
{
	char *dir = wicket_state_dir();
	if (!dir)
		die("why: no home directory to find the sessions' records in");
	struct strv names = {0};
	list_records(dir, &names);
	char *sdir = path_join(dir, "sessions");
	int sfd = open(sdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	json_t *list = json_array();
	if (!json && !names.n)
		printf("No wicket session has ended yet (nothing in %s).\n", sdir);
	for (size_t i = 0; i < names.n && sfd >= 0; i++) {
		char *where = path_join(sdir, names.v[i]);
		json_t *doc = load_record(sfd, names.v[i], where);
		free(where);
		if (!doc)
			continue;
		long total = total_of(doc);
		json_int_t t = json_integer_value(json_object_get(doc, "time"));
		if (json) {
			json_array_append_new(list, json_pack("{s:I, s:s, s:I, s:s, s:s, s:s, s:I}",
				"n", (json_int_t)(i + 1), "session", str(doc, "session"), "time", t,
				"policy", str(doc, "policy"), "workspace", str(doc, "workspace"),
				"command", str(doc, "command"), "denials", (json_int_t)total));
		} else {
			char when[64] = "?";
			struct tm tm;
			time_t tt = (time_t)t;
			if (localtime_r(&tt, &tm))
				strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
			printf("%2zu  %s  %s  %s  %s  %ld denial%s\n", i + 1, str(doc, "session"), when,
			       str(doc, "policy"), str(doc, "command")[0] ? str(doc, "command") : "-",
			       total, total == 1 ? "" : "s");
		}
		json_decref(doc);
	}
	if (json) {
		json_t *o = json_pack("{s:i, s:o}", "v", 1, "sessions", list);
		char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (text)
			puts(text);
		free(text);
		json_decref(o);
	} else {
		json_decref(list);
	}
	if (sfd >= 0)
		close(sfd);
	free(sdir);
	strv_free(&names);
	free(dir);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("why: writing the output: %s", strerror(errno));
	return 0;
}

/* `wicket why --grant PID`: the grant that allows every denial of
 * process PID, the union of each one's (control.c derives them), as the
 * words of wicket ask's options, one a line, for the shells' hooks; 1,
 * and nothing, when one of them has none (or a word is not one line).
 * Known probes are not the command's refusals. */
static int print_grant(json_t *doc, long pid)
{
	struct wk_grant all = {0};
	bool some = false, each = true;
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(doc, "denials"), i, e) {
		if (json_integer_value(json_object_get(e, "pid")) != pid || json_object_get(e, "probe"))
			continue;
		some = true;
		json_t *g = json_object_get(e, "grant");
		struct wk_grant one = {0};
		char *why = NULL;
		if (!g || !wk_grant_from_json(g, NULL, NULL, &one, &why))
			each = false;
		for (int k = 0; k < WK_GRANT_KINDS && each; k++)
			for (size_t j = 0; j < one.v[k].n && each; j++) {
				char *bad = wk_grant_add(&all, (enum wk_grant_kind)k, one.v[k].v[j]);
				each = !bad && !strchr(one.v[k].v[j], '\n');
				free(bad);
			}
		free(why);
		wk_grant_free(&one);
	}
	if (some && each)
		for (int k = 0; k < WK_GRANT_KINDS; k++)
			for (size_t j = 0; j < all.v[k].n; j++)
				printf("--%s\n%s\n", wk_grant_kind_name((enum wk_grant_kind)k), all.v[k].v[j]);
	wk_grant_free(&all);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("why: writing the output: %s", strerror(errno));
	return some && each ? 0 : 1;
}

static void print_human(json_t *doc, long n, bool last)
{
	json_t *list = json_object_get(doc, "denials");
	long total = total_of(doc);
	bool ended = json_is_true(json_object_get(doc, "ended"));
	size_t distinct = json_array_size(list);
	printf("%s session %s (policy %s%s%s)", !ended ? "This" : last ? "The last" : "The",
	       str(doc, "session"),
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
		if (str(e, "probe")[0])
			printf(" [a probe: %s; not shown, not counted]", str(e, "probe"));
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
		{"session", required_argument, NULL, 's'},
		{"list", no_argument, NULL, 'l'},
		{"grant", required_argument, NULL, 'g'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false, want_list = false;
	const char *which = NULL;
	long n = 20, grant_pid = 0;
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
		case 's':
			which = optarg;
			break;
		case 'l':
			want_list = true;
			break;
		case 'g':
			if (!parse_long(optarg, 1, 4194304, &grant_pid))
				die("why: --grant wants a process id, not '%s'", optarg);
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
	if (want_list && which)
		die("why: --list or --session, not both");
	if ((want_list || which) && (ctl >= 0 || getenv("WICKET_SESSION")))
		die("why: %s: the record of past sessions is hidden inside a session (a session "
		    "may neither read nor rewrite it); run it outside", want_list ? "--list" : "--session");
	if (want_list)
		return list_sessions(json);
	if (grant_pid && ctl < 0)
		die("why: --grant: not inside a wicket session (a grant is asked for from one)");
	if (grant_pid) {
		doc = ask_supervisor(ctl, WK_MAX_DENIALS);
		int rc = print_grant(doc, grant_pid);
		json_decref(doc);
		return rc;
	}
	if (ctl >= 0) {
		doc = ask_supervisor(ctl, n);
	} else if (getenv("WICKET_SESSION")) {
		die("why: this is a wicket session, but its control socket is gone (a program closed "
		    "descriptor %s?); run `wicket why` from the session's shell",
		    getenv("WICKET_FD") ? getenv("WICKET_FD") : "WICKET_FD");
	} else {
		doc = read_record(which, &where);
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
		print_human(doc, n, !which);
	}
	json_decref(doc);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("why: writing the output: %s", strerror(errno));
	return 0;
}
