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

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/landlock_compat.h"
#include "child/seccomp-bpf.h"

static void die(const char *what)
{
	fprintf(stderr, "layerwrap: %s: %s\n", what, strerror(errno));
	exit(125);
}

static void rule(int rs, const char *path, __u64 access)
{
	struct wk_landlock_path_beneath_attr pb = {.allowed_access = access};
	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0 ||
	    syscall(SYS_landlock_add_rule, rs, WK_LL_RULE_PATH_BENEATH, &pb, 0) < 0)
		die(path);
	close(pb.parent_fd);
}

/* The ruleset's attributes for ABI 6 and later: network and scopes as
 * a session in network mode none has them. */
static int ruleset(__u64 handled_fs)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, WK_LL_CREATE_RULESET_VERSION);
	if (abi < 6) {
		errno = abi < 0 ? errno : ENOTSUP;
		die("Landlock ABI 6 or later");
	}
	struct wk_landlock_ruleset_attr attr = {
		.handled_access_fs = handled_fs,
		.handled_access_net = WK_LL_NET_BIND_TCP | WK_LL_NET_CONNECT_TCP,
		.scoped = WK_LL_SCOPE_ABSTRACT_UNIX | WK_LL_SCOPE_SIGNAL,
	};
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (rs < 0)
		die("landlock_create_ruleset");
	return rs;
}

static void restrict_self(int rs)
{
	if (syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		die("landlock_restrict_self");
	close(rs);
}

/* -L: the rules of FILE, as they are. */
static void landlock_file(const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f)
		die(file);
	char line[4200], path[4097];
	unsigned long long v;
	int rs = -1;
	while (fgets(line, sizeof line, f)) {
		if (rs < 0 && sscanf(line, "fs %llx", &v) == 1)
			rs = ruleset(v);
		else if (rs >= 0 && sscanf(line, "rule %llx %4096[^\n]", &v, path) == 2)
			rule(rs, path, v);
		else {
			errno = EINVAL;
			die(file);
		}
	}
	fclose(f);
	if (rs < 0) {
		errno = EINVAL;
		die(file);
	}
	restrict_self(rs);
}

static void landlock(char **extra, int nextra)
{
	__u64 all = (WK_LL_FS_IOCTL_DEV << 1) - 1;
	__u64 read = WK_LL_FS_EXECUTE | WK_LL_FS_READ_FILE | WK_LL_FS_READ_DIR;
	int rs = ruleset(all);
	rule(rs, "/", read);
	for (int i = 0; i < nextra; i++)
		rule(rs, extra[i], read);
	rule(rs, ".", all);
	rule(rs, "/dev", read | WK_LL_FS_WRITE_FILE | WK_LL_FS_TRUNCATE | WK_LL_FS_IOCTL_DEV);
	restrict_self(rs);
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
		die("no_new_privs");
	if (ll)
		landlock(extra, nextra);
	if (rules)
		landlock_file(rules);
	if (sc) {
		struct sock_fprog p = {
			.filter = (struct sock_filter *)wk_bpf_unix_net_none,
			.len = sizeof wk_bpf_unix_net_none / sizeof wk_bpf_unix_net_none[0],
		};
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0) < 0)
			die("seccomp");
	}
	if (allow) {
		static const struct sock_filter all[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
		struct sock_fprog p = {.filter = (struct sock_filter *)all, .len = 1};
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0) < 0)
			die("seccomp");
	}
	execvp(argv[optind], argv + optind);
	die(argv[optind]);
usage:
	fprintf(stderr, "usage: layerwrap [-l | -L RULES] [-r DIR]... [-s | -a] CMD [ARGS...]\n");
	return 2;
}
