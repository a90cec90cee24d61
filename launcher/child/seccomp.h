#ifndef WICKET_CHILD_SECCOMP_H
#define WICKET_CHILD_SECCOMP_H

#include "base/session.h"

/* seccomp.c: load the filter (LOOPBACK: the program of a private
 * loopback, net_private_loopback, whatever POL's mode). LISTENER non-NULL: the notify program
 * (network refusals to a listener; UNIX_SOCKS: and unix socket connects
 * and sends), *LISTENER its listener, or -1 when the kernel gave none and
 * the plain program was loaded instead. */
int seccomp_apply(const struct policy *pol, bool loopback, bool unix_socks, int *listener);

#endif
