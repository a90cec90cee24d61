/* WICKET_RULES: the session's rules as the launcher hands them to the
 * preload shim (DESIGN §5), one rule a line, "K VALUE\n":
 *   r PATH   readable root ("/" means everything)
 *   w PATH   writable root
 *   p PATH   protected: read-only inside a writable root
 *   h PATH   hidden: covered, unreadable
 *   k PATH   kept: a host directory bound read-only inside the session's
 *            own /tmp (its sockets are the host's)
 *   n MODE   network: none | full | ports
 *   c PORT   ports mode: TCP connect() allowed
 *   b PORT   ports mode: TCP bind() allowed
 *   u 1      ports mode: UDP allowed
 *   l 1      Landlock refuses pathname unix sockets outside the writable
 *            roots (ABI 9): an EACCES from connect() or a datagram send to
 *            such a path is the shim's to report (before ABI 9 the
 *            supervisor decides them, and reports them itself)
 *   s 1      the supervisor reports seccomp's network refusals itself (it
 *            receives them as seccomp user notifications): the EPERM of
 *            socket() and of a Fast Open send is not the shim's to report.
 *            First when present; "s 0" when the listener did not come.
 * Paths are canonical and absolute, ports decimal 1 to 65535. What the
 * path rules mean, and how they decide a path: lib/classify.h.
 *
 * Written by launcher/plan/diag.c, read by the shim (preload/diag.c), edited
 * by netnotify.c between vfork and exec: nothing here allocates, locks or
 * uses stdio. */
#ifndef WICKET_RULES_H
#define WICKET_RULES_H

#include <stdbool.h>
#include <stddef.h>

enum {
	RULE_READ = 'r',
	RULE_WRITE = 'w',
	RULE_PROTECT = 'p',
	RULE_HIDE = 'h',
	/* A hidden path the user could not read, write (or search) outside
	 * either, nor change (not theirs): still covered, but a refusal
	 * there is an ordinary one, not said (plan.c, dac_closed). */
	RULE_HIDE_CLOSED = 'q',
	RULE_KEEP = 'k',
	RULE_NET = 'n',
	RULE_CONNECT = 'c',
	RULE_BIND = 'b',
	RULE_UDP = 'u',
	RULE_UNIX = 'l',
	RULE_SUPERVISOR = 's',
};

enum { RULES_NET_UNKNOWN, RULES_NET_NONE, RULES_NET_FULL, RULES_NET_PORTS };

/* ---- encoding ---- */

/* The rule KIND VALUE appended to BUF (SIZE bytes, the first LEN used,
 * kept NUL-terminated): the length BUF then has. Written only when that
 * is below SIZE (else nothing is: make room and call again). 0 for what
 * cannot be a rule: an unknown kind, an empty value, a newline in it, a
 * path kind whose value is not absolute, a port kind not 1 to 65535. */
size_t rules_put(char *buf, size_t size, size_t len, char kind, const char *value);
/* The value of RULE_NET for RULES_NET_NONE, _FULL, _PORTS. */
const char *rules_net_name(int mode);

/* ---- decoding ---- */

/* The next rule from *CUR (advanced past it): its KIND and VALUE, LEN
 * bytes, not NUL-terminated. Lines that are not a rule as rules_put
 * writes them are skipped. False at the end. */
bool rules_next(const char **cur, char *kind, const char **value, size_t *len);

/* A rule of KIND (a path kind) covers PATH (absolute): PATH is its path
 * or beneath it (pathlex_under). ROOT (ROOTSZ bytes, may be NULL) gets that rule's path. */
bool rules_cover(const char *rules, char kind, const char *path, char *root, size_t rootsz);
/* A rule KIND VALUE exactly. */
bool rules_is(const char *rules, char kind, const char *value);
/* A port rule of KIND for PORT. */
bool rules_port(const char *rules, char kind, unsigned port);
/* The first RULE_NET's mode; RULES_NET_UNKNOWN without one. */
int rules_net(const char *rules);

/* ---- editing ---- */

/* A leading "s 1" in RULES (the value of WICKET_RULES, in place) made
 * "s 0": the supervisor has no listener, the shim reports all. */
void rules_supervisor_off(char *rules);

#endif
