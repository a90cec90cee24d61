/* Network mode "domains", the pure parts: names and patterns, the
 * classification of addresses (lib/netdomain.c), and the proxy's HTTP
 * and SOCKS5 request parsers (lib/proxyparse.c). */
#include "config.h"
#include "tap.h"
#include "netdomain.h"
#include "proxyparse.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static struct wk_http_req req;

/* The whole of TEXT in one call. */
static enum wk_parse http(const char *text)
{
	static struct wk_http_parser p;
	memset(&p, 0, sizeof p);
	memset(&req, 0, sizeof req);
	size_t used;
	return wk_http_feed(&p, text, strlen(text), &used, &req);
}

/* TEXT a byte at a time; the bytes taken in all. */
static enum wk_parse http_bytes(const char *text, size_t *taken)
{
	static struct wk_http_parser p;
	memset(&p, 0, sizeof p);
	memset(&req, 0, sizeof req);
	enum wk_parse r = WK_PARSE_MORE;
	*taken = 0;
	for (size_t i = 0; text[i] && r == WK_PARSE_MORE; i++) {
		size_t used;
		r = wk_http_feed(&p, text + i, 1, &used, &req);
		*taken += used;
	}
	return r;
}

static bool bad_with(const char *text, int status)
{
	enum wk_parse r = http(text);
	if (r != WK_PARSE_BAD || req.status != status) {
		printf("#   %s: %d %d %s\n", text, r, req.status, req.why ? req.why : "");
		return false;
	}
	return true;
}

/* Refused with STATUS for the reason WHY (the text the client is sent). */
static bool bad_why(const char *text, int status, const char *why)
{
	if (!bad_with(text, status))
		return false;
	if (strcmp(req.why, why) != 0) {
		printf("#   %s: \"%s\", not \"%s\"\n", text, req.why, why);
		return false;
	}
	return true;
}

static bool done(const char *text)
{
	enum wk_parse r = http(text);
	if (r != WK_PARSE_DONE)
		printf("#   %s: %d %d %s\n", text, r, req.status, req.why ? req.why : "");
	return r == WK_PARSE_DONE;
}

/* REQ forwarded as OUT. */
static bool forwards(const char *text, const char *out)
{
	if (!done(text))
		return false;
	req.out[req.out_len] = '\0';
	if (strcmp(req.out, out) != 0) {
		printf("#   forwarded: %s\n", req.out);
		return false;
	}
	return true;
}

static struct wk_addr addr(const char *text)
{
	struct wk_addr a = {0};
	if (inet_pton(AF_INET, text, a.a) == 1)
		a.family = AF_INET;
	else if (inet_pton(AF_INET6, text, a.a) == 1)
		a.family = AF_INET6;
	else
		abort();
	return a;
}

static enum wk_addr_class cls(const char *text)
{
	struct wk_addr a = addr(text);
	return wk_addr_classify(a.family, a.a);
}

static void put16(unsigned char *b, size_t *at, unsigned v)
{
	b[(*at)++] = (unsigned char)(v >> 8);
	b[(*at)++] = (unsigned char)v;
}

static size_t record(unsigned char *rec, const unsigned char *ext, size_t e);

/* A TLS 1.3-style ClientHello record: SNI (NULL: none; twice when TWO),
 * and an ECH extension when ECH. */
static size_t hello(unsigned char *rec, const char *sni, bool two, bool ech)
{
	unsigned char ext[1024];
	size_t e = 0;
	put16(ext, &e, 0x002b);
	put16(ext, &e, 3);
	ext[e++] = 2, ext[e++] = 3, ext[e++] = 4;
	for (int k = 0; sni && k < (two ? 2 : 1); k++) {
		size_t nl = strlen(sni);
		put16(ext, &e, 0);
		put16(ext, &e, (unsigned)nl + 5);
		put16(ext, &e, (unsigned)nl + 3);
		ext[e++] = 0;
		put16(ext, &e, (unsigned)nl);
		memcpy(ext + e, sni, nl);
		e += nl;
	}
	if (ech) {
		put16(ext, &e, 0xfe0d);
		put16(ext, &e, 4);
		memset(ext + e, 7, 4);
		e += 4;
	}
	return record(rec, ext, e);
}

/* A ClientHello record around the extensions EXT (E bytes). */
static size_t record(unsigned char *rec, const unsigned char *ext, size_t e)
{
	static unsigned char body[WK_TLS_HELLO_MAX];
	size_t b = 0, r = 0;
	body[b++] = 3, body[b++] = 3;
	memset(body + b, 0xaa, 32);
	b += 32;
	body[b++] = 0;
	put16(body, &b, 2);
	body[b++] = 0x13, body[b++] = 0x01;
	body[b++] = 1, body[b++] = 0;
	put16(body, &b, (unsigned)e);
	memcpy(body + b, ext, e);
	b += e;
	rec[r++] = 0x16, rec[r++] = 3, rec[r++] = 1;
	put16(rec, &r, (unsigned)b + 4);
	rec[r++] = 1, rec[r++] = 0;
	put16(rec, &r, (unsigned)b);
	memcpy(rec + r, body, b);
	return r + b;
}

