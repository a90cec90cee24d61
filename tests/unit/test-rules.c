/* WICKET_RULES (lib/rules.c): every rule kind written by the launcher's
 * encoder comes back the same from the shim's decoder; what the encoder
 * refuses to write, the decoder refuses to read; the queries the shim
 * asks answer from the decoded rules. */
#include "config.h"
#include "tap.h"
#include "rules.h"

#include <string.h>

static char buf[4096];
static size_t len;

static bool put(char kind, const char *v)
{
	size_t end = rules_put(buf, sizeof buf, len, kind, v);
	if (end == 0 || end >= sizeof buf)
		return false;
	len = end;
	return true;
}

/* The rule at *CUR is KIND V. */
static bool next_is(const char **cur, char kind, const char *v)
{
	char k;
	const char *got;
	size_t n;
	return rules_next(cur, &k, &got, &n) && k == kind && n == strlen(v) &&
	       memcmp(got, v, n) == 0;
}

/* TEXT decodes to no rule at all. */
static bool none_in(const char *text)
{
	const char *cur = text, *v;
	char k;
	size_t n;
	return !rules_next(&cur, &k, &v, &n);
}

static const struct {
	char kind;
	const char *value;
} every[] = {
	{RULE_SUPERVISOR, "1"}, {RULE_READ, "/"}, {RULE_READ, "/usr"},
	{RULE_WRITE, "/work/a b"}, {RULE_WRITE, "/tmp"}, {RULE_PROTECT, "/work/a b/.git"},
	{RULE_HIDE, "/home/u/.ssh"}, {RULE_KEEP, "/tmp/.X11-unix"}, {RULE_NET, "ports"},
	{RULE_CONNECT, "443"},
	{RULE_CONNECT, "1"}, {RULE_BIND, "65535"}, {RULE_UDP, "1"}, {RULE_UNIX, "1"},
};
#define N_EVERY (sizeof every / sizeof every[0])

