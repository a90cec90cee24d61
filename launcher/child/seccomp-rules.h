#ifndef WICKET_SECCOMP_RULES_H
#define WICKET_SECCOMP_RULES_H

#include <seccomp.h>
#include <stdbool.h>

/* One prebuilt program per network mode of the policy. */
enum seccomp_net {
	SECCOMP_NET_NONE,      /* AF_UNIX only */
	SECCOMP_NET_FULL,      /* any socket */
	SECCOMP_NET_PORTS,     /* AF_UNIX, and TCP for Landlock's port rules */
	SECCOMP_NET_PORTS_UDP, /* the same, and UDP */
	SECCOMP_NET_LOOPBACK,  /* a private loopback: AF_UNIX, TCP, NETLINK_ROUTE */
	SECCOMP_NET_COUNT
};

/* The filter for one network mode, as a libseccomp context (caller
 * releases); NOTIFY: its network refusals go to a listener (SCMP_ACT_NOTIFY)
 * instead of failing with EPERM, the calls that make directories or
 * names go there too (to be let through), and the sandbox may not make
 * a listener of its own. UNIX_SOCKS (implies NOTIFY): connect() and the sends that
 * carry a destination go to the listener as well, for the supervisor to
 * decide pathname unix sockets. NULL and *err set on failure. */
scmp_filter_ctx seccomp_rules_build(enum seccomp_net net, bool notify, bool unix_socks, int *err);

#endif
