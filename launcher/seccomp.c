/* Loading the seccomp filter generated at build time (see seccomp-rules.c
 * for the policy and why each call is denied). */
#include "config.h"
#include "sandbox.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>

#include "seccomp-bpf.h"

#define PROG(a) {.filter = (struct sock_filter *)(a), .len = sizeof(a) / sizeof((a)[0])}

int seccomp_apply(const struct policy *pol)
{
	struct sock_fprog none = PROG(wk_bpf_net_none), full = PROG(wk_bpf_net_full),
			  ports = PROG(wk_bpf_net_ports), ports_udp = PROG(wk_bpf_net_ports_udp);
	struct sock_fprog *prog;
	switch (pol->net) {
	case NET_FULL:
		prog = &full;
		break;
	case NET_PORTS:
		prog = pol->udp ? &ports_udp : &ports;
		break;
	case NET_NONE:
	default:
		/* Anything unknown gets the strictest program. */
		prog = &none;
		break;
	}
	/* no_new_privs is already set by the caller. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) < 0)
		return setup_fail(STAGE_SECCOMP, errno, "load filter");
	return 0;
}
