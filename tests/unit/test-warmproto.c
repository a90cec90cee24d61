/* Warm sessions' protocol (lib/warmproto.c): every field's bounds, every
 * verb's fields, and what the encoder refuses to make. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "warmproto.h"

/* BUF of LEN bytes (NULs inside) decodes. */
static bool dec(const char *buf, size_t len, struct warm_msg *m)
{
	const char *err = NULL;
	bool r = warm_decode(buf, len, m, &err);
	if (!r && !err)
		return true; /* a refusal must say why: fail the caller's check */
	return r;
}

static bool takes(const char *buf, size_t len)
{
	struct warm_msg m;
	bool r = dec(buf, len, &m);
	if (r)
		warm_msg_free(&m);
	return r;
}
#define T(lit) takes(lit, sizeof(lit) - 1)

static char *rep(char c, size_t n)
{
	char *s = malloc(n + 1);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* "VERB\0" KEY VALUE "\0" */
static bool one_field(const char *verb, char key, const char *val)
{
	size_t vl = strlen(verb), l = strlen(val);
	char *b = malloc(vl + l + 3);
	memcpy(b, verb, vl + 1);
	b[vl + 1] = key;
	memcpy(b + vl + 2, val, l + 1);
	bool r = takes(b, vl + l + 3);
	free(b);
	return r;
}

int main(void)
{
	struct warm_msg m;
	const char *err;

	/* --- the frame */
	ok(!warm_decode("", 0, &m, &err) && err, "empty refused");
	ok(!T("ready"), "no final NUL refused");
	ok(T("ready\0"), "ready");
	ok(!T("readyx\0"), "unknown verb refused");
	ok(!T("\0"), "empty verb refused");
	ok(!T("ready\0\0"), "an empty field refused");
	ok(!T("ready\0i1\0"), "ready takes no field");
	{
		char *b = rep('x', WARM_MSG_MAX + 1);
		memcpy(b, "exec\0fnnn\0a", 11);
		b[WARM_MSG_MAX] = '\0';
		ok(!takes(b, WARM_MSG_MAX + 1), "one byte past the maximum refused");
		b[WARM_MSG_MAX - 1] = '\0';
		ok(takes(b, WARM_MSG_MAX), "the maximum taken");
		free(b);
	}

	/* --- numbers */
	ok(one_field("started", 'i', "1"), "id 1");
	ok(!one_field("started", 'i', "0"), "id 0 refused");
	ok(!T("exec\0i0\0fnnn\0atrue\0"), "id 0 of exec refused");
	ok(!one_field("started", 'i', ""), "empty id refused");
	ok(!one_field("started", 'i', "01"), "leading zero refused");
	ok(!one_field("started", 'i', "-1"), "sign refused");
	ok(!one_field("started", 'i', "1/"), "'/' refused");
	ok(!one_field("started", 'i', "1:"), "':' refused");
	ok(one_field("started", 'i', "9007199254740991"), "id 2^53-1");
	ok(!one_field("started", 'i', "9007199254740992"), "id 2^53 refused");
	ok(!one_field("started", 'i', "99999999999999999999999"), "overflow refused");
	ok(one_field("exit", 'x', "0"), "status 0");
	ok(one_field("exit", 'x', "255"), "status 255");
	ok(!one_field("exit", 'x', "256"), "status 256 refused");
	ok(!one_field("exit", 'x', "00"), "status 00 refused");
	ok(!one_field("exit", 'x', "5a"), "status 5a refused");
	ok(!one_field("exit", 'x', "0a"), "status 0a refused");
	ok(one_field("signal", 's', "1"), "signal 1");
	ok(one_field("signal", 's', "64"), "signal 64");
	ok(!one_field("signal", 's', "65"), "signal 65 refused");
	ok(!one_field("signal", 's', "0"), "signal 0 refused");
	ok(dec("exit\0x9\0", 8, &m) && m.status == 9 && m.id == 0, "status read, no id");
	ok(dec("exit\0i12\0x0\0", 12, &m) && m.status == 0 && m.id == 12, "status 0 and id 12");
	ok(dec("signal\0i3\0s15\0", 14, &m) && m.sig == 15 && m.id == 3, "signal 15 of 3");
	ok(dec("stop\0", 5, &m) && m.status == -1 && m.sig == 0 && !m.fds && !m.cwd && !m.argv,
	   "nothing given: nothing set");

	/* --- which verb takes which field */
	const char *verbs[] = {"exec", "stop", "signal", "ready", "started", "exit", "error"};
	const char *allowed[] = {"icfae", "f", "is", "", "i", "ix", "mx"};
	for (size_t v = 0; v < 7; v++)
		for (const char *k = "abcefijmsxz"; *k; k++) {
			/* Each field with a value it takes, and what the verb needs. */
			char b[128];
			size_t n = 0;
			n += (size_t)sprintf(b + n, "%s", verbs[v]) + 1;
			const char *val = *k == 'c' ? "/" : *k == 'f' ? "nnn" : *k == 'm' ? "m" : *k == 'a' ? "t" : "1";
			n += (size_t)sprintf(b + n, "%c%s", *k, val) + 1;
			const char *need[] = {"fnnn\0at", "", "s1", "", "i1", "x1", "mm"};
			const char *needk = "fxsxixm";
			if (need[v][0] && *k != needk[v] && !(v == 0 && (*k == 'f' || *k == 'a'))) {
				size_t nl = v == 0 ? 8 : strlen(need[v]) + 1;
				memcpy(b + n, need[v], nl);
				n += nl;
			}
			if (v == 0 && *k == 'f') {
				memcpy(b + n, "at", 3);
				n += 3;
			}
			if (v == 0 && *k == 'a') {
				memcpy(b + n, "fnnn", 5);
				n += 5;
			}
			bool want = strchr(allowed[v], *k) != NULL;
			ok(takes(b, n) == want, "%s %s '%c'", verbs[v], want ? "takes" : "refuses", *k);
		}

	/* --- what each verb needs */
	ok(!T("exec\0fnnn\0"), "exec without a command refused");
	ok(!T("exec\0atrue\0"), "exec without fds refused");
	ok(T("exec\0fnnn\0atrue\0"), "exec");
	ok(!T("exec\0fnnn\0a\0"), "an empty command name refused");
	ok(T("exec\0fnnn\0atrue\0a\0"), "an empty argument taken");
	ok(!T("signal\0i1\0"), "signal without its number refused");
	ok(!T("started\0"), "started without an id refused");
	ok(!T("exit\0i1\0"), "exit without a status refused");
	ok(!T("error\0x1\0"), "error without a message refused");
	ok(T("error\0mno\0"), "error");
	ok(!T("exec\0fnnn\0fnnn\0atrue\0"), "a field twice refused");
	ok(!T("exec\0i1\0i1\0fnnn\0atrue\0"), "id twice refused");
	ok(!T("exit\0x1\0x1\0"), "status twice refused");

	/* --- a line of an exec's event stream; an exec that takes them */
	ok(dec("event\0i4\0j{\"a\":1}\0", 18, &m) && m.verb == WARM_EVENT && m.id == 4 &&
	   strcmp(m.json, "{\"a\":1}") == 0, "event");
	ok(!T("event\0j{}\0"), "event without an exec refused");
	ok(!T("event\0i1\0"), "event without a line refused");
	ok(!T("event\0i1\0j\0"), "an empty line refused");
	ok(!T("event\0i1\0j{}\n{}\0"), "two lines refused");
	ok(!T("event\0i1\0j{}\0x1\0") && !T("event\0i1\0j{}\0mm\0") &&
	   !T("event\0i1\0j{}\0atrue\0"), "event takes i and j only");
	ok(!T("event\0i1\0j{}\0j{}\0"), "a line twice refused");
	ok(dec("exec\0e1\0fnnn\0atrue\0", 19, &m) && m.events, "exec that takes its events");
	warm_msg_free(&m);
	ok(dec("exec\0fnnn\0atrue\0", 16, &m) && !m.events, "exec that does not");
	warm_msg_free(&m);
	ok(!T("exec\0e0\0fnnn\0atrue\0") && !T("exec\0e\0fnnn\0atrue\0") &&
	   !T("exec\0e11\0fnnn\0atrue\0"), "e other than 1 refused");
	ok(!T("exit\0e1\0x0\0") && !T("exit\0jx\0x0\0"), "exit takes neither e nor j");

	/* --- fds, cwd, text */
	ok(T("exec\0fppp\0atrue\0"), "ppp");
	ok(T("exec\0fpnp\0atrue\0"), "pnp");
	ok(!T("exec\0fpp\0atrue\0"), "two refused");
	ok(!T("exec\0fpppp\0atrue\0"), "four refused");
	ok(!T("exec\0fppo\0atrue\0"), "o refused");
	ok(!T("exec\0foppq\0atrue\0"), "a letter refused");
	ok(!T("exec\0fqpp\0atrue\0"), "q first refused");
	ok(!T("exec\0fpqp\0atrue\0"), "q second refused");
	ok(!T("exec\0fmpp\0atrue\0"), "m first refused");
	ok(dec("exec\0fnpn\0c/tmp\0als\0a-l\0", 24, &m) && m.argc == 2 &&
	   strcmp(m.argv[0], "ls") == 0 && strcmp(m.argv[1], "-l") == 0 && !m.argv[2] &&
	   strcmp(m.cwd, "/tmp") == 0 && strcmp(m.fds, "npn") == 0, "exec read whole");
	warm_msg_free(&m);
	ok(!T("exec\0fnnn\0ctmp\0atrue\0"), "a relative cwd refused");
	ok(!T("exec\0fnnn\0c\0atrue\0"), "an empty cwd refused");
	{
		char *d = rep('d', WARM_TEXT_MAX - 1);
		d[0] = '/';
		ok(one_field("error", 'm', d), "the longest message");
		char *b = malloc(WARM_TEXT_MAX + 32);
		size_t n = (size_t)sprintf(b, "exec") + 1;
		n += (size_t)sprintf(b + n, "c%s", d) + 1;
		memcpy(b + n, "fnnn\0at", 8);
		ok(takes(b, n + 8), "the longest cwd");
		free(d);
		d = rep('d', WARM_TEXT_MAX);
		d[0] = '/';
		ok(!one_field("error", 'm', d), "a message too long refused");
		n = (size_t)sprintf(b, "exec") + 1;
		n += (size_t)sprintf(b + n, "c%s", d) + 1;
		memcpy(b + n, "fnnn\0at", 8);
		ok(!takes(b, n + 8), "a cwd too long refused");
		free(d);
		free(b);
	}
	{
		/* WARM_ARGC_MAX arguments, and one more. */
		size_t cap = 16 + 3 * (WARM_ARGC_MAX + 1);
		char *b = malloc(cap);
		size_t n = (size_t)sprintf(b, "exec") + 1;
		memcpy(b + n, "fnnn", 5);
		n += 5;
		for (size_t i = 0; i < WARM_ARGC_MAX; i++) {
			memcpy(b + n, "ax", 3);
			n += 3;
		}
		ok(dec(b, n, &m) && m.argc == WARM_ARGC_MAX && m.argv[WARM_ARGC_MAX] == NULL,
		   "the most arguments");
		warm_msg_free(&m);
		memcpy(b + n, "ax", 3);
		ok(!takes(b, n + 3), "one argument more refused");
		free(b);
	}

	/* --- the encoder */
	const char *argv[] = {"sh", "-c", "exit 3", NULL};
	struct warm_msg e = {.verb = WARM_EXEC, .id = 7, .cwd = "/w", .fds = "pnp", .status = -1,
			     .argv = argv, .argc = 3};
	size_t len;
	char *b = warm_encode(&e, &len);
	ok(b && dec(b, len, &m) && m.verb == WARM_EXEC && m.id == 7 && strcmp(m.cwd, "/w") == 0 &&
	   strcmp(m.fds, "pnp") == 0 && m.argc == 3 && strcmp(m.argv[2], "exit 3") == 0 &&
	   m.status == -1, "exec encoded and read back");
	warm_msg_free(&m);
	free(b);
	struct warm_msg x = {.verb = WARM_EXIT, .id = 9, .status = 0};
	b = warm_encode(&x, &len);
	ok(b && len == sizeof "exit\0i9\0x0" && memcmp(b, "exit\0i9\0x0", len) == 0, "exit 0 encoded");
	free(b);
	struct warm_msg sg = {.verb = WARM_SIGNAL, .sig = 2, .status = -1};
	b = warm_encode(&sg, &len);
	ok(b && len == sizeof "signal\0s2" && memcmp(b, "signal\0s2", len) == 0, "signal encoded");
	free(b);
	struct warm_msg er = {.verb = WARM_ERROR, .text = "no", .status = 125};
	b = warm_encode(&er, &len);
	ok(b && len == sizeof "error\0mno\0x125" && memcmp(b, "error\0mno\0x125", len) == 0,
	   "error encoded");
	free(b);
	struct warm_msg ev = {.verb = WARM_EVENT, .id = 3, .json = "{}", .status = -1};
	b = warm_encode(&ev, &len);
	ok(b && len == sizeof "event\0i3\0j{}" && memcmp(b, "event\0i3\0j{}", len) == 0,
	   "event encoded");
	free(b);
	struct warm_msg evbad = {.verb = WARM_EVENT, .id = 3, .json = "{}\n{}", .status = -1};
	ok(!warm_encode(&evbad, &len), "an event of two lines: nothing");
	const char *tv[] = {"true", NULL};
	struct warm_msg ex = {.verb = WARM_EXEC, .fds = "nnn", .events = true, .status = -1,
			      .argv = tv, .argc = 1};
	b = warm_encode(&ex, &len);
	ok(b && len == sizeof "exec\0fnnn\0e1\0atrue" &&
	   memcmp(b, "exec\0fnnn\0e1\0atrue", len) == 0, "exec with its events encoded");
	free(b);
	struct warm_msg rd = {.verb = WARM_READY, .status = -1};
	b = warm_encode(&rd, &len);
	ok(b && len == sizeof "ready" && memcmp(b, "ready", len) == 0, "ready encoded");
	free(b);
	struct warm_msg none = {.verb = WARM_NONE, .status = -1};
	ok(!warm_encode(&none, &len), "no verb: nothing");
	struct warm_msg bad = {.verb = WARM_EXEC, .fds = "nnn", .status = -1};
	ok(!warm_encode(&bad, &len), "exec without a command: nothing");
	struct warm_msg badx = {.verb = WARM_EXIT, .status = 300};
	ok(!warm_encode(&badx, &len), "status 300: nothing");
	{
		char *big = rep('y', WARM_MSG_MAX);
		const char *bv[] = {big, NULL};
		struct warm_msg l = {.verb = WARM_EXEC, .fds = "nnn", .status = -1, .argv = bv, .argc = 1};
		ok(!warm_encode(&l, &len), "too large: nothing");
		const char *bv2[] = {"true", big, NULL};
		struct warm_msg l2 = {.verb = WARM_EXEC, .fds = "nnn", .status = -1, .argv = bv2,
				      .argc = 2};
		ok(!warm_encode(&l2, &len), "too large in its second argument: nothing");
		big[WARM_MSG_MAX - 16] = '\0';
		b = warm_encode(&l, &len);
		ok(b && len == 5 + 5 + 1 + (WARM_MSG_MAX - 16) + 1, "large, within the maximum");
		free(b);
		big[WARM_MSG_MAX - 16] = 'y';
		big[WARM_MSG_MAX - 12] = '\0';
		b = warm_encode(&l, &len);
		ok(b && len == WARM_MSG_MAX, "exactly the maximum");
		free(b);
		big[WARM_MSG_MAX - 12] = 'y';
		big[WARM_MSG_MAX - 11] = '\0';
		ok(!warm_encode(&l, &len), "one past the maximum: nothing");
		free(big);
	}

	/* --- names */
	ok(warm_name_ok("a"), "a");
	ok(warm_name_ok("aZ09._-z"), "letters, digits, . _ -");
	ok(!warm_name_ok(""), "empty refused");
	ok(!warm_name_ok(".a"), "leading . refused");
	ok(!warm_name_ok("-a"), "leading - refused");
	ok(warm_name_ok("a.") && warm_name_ok("a-"), ". and - later");
	ok(!warm_name_ok("a/b") && !warm_name_ok("a b") && !warm_name_ok("a:b") &&
	   !warm_name_ok("a@b") && !warm_name_ok("a[b") && !warm_name_ok("a`b") &&
	   !warm_name_ok("a{b"), "others refused");
	ok(warm_name_ok("A") && warm_name_ok("Z") && warm_name_ok("0") && warm_name_ok("9") &&
	   warm_name_ok("z"), "range ends");
	char *n64 = rep('n', WARM_NAME_MAX), *n65 = rep('n', WARM_NAME_MAX + 1);
	ok(warm_name_ok(n64), "64 taken");
	ok(!warm_name_ok(n65), "65 refused");
	free(n64);
	free(n65);
	return done_testing();
}
