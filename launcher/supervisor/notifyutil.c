/* What the supervisor's handlers of seccomp notifications share: whether
 * the supervisor decides unix sockets (netnotify.c hands their calls to
 * unixnotify.c then; control.c and diag.c tell the sandbox), and the task
 * behind a notification: who it is, read from /proc, and its memory. */
#include "config.h"
#include "base/session.h"
#include "supervisor/notifyutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util.h"

bool netnotify_unix(const struct session *s)
{
	/* Landlock mediates pathname unix sockets from ABI 9 on. */
	return s->pol.sandbox && s->layers.seccomp && s->layers.landlock_abi < 9;
}

/* /proc/TID/{status,comm} of the notifying thread. */
bool netnotify_who(pid_t tid, struct netnotify_who *w)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	/* host: /proc of the thread the kernel named */
	if (read_text_at(AT_FDCWD, path, buf, sizeof buf) <= 0)
		return false;
	w->pid = w->host_pid = 0;
	for (char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, "Tgid:", 5) == 0) {
			w->host_pid = strtol(l + 5, NULL, 10);
		} else if (strncmp(l, "NStgid:", 7) == 0) {
			/* The last field: the innermost pid namespace's view. */
			char *e = strchr(l, '\n'), *sp = l + 7;
			for (char *p = l + 7; *p && p != e; p++)
				if (*p == '\t' || *p == ' ')
					sp = p + 1;
			w->pid = strtol(sp, NULL, 10);
		}
	}
	if (w->host_pid <= 0)
		return false;
	if (w->pid <= 0)
		w->pid = w->host_pid;
	snprintf(path, sizeof path, "/proc/%d/comm", (int)tid);
	/* host: /proc of the thread the kernel named */
	read_text_at(AT_FDCWD, path, w->comm, sizeof w->comm);
	w->comm[strcspn(w->comm, "\n")] = '\0';
	if (!w->comm[0])
		strcpy(w->comm, "?");
	return true;
}

pid_t netnotify_tgid(pid_t tid)
{
	struct netnotify_who w;
	return netnotify_who(tid, &w) ? (pid_t)w.host_pid : tid;
}

ssize_t netnotify_peek(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};
	return process_vm_readv(tid, &local, 1, &remote, 1, 0);
}

/* The sender's /proc directory, or -1 when the sender is gone.
 * With a pidfd the directory is opened first, then the pidfd checked to
 * name a process that still has this number: as long as it lives, the
 * number is its own, so the directory is its own too (and stays so: a
 * /proc directory outlives its process only as a dead end). */
int proc_dir_of(pid_t pid, int pidfd)
{
	if (pid <= 0 || pidfd == WK_PIDFD_GONE)
		return -1;
	char p[64];
	snprintf(p, sizeof p, "/proc/%ld", (long)pid);
	/* host: /proc of a pid the kernel gave */
	int dir = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || pidfd < 0)
		return dir;
	snprintf(p, sizeof p, "/proc/self/fdinfo/%d", pidfd);
	char buf[1024];
	/* host: our own pidfd's fdinfo */
	read_text_at(AT_FDCWD, p, buf, sizeof buf);
	const char *l = strstr(buf, "\nPid:\t");
	if (!l || strtol(l + 6, NULL, 10) != (long)pid) { /* -1 once it is reaped */
		close(dir);
		return -1;
	}
	return dir;
}
