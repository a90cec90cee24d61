/* Network mode "domains": which names the proxy may reach, and which of
 * the addresses a name resolved to it may connect to. Pure, no
 * allocation: the policy validates its lists with these, the supervisor's
 * proxy decides with them.
 *
 * A name is a DNS host name as a client writes it: letters, digits, '-'
 * and '_' in labels of 1 to 63 bytes separated by dots, at most 253 bytes
 * without a trailing dot (which is allowed), and not all digits in its
 * last label (so "127.1" or "0x7f.1", which resolvers read as addresses,
 * are never names). Names compare without regard to case or a trailing
 * dot. A pattern is a name ("example.org": that name only) or "*." and a
 * name of at least two labels ("*.example.org": any name below it, at any
 * depth, but not example.org itself). */
#ifndef WICKET_NETDOMAIN_H
#define WICKET_NETDOMAIN_H

#include <stdbool.h>
#include <stddef.h>

#define WK_NAME_MAX 253 /* bytes of a name, without a trailing dot */

/* NULL when S (LEN bytes) is a name, else why not ("label longer than 63
 * bytes", ...). */
const char *wk_name_check(const char *s, size_t len);
/* NULL when PAT is a pattern, else why not. */
const char *wk_pattern_check(const char *pat);
/* NAME (a checked name) matches PAT (a checked pattern). */
bool wk_pattern_match(const char *pat, const char *name);

enum wk_domain_verdict {
	WK_DOMAIN_ALLOWED,  /* on the allow list, on no deny list */
	WK_DOMAIN_DENIED,   /* on the deny list (deny wins) */
	WK_DOMAIN_UNLISTED, /* on neither */
};
/* NAME against the ALLOW and DENY patterns (NA and ND of them); *WHICH
 * (may be NULL) gets the pattern that decided, or NULL. */
enum wk_domain_verdict wk_domain_decide(const char *name, const char *const *allow, size_t na,
					const char *const *deny, size_t nd, const char **which);

/* What an address is, for a proxy that must not become a way into the
 * host or its networks. An IPv6 address that carries an IPv4 one
 * (v4-mapped, v4-compatible, 6to4, NAT64 64:ff9b::/96) is what that IPv4
 * address is. */
enum wk_addr_class {
	WK_ADDR_PUBLIC,
	WK_ADDR_LOOPBACK,    /* 127/8, ::1 */
	WK_ADDR_LINKLOCAL,   /* 169.254/16 (cloud metadata), fe80::/10 */
	WK_ADDR_PRIVATE,     /* 10/8, 172.16/12, 192.168/16, 100.64/10, fec0::/10 */
	WK_ADDR_ULA,         /* fc00::/7 */
	WK_ADDR_UNSPECIFIED, /* 0/8, :: */
	WK_ADDR_MULTICAST,   /* 224/4, ff00::/8 */
	WK_ADDR_RESERVED,    /* 240/4 and the broadcast address, documentation ranges */
};
/* FAMILY is AF_INET (4 bytes at A) or AF_INET6 (16). */
enum wk_addr_class wk_addr_classify(int family, const unsigned char *a);
const char *wk_addr_class_name(enum wk_addr_class c);

/* An address: AF_INET or AF_INET6 and its bytes in network order. */
struct wk_addr {
	int family;
	unsigned char a[16];
};
/* TEXT, an IPv4 or IPv6 address (only FAMILY's, when not 0), in
 * inet_ntop's canonical text into OUT; false when it is not one. */
bool wk_addr_canonical(const char *text, int family, char *out, size_t outsz);
/* A "hosts" entry, NAME (NL bytes) fixed to ADDR (a policy's
 * network.hosts, --host NAME=ADDRESS): NULL and in OUT "name=address",
 * the name in lower case without a trailing dot and the address in
 * canonical text; else why not, and *ADDR_BAD whether the address (not
 * the name) was at fault. */
const char *wk_hosts_entry(const char *name, size_t nl, const char *addr, char *out,
			   size_t outsz, bool *addr_bad);
/* True when ADDR is in LIST (N of them), comparing an IPv4 address with
 * its v4-mapped IPv6 form as equal. */
bool wk_addr_in(const struct wk_addr *addr, const struct wk_addr *list, size_t n);
/* NULL when the proxy may connect to ADDR: a public address that is not
 * one of the host's own (OWN, NOWN), or one named in ALLOWED (NALLOWED).
 * Else why not: "a loopback address", "one of this host's addresses". */
const char *wk_addr_refusal(const struct wk_addr *addr, const struct wk_addr *allowed,
			    size_t nallowed, const struct wk_addr *own, size_t nown);

#endif
