/* A grant: the extra rights one approved command gets, on top of the
 * session's policy, in a sandbox of its own (`wicket ask --write P --
 * CMD`, an escalation.allow rule's "grant", an approver's answer).
 * Escalation never widens the running session and, unless a person at
 * the terminal says so for `--outside`, never runs anything outside a
 * sandbox: what a rule or an approver decides is this finite, declared
 * set of rights, not what a program might do with its arguments.
 *
 *   write   PATH  writable (planned like --write: what runs code later
 *                 beneath it stays protected)
 *   read    PATH  readable, a hidden store included
 *   net     HOST[:PORT]  reached through the proxy (mode domains): a name
 *                 or "*." pattern, or an address ("[v6]:PORT" with a port)
 *   socket  PATH  a host unix socket that may be connected to
 *   env     NAME  a variable the policy removes, passed through
 *
 * Pure (no system calls, no globals): the fuzzer, the unit tests and the
 * mutation check run all of it. */
#ifndef WICKET_GRANT_H
#define WICKET_GRANT_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

#define GRANT_ITEMS_MAX 64 /* items of one kind in one grant */

enum wk_grant_kind { WK_GRANT_WRITE, WK_GRANT_READ, WK_GRANT_NET, WK_GRANT_SOCKET, WK_GRANT_ENV,
		     WK_GRANT_KINDS };

struct wk_grant {
	/* Each canonical: paths absolute and normalised, hosts lower case
	 * with no trailing dot, addresses in inet_ntop's text, each once. */
	struct strv v[WK_GRANT_KINDS];
};

/* "write", "read", "net", "socket", "env": the JSON key and, with "--"
 * before it, the option of `wicket ask`. */
const char *wk_grant_kind_name(enum wk_grant_kind k);
/* The kind named NAME, or -1. */
int wk_grant_kind_of(const char *name);

/* VALUE added to G as one item of kind K (made canonical; a duplicate is
 * dropped). Paths must be absolute. NULL, or why VALUE is refused
 * (allocated). */
char *wk_grant_add(struct wk_grant *g, enum wk_grant_kind k, const char *value);
bool wk_grant_empty(const struct wk_grant *g);
void wk_grant_free(struct wk_grant *g);

/* A "net" item split: HOST (a name, pattern or canonical address, in a
 * buffer of at least WK_GRANT_HOST_MAX bytes) and PORT (0: any). */
#define WK_GRANT_HOST_MAX 256
void wk_grant_net_split(const char *item, char *host, int *port, bool *address);

/* A target HOST (a name, or an address's canonical text) on PORT, allowed
 * by the pattern or address HOST_RULE: true unless LIMITS (N net items)
 * name HOST_RULE with ports, none of them PORT. */
bool wk_grant_port_ok(char *const *limits, size_t n, const char *host_rule, unsigned port);

/* NULL when every item of ASKED is within GIVEN, else the first that is
 * not, as an option ("--write /x", allocated). Within: a path at or
 * beneath one of the same kind (a read also beneath a write); a host
 * that a given pattern matches, on its port or with no port given; a
 * socket or a variable named the same. */
char *wk_grant_covers(const struct wk_grant *given, const struct wk_grant *asked);

/* {"write":[...],...} (each kind optional, no other key) into G, each
 * string EXPANDed first when EXPAND is not NULL (a policy's variables;
 * NULL and *WHY set: refused). false and *WHY (allocated) when refused. */
struct json_t;
bool wk_grant_from_json(struct json_t *o, char *(*expand)(void *ctx, const char *in, char **why),
			void *ctx, struct wk_grant *g, char **why);
/* G as that object (only the kinds it has). */
struct json_t *wk_grant_to_json(const struct wk_grant *g);

/* The grant as wicket ask's options, quoted for a shell ("--write /a
 * --net example.org:443"; "" when empty). Allocated. */
char *wk_grant_text(const struct wk_grant *g);

#endif
