/* The denial packet (lib/denialpkt.c, lib/denialpkt-json.c): what the
 * shim encodes, the supervisor decodes to the same fields, or to the
 * sanitised text the encoder promises; what the decoder refuses. */
#include "config.h"
#include "tap.h"
#include "denialpkt.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char buf[WK_DENIAL_MAX];

/* D encoded, parsed and decoded into OUT; the parsed object in *DOC (to
 * be freed). False at any step. */
static bool round_trip(const struct wk_denial_pkt *d, struct wk_denial_pkt *out, json_t **doc)
{
	size_t n = wk_denial_encode(buf, sizeof buf, d);
	*doc = n ? json_loadb(buf, n, JSON_REJECT_DUPLICATES, NULL) : NULL;
	return *doc && wk_denial_decode(*doc, out);
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* D comes back with OBJECT (and the rest as it was). */
static void trip(const struct wk_denial_pkt *d, const char *object, const char *name)
{
	struct wk_denial_pkt got;
	json_t *doc;
	bool r = round_trip(d, &got, &doc);
	ok(r && same(got.kind, d->kind) && same(got.object, object) && same(got.what, d->what) &&
	   same(got.comm, d->comm) && got.pid == d->pid && got.show == d->show &&
	   got.ack == d->ack, "%s", name);
	if (r && !same(got.object, object))
		printf("#   object: '%s'\n", got.object);
	json_decref(doc);
}

/* TEXT is refused by the decoder. */
static void refused(const char *text, const char *name)
{
	struct wk_denial_pkt d;
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL);
	ok(o && !wk_denial_decode(o, &d), "refused: %s", name);
	json_decref(o);
}

