/* layerwrap: one of wicket's kernel layers alone, for `make bench`'s
 * breakdown of the cost inside the sandbox (README.md, "Where the time
 * goes"). Not a sandbox: no mount namespace, nothing hidden.
 *
 *   layerwrap [-l | -L RULES] [-r DIR]... [-s | -a] CMD [ARGS...]
 *
 * -l  a Landlock ruleset of the default policy's shape: every file-system
 *     right this kernel (ABI <= 8) handles, read and execute beneath /,
 *     everything beneath the current directory and /dev (as wicket's
 *     workspace, private /tmp and /dev), TCP bind and connect handled
 *     with no port, abstract unix sockets and signals scoped.
 * -r  with -l: also a rule granting read and execute on DIR, the rights
 *     it already has through /: the kernel stops its walk up the path of
 *     each open at the first directory whose rules grant everything asked,
 *     so this shows what the length of that walk costs.
 * -L  with RULES, a file of the rules a session of wicket added (made by
 *     run-bench from `strace -X raw -y` of `wicket run -- true`): a line
 *     "fs HEX" (the file-system rights handled), then one line
 *     "rule HEX PATH" per rule, in the session's order. The network
 *     rights and scopes are -l's, which are a mode-none session's.
 *     The read workload's comparison (README.md, "wicket's own share")
 *     applies wicket's exact rules this way.
 * -a  an allow-all seccomp program (one instruction): the cost of any
 *     filter, the reference for -s.
 * -s  wicket's seccomp program for the default policy (the "unix" one
 *     of network mode none, launcher/child/seccomp-bpf.h), loaded without a
 *     listener: a call it would send to the supervisor fails with ENOSYS
 *     instead. The same instructions run as in a session.
 *
 * Sets no_new_privs, applies what was asked, then execs CMD. */
#include "config.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/landlock_compat.h"
#include "layers.h"

static void landlock(char **extra, int nextra)
{
	__u64 all = (WK_LL_FS_IOCTL_DEV << 1) - 1;
	__u64 read = WK_LL_FS_EXECUTE | WK_LL_FS_READ_FILE | WK_LL_FS_READ_DIR;
	int rs = layers_ruleset(all);
	layers_rule(rs, "/", read);
	for (int i = 0; i < nextra; i++)
		layers_rule(rs, extra[i], read);
	layers_rule(rs, ".", all);
	layers_rule(rs, "/dev", read | WK_LL_FS_WRITE_FILE | WK_LL_FS_TRUNCATE | WK_LL_FS_IOCTL_DEV);
	layers_restrict(rs);
}

int main(int argc, char **argv)
{
	int opt, ll = 0, sc = 0, allow = 0, nextra = 0;
	char *extra[16];
	const char *rules = NULL;
	while ((opt = getopt(argc, argv, "+lL:r:sa")) != -1) {
		if (opt == 'l')
			ll = 1;
		else if (opt == 'L')
			rules = optarg;
		else if (opt == 'a')
			allow = 1;
		else if (opt == 'r' && nextra < 16)
			extra[nextra++] = optarg;
		else if (opt == 's')
			sc = 1;
		else
			goto usage;
	}
	if (optind >= argc || (rules && (ll || nextra)) || (sc && allow))
		goto usage;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		layers_die("no_new_privs");
	if (ll)
		landlock(extra, nextra);
	if (rules)
		layers_landlock_file(rules);
	if (sc)
		layers_seccomp(0);
	if (allow) {
		static const struct sock_filter all[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
		struct sock_fprog p = {.filter = (struct sock_filter *)all, .len = 1};
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0) < 0)
			layers_die("seccomp");
	}
	execvp(argv[optind], argv + optind);
	layers_die(argv[optind]);
usage:
	fprintf(stderr, "usage: layerwrap [-l | -L RULES] [-r DIR]... [-s | -a] CMD [ARGS...]\n");
	return 2;
}
