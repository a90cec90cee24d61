/* Grants (lib/grant.c): the canonical form of each item, what is refused,
 * and coverage, the one decision a rule or an approver's answer makes. */
#include "config.h"
#include "tap.h"
#include "grant.h"
#include "sha256.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* ITEM of kind K, canonical: WANT, or refused when WANT is NULL. */
static void canon(enum wk_grant_kind k, const char *item, const char *want)
{
	struct wk_grant g = {0};
	char *why = wk_grant_add(&g, k, item);
	if (want)
		is_str(why ? why : g.v[k].v[0], want, "--%s %s is %s", wk_grant_kind_name(k), item,
		       want);
	else
		ok(why != NULL && g.v[k].n == 0, "--%s %s is refused (%s)", wk_grant_kind_name(k),
		   item, why ? why : "accepted");
	free(why);
	wk_grant_free(&g);
}

/* A policy's expansion: "$X" is "/x", "$BAD" has no value. */
static char *expand(void *ctx, const char *in, char **why)
{
	(void)ctx;
	if (strcmp(in, "$BAD") == 0) {
		*why = strdup("$BAD has no value");
		return NULL;
	}
	return strdup(strcmp(in, "$X") == 0 ? "/x" : in);
}

/* The grant of "KIND ITEM" pairs, NULL-terminated. */
static struct wk_grant grant_of(const char *const *pairs)
{
	struct wk_grant g = {0};
	for (size_t i = 0; pairs[i]; i += 2) {
		char *why = wk_grant_add(&g, (enum wk_grant_kind)wk_grant_kind_of(pairs[i]),
					 pairs[i + 1]);
		if (why) {
			printf("# bad test grant: %s\n", why);
			abort();
		}
	}
	return g;
}

/* GIVEN covers ASKED: WANT NULL; else the first item it does not, WANT. */
static void covers(const char *const *given, const char *const *asked, const char *want,
		   const char *what)
{
	struct wk_grant g = grant_of(given), a = grant_of(asked);
	char *more = wk_grant_covers(&g, &a);
	is_str(more, want, "%s", what);
	free(more);
	wk_grant_free(&g);
	wk_grant_free(&a);
}

#define G(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NONE ((const char *const[]){NULL})

