/* The seccomp policy, written against libseccomp. It is compiled to BPF at
 * build time by seccomp-gen (one program per network mode), so a session
 * start loads a ready filter instead of running the compiler in the
 * child. Denied calls return EPERM (clone3 returns ENOSYS so libc falls
 * back to clone, whose flags a filter can inspect). Only the native
 * architecture is allowed: i386 (int 0x80) and x32 calls kill the
 * process. */
#include "config.h"
#include "seccomp-rules.h"

#include <errno.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
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

scmp_filter_ctx seccomp_rules_build(enum seccomp_net net, int *err)
{
	const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
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
		if ((rc = seccomp_rule_add(ctx, eperm, SCMP_SYS(socket), 1,
					   SCMP_A0(SCMP_CMP_NE, AF_UNIX))) < 0 ||
		    (rc = seccomp_rule_add(ctx, eperm, SCMP_SYS(socketpair), 1,
					   SCMP_A0(SCMP_CMP_NE, AF_UNIX))) < 0)
			goto fail;
	}
	return ctx;
fail:
	seccomp_release(ctx);
	*err = -rc;
	return NULL;
}
