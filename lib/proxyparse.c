/* The proxy's request parsers (proxyparse.h). */
#include "config.h"

#include "proxyparse.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "netfmt.h"

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

static bool same_ci(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b);
	if (an != bn)
		return false;
	for (size_t i = 0; i < an; i++)
		if (lower(a[i]) != lower(b[i]))
			return false;
	return true;
}

const char *wk_target_host(const char *text, size_t len, bool brackets, struct wk_target *t)
{
	char tmp[64];
	memset(t->addr, 0, sizeof t->addr);
	if (len && text[0] == '[') {
		if (!brackets)
			return "an IPv6 address in brackets";
		if (len < 3 || text[len - 1] != ']' || len - 2 >= sizeof tmp)
			return "a malformed IPv6 address";
		memcpy(tmp, text + 1, len - 2);
		tmp[len - 2] = '\0';
		/* inet_pton takes no zone ("%eth0"), and no other form. */
		if (inet_pton(AF_INET6, tmp, t->addr) != 1)
			return "a malformed IPv6 address";
		t->family = AF_INET6;
		netfmt_ipv6(t->host, t->addr);
		return NULL;
	}
	if (len && len < sizeof tmp && memchr(text, ':', len) == NULL) {
		memcpy(tmp, text, len);
		tmp[len] = '\0';
		/* Dotted quad only: glibc's inet_pton refuses "127.1", octal
		 * and hexadecimal parts; wk_name_check refuses those as names. */
		if (inet_pton(AF_INET, tmp, t->addr) == 1) {
			t->family = AF_INET;
			netfmt_ipv4(t->host, t->addr);
			return NULL;
		}
	}
	if (memchr(text, ':', len))
		return brackets ? "an IPv6 address outside brackets" : "a ':' in a name";
	const char *why = wk_name_check(text, len);
	if (why)
		return why;
	if (text[len - 1] == '.')
		len--;
	for (size_t i = 0; i < len; i++)
		t->host[i] = lower(text[i]);
	t->host[len] = '\0';
	t->family = 0;
	return NULL;
}

size_t wk_target_text(const struct wk_target *t, char *o, size_t osz)
{
	int n = snprintf(o, osz, t->family == AF_INET6 ? "[%s]:%u" : "%s:%u", t->host,
			 (unsigned)t->port);
	return n < 0 ? 0 : (size_t)n < osz ? (size_t)n : osz - 1;
}

/* A port as a URI writes it: 1 to 65535, no sign, no leading zero. */
static bool parse_port(const char *s, size_t n, uint16_t *port)
{
	if (n == 0 || n > 5 || s[0] == '0')
		return false;
	unsigned v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v > 65535)
		return false;
	*port = (uint16_t)v;
	return true;
}

/* "host[:port]" (HAS_PORT: the port must be there) into T. */
static const char *parse_authority(const char *s, size_t n, bool need_port, uint16_t dflt,
				   struct wk_target *t)
{
	size_t hl = n;
	const char *colon = NULL;
	if (n && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close)
			return "a malformed IPv6 address";
		hl = (size_t)(close - s) + 1;
		if (hl < n) {
			if (s[hl] != ':')
				return "a malformed authority";
			colon = s + hl;
		}
	} else {
		colon = memchr(s, ':', n);
		if (colon)
			hl = (size_t)(colon - s);
	}
	if (memchr(s, '@', n))
		return "user information in the authority";
	if (hl == 0)
		return "no host";
	const char *why = wk_target_host(s, hl, true, t);
	if (why)
		return why;
	if (colon) {
		if (!parse_port(colon + 1, n - hl - 1, &t->port))
			return "a port that is not 1 to 65535 written plainly";
	} else if (need_port) {
		return "no port";
	} else {
		t->port = dflt;
	}
	return NULL;
}

static bool tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static enum wk_parse bad(struct wk_http_req *r, int status, const char *why)
{
	r->status = status;
	r->why = why;
	return WK_PARSE_BAD;
}

