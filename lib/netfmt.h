/* Numbers and network addresses as the denial lines show them, shared by
 * the preload shim (which may not allocate, lock or use stdio: a failing
 * call can come from a signal handler or a vfork child) and the
 * supervisor. Pure. */
#ifndef WICKET_NETFMT_H
#define WICKET_NETFMT_H

#include <stddef.h>

/* Room for the longest text of each, with its NUL. */
#define NETFMT_IPV4_MAX 16
#define NETFMT_IPV6_MAX 46

/* Room for the longest decimal unsigned long long, with its NUL. */
#define NETFMT_UINT_MAX 21

/* V in decimal into O; its length. */
size_t netfmt_uint(char *o, unsigned long long v);

/* Dotted quad of the 4 bytes at A (network order) into O; its length. */
size_t netfmt_ipv4(char *o, const unsigned char *a);

/* RFC 5952 text of the 16 bytes at A into O: lower case, no leading
 * zeros, the longest run (two or more, the first of equals) of zero groups
 * as "::", an IPv4-mapped address with its dotted tail. Its length. */
size_t netfmt_ipv6(char *o, const unsigned char *a);

#endif
