/* libFuzzer target: the requests the proxy of network mode "domains"
 * reads from the sandbox (lib/proxyparse.c), and the names and patterns
 * it decides with (lib/netdomain.c). Byte 0 picks how the rest arrives:
 * its low bits a chunk size (1 to 64 bytes a read; 0: all at once), bit
 * 7 SOCKS5 instead of HTTP, bits 7 and 6 a TLS ClientHello (its server
 * name). Whatever the input, the parser takes no
 * more than it is given, stops within its cap, and what it accepts is a
 * checked name or an address, a port from 1, and (HTTP) a forwarded head
 * that ends the way a head ends, with CRLF line ends only. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netdomain.h"
#include "proxyparse.h"

static void check_target(const struct wk_target *t)
{
	if (t->port == 0)
		abort();
	if (t->family == 0 && wk_name_check(t->host, strlen(t->host)))
		abort();
	if (t->family != 0 && t->family != AF_INET && t->family != AF_INET6)
		abort();
	if (t->family == 0)
		for (const char *c = t->host; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				abort();
}

static void fuzz_http(const uint8_t *data, size_t size, size_t chunk)
{
	static struct wk_http_parser p;
	static struct wk_http_req r;
	memset(&p, 0, sizeof p);
	memset(&r, 0, sizeof r);
	size_t at = 0;
	enum wk_parse st = WK_PARSE_MORE;
	while (st == WK_PARSE_MORE && at < size) {
		size_t n = chunk && size - at > chunk ? chunk : size - at, used = 0;
		st = wk_http_feed(&p, (const char *)data + at, n, &used, &r);
		if (used > n)
			abort();
		at += used;
		if (st == WK_PARSE_MORE && used != n)
			abort();
	}
	if (p.len > sizeof p.buf)
		abort();
	if (st == WK_PARSE_BAD && (!r.why || r.status < 400 || r.status > 599))
		abort();
	if (st != WK_PARSE_DONE)
		return;
	check_target(&r.target);
	if (r.connect)
		return;
	if (r.out_len < 4 || r.out_len > sizeof r.out ||
	    memcmp(r.out + r.out_len - 4, "\r\n\r\n", 4) != 0)
		abort();
	for (size_t i = 0; i < r.out_len; i++)
		if ((r.out[i] == '\n') != (i > 0 && r.out[i - 1] == '\r') ||
		    (r.out[i] == '\r' && (i + 1 == r.out_len || r.out[i + 1] != '\n')))
			abort();
}

static void fuzz_socks(const uint8_t *data, size_t size)
{
	size_t used = 0;
	const char *why = NULL;
	bool noauth;
	if (wk_socks_greeting(data, size, &used, &why, &noauth) != WK_PARSE_DONE)
		return;
	if (used > size)
		abort();
	struct wk_target t;
	int reply;
	size_t u2 = 0;
	enum wk_parse st = wk_socks_request(data + used, size - used, &u2, &t, &why, &reply);
	if (st == WK_PARSE_DONE) {
		if (u2 > size - used)
			abort();
		check_target(&t);
	} else if (st == WK_PARSE_BAD && !why) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	uint8_t mode = data[0];
	data++;
	size--;
	if ((mode & 0xc0) == 0xc0) {
		bool tls;
		char sni[WK_NAME_MAX + 1];
		const char *why = NULL;
		enum wk_parse r = wk_tls_sni(data, size, &tls, sni, sizeof sni, &why);
		if ((r == WK_PARSE_BAD && !why) ||
		    (r == WK_PARSE_DONE && sni[0] && wk_name_check(sni, strlen(sni))))
			abort();
		/* A hello checked is one whole record, in the bytes given. */
		if (r == WK_PARSE_DONE && tls && wk_tls_record_len(data) > size)
			abort();
		bool hrr;
		if (wk_tls_hrr(data, size, &hrr) == WK_PARSE_MORE && size >= WK_TLS_SERVER_HEAD)
			abort();
	} else if (mode & 0x80) {
		fuzz_socks(data, size);
	} else {
		fuzz_http(data, size, mode & 0x3f);
	}
	/* The same bytes as a pattern and a name. */
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	size_t half = strlen(s) / 2;
	if (!wk_pattern_check(s)) {
		char *name = s + (s[0] == '*' ? 2 : 0);
		if (!wk_pattern_match(s, name) == (s[0] != '*'))
			abort(); /* an exact pattern matches itself; a wildcard not its base */
	}
	if (!wk_name_check(s, half))
		(void)wk_pattern_match("*.example.org", s);
	free(s);
	return 0;
}