/* The edges of each check: the last value taken and the first refused. */
static void edges(void)
{
	struct wk_target t;
	char text[16];
	ok(done("CONNECT ZZ.org:443 HTTP/1.1\r\n\r\n") && strcmp(req.target.host, "zz.org") == 0,
	   "a name's 'Z' lower case too");
	/* Exactly sized copies: a byte read past the end is one ASan sees. */
	char *name = malloc(11);
	memcpy(name, "example.org", 11);
	ok(!wk_target_host(name, 11, false, &t) && strcmp(t.host, "example.org") == 0,
	   "a name with nothing after it read to its end, no further");
	free(name);
	ok(wk_target_host("[::1", 4, true, &t) != NULL, "an IPv6 address without its ']'");
	ok(wk_target_host("[1]", 3, true, &t) != NULL, "no IPv6 address of one character");
	char v6[120] = "CONNECT [";
	memset(v6 + 9, '0', 64);
	strcpy(v6 + 73, "]:443 HTTP/1.1\r\n\r\n");
	ok(bad_why(v6, 400, "a malformed IPv6 address"), "64 bytes in brackets: too long");
	char v4[120] = "CONNECT ";
	memset(v4 + 8, 'a', 63);
	strcpy(v4 + 71, ".:443 HTTP/1.1\r\n\r\n");
	ok(done(v4) && strlen(req.target.host) == 63, "a name of 64 bytes with its trailing dot");
	t.family = AF_INET6;
	strcpy(t.host, "::1");
	t.port = 443;
	ok(wk_target_text(&t, text, 9) == 8 && strcmp(text, "[::1]:44") == 0,
	   "a target's text cut short: the length of what was written");
	ok(wk_target_text(&t, text, 10) == 9, "and not cut: its whole length");

	/* Ports. */
	ok(done("CONNECT a.org:65535 HTTP/1.1\r\n\r\n") && req.target.port == 65535, "port 65535");
	ok(done("CONNECT a.org:9 HTTP/1.1\r\n\r\n") && req.target.port == 9, "port 9");
	ok(bad_with("CONNECT a.org:44a HTTP/1.1\r\n\r\n", 400) &&
		   bad_with("CONNECT a.org:4/3 HTTP/1.1\r\n\r\n", 400),
	   "a port with a letter or a sign in it");
	ok(done("GET http://[::1]/ HTTP/1.1\r\n\r\n") && req.target.port == 80 &&
		   req.target.family == AF_INET6,
	   "an IPv6 address in a URI without a port");

	/* The request line. */
	ok(done("Zz-09 http://a.org/ HTTP/1.1\r\nAz-09: v\r\n\r\n") &&
		   strcmp(req.method, "Zz-09") == 0,
	   "letters and digits in methods and header names, from 'a' to 'z', '0' to '9'");
	ok(bad_why(" http://a.org/ HTTP/1.1\r\n\r\n", 400, "a malformed request line"),
	   "no method");
	ok(bad_why("GET  HTTP/1.1\r\n\r\n", 400, "a malformed request line"), "no target");
	ok(bad_why("ABCDEFGHIJKLMNOPQRSTUVWX http://a.org/ HTTP/1.1\r\n\r\n", 501,
		   "an unknown method"),
	   "a method as long as its buffer");
	ok(bad_why("GET http://a.org/\x01 HTTP/1.1\r\n\r\n", 400,
		   "a control character in the request target") &&
		   bad_with("GET http://a.org/\x7f HTTP/1.1\r\n\r\n", 400),
	   "control characters in the target");
	ok(bad_why("GET https:// HTTP/1.1\r\n\r\n", 400,
		   "an https:// URI (HTTPS goes through CONNECT: HTTPS_PROXY)"),
	   "https:// alone");
	ok(bad_why("GET http:// HTTP/1.1\r\n\r\n", 400, "no host"), "http:// alone");
	ok(bad_with("GET abcdefga.org/ HTTP/1.1\r\n\r\n", 400), "a scheme that is not http://");

	/* Header fields. */
	char many[2048] = "GET http://a.org/ HTTP/1.1\r\n";
	for (int i = 0; i < 100; i++)
		strcat(many, "X: y\r\n");
	strcat(many, "\r\n");
	ok(done(many), "100 fields");
	ok(bad_why("GET http://a.org/ HTTP/1.1\r\nX: a\r\n\tb\r\n\r\n", 400,
		   "a folded header line (obs-fold)") &&
		   bad_why("GET http://a.org/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n", 400,
			   "a folded header line (obs-fold)"),
	   "obs-fold, with a tab or a space");
	ok(bad_why("GET http://a.org/ HTTP/1.1\r\nX y: z\r\n\r\n", 400,
		   "a malformed header name (space before ':'?)"),
	   "a space in a header name");
	ok(bad_why("GET http://a.org/ HTTP/1.1\r\n: z\r\n\r\n", 400, "a header without a name"),
	   "an empty header name");
	ok(bad_why("GET http://a.org/ HTTP/1.1\r\nHost: \r\n\r\n", 400,
		   "a Host header that differs from the request target"),
	   "an empty Host");
	ok(done("POST http://a.org/ HTTP/1.1\r\nTransfer-Encoding: chunked \t\r\n\r\n"),
	   "white space after a value is not part of it");
	ok(done("POST http://a.org/ HTTP/1.1\r\nContent-Length: 109999999999999999\r\n\r\n") &&
		   bad_with("POST http://a.org/ HTTP/1.1\r\nContent-Length: 1099999999999999999\r\n\r\n",
			    400),
	   "a Content-Length of 18 digits, not 19");
	ok(bad_why("POST http://a.org/ HTTP/1.1\r\nContent-Length: \r\n\r\n", 400,
		   "a malformed Content-Length"),
	   "an empty Content-Length");
	ok(done("CONNECT a.org:443 HTTP/1.1\r\nContent-Length: 0\r\n\r\n"),
	   "a CONNECT with a Content-Length of 0");
	ok(forwards("GET http://a.org/ HTTP/1.1\r\nHost: A.org\r\n\r\n",
		    "GET / HTTP/1.1\r\nHost: A.org\r\nConnection: close\r\n\r\n"),
	   "a Host without the port the URI left out");
	ok(bad_with("GET http://a.org/ HTTP/1.1\r\nHost: a.org:81\r\n\r\n", 400) &&
		   bad_with("CONNECT a.org:443 HTTP/1.1\r\nHost: 1.0.0.0:443\r\n\r\n", 400),
	   "a Host with another port or family");
	ok(done("CONNECT 1.2.3.4:443 HTTP/1.1\r\nHost: 1.2.3.4:443\r\n\r\n") &&
		   bad_with("CONNECT 1.2.3.4:443 HTTP/1.1\r\nHost: 1.2.3.5:443\r\n\r\n", 400) &&
		   done("CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n") &&
		   bad_with("CONNECT [::1]:443 HTTP/1.1\r\nHost: [::2]:443\r\n\r\n", 400),
	   "a Host with the address, all of it");
	ok(forwards("GET http://a.org/ HTTP/1.1\r\nProxy-Authorization: x\r\nConnection: y\r\n"
		    "Keep-Alive: 5\r\nProxy-Connection: z\r\nA: b\r\n\r\n",
		    "GET / HTTP/1.1\r\nA: b\r\nHost: a.org:80\r\nConnection: close\r\n\r\n"),
	   "each of the proxy's and the connection's fields dropped");

	/* SOCKS5, a byte short and a byte long. */
	size_t used;
	const char *why;
	bool noauth;
	int reply;
	const unsigned char *u = (const unsigned char *)"\x04\x01\x01";
	ok(wk_socks_greeting(u, 1, &used, &why, &noauth) == WK_PARSE_BAD,
	   "greeting: its first byte is enough to refuse");
	ok(wk_socks_greeting((const unsigned char *)"\x05\x00", 2, &used, &why, &noauth) ==
		   WK_PARSE_BAD, "greeting: no methods");
	ok(wk_socks_request(u, 1, &used, &t, &why, &reply) == WK_PARSE_BAD &&
		   wk_socks_request((const unsigned char *)"\x05\x02", 2, &used, &t, &why, &reply) ==
			   WK_PARSE_BAD &&
		   wk_socks_request((const unsigned char *)"\x05\x01\x01", 3, &used, &t, &why, &reply) ==
			   WK_PARSE_BAD,
	   "request: each byte refused as soon as it comes");
	ok(wk_socks_request((const unsigned char *)"\x05\x01\x00\x03\x05[::1]\x00\x50", 12, &used, &t,
			    &why, &reply) == WK_PARSE_BAD,
	   "request: no IPv6 address in brackets as a name");

	/* TLS. */
	bool tls;
	char sni[WK_NAME_MAX + 1];
	unsigned char h[5] = {0x16, 2, 0, 0, 4};
	ok(wk_tls_sni(h, 5, &tls, sni, sizeof sni, &why) == WK_PARSE_BAD,
	   "TLS: a record head of another version, refused at once");
	h[1] = 3, h[3] = 0x40, h[4] = 1;
	ok(wk_tls_sni(h, 5, &tls, sni, sizeof sni, &why) == WK_PARSE_BAD,
	   "TLS: a record over 16384 bytes, refused at once");
	static unsigned char rec[WK_TLS_HELLO_MAX + 16], ext[WK_TLS_HELLO_MAX];
	size_t e = 0;
	put16(ext, &e, 0x0015); /* padding to the largest record */
	put16(ext, &e, 16333);
	memset(ext + e, 0, 16333);
	e += 16333;
	size_t rl = record(rec, ext, e);
	ok(rl == 5 + 16384 && wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_DONE,
	   "TLS: a record of 16384 bytes");
	rec[1] = 2;
	ok(wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_BAD,
	   "TLS: the record's version checked");
	unsigned char four[9] = {0x16, 3, 1, 0, 4, 1, 0, 0, 0};
	ok(wk_tls_sni(four, 9, &tls, sni, sizeof sni, &why) == WK_PARSE_BAD &&
		   strcmp(why, "a malformed ClientHello") == 0,
	   "TLS: an empty ClientHello");
	/* server_name: an empty list; another name type; a byte left over. */
	static const unsigned char empty[] = {0, 0, 0, 2, 0, 0};
	rl = record(rec, empty, sizeof empty);
	ok(wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_DONE && !sni[0],
	   "TLS: an empty list of server names");
	static const unsigned char other[] = {0, 0, 0, 5, 0, 3, 1, 0, 0};
	rl = record(rec, other, sizeof other);
	ok(wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_DONE && !sni[0],
	   "TLS: a server name of another type, empty, passed over");
	static const unsigned char left[] = {0, 0, 0, 6, 0, 4, 1, 0, 0, 9};
	rl = record(rec, left, sizeof left);
	ok(wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_BAD,
	   "TLS: a byte left over in the list of names");
	rl = hello(rec, "a.org", false, false);
	unsigned char *exact = malloc(rl);
	memcpy(exact, rec, rl);
	char *small = malloc(5);
	ok(wk_tls_sni(exact, rl, &tls, small, 5, &why) == WK_PARSE_BAD,
	   "TLS: a name that does not fit the caller's buffer");
	char *fits = malloc(6);
	ok(wk_tls_sni(exact, rl, &tls, fits, 6, &why) == WK_PARSE_DONE && strcmp(fits, "a.org") == 0,
	   "TLS: a name at the record's very end, read to there and no further");
	free(fits);
	free(small);
	free(exact);
	unsigned char sh[WK_TLS_SERVER_HEAD] = {0x16, 3, 3, 0, 46, 2};
	bool hrr = true;
	ok(wk_tls_hrr(sh, sizeof sh, &hrr) == WK_PARSE_DONE && !hrr,
	   "HRR: the server's head is enough");
}

