/* The requests the supervisor's proxy reads from the sandbox (network
 * mode "domains"): an HTTP/1.x request head (CONNECT host:port, or a
 * plain request with an absolute http:// URI) and a SOCKS5 greeting and
 * CONNECT request. Pure, no allocation, bounded: the caller owns the
 * buffers, and every input is refused with a reason rather than guessed
 * at.
 *
 * The HTTP parser is strict where proxies and servers have been made to
 * disagree (request smuggling): lines end in CRLF only (a bare CR or LF
 * is refused), no obs-fold, no space before a header's colon, at most
 * one Content-Length (digits only) and never with Transfer-Encoding,
 * which may only be "chunked", at most one Host, equal to the target's
 * authority. The head is at most WK_HTTP_HEAD_MAX bytes. */
#ifndef WICKET_PROXYPARSE_H
#define WICKET_PROXYPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netdomain.h"

#define WK_HTTP_HEAD_MAX 8192
#define WK_HTTP_HEADERS_MAX 100

/* Where a request wants to go: a name (FAMILY 0, HOST lower case, no
 * trailing dot) or an address (FAMILY AF_INET or AF_INET6, ADDR; HOST its
 * text), and a port. */
struct wk_target {
	int family;
	unsigned char addr[16];
	char host[WK_NAME_MAX + 1];
	uint16_t port;
};

/* TEXT (LEN bytes) as a host: an IPv4 address in dotted-quad form, an
 * IPv6 address in brackets when BRACKETS (as in a URI), or a name. NULL
 * and T filled in (but T->port), or why not. */
const char *wk_target_host(const char *text, size_t len, bool brackets, struct wk_target *t);

enum wk_parse { WK_PARSE_MORE, WK_PARSE_DONE, WK_PARSE_BAD };

struct wk_http_req {
	bool connect;               /* CONNECT (else a request to forward) */
	struct wk_target target;
	char method[24];
	/* For a forwarded request: the head to send the server, the target
	 * in origin form, the proxy's and connection headers dropped,
	 * "Connection: close" added (one request per connection: nothing
	 * that follows on it can be read as a request to somewhere else). */
	char out[WK_HTTP_HEAD_MAX + 64];
	size_t out_len;
	int status;                 /* WK_PARSE_BAD: the status to answer (400, 405, 414, 431, 501) */
	const char *why;            /* WK_PARSE_BAD: the reason, static */
};

struct wk_http_parser {
	char buf[WK_HTTP_HEAD_MAX];
	size_t len;  /* bytes in BUF */
	size_t scan; /* where the search for the head's end resumes */
};

/* Take bytes of DATA (N) into P until the head is complete: returns
 * WK_PARSE_MORE (all taken), WK_PARSE_DONE (*USED of them taken; the rest
 * follows the head, e.g. a body) with R filled in, or WK_PARSE_BAD with
 * R->status and R->why. Work is linear in the bytes given over all
 * calls. */
enum wk_parse wk_http_feed(struct wk_http_parser *p, const char *data, size_t n, size_t *used,
			   struct wk_http_req *r);

/* SOCKS5 (RFC 1928), no authentication, CONNECT only. */
enum wk_socks_reply {
	WK_SOCKS_OK = 0,
	WK_SOCKS_FAILURE = 1,
	WK_SOCKS_NOT_ALLOWED = 2,
	WK_SOCKS_NET_UNREACHABLE = 3,
	WK_SOCKS_HOST_UNREACHABLE = 4,
	WK_SOCKS_REFUSED = 5,
	WK_SOCKS_CMD_UNSUPPORTED = 7,
	WK_SOCKS_ATYP_UNSUPPORTED = 8,
};
/* The greeting in BUF (LEN bytes): WK_PARSE_MORE, WK_PARSE_DONE (*USED
 * bytes; the client offered "no authentication"), or WK_PARSE_BAD
 * (*WHY; *NOAUTH true when it was well formed but offered no method we
 * take, to be answered 0xFF). */
enum wk_parse wk_socks_greeting(const unsigned char *buf, size_t len, size_t *used,
				const char **why, bool *noauth);
/* The request after the greeting: WK_PARSE_MORE, WK_PARSE_DONE (*USED
 * bytes, T filled in), or WK_PARSE_BAD (*WHY, *REPLY the code to answer,
 * 0: none, just close). */
enum wk_parse wk_socks_request(const unsigned char *buf, size_t len, size_t *used,
			       struct wk_target *t, const char **why, int *reply);

/* The server name of the TLS ClientHello at the start of a tunnel, in
 * BUF (LEN bytes so far; at most WK_TLS_HELLO_MAX are needed):
 * WK_PARSE_MORE; WK_PARSE_DONE with *TLS false (the bytes are not a TLS
 * handshake: nothing to check), or *TLS true and SNI the name, lower
 * case without a trailing dot ("" when the client sent none); or
 * WK_PARSE_BAD (*WHY): a malformed hello, a server name that is not a
 * name, two of them, a hello split across records, or an encrypted
 * ClientHello (ECH), whose real server name the proxy cannot see. */
#define WK_TLS_HELLO_MAX (5 + 16384)
enum wk_parse wk_tls_sni(const unsigned char *buf, size_t len, bool *tls, char *sni,
			 size_t snisz, const char **why);

/* The length of the TLS record at the start of BUF (LEN >= 5 bytes). */
size_t wk_tls_record_len(const unsigned char *buf);

/* The server's first bytes in a tunnel whose client sent a TLS
 * ClientHello: WK_PARSE_MORE until WK_TLS_SERVER_HEAD bytes are in;
 * then WK_PARSE_DONE, *HRR true when they begin a TLS 1.3
 * HelloRetryRequest (RFC 8446 4.1.3: a ServerHello whose random is the
 * SHA-256 of "HelloRetryRequest"), after which the client sends a second
 * ClientHello. Anything else (a ServerHello, an alert, not TLS): false. */
#define WK_TLS_SERVER_HEAD (5 + 4 + 2 + 32)
enum wk_parse wk_tls_hrr(const unsigned char *buf, size_t len, bool *hrr);

/* The target as a request names it, for messages: "host:port",
 * "[v6]:port"; into O (at least WK_NAME_MAX + 10 bytes). */
size_t wk_target_text(const struct wk_target *t, char *o, size_t osz);

#endif
