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

int seccomp_apply(enum net_mode net)
{
	struct sock_fprog prog;
	if (net == NET_FULL) {
		prog.filter = (struct sock_filter *)wk_bpf_net_full;
		prog.len = sizeof wk_bpf_net_full / sizeof wk_bpf_net_full[0];
	} else {
		prog.filter = (struct sock_filter *)wk_bpf_net_none;
		prog.len = sizeof wk_bpf_net_none / sizeof wk_bpf_net_none[0];
	}
	/* no_new_privs is already set by the caller. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return setup_fail(STAGE_SECCOMP, errno, "load filter");
	return 0;
}
