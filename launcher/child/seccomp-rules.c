/* The seccomp policy, written against libseccomp. It is compiled to BPF at
 * build time by seccomp-gen (one program per network mode), so a session
 * start loads a ready filter instead of running the compiler in the
 * child. Denied calls return EPERM (clone3 returns ENOSYS so libc falls
 * back to clone, whose flags a filter can inspect). Only the native
 * architecture is allowed: i386 (int 0x80) and x32 calls kill the
 * process.
 *
 * Each mode that refuses network calls also comes as a "notify" program:
 * the same rules, but the network refusals go to the supervisor as user
 * notifications (SECCOMP_RET_USER_NOTIF), which it answers with EPERM
 * after printing the denial (netnotify.c). Whoever holds a listener can
 * answer "continue" instead, and for two filters returning USER_NOTIF the
 * kernel asks the listener of the newest one: so the notify programs also
 * refuse the sandbox a listener of its own (see deny_listeners).
 *
 * Where Landlock cannot mediate pathname unix sockets (ABI < 9), a
 * "unix" program (the notify program, for every network mode) also sends
 * every connect(), every sendto() with a destination and every sendmsg()
 * and sendmmsg() to the supervisor, which decides them and performs the
 * allowed ones itself (unixnotify.c). A filter sees only the registers:
 * the socket's family and the address are in memory the sandbox can
 * rewrite, so the calls go whole, whatever the family; sendmsg's address
 * lives inside its msghdr, so every sendmsg goes.
 */
#include "config.h"
#include "child/seccomp-rules.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif

/* Always denied, whatever the policy. */
static const char *const deny_always[] = {
	/* reading or writing other processes */
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
	/* io_uring does I/O (including connect and openat) behind seccomp's back */
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	/* kernel attack surface and kernel state */
	"bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"reboot", "swapon", "swapoff", "syslog", "acct", "quotactl", "quotactl_fd",
	"iopl", "ioperm", "uselib", "vhangup", "lookup_dcookie", "fanotify_init",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	/* the mount API and namespaces: the sandbox's own shape is fixed */
	"mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount",
	"fspick", "move_mount", "open_tree", "open_tree_attr", "mount_setattr", "unshare", "setns",
	/* file handles bypass path-based checks */
	"open_by_handle_at",
	NULL,
};

static const unsigned long ns_flags[] = {
	CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC,
	CLONE_NEWUTS, CLONE_NEWCGROUP, 0x00000080 /* CLONE_NEWTIME */,
};

/* Refuse the system call NR with ACTION whenever argument ARG is none of
 * ALLOWED (n values, ascending), in conjunction with the comparisons in PRE (on other
 * arguments). libseccomp takes one comparison per argument in a rule, so
 * the complement is covered by aligned blocks, one masked compare each,
 * within DOMAIN (the bits the kernel reads: ~0 for a whole register, 0xf
 * for a socket type's SOCK_TYPE_MASK). Over a whole register one
 * "greater than" covers what lies above the largest allowed value,
 * including anything in the upper half that the kernel would truncate
 * away: such a call is refused, never reinterpreted. */
static int deny_unless_in(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned arg,
			  const uint64_t *allowed, size_t n, uint64_t domain,
			  const struct scmp_arg_cmp *pre, unsigned npre)
{
	struct scmp_arg_cmp cmp[6];
	int rc;
	for (unsigned i = 0; i < npre; i++)
		cmp[i] = pre[i];
	uint64_t lo = 0;
	for (size_t i = 0; i <= n; i++) {
		uint64_t hi; /* the gap is [lo, hi] */
		if (i < n) {
			if (allowed[i] == 0) {
				lo = 1;
				continue;
			}
			hi = allowed[i] - 1;
		} else if (domain == UINT64_MAX) {
			cmp[npre] = SCMP_CMP((unsigned)arg, SCMP_CMP_GT, allowed[n - 1]);
			return seccomp_rule_add_array(ctx, action, nr, npre + 1, cmp);
		} else {
			hi = domain;
		}
		while (lo <= hi && lo <= domain) {
			/* The largest block that starts at lo and ends by hi. */
			uint64_t size = 1;
			while ((lo & (size * 2 - 1)) == 0 && lo + size * 2 - 1 <= hi && size * 2 - 1 < domain)
				size *= 2;
			cmp[npre] = SCMP_CMP((unsigned)arg, SCMP_CMP_MASKED_EQ, domain & ~(size - 1), lo);
			if ((rc = seccomp_rule_add_array(ctx, action, nr, npre + 1, cmp)) < 0)
				return rc;
			if (lo + size - 1 == hi)
				break;
			lo += size;
		}
		if (i < n)
			lo = allowed[i] + 1;
	}
	return 0;
}