static bool put(struct wk_http_req *r, const char *s, size_t n)
{
	if (r->out_len + n > sizeof r->out)
		return false;
	memcpy(r->out + r->out_len, s, n);
	r->out_len += n;
	return true;
}

static bool same_target(const struct wk_target *a, const struct wk_target *b)
{
	if (a->family != b->family || a->port != b->port)
		return false;
	if (a->family)
		return memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16) == 0;
	return strcmp(a->host, b->host) == 0;
}

/* The whole head, BUF[0..LEN) ending in CRLF CRLF, every line ending in
 * CRLF (checked while it was read). */
static enum wk_parse parse_head(const char *buf, size_t len, struct wk_http_req *r)
{
	const char *end = buf + len, *line = buf;
	const char *eol = memchr(line, '\r', (size_t)(end - line));
	/* Request line: METHOD SP TARGET SP HTTP/1.x */
	const char *sp1 = memchr(line, ' ', (size_t)(eol - line));
	if (!sp1 || sp1 == line)
		return bad(r, 400, "a malformed request line");
	size_t ml = (size_t)(sp1 - line);
	if (ml >= sizeof r->method)
		return bad(r, 501, "an unknown method");
	for (size_t i = 0; i < ml; i++)
		if (!tchar((unsigned char)line[i]))
			return bad(r, 400, "a malformed method");
	memcpy(r->method, line, ml);
	r->method[ml] = '\0';
	const char *tgt = sp1 + 1;
	const char *sp2 = memchr(tgt, ' ', (size_t)(eol - tgt));
	if (!sp2 || sp2 == tgt)
		return bad(r, 400, "a malformed request line");
	size_t tl = (size_t)(sp2 - tgt);
	for (size_t i = 0; i < tl; i++)
		if ((unsigned char)tgt[i] <= ' ' || tgt[i] == 0x7f)
			return bad(r, 400, "a control character in the request target");
	const char *ver = sp2 + 1;
	size_t vl = (size_t)(eol - ver);
	if (!(vl == 8 && (memcmp(ver, "HTTP/1.1", 8) == 0 || memcmp(ver, "HTTP/1.0", 8) == 0)))
		return bad(r, 505, "not HTTP/1.0 or HTTP/1.1");

	r->connect = strcmp(r->method, "CONNECT") == 0;
	const char *why;
	const char *path = NULL;
	size_t pl = 0;
	if (r->connect) {
		if ((why = parse_authority(tgt, tl, true, 0, &r->target)))
			return bad(r, 400, why);
	} else {
		static const char http[] = "http://";
		if (tl >= 8 && same_ci(tgt, 8, "https://"))
			return bad(r, 400, "an https:// URI (HTTPS goes through CONNECT: HTTPS_PROXY)");
		if (tl < 7 || !same_ci(tgt, 7, http))
			return bad(r, 400, "not a proxy request (no absolute http:// URI)");
		const char *auth = tgt + 7, *te = tgt + tl, *p = auth;
		while (p < te && *p != '/' && *p != '?' && *p != '#')
			p++;
		if (memchr(tgt, '#', tl))
			return bad(r, 400, "a fragment in the request target");
		if ((why = parse_authority(auth, (size_t)(p - auth), false, 80, &r->target)))
			return bad(r, 400, why);
		path = p;
		pl = (size_t)(te - p);
		r->out_len = 0;
		put(r, r->method, ml);
		put(r, " ", 1);
		if (pl == 0 || *path == '?')
			put(r, "/", 1);
		put(r, path, pl);
		put(r, " ", 1);
		put(r, ver, 8);
		put(r, "\r\n", 2);
	}