int main(void)
{
	/* Paths: absolute, normalised lexically; "/" is no write grant. */
	canon(WK_GRANT_WRITE, "/a/./b//c/", "/a/b/c");
	canon(WK_GRANT_WRITE, "/a/b/../c", "/a/c");
	canon(WK_GRANT_WRITE, "rel/x", NULL);
	canon(WK_GRANT_WRITE, "/", NULL);
	canon(WK_GRANT_SOCKET, "/", NULL);
	canon(WK_GRANT_READ, "/", "/");
	canon(WK_GRANT_SOCKET, "/run/user/1/ssh.sock", "/run/user/1/ssh.sock");
	/* Hosts: lower case, no trailing dot; ports 1 to 65535; addresses
	 * in inet_ntop's form, IPv6 in brackets. */
	canon(WK_GRANT_NET, "GitHub.COM.", "github.com");
	canon(WK_GRANT_NET, "a.read6..:443", NULL);
	canon(WK_GRANT_NET, "a.org..", NULL);
	canon(WK_GRANT_NET, "github.com:443", "github.com:443");
	canon(WK_GRANT_NET, "*.example.org:80", "*.example.org:80");
	canon(WK_GRANT_NET, "127.0.0.1:8080", "127.0.0.1:8080");
	canon(WK_GRANT_NET, "::1", "[::1]");
	canon(WK_GRANT_NET, "[0:0::1]:22", "[::1]:22");
	canon(WK_GRANT_NET, "[::1]", "[::1]");
	canon(WK_GRANT_NET, "host:0", NULL);
	canon(WK_GRANT_NET, "host:65536", NULL);
	canon(WK_GRANT_NET, "host:08", NULL);
	canon(WK_GRANT_NET, "host:", NULL);
	canon(WK_GRANT_NET, ":80", NULL);
	canon(WK_GRANT_NET, "[::1]x", NULL);
	canon(WK_GRANT_NET, "[nothost]:80", NULL);
	canon(WK_GRANT_NET, "a b", NULL);
	canon(WK_GRANT_NET, "*", NULL);
	canon(WK_GRANT_NET, "127.1", NULL);
	canon(WK_GRANT_NET, "h:65535", "h:65535");
	canon(WK_GRANT_NET, "h:9", "h:9");
	canon(WK_GRANT_NET, "h:1a", NULL);
	canon(WK_GRANT_NET, "h:/1", NULL);
	canon(WK_GRANT_NET, "h:123456", NULL);
	canon(WK_GRANT_NET, "h:00", NULL);
	canon(WK_GRANT_NET, "A.Z.org", "a.z.org");
	canon(WK_GRANT_NET, "[::1]:443", "[::1]:443");
	canon(WK_GRANT_NET, "[::1]:", NULL);
	canon(WK_GRANT_NET, "[::1]:x", NULL);
	/* Variables: a name, not an assignment. */
	canon(WK_GRANT_ENV, "AZaz09_", "AZaz09_");
	canon(WK_GRANT_ENV, "_", "_");
	canon(WK_GRANT_ENV, "9A", NULL);
	canon(WK_GRANT_ENV, "0A", NULL);
	for (const char *c = "@[`{/:-"; *c; c++) {
		char name[4] = {'A', *c, 0};
		canon(WK_GRANT_ENV, name, NULL);
	}
	canon(WK_GRANT_ENV, "GITHUB_TOKEN", "GITHUB_TOKEN");
	canon(WK_GRANT_ENV, "A=b", NULL);
	canon(WK_GRANT_ENV, "1A", NULL);
	canon(WK_GRANT_ENV, "", NULL);

	is_str(wk_grant_kind_name(WK_GRANT_KINDS), "?", "no kind past the last");
	struct wk_grant none = {0};
	char *w = wk_grant_add(&none, WK_GRANT_KINDS, "x");
	ok(w && wk_grant_empty(&none), "no item of a kind past the last");
	free(w);
	char longp[PATH_MAX + 1];
	memset(longp, 'a', PATH_MAX);
	longp[0] = '/';
	longp[PATH_MAX] = '\0';
	w = wk_grant_add(&none, WK_GRANT_WRITE, longp);
	ok(w && wk_grant_empty(&none), "a path of PATH_MAX bytes is refused");
	free(w);
	longp[PATH_MAX - 1] = '\0';
	w = wk_grant_add(&none, WK_GRANT_WRITE, longp);
	ok(!w && !wk_grant_empty(&none), "one of PATH_MAX - 1 is not");
	free(w);
	wk_grant_free(&none);
	is_str(wk_grant_kind_name(WK_GRANT_ENV), "env", "the last kind's name");
	ok(wk_grant_kind_of("socket") == WK_GRANT_SOCKET && wk_grant_kind_of("run") < 0,
	   "kinds by name");

	/* Each item once; at most GRANT_ITEMS_MAX of a kind. */
	struct wk_grant g = {0};
	free(wk_grant_add(&g, WK_GRANT_WRITE, "/a"));
	free(wk_grant_add(&g, WK_GRANT_WRITE, "/a/"));
	ok(g.v[WK_GRANT_WRITE].n == 1, "a duplicate is dropped");
	ok(!wk_grant_empty(&g), "a grant with a write is not empty");
	struct wk_grant e = {0};
	free(wk_grant_add(&e, WK_GRANT_ENV, "E"));
	ok(!wk_grant_empty(&e), "nor one with only a variable");
	wk_grant_free(&e);
	char *why = NULL;
	for (int i = 0; i < GRANT_ITEMS_MAX + 1 && !why; i++) {
		char p[32];
		snprintf(p, sizeof p, "/p%d", i);
		why = wk_grant_add(&g, WK_GRANT_WRITE, p);
	}
	ok(why != NULL && g.v[WK_GRANT_WRITE].n == GRANT_ITEMS_MAX, "at most %d items of a kind",
	   GRANT_ITEMS_MAX);
	free(why);
	wk_grant_free(&g);
	ok(wk_grant_empty(&g), "freed, it is empty");

	/* Coverage. */
	covers(NONE, NONE, NULL, "nothing covers nothing");
	covers(NONE, G("write", "/w"), "--write /w", "nothing covers no write");
	covers(G("write", "/w"), G("write", "/w"), NULL, "a path covers itself");
	covers(G("write", "/w"), G("write", "/w/x/y"), NULL, "a path covers what is beneath");
	covers(G("write", "/w/x"), G("write", "/w"), "--write /w", "not what is above");
	covers(G("write", "/w"), G("write", "/wx"), "--write /wx", "not a sibling with its prefix");
	covers(G("write", "/w"), G("read", "/w/r"), NULL, "a write covers a read");
	covers(G("read", "/w"), G("write", "/w"), "--write /w", "a read covers no write");
	covers(G("read", "/w"), G("socket", "/w/s"), "--socket /w/s", "a read covers no socket");
	covers(G("socket", "/s"), G("socket", "/s/x"), "--socket /s/x", "a socket is itself only");
	covers(G("env", "A"), G("env", "AB"), "--env AB", "a variable is itself only");
	covers(G("env", "A", "env", "B"), G("env", "B"), NULL, "one of several variables");
	covers(G("net", "github.com"), G("net", "github.com:443"), NULL, "any port covers one");
	covers(G("net", "github.com:443"), G("net", "github.com"), "--net github.com",
	       "one port covers no other");
	covers(G("net", "github.com:443"), G("net", "github.com:22"), "--net github.com:22",
	       "one port covers no other port");
	covers(G("net", "*.github.com"), G("net", "api.github.com"), NULL, "a pattern covers a name");
	covers(G("net", "*.github.com"), G("net", "github.com"), "--net github.com",
	       "a pattern does not cover its base");
	covers(G("net", "*.github.com"), G("net", "*.api.github.com"), NULL,
	       "a pattern covers a narrower one");
	covers(G("net", "*.api.github.com"), G("net", "*.github.com"), "--net '*.github.com'",
	       "not a wider one");
	covers(G("net", "github.com"), G("net", "*.github.com"), "--net '*.github.com'",
	       "a name covers no pattern");
	covers(G("net", "127.0.0.1"), G("net", "127.0.0.1:80"), NULL, "an address on any port");
	covers(G("net", "127.0.0.1"), G("net", "127.0.0.2"), "--net 127.0.0.2", "another address");
	covers(G("net", "localhost"), G("net", "127.0.0.1"), "--net 127.0.0.1",
	       "a name never covers an address");
	covers(G("write", "/w", "net", "a.org"), G("write", "/w/x", "net", "b.org"), "--net b.org",
	       "every item must be covered");

	char host[WK_GRANT_HOST_MAX];
	int port;
	bool addr;
	wk_grant_net_split("[::1]:22", host, &port, &addr);
	ok(strcmp(host, "::1") == 0 && port == 22 && addr, "split: [::1]:22");
	wk_grant_net_split("[::1]", host, &port, &addr);
	ok(strcmp(host, "::1") == 0 && port == 0 && addr, "split: [::1]");
	wk_grant_net_split("10.0.0.1:80", host, &port, &addr);
	ok(strcmp(host, "10.0.0.1") == 0 && port == 80 && addr, "split: 10.0.0.1:80");
	wk_grant_net_split("a.org", host, &port, &addr);
	ok(strcmp(host, "a.org") == 0 && port == 0 && !addr, "split: a.org");
	covers(G("read", "/r"), G("read", "/r/x"), NULL, "a read covers what is beneath");
	covers(G("write", "/w"), G("socket", "/w/s"), "--socket /w/s", "a write covers no socket");
	covers(G("write", "/a"), G("read", "/b"), "--read /b", "a write covers no other read");
	covers(G("net", "*.b.org"), G("net", "xy.b.org"), NULL, "a pattern covers a name below it");
	covers(G("write", "/a", "write", "/w"), G("read", "/w/x"), NULL, "the second write covers");
	covers(G("read", "/a", "write", "/w"), G("read", "/w/x"), NULL,
	       "a write covers a read, a read given too");

	/* Port limits (the proxy's check). */
	char *lim[] = {"a.org:443", "a.org:80", "[::1]:22", NULL};
	ok(wk_grant_port_ok(lim, 3, "a.org", 443) && wk_grant_port_ok(lim, 3, "a.org", 80),
	   "a limited host on its ports");
	ok(!wk_grant_port_ok(lim, 3, "a.org", 8080), "not on another");
	ok(wk_grant_port_ok(lim, 3, "b.org", 8080), "an unlimited host on any port");
	ok(wk_grant_port_ok(lim, 3, "::1", 22) && !wk_grant_port_ok(lim, 3, "::1", 23),
	   "an IPv6 address's limit");

	/* JSON: both ways; unknown kinds and bad items refused. */
	json_error_t je;
	json_t *o = json_loads("{\"write\":[\"/a\"],\"net\":[\"x.org:1\"],\"env\":[\"E\"]}", 0, &je);
	struct wk_grant j = {0};
	ok(wk_grant_from_json(o, NULL, NULL, &j, &why) && !why, "a grant from JSON");
	char *t = wk_grant_text(&j);
	is_str(t, "--write /a --net x.org:1 --env E", "its text");
	free(t);
	json_t *back = wk_grant_to_json(&j);
	ok(json_equal(o, back), "and back to the same JSON");
	json_decref(back);
	json_decref(o);
	wk_grant_free(&j);
	o = json_loads("{\"env\":[\"A\",\"B\"],\"socket\":[\"/s\"]}", 0, &je);
	ok(wk_grant_from_json(o, NULL, NULL, &j, &why), "several items of a kind");
	back = wk_grant_to_json(&j);
	ok(json_equal(o, back), "all of them back");
	json_decref(back);
	json_decref(o);
	wk_grant_free(&j);
	o = json_loads("{\"write\":[\"$X\"]}", 0, &je);
	ok(wk_grant_from_json(o, expand, NULL, &j, &why) && strcmp(j.v[0].v[0], "/x") == 0,
	   "expanded before it is checked");
	json_decref(o);
	wk_grant_free(&j);
	o = json_loads("{\"write\":[\"$BAD\"]}", 0, &je);
	ok(!wk_grant_from_json(o, expand, NULL, &j, &why) && why && strstr(why, "no value"),
	   "an expansion's refusal is the grant's");
	free(why);
	json_decref(o);
	wk_grant_free(&j);
	json_t *many = json_array();
	for (int i = 0; i < GRANT_ITEMS_MAX; i++) {
		char n[16];
		snprintf(n, sizeof n, "E%d", i);
		json_array_append_new(many, json_string(n));
	}
	o = json_pack("{s:o}", "env", many);
	ok(wk_grant_from_json(o, NULL, NULL, &j, &why) && j.v[WK_GRANT_ENV].n == GRANT_ITEMS_MAX,
	   "%d items of a kind in JSON", GRANT_ITEMS_MAX);
	json_array_append_new(many, json_string("E"));
	wk_grant_free(&j);
	ok(!wk_grant_from_json(o, NULL, NULL, &j, &why), "not one more");
	free(why);
	json_decref(o);
	wk_grant_free(&j);
	static const char *const bad[] = {
		"[]", "{\"run\":[\"/x\"]}", "{\"write\":\"/x\"}", "{\"write\":[1]}",
		"{\"write\":[\"\"]}", "{\"write\":[\"x\"]}", "{\"net\":[\"a b\"]}", "{\"env\":[\"A\\u0000\"]}", NULL};
	for (size_t i = 0; bad[i]; i++) {
		o = json_loads(bad[i], JSON_ALLOW_NUL, &je);
		bool r = wk_grant_from_json(o, NULL, NULL, &j, &why);
		ok(!r && why, "refused: %s (%s)", bad[i], why ? why : "accepted");
		free(why);
		wk_grant_free(&j);
		json_decref(o);
	}
	/* The audit's digest (lib/sha256.c): FIPS 180-4's vectors, and the
	 * lengths where the padding takes a second block. */
	char hex[65];
	wk_sha256_hex("abc", 3, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256 abc");
	wk_sha256_hex("", 0, hex);
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256 ''");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	wk_sha256_hex(two, strlen(two), hex);
	is_str(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	       "sha256 of 56 bytes (two blocks of padding)");
	char a1000[1000];
	memset(a1000, 'a', sizeof a1000);
	wk_sha256_hex(a1000, 64, hex);
	is_str(hex, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
	       "sha256 of 64 bytes");
	wk_sha256_hex(a1000, 55, hex);
	is_str(hex, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
	       "sha256 of 55 bytes");
	return done_testing();
}
