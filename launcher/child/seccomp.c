/* Loading the seccomp filter generated at build time (see seccomp-rules.c
 * for the policy and why each call is denied). */
#include "config.h"
#include "base/session.h"
#include "base/setupfail.h"
#include "child/seccomp.h"
#include "child/seccomp-bpf.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>


/* Not a mode of the policy: the program of a private loopback. */
#define NET_LOOPBACK_PROG (-1)

#define PROG(a) {.filter = (struct sock_filter *)(a), .len = sizeof(a) / sizeof((a)[0])}

int seccomp_apply(const struct policy *pol, bool loopback, bool unix_socks, int *listener)
{
	struct sock_fprog none = PROG(wk_bpf_net_none), full = PROG(wk_bpf_net_full),
			  ports = PROG(wk_bpf_net_ports), ports_udp = PROG(wk_bpf_net_ports_udp);
	struct sock_fprog n_none = PROG(wk_bpf_notify_net_none), n_full = PROG(wk_bpf_notify_net_full),
			  n_ports = PROG(wk_bpf_notify_net_ports),
			  n_ports_udp = PROG(wk_bpf_notify_net_ports_udp);
	struct sock_fprog u_none = PROG(wk_bpf_unix_net_none), u_full = PROG(wk_bpf_unix_net_full),
			  u_ports = PROG(wk_bpf_unix_net_ports),
			  u_ports_udp = PROG(wk_bpf_unix_net_ports_udp);
	struct sock_fprog lo = PROG(wk_bpf_net_loopback), n_lo = PROG(wk_bpf_notify_net_loopback),
			  u_lo = PROG(wk_bpf_unix_net_loopback);
	struct sock_fprog *prog, *notify;
	/* A private loopback (net_private_loopback): its own program, in
	 * "none" and "domains" alike. */
	int mode = loopback ? NET_LOOPBACK_PROG : (int)pol->net;
	switch (mode) {
	case NET_LOOPBACK_PROG:
		prog = &lo;
		notify = unix_socks ? &u_lo : &n_lo;
		break;
	case NET_FULL:
		prog = &full;
		/* Nothing of the network to refuse; unix sockets to decide,
		 * and the calls that make directories to note. */
		notify = unix_socks ? &u_full : &n_full;
		break;
	case NET_PORTS:
	case NET_DOMAINS: /* udp false: TCP to the proxy's ports (Landlock) */
		prog = pol->udp ? &ports_udp : &ports;
		notify = unix_socks ? (pol->udp ? &u_ports_udp : &u_ports)
				    : (pol->udp ? &n_ports_udp : &n_ports);
		break;
	case NET_NONE:
	default:
		/* Anything unknown gets the strictest program. */
		prog = &none;
		notify = unix_socks ? &u_none : &n_none;
		break;
	}
	/* no_new_privs is already set by the caller. The notify program
	 * refuses exactly what the other one does; where the kernel cannot
	 * give it a listener (before 5.0, or a listener already in the filter
	 * tree wicket runs under: EBUSY) nothing is loaded, and the plain
	 * program is. */
	if (listener) {
		*listener = -1;
		if (notify) {
			long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
					  SECCOMP_FILTER_FLAG_NEW_LISTENER, notify);
			if (fd >= 0) {
				*listener = (int)fd;
				return 0;
			}
		}
	}
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) < 0)
		return setup_fail(STAGE_SECCOMP, errno, "load filter");
	return 0;
}