int main(void)
{
	/* Round trip. */
	bool all = true;
	for (size_t i = 0; i < N_EVERY; i++)
		all = put(every[i].kind, every[i].value) && all;
	ok(all, "every kind is written");
	const char *cur = buf;
	for (size_t i = 0; i < N_EVERY; i++)
		ok(next_is(&cur, every[i].kind, every[i].value), "read back: %c %s", every[i].kind,
		   every[i].value);
	char k;
	const char *v;
	size_t n;
	ok(!rules_next(&cur, &k, &v, &n), "and nothing more");
	for (int m = RULES_NET_NONE; m <= RULES_NET_PORTS; m++) {
		char one[32];
		size_t e = rules_put(one, sizeof one, 0, RULE_NET, rules_net_name(m));
		ok(e > 0 && e < sizeof one && rules_net(one) == m, "net mode %s round trip",
		   rules_net_name(m));
	}

	/* The queries. */
	ok(rules_cover(buf, RULE_WRITE, "/work/a b/src/x.c", NULL, 0), "under a writable root");
	ok(!rules_cover(buf, RULE_WRITE, "/work/a bc", NULL, 0), "a sibling with a longer name is not");
	char root[64];
	ok(rules_cover(buf, RULE_PROTECT, "/work/a b/.git/config", root, sizeof root) &&
	   strcmp(root, "/work/a b/.git") == 0, "the covering rule is named");
	ok(rules_cover(buf, RULE_READ, "/anything", NULL, 0), "\"r /\" covers every path");
	ok(rules_is(buf, RULE_READ, "/") && !rules_is(buf, RULE_READ, "/us"), "exact match");
	ok(rules_port(buf, RULE_CONNECT, 443) && rules_port(buf, RULE_BIND, 65535) &&
	   !rules_port(buf, RULE_CONNECT, 80) && !rules_port(buf, RULE_BIND, 443), "ports by kind");
	ok(rules_net(buf) == RULES_NET_PORTS, "the network mode");
	ok(rules_is(buf, RULE_SUPERVISOR, "1"), "the supervisor reports");
	rules_supervisor_off(buf);
	ok(!rules_is(buf, RULE_SUPERVISOR, "1") && rules_is(buf, RULE_SUPERVISOR, "0") &&
	   strncmp(buf, "s 0\n", 4) == 0, "s 1 turned off in place");
	char later[] = "r /\ns 1\n";
	rules_supervisor_off(later);
	ok(strcmp(later, "r /\ns 1\n") == 0, "only a leading s 1 is edited");

	/* The encoder refuses what would not read back as itself. */
	size_t before = len;
	ok(!put(RULE_WRITE, "/x\nw /"), "a newline in a path: refused (no rule injected)");
	ok(!put(RULE_WRITE, ""), "an empty value: refused");
	ok(!put(RULE_WRITE, "relative"), "a relative path: refused");
	ok(!put(RULE_CONNECT, "0") && !put(RULE_CONNECT, "65536") && !put(RULE_CONNECT, "8o") &&
	   !put(RULE_BIND, "-1") && !put(RULE_BIND, "123456"), "ports out of range or not decimal");
	ok(!put(RULE_NET, "open") && !put(RULE_UDP, "yes") && !put('x', "/a"),
	   "an unknown mode, flag or kind");
	ok(len == before && strlen(buf) == len, "nothing written for any of them");
	char small[8];
	size_t e = rules_put(small, sizeof small, 0, RULE_READ, "/usr/lib");
	ok(e == 11 && e >= sizeof small, "too small: the room it needs, nothing written past it");

	/* The decoder refuses the same lines. */
	ok(none_in("w\n"), "no value");
	ok(none_in("w \n"), "an empty value");
	ok(none_in("w/tmp\n"), "no space");
	ok(none_in("wx /tmp\n"), "a two-letter kind");
	ok(none_in("w tmp\n"), "a relative path");
	ok(none_in("c 0\nc 65536\nc 44x\nb \nb 123456\n"), "bad ports");
	ok(none_in("n open\nu yes\nl 2\nx /a\n"), "unknown modes, flags and kinds");
	ok(!rules_port("c 65536\n", RULE_CONNECT, 0) && !rules_port("c 70000\n", RULE_CONNECT, 4464),
	   "an out-of-range port matches no port");
	const char *mixed = "garbage\nw /ok\n\nw\nh /h";
	cur = mixed;
	ok(next_is(&cur, RULE_WRITE, "/ok") && next_is(&cur, RULE_HIDE, "/h") &&
	   !rules_next(&cur, &k, &v, &n), "good lines among bad ones, and a last one without newline");
	ok(rules_net("") == RULES_NET_UNKNOWN && !rules_cover(NULL, RULE_READ, "/", NULL, 0),
	   "no rules: nothing allowed, the mode unknown");
	/* The edges, each pinned (tests/mutate). */
	ok(!rules_net_name(RULES_NET_UNKNOWN) && !rules_net_name(RULES_NET_PORTS + 1) &&
	   !rules_net_name(-7) && !rules_net_name(1000), "no name for a mode that is none of them");
	char edge[64];
	ok(rules_put(edge, sizeof edge, 0, RULE_CONNECT, "8090") && rules_put(edge, sizeof edge, 0,
	   RULE_BIND, "9") && rules_put(edge, sizeof edge, 0, RULE_CONNECT, "65535"),
	   "ports with a 0, a 9, and the last one");
	ok(!rules_put(edge, sizeof edge, 0, RULE_CONNECT, "000080") &&
	   !rules_put(edge, sizeof edge, 0, RULE_CONNECT, "/80") &&
	   !rules_put(edge, sizeof edge, 0, RULE_CONNECT, ":80"), "six digits, or a character next to the digits: no port");
	/* "c 80\n" is 5 bytes: a buffer of 5 has no room for the NUL. */
	char exact[8];
	memset(exact, 'Z', sizeof exact);
	ok(rules_put(exact, 5, 0, RULE_CONNECT, "80") == 5 && exact[0] == 'Z' && exact[5] == 'Z',
	   "a buffer one byte short is left alone");
	ok(rules_put(exact, 6, 0, RULE_CONNECT, "80") == 5 && memcmp(exact, "c 80\n", 6) == 0 &&
	   exact[6] == 'Z', "a buffer just large enough");
	char small_root[12];
	memset(small_root, 'Z', sizeof small_root);
	ok(rules_cover("w /work/abc\n", RULE_WRITE, "/work/abc/x", small_root, 9) &&
	   small_root[0] == 'Z' && small_root[9] == 'Z', "a root with no room for its NUL: not copied");
	ok(rules_cover("w /work/abc\n", RULE_WRITE, "/work/abc/x", small_root, 10) &&
	   strcmp(small_root, "/work/abc") == 0 && small_root[10] == 'Z', "one with just the room");
	char sup[16];
	strcpy(sup, "x 1\nw /a\n");
	rules_supervisor_off(sup);
	ok(strcmp(sup, "x 1\nw /a\n") == 0, "another kind's 1 is not the supervisor's");
	strcpy(sup, "s 12\n");
	rules_supervisor_off(sup);
	strcpy(edge, "s-1\n");
	rules_supervisor_off(edge);
	ok(strcmp(sup, "s 12\n") == 0 && strcmp(edge, "s-1\n") == 0, "nor a longer value or another separator");
	strcpy(sup, "s 1x");
	rules_supervisor_off(sup);
	ok(strcmp(sup, "s 1x") == 0, "nor a value that goes on");
	return done_testing();
}