/* Network mode "ports": the host's network, where Landlock allows TCP
 * connect() and bind() on the listed ports only. Landlock mediates TCP
 * and nothing else, so every other way onto the network goes: a socket is
 * AF_UNIX, or AF_INET/AF_INET6 TCP (SOCK_STREAM with protocol 0 or
 * IPPROTO_TCP; not MPTCP or SCTP, which Landlock's TCP rules do not
 * cover, nor raw, packet or netlink sockets), or, with UDP, SOCK_DGRAM
 * with protocol 0 or IPPROTO_UDP (not ICMP or UDP-Lite). */
static int add_inet_rules(scmp_filter_ctx ctx, uint32_t refuse, bool udp, const uint64_t *families,
			  size_t nfam)
{
	static const uint64_t tcp_protos[] = {0, IPPROTO_TCP};
	static const uint64_t udp_protos[] = {0, IPPROTO_UDP};
	const uint64_t types[] = {SOCK_STREAM, SOCK_DGRAM};
	const uint64_t type_mask = 0xf; /* the kernel's SOCK_TYPE_MASK */
	int rc;
	if ((rc = deny_unless_in(ctx, refuse, SCMP_SYS(socket), 0, families, nfam, UINT64_MAX,
				 NULL, 0)) < 0)
		return rc;
	for (size_t f = 1; f < 3; f++) {
		struct scmp_arg_cmp pre[2] = {SCMP_A0(SCMP_CMP_EQ, families[f])};
		if ((rc = deny_unless_in(ctx, refuse, SCMP_SYS(socket), 1, types, udp ? 2 : 1,
					 type_mask, pre, 1)) < 0)
			return rc;
		pre[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, type_mask, SOCK_STREAM);
		if ((rc = deny_unless_in(ctx, refuse, SCMP_SYS(socket), 2, tcp_protos, 2, UINT64_MAX,
					 pre, 2)) < 0)
			return rc;
		pre[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, type_mask, SOCK_DGRAM);
		if (udp && (rc = deny_unless_in(ctx, refuse, SCMP_SYS(socket), 2, udp_protos, 2,
						UINT64_MAX, pre, 2)) < 0)
			return rc;
	}
	/* The kernel makes socket pairs of AF_UNIX only. */
	return seccomp_rule_add(ctx, refuse, SCMP_SYS(socketpair), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
}

static int add_ports_rules(scmp_filter_ctx ctx, uint32_t refuse, bool udp)
{
	static const uint64_t families[] = {AF_UNIX, AF_INET, AF_INET6};
	int rc;
	if ((rc = add_inet_rules(ctx, refuse, udp, families, 3)) < 0)
		return rc;
	/* TCP Fast Open connects inside sendto()/sendmsg(), where no LSM hook
	 * (so no Landlock rule) sees the connection: refused, whatever the
	 * port. TCP_FASTOPEN_CONNECT still goes through connect(). */
	if ((rc = seccomp_rule_add(ctx, refuse, SCMP_SYS(sendto), 1,
				   SCMP_A3(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN))) < 0 ||
	    (rc = seccomp_rule_add(ctx, refuse, SCMP_SYS(sendmsg), 1,
				   SCMP_A2(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN))) < 0 ||
	    (rc = seccomp_rule_add(ctx, refuse, SCMP_SYS(sendmmsg), 1,
				   SCMP_A3(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN))) < 0)
		return rc;
	return 0;
}

/* Network modes "none" and "domains" in a network namespace of the
 * sandbox's own, whose only interface is its loopback (supervisor.c
 * brings it up; in "domains" the proxy's listeners there are the one way
 * out, served by the supervisor from the host's namespace). A socket
 * belongs to the namespace it was made in, whoever connects it later
 * (unixnotify.c performs a connect on the sandbox's socket, in its
 * namespace), so TCP over inet and inet6 reaches that loopback and
 * nothing else: no route leads out, and the host's 127.0.0.1 is another
 * namespace's. That is why it is allowed here, where "none" without the
 * namespace allows AF_UNIX only. UDP stays refused, harmless as it would
 * be: the C library's resolver makes its lookups with internal calls the
 * shim does not see, and a datagram socket refused here is a seccomp
 * notification the supervisor explains (with the name to allow), where a
 * datagram with no route would fail unexplained. The rest stays as in
 * "ports": no raw, packet, MPTCP, SCTP or other families (kernel attack
 * surface the tools do not need, and raw and packet sockets would want
 * capabilities the command lacks anyway), with one exception:
 * NETLINK_ROUTE, which browsers and language runtimes use to list the
 * interfaces and addresses. In this namespace it shows the loopback alone; changing
 * anything over it needs CAP_NET_ADMIN over the namespace, which the
 * command does not hold (caps.c). Every other netlink protocol (audit,
 * uevents, netfilter, generic, sock_diag, ...) is refused. Abstract unix
 * sockets are the namespace's own too (unixnotify.c). TCP Fast Open is
 * no way around a Landlock rule here (there is none): allowed. */
static int add_loopback_rules(scmp_filter_ctx ctx, uint32_t refuse)
{
	static const uint64_t families[] = {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK};
	static const uint64_t route[] = {0 /* NETLINK_ROUTE */};
	int rc;
	if ((rc = add_inet_rules(ctx, refuse, false, families, 4)) < 0)
		return rc;
	struct scmp_arg_cmp pre[1] = {SCMP_A0(SCMP_CMP_EQ, AF_NETLINK)};
	return deny_unless_in(ctx, refuse, SCMP_SYS(socket), 2, route, 1, UINT64_MAX, pre, 1);
}

/* The notify programs: no seccomp listener for the sandbox. A filter of
 * its own returning USER_NOTIF for socket() would win the tie with ours
 * (seccomp_run_filters keeps the first of equal actions, walking from the
 * newest filter), and its listener could answer "continue". The kernel
 * refuses a second listener in a filter tree while ours is open
 * (has_duplicate_listener: EBUSY), but not once it is closed: after the
 * supervisor is gone, a process that outlived the session (there is no
 * pid namespace to end it) could take its turn. So every
 * SECCOMP_SET_MODE_FILTER flag but the four that make no listener is
 * refused here, whatever comes later (a listener needs
 * SECCOMP_FILTER_FLAG_NEW_LISTENER; prctl(PR_SET_SECCOMP) passes no
 * flags). The kernel reads the flags as 32 bits; one rule per bit. */
static int deny_listeners(scmp_filter_ctx ctx)
{
	const uint64_t harmless = SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG |
				  SECCOMP_FILTER_FLAG_SPEC_ALLOW | SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
	int rc;
	for (unsigned bit = 0; bit < 32; bit++) {
		uint64_t f = UINT64_C(1) << bit;
		if (f & harmless)
			continue;
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), 1,
					   SCMP_A1(SCMP_CMP_MASKED_EQ, f, f))) < 0)
			return rc;
	}
	return 0;
}