	bool seen_cl = false, seen_te = false, seen_host = false;
	unsigned long long cl = 0;
	size_t nh = 0;
	line = eol + 2;
	while (line < end) {
		eol = memchr(line, '\r', (size_t)(end - line));
		if (eol == line)
			break; /* the empty line */
		if (++nh > WK_HTTP_HEADERS_MAX)
			return bad(r, 431, "more than 100 header fields");
		if (*line == ' ' || *line == '\t')
			return bad(r, 400, "a folded header line (obs-fold)");
		const char *colon = line;
		while (colon < eol && tchar((unsigned char)*colon))
			colon++;
		if (colon == eol || *colon != ':')
			return bad(r, 400, colon == line ? "a header without a name"
							  : "a malformed header name (space before ':'?)");
		if (colon == line)
			return bad(r, 400, "a header without a name");
		size_t nl = (size_t)(colon - line);
		const char *v = colon + 1, *ve = eol;
		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		for (const char *c = v; c < ve; c++)
			if (((unsigned char)*c < ' ' && *c != '\t') || *c == 0x7f)
				return bad(r, 400, "a control character in a header value");
		size_t vlen = (size_t)(ve - v);
		bool keep = true;
		if (same_ci(line, nl, "content-length")) {
			if (seen_cl)
				return bad(r, 400, "more than one Content-Length");
			seen_cl = true;
			if (vlen == 0 || vlen > 18)
				return bad(r, 400, "a malformed Content-Length");
			for (size_t i = 0; i < vlen; i++) {
				if (v[i] < '0' || v[i] > '9')
					return bad(r, 400, "a malformed Content-Length");
				cl = cl * 10 + (unsigned)(v[i] - '0');
			}
		} else if (same_ci(line, nl, "transfer-encoding")) {
			if (seen_te)
				return bad(r, 400, "more than one Transfer-Encoding");
			seen_te = true;
			if (!same_ci(v, vlen, "chunked"))
				return bad(r, 501, "a Transfer-Encoding other than chunked");
		} else if (same_ci(line, nl, "host")) {
			if (seen_host)
				return bad(r, 400, "more than one Host");
			seen_host = true;
			struct wk_target h;
			if (parse_authority(v, vlen, false, r->target.port, &h) ||
			    !same_target(&h, &r->target))
				return bad(r, 400, "a Host header that differs from the request target");
		} else if (same_ci(line, nl, "proxy-connection") ||
			   same_ci(line, nl, "proxy-authorization") || same_ci(line, nl, "connection") ||
			   same_ci(line, nl, "keep-alive")) {
			keep = false;
		}
		if (keep && !r->connect && !put(r, line, (size_t)(eol - line) + 2))
			return bad(r, 431, "a request head too large to forward");
		line = eol + 2;
	}
	if (seen_te && seen_cl)
		return bad(r, 400, "both Transfer-Encoding and Content-Length");
	if (r->connect && (seen_te || cl))
		return bad(r, 400, "a CONNECT request with a body");
	if (r->connect)
		return WK_PARSE_DONE;
	if (!seen_host) {
		char h[WK_NAME_MAX + 32];
		size_t n = wk_target_text(&r->target, h, sizeof h);
		if (!put(r, "Host: ", 6) || !put(r, h, n) || !put(r, "\r\n", 2))
			return bad(r, 431, "a request head too large to forward");
	}
	if (!put(r, "Connection: close\r\n\r\n", 21))
		return bad(r, 431, "a request head too large to forward");
	return WK_PARSE_DONE;
}

enum wk_parse wk_http_feed(struct wk_http_parser *p, const char *data, size_t n, size_t *used,
			   struct wk_http_req *r)
{
	size_t old = p->len, room = sizeof p->buf - p->len;
	size_t take = n < room ? n : room;
	memcpy(p->buf + p->len, data, take);
	p->len += take;
	*used = take;
	/* Every byte is looked at once: a CR must start CRLF, a LF end it, no
	 * NUL anywhere; the head ends at the first CRLF CRLF. */
	for (size_t i = p->scan; i < p->len; i++) {
		char c = p->buf[i];
		if (c == '\0')
			return bad(r, 400, "a NUL byte in the request head");
		if (c == '\n' && (i == 0 || p->buf[i - 1] != '\r'))
			return bad(r, 400, "a line that does not end in CRLF");
		if (i > 0 && p->buf[i - 1] == '\r' && c != '\n')
			return bad(r, 400, "a bare CR in the request head");
		if (c == '\n' && i >= 3 && p->buf[i - 2] == '\n') {
			size_t head = i + 1;
			*used = head - old;
			p->scan = head;
			if (head == 4)
				return bad(r, 400, "an empty request line");
			return parse_head(p->buf, head, r);
		}
		if (c == '\n' && i == 1)
			return bad(r, 400, "an empty request line");
	}
	p->scan = p->len;
	if (p->len == sizeof p->buf)
		return bad(r, 431, "a request head larger than 8192 bytes");
	return WK_PARSE_MORE;
}

