#ifndef WICKET_SECCOMP_RULES_H
#define WICKET_SECCOMP_RULES_H

#include <seccomp.h>

enum seccomp_net { SECCOMP_NET_NONE, SECCOMP_NET_FULL, SECCOMP_NET_COUNT };

/* The filter for one network mode, as a libseccomp context (caller
 * releases). NULL and *err set on failure. */
scmp_filter_ctx seccomp_rules_build(enum seccomp_net net, int *err);

#endif