int main(void)
{
	struct wk_denial_pkt d = {.kind = "write", .object = "/etc/hosts",
				  .what = "open for writing", .comm = "sed", .pid = 4242};
	size_t n = wk_denial_encode(buf, sizeof buf, &d);
	is_str(n ? buf : NULL, "{\"v\":1,\"type\":\"denial\",\"kind\":\"write\",\"object\":"
	       "\"/etc/hosts\",\"what\":\"open for writing\",\"comm\":\"sed\",\"pid\":4242}",
	       "the packet of DESIGN §6, byte for byte");
	ok(n == strlen(buf), "its length");
	trip(&d, "/etc/hosts", "a write denial comes back the same");

	struct wk_denial_pkt net = {.kind = "network", .object = "connect 127.0.0.1:8080/tcp",
				    .comm = "curl", .pid = 1, .show = WK_DENIAL_QUIET};
	trip(&net, net.object, "a network denial without \"what\", quiet");
	net.show = WK_DENIAL_SHOWN;
	net.pid = (1L << 30) - 1;
	trip(&net, net.object, "shown, the largest pid");
	n = wk_denial_encode(buf, sizeof buf, &net);
	ok(n && strstr(buf, "\"what\"") == NULL && strstr(buf, ",\"shown\":true}"),
	   "no \"what\" written without one; \"shown\" last");

	net.show = WK_DENIAL_PRINT;
	net.ack = (1ULL << 53) - 1;
	trip(&net, net.object, "an acknowledgement's token, the largest");
	n = wk_denial_encode(buf, sizeof buf, &net);
	ok(n && strstr(buf, ",\"ack\":9007199254740991}"), "\"ack\" last, as a number");

	struct wk_denial_pkt r = {.kind = "read", .object = "/a \"q\" \\b/caf\xc3\xa9/\xf0\x9f\x94\x91",
				  .what = "open", .comm = "c\"a\\t", .pid = 7};
	trip(&r, r.object, "quotes, backslashes and valid UTF-8 come back as they were");

	r.object = "/a\nb\tc\x7f" "d\x1b[31m";
	trip(&r, "/a?b?c?d?[31m", "control characters become '?'");
	r.object = "/x\xff" "y\xc0\xaf" "z\xed\xa0\x80" "w\xf4\x90\x80\x80" "v\xc3";
	trip(&r, "/x?y??z???w????v?", "invalid UTF-8, overlong forms and surrogates become '?'");

	char *longer = malloc(5001), *want = malloc(WK_DENIAL_TEXT_MAX + 4);
	memset(longer, 'a', 5000);
	longer[0] = '/';
	longer[5000] = '\0';
	memcpy(want, longer, WK_DENIAL_TEXT_MAX);
	strcpy(want + WK_DENIAL_TEXT_MAX, "...");
	r.object = longer;
	trip(&r, want, "a long object is cut with \"...\" and still decodes");
	memset(longer + 1, '"', 4999);
	memset(want + 1, '"', WK_DENIAL_TEXT_MAX - 1);
	r.object = longer;
	trip(&r, want, "escaped all the way, it still fits the packet");
	free(longer);
	free(want);

	/* The edges of UTF-8: the first and last of each length kept. */
	r.object = "/\xc2\xa0\xe0\xa0\x80\xe2\x82\xac\xea\xb0\x80\xf0\x90\x80\x80\xf1\x80\x80\x80"
		   "\xf4\x8f\xbf\xbf";
	trip(&r, r.object, "U+00A0, U+0800, U+20AC, U+AC00, U+10000, U+40000 and U+10FFFF kept");
	r.object = "/\xf5\x80\x80\x80";
	trip(&r, "/????", "no lead byte above 0xf4");

	/* The packet and its NUL in a buffer of exactly their size. */
	n = wk_denial_encode(buf, sizeof buf, &d);
	char *exact = malloc(n + 1);
	ok(wk_denial_encode(exact, n, &d) == 0, "no room for the NUL: nothing to send");
	ok(wk_denial_encode(exact, n + 1, &d) == n && strcmp(exact, buf) == 0,
	   "room for the packet and its NUL: all of it");
	free(exact);
	ok(wk_denial_encode(buf, 40, &d) == 0, "a buffer too small: nothing to send");
	ok(wk_denial_encode(buf, 0, &d) == 0, "an empty buffer: nothing to send");

	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"write\",\"object\":\"/x\",\"comm\":\"c\"}",
		"no pid");
	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"write\",\"object\":\"/x\",\"pid\":0}",
		"pid 0");
	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"write\",\"object\":\"/x\",\"pid\":1073741824}",
		"pid 2^30");
	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"write\",\"object\":\"/x\",\"pid\":\"1\"}",
		"a pid as a string");
	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"exec\",\"object\":\"/x\",\"pid\":1}",
		"an unknown kind");
	refused("{\"v\":1,\"type\":\"denial\",\"object\":\"/x\",\"pid\":1}", "no kind");
	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"read\",\"pid\":1}", "no object");
	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"read\",\"object\":7,\"pid\":1}",
		"an object that is no string");
	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"read\",\"object\":\"/x\",\"comm\":\"a\\u0000b\","
		"\"pid\":1}", "a NUL in a string");
	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"read\",\"object\":\"/x\",\"what\":"
		"\"0123456789012345678901234567890123456789012345678901234567890123456789\",\"pid\":1}",
		"\"what\" over 64 bytes");
	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"read\",\"object\":\"/x\",\"pid\":1,"
		"\"quiet\":1}", "\"quiet\" that is no boolean");
	{
		struct wk_denial_pkt got;
		json_t *o = json_loads("{\"v\":1,\"type\":\"denial\",\"kind\":\"read\",\"object\":\"/x\","
				       "\"what\":\"0123456789012345678901234567890123456789012345678901"
				       "234567890123\",\"pid\":1}", 0, NULL);
		ok(o && wk_denial_decode(o, &got) && strlen(got.what) == 64, "\"what\" of 64 bytes");
		json_decref(o);
	}
	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"read\",\"object\":\"/x\",\"pid\":1,"
		"\"ack\":0}", "an \"ack\" of 0");
	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"read\",\"object\":\"/x\",\"pid\":1,"
		"\"ack\":9007199254740992}", "an \"ack\" of 2^53");
	refused("{\"v\":1,\"type\":\"denial\",\"kind\":\"read\",\"object\":\"/x\",\"pid\":1,"
		"\"ack\":\"5\"}", "an \"ack\" as a string");
	{
		/* Its sender waits all the same. */
		struct wk_denial_pkt got;
		json_t *o = json_loads("{\"v\":1,\"type\":\"denial\",\"kind\":\"exec\",\"pid\":1,"
				       "\"ack\":77}", 0, NULL);
		ok(o && !wk_denial_decode(o, &got) && got.ack == 77,
		   "a malformed packet's well-formed \"ack\" is read");
		json_decref(o);
	}
	refused("{\"v\":1,\"kind\":\"read\",\"object\":\"/x\",\"pid\":1}", "no type");
	refused("{\"v\":1,\"type\":\"sync\",\"kind\":\"read\",\"object\":\"/x\",\"pid\":1}",
		"another type");
	char *big = malloc(WK_DENIAL_OBJECT_MAX + 128);
	int k = snprintf(big, 128, "{\"v\":1,\"type\":\"denial\",\"kind\":\"read\",\"pid\":1,\"object\":\"");
	memset(big + k, 'o', WK_DENIAL_OBJECT_MAX + 1);
	strcpy(big + k + WK_DENIAL_OBJECT_MAX + 1, "\"}");
	refused(big, "an object over 4096 bytes");
	free(big);
	return done_testing();
}