enum wk_parse wk_socks_greeting(const unsigned char *buf, size_t len, size_t *used,
				const char **why, bool *noauth)
{
	*noauth = false;
	if (len >= 1 && buf[0] != 5) {
		*why = "not a SOCKS5 greeting";
		return WK_PARSE_BAD;
	}
	if (len < 2)
		return WK_PARSE_MORE;
	if (buf[1] == 0) {
		*why = "a SOCKS5 greeting without methods";
		return WK_PARSE_BAD;
	}
	if (len < 2 + (size_t)buf[1])
		return WK_PARSE_MORE;
	*used = 2 + (size_t)buf[1];
	if (memchr(buf + 2, 0, buf[1]))
		return WK_PARSE_DONE;
	*why = "a SOCKS5 client that wants authentication";
	*noauth = true;
	return WK_PARSE_BAD;
}

enum wk_parse wk_socks_request(const unsigned char *buf, size_t len, size_t *used,
			       struct wk_target *t, const char **why, int *reply)
{
	*reply = WK_SOCKS_FAILURE;
	if (len >= 1 && buf[0] != 5) {
		*why = "not a SOCKS5 request";
		*reply = 0;
		return WK_PARSE_BAD;
	}
	if (len >= 2 && buf[1] != 1) {
		*why = "a SOCKS5 command other than CONNECT";
		*reply = WK_SOCKS_CMD_UNSUPPORTED;
		return WK_PARSE_BAD;
	}
	if (len >= 3 && buf[2] != 0) {
		*why = "a malformed SOCKS5 request";
		return WK_PARSE_BAD;
	}
	if (len < 5)
		return WK_PARSE_MORE;
	size_t need;
	switch (buf[3]) {
	case 1: need = 4 + 4 + 2; break;
	case 4: need = 4 + 16 + 2; break;
	case 3:
		if (buf[4] == 0) {
			*why = "an empty name";
			return WK_PARSE_BAD;
		}
		need = 5 + (size_t)buf[4] + 2;
		break;
	default:
		*why = "a SOCKS5 address type that does not exist";
		*reply = WK_SOCKS_ATYP_UNSUPPORTED;
		return WK_PARSE_BAD;
	}
	if (len < need)
		return WK_PARSE_MORE;
	memset(t->addr, 0, sizeof t->addr);
	if (buf[3] == 1) {
		t->family = AF_INET;
		memcpy(t->addr, buf + 4, 4);
		netfmt_ipv4(t->host, t->addr);
	} else if (buf[3] == 4) {
		t->family = AF_INET6;
		memcpy(t->addr, buf + 4, 16);
		netfmt_ipv6(t->host, t->addr);
	} else {
		/* A name here may also be an address's text ("127.0.0.1"),
		 * which is taken as the address it is. */
		const char *w = wk_target_host((const char *)buf + 5, buf[4], false, t);
		if (w) {
			*why = w;
			*reply = WK_SOCKS_HOST_UNREACHABLE;
			return WK_PARSE_BAD;
		}
	}
	t->port = (uint16_t)(buf[need - 2] << 8 | buf[need - 1]);
	if (t->port == 0) {
		*why = "port 0";
		return WK_PARSE_BAD;
	}
	*used = need;
	return WK_PARSE_DONE;
}

static unsigned be16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

