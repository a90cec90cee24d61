/* A refusal turned into the narrowest grant (grant.h) that allows it,
 * and the command that asks for it: what `wicket why`, `why --json` and
 * the shell hooks' `ask` offer is derived here, never guessed.
 *
 * What the session's rules make of the refusal is the caller's, decided
 * by the code that decided the denial and explains it (the supervisor's
 * control.c, over classify.c and the plan): which directory a grant may
 * make writable (none where that would lift a protection, make writable
 * a place that runs code later, or a shared space), which hidden store
 * or directory a read needs, whether a name or an address can be
 * granted at all. What the grant names, and the command line, are
 * decided here: pure (no system calls, no globals), unit- and
 * mutation-tested. */
#ifndef WICKET_GRANTDERIVE_H
#define WICKET_GRANTDERIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "grant.h"
#include "util.h"

enum wk_refused {
	/* A write to OBJECT. PLACE: the directory a grant makes writable
	 * (its own or its nearest existing one, checked by the caller);
	 * NULL: no grant may (a protection, a shared space...). */
	WK_REFUSED_WRITE,
	/* A read of OBJECT. PLACE: the hidden store that covers it (a grant
	 * lifts a store whole), or the directory to read; NULL: none. */
	WK_REFUSED_READ,
	/* A call refused by the sandbox's network rules, OBJECT as its
	 * line names it: "connect 10.0.0.1:443/tcp", "connect [::1]:22/tcp",
	 * "connect unix:/run/x.sock" (also "sendto", "sendmsg" for a unix
	 * socket). LIFTABLE: a --net grant would reach an address (the
	 * session has no network: its grant's sandbox gets the proxy; a
	 * program that went around the proxy is not helped by one); then
	 * a refusal before any address (a name lookup's "socket
	 * ipv4/udp", "socket ipv4/tcp") is granted the hosts and ports of
	 * the URLs among the process's arguments (wk_url_targets). A unix
	 * socket is granted by its path whatever LIFTABLE says. */
	WK_REFUSED_CONNECT,
	/* A request the proxy refused, OBJECT as its line names it:
	 * "CONNECT host:443", "GET [::1]:80". PLACE: the host to grant
	 * instead of the object's (the name a TLS hello asked for, the
	 * address a name resolved to), NULL: the object's. LIFTABLE false:
	 * no grant lifts it (a deny list, a malformed request). */
	WK_REFUSED_PROXY,
};

struct wk_refusal {
	enum wk_refused kind;
	const char *object;
	const char *place;
	bool liftable;
	/* The refused process's arguments as its /proc cmdline gives them:
	 * NUL-terminated words, ARGS_LEN bytes in all, whole (the caller
	 * passes 0 when it read only a part). */
	const char *args;
	size_t args_len;
};

/* A URL among a process's arguments ("SCHEME://[USER@]HOST[:PORT]..."):
 * HOST as written (a name, an IPv4 address, "[V6]"; "" when longer than
 * a host can be) and PORT, the explicit one or the scheme's (http 80,
 * https 443, ws 80, wss 443, ftp 21, ssh 22, git 9418, git+ssh 22,
 * ssh+git 22); 0 when it has none, or one that is not a port. */
struct wk_url_target {
	char host[WK_GRANT_HOST_MAX];
	unsigned port;
};
/* The URLs among ARGS (NUL-separated words, LEN bytes), in order, at
 * most MAX into OUT: how many. */
size_t wk_url_targets(const char *args, size_t len, struct wk_url_target *out, size_t max);

/* The narrowest grant that allows R, into G (left empty when none does),
 * and the refused process's argv into ARGV (left empty when its
 * arguments are unknown, cut, not text or more than a request carries). */
void wk_grant_derive(const struct wk_refusal *r, struct wk_grant *g, struct strv *argv);

/* "wicket ask GRANT -- ARGV..." as a shell reads it (every word quoted
 * where it must be); NULL when G or ARGV is empty. Allocated. */
char *wk_grant_command(const struct wk_grant *g, const struct strv *argv);

/* The same as words: "wicket", "ask", the grant's options, "--", ARGV
 * (appended to OUT); false, and nothing appended, when G or ARGV is
 * empty. */
bool wk_grant_command_argv(const struct wk_grant *g, const struct strv *argv, struct strv *out);

#endif