int main(void)
{
	/* "hosts" entries: canonical, or why not (and whose fault). */
	char kv[80];
	bool bad = true;
	ok(!wk_hosts_entry("Reg.Test.", 9, "0:0::1", kv, sizeof kv, &bad) && !bad &&
	   strcmp(kv, "reg.test=::1") == 0, "a hosts entry: lower case, no dot, canonical address");
	ok(!wk_hosts_entry("a.b=1", 3, "10.0.0.1", kv, sizeof kv, &bad) &&
	   strcmp(kv, "a.b=10.0.0.1") == 0, "the name's length is NL");
	ok(wk_hosts_entry("a..b", 4, "1.2.3.4", kv, sizeof kv, &bad) && !bad, "a bad name");
	ok(wk_hosts_entry("a.b", 3, "1.2.3", kv, sizeof kv, &bad) && bad, "a bad address");
	ok(wk_hosts_entry("a.b", 3, "127.0.0.1", kv, 14, &bad) == NULL, "room enough, exactly");
	ok(wk_hosts_entry("a.b", 3, "127.0.0.1", kv, 13, &bad) != NULL && !bad, "no room");

	/* Names. */
	ok(!wk_name_check("example.org", 11), "a name");
	ok(!wk_name_check("Example.ORG.", 12), "a name with a trailing dot");
	ok(!wk_name_check("a_b.example-1.org", 17), "underscores and hyphens");
	ok(wk_name_check("", 0) && wk_name_check(".", 1), "no empty name");
	ok(wk_name_check("a..org", 6), "no empty label");
	ok(wk_name_check("-a.org", 6) && wk_name_check("a-.org", 6), "no hyphen at a label's edge");
	ok(wk_name_check("a b.org", 7) && wk_name_check("a%2e.org", 8) && wk_name_check("a\0b", 3),
	   "no space, percent or NUL");
	ok(wk_name_check("127.1", 5) && wk_name_check("2130706433", 10) &&
	   wk_name_check("0x7f.0.0.1", 10) && wk_name_check("1.2.3.0x4", 9),
	   "numeric forms that resolvers take as addresses are no names");
	ok(!wk_name_check("1password.com", 13) && !wk_name_check("0xdead.beef", 11),
	   "digits or hex-looking labels before a real top-level label are fine");
	char big[300];
	memset(big, 'a', sizeof big);
	for (int i = 63; i < 300; i += 64)
		big[i] = '.';
	ok(!wk_name_check(big, 253), "253 bytes");
	big[253] = '.';
	ok(!wk_name_check(big, 254), "253 bytes and a trailing dot");
	big[253] = 'a';
	ok(wk_name_check(big, 254) != NULL, "254 bytes: too long");
	ok(wk_name_check("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.org", 68),
	   "a label of 64 bytes: too long");

	/* Patterns. */
	ok(!wk_pattern_check("registry.npmjs.org") && !wk_pattern_check("*.github.com"),
	   "exact and wildcard patterns");
	ok(wk_pattern_check("*") && wk_pattern_check("*.com") && wk_pattern_check("*.com."),
	   "no wildcard over a top-level domain");
	ok(wk_pattern_check("a.*.org") && wk_pattern_check("*a.org") && wk_pattern_check("**.a.org"),
	   "'*' only as a whole first label");
	ok(wk_pattern_check("") && wk_pattern_check("exa mple.org") && wk_pattern_check("10.0.0.1"),
	   "no empty, malformed or numeric pattern");
	ok(wk_pattern_match("github.com", "GitHub.COM."), "exact: case and trailing dot");
	ok(!wk_pattern_match("github.com", "api.github.com"), "exact: not below");
	ok(!wk_pattern_match("github.com", "evilgithub.com"), "exact: not a suffix");
	ok(wk_pattern_match("*.github.com", "api.github.com") &&
	   wk_pattern_match("*.github.com", "a.b.GITHUB.com."), "wildcard: any depth below");
	ok(!wk_pattern_match("*.github.com", "github.com"), "wildcard: not the name itself");
	ok(!wk_pattern_match("*.github.com", "evilgithub.com"), "wildcard: a label boundary");
	const char *allow[] = {"*.example.org", "pypi.org"};
	const char *deny[] = {"evil.example.org"};
	const char *which;
	ok(wk_domain_decide("a.example.org", allow, 2, deny, 1, &which) == WK_DOMAIN_ALLOWED &&
	   strcmp(which, "*.example.org") == 0, "allowed, and by which pattern");
	ok(wk_domain_decide("EVIL.example.org", allow, 2, deny, 1, &which) == WK_DOMAIN_DENIED &&
	   strcmp(which, "evil.example.org") == 0, "deny wins over allow");
	ok(wk_domain_decide("example.com", allow, 2, deny, 1, &which) == WK_DOMAIN_UNLISTED &&
	   which == NULL, "unlisted");

	/* Addresses. */
	ok(cls("93.184.216.34") == WK_ADDR_PUBLIC && cls("2606:2800:220:1::1") == WK_ADDR_PUBLIC,
	   "public");
	ok(cls("127.0.0.1") == WK_ADDR_LOOPBACK && cls("127.255.0.9") == WK_ADDR_LOOPBACK &&
	   cls("::1") == WK_ADDR_LOOPBACK, "loopback");
	ok(cls("169.254.169.254") == WK_ADDR_LINKLOCAL && cls("fe80::1") == WK_ADDR_LINKLOCAL,
	   "link-local (cloud metadata)");
	ok(cls("10.1.2.3") == WK_ADDR_PRIVATE && cls("172.16.0.1") == WK_ADDR_PRIVATE &&
	   cls("172.31.255.255") == WK_ADDR_PRIVATE && cls("192.168.1.1") == WK_ADDR_PRIVATE &&
	   cls("100.64.0.1") == WK_ADDR_PRIVATE, "private and shared");
	ok(cls("172.32.0.1") == WK_ADDR_PUBLIC && cls("172.15.0.1") == WK_ADDR_PUBLIC,
	   "next to 172.16/12 is public");
	ok(cls("fd00::1") == WK_ADDR_ULA && cls("fc12::1") == WK_ADDR_ULA, "unique local");
	ok(cls("0.0.0.0") == WK_ADDR_UNSPECIFIED && cls("0.1.2.3") == WK_ADDR_UNSPECIFIED &&
	   cls("::") == WK_ADDR_UNSPECIFIED, "unspecified");
	ok(cls("224.0.0.1") == WK_ADDR_MULTICAST && cls("ff02::1") == WK_ADDR_MULTICAST,
	   "multicast");
	ok(cls("255.255.255.255") == WK_ADDR_RESERVED && cls("240.0.0.1") == WK_ADDR_RESERVED,
	   "reserved and broadcast");
	ok(cls("::ffff:127.0.0.1") == WK_ADDR_LOOPBACK && cls("::ffff:10.0.0.1") == WK_ADDR_PRIVATE &&
	   cls("::127.0.0.1") == WK_ADDR_LOOPBACK && cls("64:ff9b::a9fe:a9fe") == WK_ADDR_LINKLOCAL &&
	   cls("2002:7f00:1::1") == WK_ADDR_LOOPBACK, "IPv6 forms of IPv4 addresses");
	ok(cls("::ffff:93.184.216.34") == WK_ADDR_PUBLIC, "a v4-mapped public address");
	struct wk_addr lo = addr("127.0.0.1"), lo6 = addr("::ffff:127.0.0.1");
	struct wk_addr pub = addr("93.184.216.34"), own = addr("93.184.216.34");
	ok(wk_addr_refusal(&lo, NULL, 0, NULL, 0) != NULL, "loopback refused");
	ok(wk_addr_refusal(&lo, &lo, 1, NULL, 0) == NULL, "loopback named by the policy");
	ok(wk_addr_refusal(&lo6, &lo, 1, NULL, 0) == NULL, "named, in its v4-mapped form");
	struct wk_addr lo2 = addr("127.0.0.2");
	ok(wk_addr_refusal(&lo2, &lo, 1, NULL, 0) != NULL, "another loopback address: refused");
	ok(wk_addr_refusal(&pub, NULL, 0, NULL, 0) == NULL, "public allowed");
	ok(wk_addr_refusal(&pub, NULL, 0, &own, 1) != NULL, "the host's own public address refused");

	/* HTTP: CONNECT. */
	ok(http("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n") ==
		   WK_PARSE_DONE && req.connect && strcmp(req.target.host, "example.org") == 0 &&
		   req.target.port == 443 && req.target.family == 0,
	   "CONNECT name:port");
	ok(http("CONNECT EXAMPLE.org.:443 HTTP/1.1\r\n\r\n") == WK_PARSE_DONE &&
		   strcmp(req.target.host, "example.org") == 0,
	   "CONNECT: the name lower case, without its trailing dot");
	ok(http("CONNECT 1.2.3.4:443 HTTP/1.1\r\n\r\n") == WK_PARSE_DONE &&
		   req.target.family == AF_INET && strcmp(req.target.host, "1.2.3.4") == 0,
	   "CONNECT to an IPv4 address");
	ok(http("CONNECT [::1]:443 HTTP/1.1\r\n\r\n") == WK_PARSE_DONE &&
		   req.target.family == AF_INET6 && strcmp(req.target.host, "::1") == 0,
	   "CONNECT to an IPv6 address");
	ok(bad_with("CONNECT example.org HTTP/1.1\r\n\r\n", 400), "CONNECT without a port");
	ok(bad_with("CONNECT example.org:0443 HTTP/1.1\r\n\r\n", 400) &&
		   bad_with("CONNECT example.org:+443 HTTP/1.1\r\n\r\n", 400) &&
		   bad_with("CONNECT example.org:65536 HTTP/1.1\r\n\r\n", 400) &&
		   bad_with("CONNECT example.org:0 HTTP/1.1\r\n\r\n", 400) &&
		   bad_with("CONNECT example.org: HTTP/1.1\r\n\r\n", 400),
	   "non-canonical ports");
	ok(bad_with("CONNECT 127.1:443 HTTP/1.1\r\n\r\n", 400) &&
		   bad_with("CONNECT 0x7f000001:443 HTTP/1.1\r\n\r\n", 400) &&
		   bad_with("CONNECT 2130706433:443 HTTP/1.1\r\n\r\n", 400) &&
		   bad_with("CONNECT 0177.0.0.1:443 HTTP/1.1\r\n\r\n", 400),
	   "non-canonical IPv4 forms");
	ok(bad_with("CONNECT [fe80::1%eth0]:443 HTTP/1.1\r\n\r\n", 400) &&
		   bad_with("CONNECT ::1:443 HTTP/1.1\r\n\r\n", 400) &&
		   bad_with("CONNECT [::1:443 HTTP/1.1\r\n\r\n", 400),
	   "IPv6 zones, unbracketed or unclosed");
	ok(bad_with("CONNECT user@example.org:443 HTTP/1.1\r\n\r\n", 400), "userinfo");
	ok(bad_with("CONNECT example.org:443 HTTP/1.1\r\nHost: other.org:443\r\n\r\n", 400),
	   "CONNECT with a Host that differs");
	ok(bad_with("CONNECT example.org:443 HTTP/1.1\r\nContent-Length: 5\r\n\r\n", 400),
	   "CONNECT with a body");
	char longname[400];
	strcpy(longname, "CONNECT ");
	for (int i = 0; i < 4; i++)
		strcat(longname, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.");
	strcat(longname, "org:443 HTTP/1.1\r\n\r\n");
	ok(bad_with(longname, 400), "a name over 253 bytes");

	/* HTTP: absolute URIs. */
	ok(http("GET http://Example.org:8080/a?b=c HTTP/1.1\r\nHost: example.org:8080\r\n"
		"Proxy-Connection: keep-alive\r\nUser-Agent: t\r\n\r\n") == WK_PARSE_DONE &&
		   !req.connect && req.target.port == 8080 &&
		   strcmp(req.target.host, "example.org") == 0,
	   "GET with an absolute URI");
	req.out[req.out_len] = '\0';
	is_str(req.out,
	       "GET /a?b=c HTTP/1.1\r\nHost: example.org:8080\r\nUser-Agent: t\r\n"
	       "Connection: close\r\n\r\n",
	       "forwarded in origin form, proxy headers dropped, one request per connection");
	ok(http("POST http://example.org HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc") ==
		   WK_PARSE_DONE && req.target.port == 80,
	   "POST, default port");
	req.out[req.out_len] = '\0';
	is_str(req.out,
	       "POST / HTTP/1.0\r\nContent-Length: 3\r\nHost: example.org:80\r\n"
	       "Connection: close\r\n\r\n",
	       "a Host added, the path at least /");
	ok(bad_with("GET /index.html HTTP/1.1\r\nHost: example.org\r\n\r\n", 400),
	   "origin form is no proxy request");
	ok(bad_with("GET https://example.org/ HTTP/1.1\r\n\r\n", 400), "https URI");
	ok(bad_with("GET http://example.org/#x HTTP/1.1\r\n\r\n", 400), "a fragment");
	ok(bad_with("GET http://example.org/ HTTP/1.1\r\nHost: evil.org\r\n\r\n", 400),
	   "a Host that differs from the URI");
	ok(bad_with("GET http://example.org/ HTTP/2.0\r\n\r\n", 505) &&
		   bad_with("GET http://example.org/ HTTP/1.1 \r\n\r\n", 505),
	   "HTTP versions");

	/* Smuggling forms. */
	ok(bad_with("POST http://a.org/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n",
		    400), "duplicate Content-Length");
	ok(bad_with("POST http://a.org/ HTTP/1.1\r\nContent-Length: 3, 4\r\n\r\n", 400) &&
		   bad_with("POST http://a.org/ HTTP/1.1\r\nContent-Length: +3\r\n\r\n", 400),
	   "malformed Content-Length");
	ok(bad_with("POST http://a.org/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
		    "Content-Length: 3\r\n\r\n", 400), "Transfer-Encoding with Content-Length");
	ok(bad_with("POST http://a.org/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
	   "a Transfer-Encoding other than chunked");
	ok(bad_with("POST http://a.org/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n", 400), "duplicate Transfer-Encoding");
	ok(bad_with("GET http://a.org/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n", 400), "obs-fold");
	ok(bad_with("GET http://a.org/ HTTP/1.1\r\nContent-Length : 3\r\n\r\n", 400),
	   "a space before the colon");
	ok(bad_with("GET http://a.org/ HTTP/1.1\r\nX: a\rb\r\n\r\n", 400), "a bare CR");
	ok(bad_with("GET http://a.org/ HTTP/1.1\nX: a\r\n\r\n", 400), "a bare LF");
	ok(bad_with("GET http://a.org/ HTTP/1.1\r\nX: a\x01\r\n\r\n", 400), "a control character");
	ok(bad_with("GET http://a.org/ HTTP/1.1\r\nHost: a.org\r\nHost: a.org\r\n\r\n", 400),
	   "duplicate Host");
	ok(bad_with("\r\n\r\n", 400) && bad_with("\r\nGET http://a.org/ HTTP/1.1\r\n\r\n", 400),
	   "an empty request line");

	/* Bounds and incremental reading. */
	static char huge[WK_HTTP_HEAD_MAX + 100];
	strcpy(huge, "GET http://a.org/ HTTP/1.1\r\nX: ");
	memset(huge + strlen(huge), 'a', WK_HTTP_HEAD_MAX);
	huge[WK_HTTP_HEAD_MAX + 30] = '\0';
	ok(bad_with(huge, 431), "a head over the cap");
	static char many[WK_HTTP_HEAD_MAX];
	strcpy(many, "GET http://a.org/ HTTP/1.1\r\n");
	for (int i = 0; i < 101; i++)
		strcat(many, "X: y\r\n");
	strcat(many, "\r\n");
	ok(bad_with(many, 431), "more than 100 fields");
	size_t taken;
	const char *two = "CONNECT a.org:443 HTTP/1.1\r\n\r\n\x16\x03\x01";
	ok(http_bytes(two, &taken) == WK_PARSE_DONE && taken == strlen(two) - 3 &&
		   strcmp(req.target.host, "a.org") == 0,
	   "a byte at a time, stopping right after the head");
	static struct wk_http_parser p;
	size_t used;
	ok(wk_http_feed(&p, two, strlen(two), &used, &req) == WK_PARSE_DONE &&
		   used == strlen(two) - 3,
	   "what follows the head is left to the caller");

	/* SOCKS5. */
	const char *why;
	bool noauth;
	int reply;
	struct wk_target t;
	ok(wk_socks_greeting((const unsigned char *)"\x05\x02\x02\x00", 4, &used, &why, &noauth) ==
		   WK_PARSE_DONE && used == 4, "greeting with no-auth");
	ok(wk_socks_greeting((const unsigned char *)"\x05\x02\x02", 3, &used, &why, &noauth) ==
		   WK_PARSE_MORE, "greeting: more");
	ok(wk_socks_greeting((const unsigned char *)"\x05\x01\x02", 3, &used, &why, &noauth) ==
		   WK_PARSE_BAD && noauth, "greeting without no-auth");
	ok(wk_socks_greeting((const unsigned char *)"\x04\x01", 2, &used, &why, &noauth) ==
		   WK_PARSE_BAD && !noauth, "SOCKS4");
	ok(wk_socks_request((const unsigned char *)"\x05\x01\x00\x03\x07" "a.b.org\x01\xbb", 14,
			    &used, &t, &why, &reply) == WK_PARSE_DONE && used == 14 &&
		   t.family == 0 && strcmp(t.host, "a.b.org") == 0 && t.port == 443,
	   "CONNECT by name");
	ok(wk_socks_request((const unsigned char *)"\x05\x01\x00\x03\x07" "a.b.org\x01", 13, &used,
			    &t, &why, &reply) == WK_PARSE_MORE, "CONNECT by name: more");
	ok(wk_socks_request((const unsigned char *)"\x05\x01\x00\x01\x7f\x00\x00\x01\x00\x50", 10,
			    &used, &t, &why, &reply) == WK_PARSE_DONE && t.family == AF_INET &&
		   strcmp(t.host, "127.0.0.1") == 0 && t.port == 80,
	   "CONNECT by IPv4 address");
	ok(wk_socks_request((const unsigned char *)"\x05\x01\x00\x04\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01"
					       "\x00\x50",
			    22, &used, &t, &why, &reply) == WK_PARSE_DONE &&
		   t.family == AF_INET6 && strcmp(t.host, "::1") == 0,
	   "CONNECT by IPv6 address");
	ok(wk_socks_request((const unsigned char *)"\x05\x01\x00\x03\x09" "127.0.0.1\x00\x50", 16,
			    &used, &t, &why, &reply) == WK_PARSE_DONE && t.family == AF_INET,
	   "an address's text as a name is that address");
	ok(wk_socks_request((const unsigned char *)"\x05\x02\x00\x01", 4, &used, &t, &why, &reply) ==
		   WK_PARSE_BAD && reply == WK_SOCKS_CMD_UNSUPPORTED, "BIND refused");
	ok(wk_socks_request((const unsigned char *)"\x05\x01\x00\x05\x00", 5, &used, &t, &why,
			    &reply) == WK_PARSE_BAD && reply == WK_SOCKS_ATYP_UNSUPPORTED,
	   "unknown address type");
	ok(wk_socks_request((const unsigned char *)"\x05\x01\x00\x03\x05" "a b.c\x00\x50", 12, &used,
			    &t, &why, &reply) == WK_PARSE_BAD, "a malformed name");
	ok(wk_socks_request((const unsigned char *)"\x05\x01\x00\x03\x00", 5, &used, &t, &why,
			    &reply) == WK_PARSE_BAD, "an empty name");
	ok(wk_socks_request((const unsigned char *)"\x05\x01\x00\x01\x01\x02\x03\x04\x00\x00", 10,
			    &used, &t, &why, &reply) == WK_PARSE_BAD, "port 0");
	/* The TLS server name at the start of a tunnel. */
	unsigned char rec[2048];
	char sni[WK_NAME_MAX + 1];
	bool tls;
	size_t rl = hello(rec, "Pkg.Example.ORG.", false, false);
	ok(wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_DONE && tls &&
		   strcmp(sni, "pkg.example.org") == 0,
	   "SNI: lower case, no trailing dot");
	ok(wk_tls_sni(rec, rl - 1, &tls, sni, sizeof sni, &why) == WK_PARSE_MORE &&
		   wk_tls_sni(rec, 3, &tls, sni, sizeof sni, &why) == WK_PARSE_MORE,
	   "SNI: more until the record is whole");
	rl = hello(rec, NULL, false, false);
	ok(wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_DONE && tls && !sni[0],
	   "SNI: none sent");
	ok(wk_tls_sni((const unsigned char *)"SSH-2.0-x", 9, &tls, sni, sizeof sni, &why) ==
		   WK_PARSE_DONE && !tls, "not TLS: nothing to check");
	ok(wk_tls_record_len(rec) == rl, "a record's length");
	{
		/* The server's first bytes: a HelloRetryRequest or not. */
		unsigned char sh[WK_TLS_SERVER_HEAD + 8] = {0x16, 3, 3, 0, 46, 2, 0, 0, 42, 3, 3};
		static const unsigned char magic[32] = {
			0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c,
			0x02, 0x1e, 0x65, 0xb8, 0x91, 0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb,
			0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c};
		bool hrr = true;
		memcpy(sh + 11, magic, sizeof magic);
		ok(wk_tls_hrr(sh, WK_TLS_SERVER_HEAD - 1, &hrr) == WK_PARSE_MORE &&
			   wk_tls_hrr(sh, 0, &hrr) == WK_PARSE_MORE,
		   "HRR: more bytes needed");
		ok(wk_tls_hrr(sh, sizeof sh, &hrr) == WK_PARSE_DONE && hrr, "HRR: seen");
		sh[20] ^= 1;
		ok(wk_tls_hrr(sh, sizeof sh, &hrr) == WK_PARSE_DONE && !hrr,
		   "HRR: a ServerHello with another random is none");
		sh[20] ^= 1;
		sh[5] = 1;
		ok(wk_tls_hrr(sh, sizeof sh, &hrr) == WK_PARSE_DONE && !hrr,
		   "HRR: not a ServerHello");
		sh[0] = 0x15;
		ok(wk_tls_hrr(sh, 1, &hrr) == WK_PARSE_DONE && !hrr, "HRR: an alert is none");
	}
	rl = hello(rec, "a.org", true, false);
	ok(wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_BAD, "SNI twice");
	rl = hello(rec, "a.org", false, true);
	ok(wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_BAD, "ECH refused");
	rl = hello(rec, "a b.org", false, false);
	ok(wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_BAD &&
		   (rl = hello(rec, "127.0.0.1", false, false),
		    wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_BAD),
	   "SNI that is not a host name");
	rl = hello(rec, "a.org", false, false);
	rec[8] = (unsigned char)(rec[8] + 10); /* the hello longer than its record */
	ok(wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_BAD,
	   "a hello split across records");
	rl = hello(rec, "a.org", false, false);
	rec[rl - 9] = 0xff; /* the server_name list length */
	ok(wk_tls_sni(rec, rl, &tls, sni, sizeof sni, &why) == WK_PARSE_BAD, "a malformed extension");

	char text[300];
	t.family = AF_INET6;
	strcpy(t.host, "::1");
	t.port = 443;
	wk_target_text(&t, text, sizeof text);
	is_str(text, "[::1]:443", "an IPv6 target as text");
	edges();
	return done_testing();
}