enum wk_parse wk_tls_sni(const unsigned char *buf, size_t len, bool *tls, char *sni,
			 size_t snisz, const char **why)
{
	*tls = false;
	sni[0] = '\0';
	if (len == 0)
		return WK_PARSE_MORE;
	if (buf[0] != 0x16)
		return WK_PARSE_DONE; /* not a TLS handshake record */
	*tls = true;
	if (len < 5)
		return WK_PARSE_MORE;
	size_t rl = be16(buf + 3);
	if (buf[1] != 3 || rl < 4 || rl > 16384) {
		*why = "a malformed TLS record";
		return WK_PARSE_BAD;
	}
	if (len < 5 + rl)
		return WK_PARSE_MORE;
	const unsigned char *p = buf + 5, *end;
	if (p[0] != 1) {
		*why = "a TLS handshake that does not start with a ClientHello";
		return WK_PARSE_BAD;
	}
	size_t hl = (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
	if (hl > rl - 4) {
		*why = "a ClientHello split across TLS records";
		return WK_PARSE_BAD;
	}
	end = p + 4 + hl;
	p += 4;
#define NEED(n)                                           \
	do {                                              \
		if ((size_t)(end - p) < (size_t)(n)) {    \
			*why = "a malformed ClientHello"; \
			return WK_PARSE_BAD;              \
		}                                         \
	} while (0)
	NEED(2 + 32 + 1);
	p += 2 + 32;
	size_t n = *p++;
	NEED(n + 2);
	p += n;
	n = be16(p);
	p += 2;
	NEED(n + 1);
	p += n;
	n = *p++;
	NEED(n);
	p += n;
	if (p == end)
		return WK_PARSE_DONE; /* no extensions, no server name */
	NEED(2);
	n = be16(p);
	p += 2;
	NEED(n);
	end = p + n;
	bool seen = false;
	while (p < end) {
		NEED(4);
		unsigned type = be16(p);
		size_t el = be16(p + 2);
		p += 4;
		NEED(el);
		if (type == 0xfe0d) {
			*why = "an encrypted ClientHello (ECH), which hides the server name";
			return WK_PARSE_BAD;
		}
		if (type == 0) {
			const unsigned char *q = p, *qe = p + el;
			if (seen || el < 2 || be16(q) != el - 2) {
				*why = "a malformed or repeated server_name extension";
				return WK_PARSE_BAD;
			}
			seen = true;
			q += 2;
			size_t names = 0;
			while (q < qe) {
				if (qe - q < 3 || (size_t)(qe - q - 3) < be16(q + 1)) {
					*why = "a malformed server_name extension";
					return WK_PARSE_BAD;
				}
				size_t nl = be16(q + 1);
				if (q[0] == 0) {
					const char *name = (const char *)q + 3;
					if (names++ || wk_name_check(name, nl) || nl >= snisz) {
						*why = "a TLS server name that is not one host name";
						return WK_PARSE_BAD;
					}
					size_t keep = name[nl - 1] == '.' ? nl - 1 : nl;
					for (size_t i = 0; i < keep; i++)
						sni[i] = lower(name[i]);
					sni[keep] = '\0';
				}
				q += 3 + nl;
			}
		}
		p += el;
	}
#undef NEED
	return WK_PARSE_DONE;
}

size_t wk_tls_record_len(const unsigned char *buf)
{
	return 5 + be16(buf + 3);
}

enum wk_parse wk_tls_hrr(const unsigned char *buf, size_t len, bool *hrr)
{
	static const unsigned char magic[32] = {
		0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c,
		0x02, 0x1e, 0x65, 0xb8, 0x91, 0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb,
		0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c};
	*hrr = false;
	if (len && buf[0] != 0x16)
		return WK_PARSE_DONE;
	if (len < WK_TLS_SERVER_HEAD)
		return WK_PARSE_MORE;
	*hrr = buf[5] == 2 && memcmp(buf + 11, magic, sizeof magic) == 0;
	return WK_PARSE_DONE;
}
