/* What the supervisor's handlers of seccomp notifications share
 * (notifyutil.c), below netnotify.c and unixnotify.c: whether the
 * supervisor decides unix sockets at all, and the task behind a
 * notification (who it is, its memory). */
#ifndef WICKET_NOTIFYUTIL_H
#define WICKET_NOTIFYUTIL_H

#include <linux/audit.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A packet's sender: the pid the kernel vouches for (SCM_CREDENTIALS),
 * and with it a pidfd of that process (SCM_PIDFD, Linux 6.5 and later),
 * or one of these. */
#define WK_PIDFD_NONE (-1) /* the kernel passes no pidfds: the pid alone */
#define WK_PIDFD_GONE (-2) /* it does, but none came: the sender is gone */

/* The /proc directory of a packet's sender (PID and PIDFD as
 * control_handle has them), or -1 when the sender is gone. */
int proc_dir_of(pid_t pid, int pidfd);

/* The architecture whose calls the filter lets through (others kill). */
#if defined(__x86_64__)
#define NOTIFY_NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NOTIFY_NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

struct session;
bool netnotify_unix(const struct session *s);    /* the supervisor decides unix sockets */
/* Who a notifying thread TID is (its process, both pids, its name). */
struct netnotify_who {
	long pid;      /* the process (thread group), as the sandbox sees it */
	long host_pid; /* as the supervisor sees it */
	char comm[64];
};
bool netnotify_who(pid_t tid, struct netnotify_who *w);
pid_t netnotify_tgid(pid_t tid);
/* LEN bytes of the caller's memory at ADDR (process_vm_readv). */
ssize_t netnotify_peek(pid_t tid, uint64_t addr, void *buf, size_t len);

#endif
