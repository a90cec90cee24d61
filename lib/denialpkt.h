/* The denial packet (DESIGN §6): one JSON object the preload shim sends
 * the supervisor over the control socket for each sandbox denial,
 *   {"v":1,"type":"denial","kind":"write"|"read"|"network",
 *    "object":"/etc/hosts","what":"open for writing","comm":"sed",
 *    "pid":4242[,"quiet":true|,"shown":true][,"ack":TOKEN]}
 * "pid" is the process's own view (inside the pid namespace); "shown":
 * the shim printed the line itself (WICKET_DIAG=stderr); "quiet": no line
 * and no summary (WICKET_DIAG=off). Either way `wicket why` has it.
 * "ack": the sender waits until the supervisor has put TOKEN on the
 * acknowledgement page (lib/ackpage.h), once the line is out.
 *
 * One codec, both directions: wk_denial_encode (lib/denialpkt.c, in
 * libcore: no allocation, no jansson, no lock; the shim calls it from
 * signal handlers and vfork children) and wk_denial_decode
 * (lib/denialpkt-json.c, jansson, the supervisor's launcher/supervisor/control.c). */
#ifndef WICKET_DENIALPKT_H
#define WICKET_DENIALPKT_H

#include <stdbool.h>
#include <stddef.h>

#define WK_DENIAL_MAX 8000      /* an encoded packet is shorter */
#define WK_DENIAL_TEXT_MAX 3600 /* bytes of a string kept ("..." after them) */
/* What the decoder accepts: longer strings make the packet malformed. */
#define WK_DENIAL_KIND_MAX 16
#define WK_DENIAL_OBJECT_MAX 4096
#define WK_DENIAL_WHAT_MAX 64
#define WK_DENIAL_COMM_MAX 64

enum wk_denial_show {
	WK_DENIAL_PRINT, /* the supervisor prints the line */
	WK_DENIAL_SHOWN, /* "shown": the shim printed it */
	WK_DENIAL_QUIET, /* "quiet": no line, no summary */
};

struct wk_denial_pkt {
	const char *kind;   /* "write", "read", "network" */
	const char *object; /* a path, or "connect 127.0.0.1:8080/tcp" */
	const char *what;   /* "open for writing"; NULL: none (the network) */
	const char *comm;
	long pid;           /* 1 to 2^30 - 1 */
	enum wk_denial_show show;
	unsigned long long ack; /* 0: none; else 1 to 2^53 - 1 */
};

/* D as one packet in BUF (SIZE bytes): its length, or 0 when it does not
 * fit (then nothing is to be sent). Strings are kept as valid UTF-8 (the
 * supervisor decides what it shows): invalid bytes and control
 * characters become '?', quotes and backslashes are escaped, and each is
 * cut after WK_DENIAL_TEXT_MAX bytes with "...". KIND and the numbers are
 * written as given. */
size_t wk_denial_encode(char *buf, size_t size, const struct wk_denial_pkt *d);

/* O, a packet parsed by jansson (a json_t * with "type": "denial"), into
 * D, whose strings point into O (valid while O is). False when anything
 * is wrong: a field missing, of the wrong type, too long, with a NUL in
 * it; a kind that is not one of the three; a pid out of range. D->ack is
 * set whenever "ack" is well-formed, even in a packet that is not: its
 * sender waits all the same. */
struct json_t;
bool wk_denial_decode(struct json_t *o, struct wk_denial_pkt *d);

#endif
