/* The kernel layers of a session for bench programs (layers.h): shared by
 * bench/layerwrap and bench/floor so that both apply the same rules and
 * the same program the same way. */
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
#include "layers.h"

void layers_die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, strerror(errno));
	exit(125);
}

void layers_rule(int rs, const char *path, __u64 access)
{
	struct wk_landlock_path_beneath_attr pb = {.allowed_access = access};
	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0 ||
	    syscall(SYS_landlock_add_rule, rs, WK_LL_RULE_PATH_BENEATH, &pb, 0) < 0)
		layers_die(path);
	close(pb.parent_fd);
}

/* The ruleset's attributes for ABI 6 and later: network and scopes as
 * a session in network mode none has them. */
int layers_ruleset(__u64 handled_fs)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, WK_LL_CREATE_RULESET_VERSION);
	if (abi < 6) {
		errno = abi < 0 ? errno : ENOTSUP;
		layers_die("Landlock ABI 6 or later");
	}
	struct wk_landlock_ruleset_attr attr = {
		.handled_access_fs = handled_fs,
		.handled_access_net = WK_LL_NET_BIND_TCP | WK_LL_NET_CONNECT_TCP,
		.scoped = WK_LL_SCOPE_ABSTRACT_UNIX | WK_LL_SCOPE_SIGNAL,
	};
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (rs < 0)
		layers_die("landlock_create_ruleset");
	return rs;
}

void layers_restrict(int rs)
{
	if (syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		layers_die("landlock_restrict_self");
	close(rs);
}

void layers_landlock_file(const char *file)
{
	FILE *f = fopen(file, "re");
	if (!f)
		layers_die(file);
	char line[4200], path[4097];
	unsigned long long v;
	int rs = -1;
	while (fgets(line, sizeof line, f)) {
		if (rs < 0 && sscanf(line, "fs %llx", &v) == 1)
			rs = layers_ruleset(v);
		else if (rs >= 0 && sscanf(line, "rule %llx %4096[^\n]", &v, path) == 2)
			layers_rule(rs, path, v);
		else {
			errno = EINVAL;
			layers_die(file);
		}
	}
	fclose(f);
	if (rs < 0) {
		errno = EINVAL;
		layers_die(file);
	}
	layers_restrict(rs);
}

int layers_seccomp(int listener)
{
	struct sock_fprog p = {
		.filter = (struct sock_filter *)wk_bpf_unix_net_none,
		.len = sizeof wk_bpf_unix_net_none / sizeof wk_bpf_unix_net_none[0],
	};
	if (listener) {
		long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				  SECCOMP_FILTER_FLAG_NEW_LISTENER, &p);
		if (fd < 0)
			layers_die("seccomp with a listener");
		return (int)fd;
	}
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0) < 0)
		layers_die("seccomp");
	return -1;
}