/* The calls that can name a unix socket's path: to the supervisor. */
static int notify_unix(scmp_filter_ctx ctx)
{
	int rc;
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0)) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendto), 1,
				   SCMP_A4(SCMP_CMP_NE, 0))) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendmsg), 0)) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendmmsg), 0)) < 0)
		return rc;
	return 0;
}

scmp_filter_ctx seccomp_rules_build(enum seccomp_net net, bool notify, bool unix_socks, int *err)
{
	if (unix_socks)
		notify = true;
	const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
	/* What a refused network call gets. */
	const uint32_t refuse = notify ? SCMP_ACT_NOTIFY : eperm;
	int rc;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		*err = ENOMEM;
		return NULL;
	}
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) < 0)
		goto fail;
	/* A binary tree of syscall numbers instead of a linear chain: cheaper
	 * per call, and much cheaper for the kernel to attach (it emulates
	 * the filter for every syscall number to build its allow cache). */
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)) < 0)
		goto fail;
	for (size_t i = 0; deny_always[i]; i++) {
		int nr = seccomp_syscall_resolve_name(deny_always[i]);
		if (nr == __NR_SCMP_ERROR)
			continue; /* unknown to this libseccomp, hence to this arch */
		if ((rc = seccomp_rule_add(ctx, eperm, nr, 0)) < 0)
			goto fail;
	}
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0)) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof ns_flags / sizeof ns_flags[0]; i++)
		if ((rc = seccomp_rule_add(ctx, eperm, SCMP_SYS(clone), 1,
					   SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]))) < 0)
			goto fail;
	/* Keystroke injection and console games: compare only the low 32 bits,
	 * as the kernel does (CVE-2017-5226 used the high bits). */
	if ((rc = seccomp_rule_add(ctx, eperm, SCMP_SYS(ioctl), 1,
				   SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI))) < 0 ||
	    (rc = seccomp_rule_add(ctx, eperm, SCMP_SYS(ioctl), 1,
				   SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX))) < 0)
		goto fail;
	if (net == SECCOMP_NET_NONE) {
		/* Only local sockets: no inet, netlink, packet or raw sockets. */
		if ((rc = seccomp_rule_add(ctx, refuse, SCMP_SYS(socket), 1,
					   SCMP_A0(SCMP_CMP_NE, AF_UNIX))) < 0 ||
		    (rc = seccomp_rule_add(ctx, refuse, SCMP_SYS(socketpair), 1,
					   SCMP_A0(SCMP_CMP_NE, AF_UNIX))) < 0)
			goto fail;
	} else if (net == SECCOMP_NET_PORTS || net == SECCOMP_NET_PORTS_UDP) {
		if ((rc = add_ports_rules(ctx, refuse, net == SECCOMP_NET_PORTS_UDP)) < 0)
			goto fail;
	} else if (net == SECCOMP_NET_LOOPBACK) {
		if ((rc = add_loopback_rules(ctx, refuse)) < 0)
			goto fail;
	}
	if (unix_socks && (rc = notify_unix(ctx)) < 0)
		goto fail;
	if (notify && (rc = deny_listeners(ctx)) < 0)
		goto fail;
	return ctx;
fail:
	seccomp_release(ctx);
	*err = -rc;
	return NULL;
}
