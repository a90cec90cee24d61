/* sysprobe: one system call per operation, classified by errno.
 *
 *   sysprobe OP [ARGS...] [+ OP [ARGS...]]...
 *
 * Operations run in order (a chain lets a test try "unshare, then mount,
 * then write outside"); each prints "OP: OK" or "OP: ERRNAME". Exit status:
 * 0 when the last operation succeeded, 1 when it failed, 2 on bad usage.
 * The tests judge effects outside the sandbox, and the errno where the
 * errno is the point (seccomp's EPERM).
 *
 * Operations:
 *   bpf | perf | userfaultfd | io_uring_setup | syslog | adjtimex |
 *   clock_adjtime | keyctl | request_key | reboot | fsopen | clone3
 *   add_key DESC                  into the user keyring, expiring in 30 s
 *   clock_settime SECS | settimeofday SECS
 *   unshare NS[,NS...] | clone NS  (NS: user mount pid net ipc uts cgroup time)
 *   setns FD
 *   mount_tmpfs DIR | remount_rw DIR | bind SRC DST | umount DIR
 *   mount_setattr_rw DIR | open_tree DIR
 *   chroot DIR | chdir DIR | pivot_root NEW OLD
 *   sethostname NAME
 *   write PATH TEXT               create/truncate PATH and write TEXT
 *   read PATH                     print PATH's first bytes ("data: ...")
 *   mknod_blk PATH MAJ MIN
 *   socket FAMILY TYPE PROTO      numbers
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/keyctl.h>
#include <linux/mount.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <linux/sched.h>
#include <linux/userfaultfd.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

static int result(const char *op, long r)
{
	if (r >= 0) {
		printf("%s: OK\n", op);
	} else {
		const char *n = strerrorname_np(errno);
		printf("%s: %s\n", op, n ? n : "E?");
	}
	fflush(stdout);
	return r >= 0 ? 0 : 1;
}

static unsigned long ns_flags(const char *list)
{
	static const struct {
		const char *name;
		unsigned long flag;
	} map[] = {
		{"user", CLONE_NEWUSER}, {"mount", CLONE_NEWNS},   {"pid", CLONE_NEWPID},
		{"net", CLONE_NEWNET},   {"ipc", CLONE_NEWIPC},    {"uts", CLONE_NEWUTS},
		{"cgroup", CLONE_NEWCGROUP}, {"time", CLONE_NEWTIME},
	};
	unsigned long f = 0;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
			if (strcmp(t, map[i].name) == 0)
				f |= map[i].flag;
	return f;
}

static long do_bpf(void)
{
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 1;
	long fd = syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof a);
	if (fd >= 0)
		close((int)fd);
	return fd;
}

static long do_perf(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd >= 0)
		close((int)fd);
	return fd;
}

static long do_clone(unsigned long flags)
{
	long pid = syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid;
}

static long do_clone3(void)
{
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.exit_signal = SIGCHLD;
	long pid = syscall(SYS_clone3, &ca, sizeof ca);
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid;
}

static long do_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	int e = errno;
	close(fd);
	errno = e;
	return n < 0 ? -1 : 0;
}

static long do_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[512];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	int e = errno;
	close(fd);
	errno = e;
	if (n < 0)
		return -1;
	buf[n] = '\0';
	printf("data: %s\n", buf);
	return 0;
}

static long do_mount_setattr_rw(const char *dir)
{
	struct mount_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.attr_clr = MOUNT_ATTR_RDONLY;
	return syscall(SYS_mount_setattr, AT_FDCWD, dir, AT_RECURSIVE, &attr, sizeof attr);
}

/* Runs one operation; returns the number of arguments it consumed or -1. */
static int run_op(char **a, int n, int *status)
{
	const char *op = a[0];
	long r;
#define NEED(k)                                                                   \
	do {                                                                      \
		if (n < (k) + 1) {                                                \
			fprintf(stderr, "sysprobe: %s needs %d argument(s)\n", op, k); \
			return -1;                                                \
		}                                                                 \
	} while (0)
	int used = 0;
	if (strcmp(op, "bpf") == 0) {
		r = do_bpf();
	} else if (strcmp(op, "perf") == 0) {
		r = do_perf();
	} else if (strcmp(op, "userfaultfd") == 0) {
		r = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	} else if (strcmp(op, "io_uring_setup") == 0) {
		char params[120];
		memset(params, 0, sizeof params);
		r = syscall(SYS_io_uring_setup, 4, params);
	} else if (strcmp(op, "syslog") == 0) {
		r = syscall(SYS_syslog, 10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	} else if (strcmp(op, "adjtimex") == 0) {
		struct timex tx;
		memset(&tx, 0, sizeof tx); /* modes 0: read only, harmless */
		r = syscall(SYS_adjtimex, &tx);
	} else if (strcmp(op, "clock_adjtime") == 0) {
		struct timex tx;
		memset(&tx, 0, sizeof tx);
		r = syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx);
	} else if (strcmp(op, "keyctl") == 0) {
		r = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
	} else if (strcmp(op, "request_key") == 0) {
		r = syscall(SYS_request_key, "user", "wicket-escape-none", NULL, 0);
		if (r < 0 && errno == ENOKEY)
			r = 0; /* reached the key search: the call itself is allowed */
	} else if (strcmp(op, "add_key") == 0) {
		NEED(1);
		used = 1;
		r = syscall(SYS_add_key, "user", a[1], "wicket", 6, KEY_SPEC_USER_KEYRING);
		if (r >= 0)
			syscall(SYS_keyctl, KEYCTL_SET_TIMEOUT, r, 30);
	} else if (strcmp(op, "reboot") == 0) {
		/* Ctrl-Alt-Del on: the default already; harmless if it worked. */
		r = syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2,
			    LINUX_REBOOT_CMD_CAD_ON, NULL);
	} else if (strcmp(op, "fsopen") == 0) {
		r = syscall(SYS_fsopen, "tmpfs", 0);
	} else if (strcmp(op, "clone3") == 0) {
		r = do_clone3();
	} else if (strcmp(op, "clock_settime") == 0) {
		NEED(1);
		used = 1;
		struct timespec ts = {(time_t)atoll(a[1]), 0};
		r = clock_settime(CLOCK_REALTIME, &ts);
	} else if (strcmp(op, "settimeofday") == 0) {
		NEED(1);
		used = 1;
		struct timeval tv = {(time_t)atoll(a[1]), 0};
		r = syscall(SYS_settimeofday, &tv, NULL);
	} else if (strcmp(op, "unshare") == 0) {
		NEED(1);
		used = 1;
		r = unshare((int)ns_flags(a[1]));
	} else if (strcmp(op, "clone") == 0) {
		NEED(1);
		used = 1;
		r = do_clone(ns_flags(a[1]));
	} else if (strcmp(op, "setns") == 0) {
		NEED(1);
		used = 1;
		r = setns(atoi(a[1]), 0);
	} else if (strcmp(op, "mount_tmpfs") == 0) {
		NEED(1);
		used = 1;
		r = mount("tmpfs", a[1], "tmpfs", 0, NULL);
	} else if (strcmp(op, "remount_rw") == 0) {
		NEED(1);
		used = 1;
		r = mount(NULL, a[1], NULL, MS_REMOUNT | MS_BIND, NULL);
	} else if (strcmp(op, "bind") == 0) {
		NEED(2);
		used = 2;
		r = mount(a[1], a[2], NULL, MS_BIND | MS_REC, NULL);
	} else if (strcmp(op, "umount") == 0) {
		NEED(1);
		used = 1;
		r = umount2(a[1], MNT_DETACH);
	} else if (strcmp(op, "mount_setattr_rw") == 0) {
		NEED(1);
		used = 1;
		r = do_mount_setattr_rw(a[1]);
	} else if (strcmp(op, "open_tree") == 0) {
		NEED(1);
		used = 1;
		r = syscall(SYS_open_tree, AT_FDCWD, a[1], OPEN_TREE_CLONE);
	} else if (strcmp(op, "chroot") == 0) {
		NEED(1);
		used = 1;
		r = chroot(a[1]);
	} else if (strcmp(op, "chdir") == 0) {
		NEED(1);
		used = 1;
		r = chdir(a[1]);
	} else if (strcmp(op, "pivot_root") == 0) {
		NEED(2);
		used = 2;
		r = syscall(SYS_pivot_root, a[1], a[2]);
	} else if (strcmp(op, "sethostname") == 0) {
		NEED(1);
		used = 1;
		r = sethostname(a[1], strlen(a[1]));
	} else if (strcmp(op, "write") == 0) {
		NEED(2);
		used = 2;
		r = do_write(a[1], a[2]);
	} else if (strcmp(op, "read") == 0) {
		NEED(1);
		used = 1;
		r = do_read(a[1]);
	} else if (strcmp(op, "mknod_blk") == 0) {
		NEED(3);
		used = 3;
		r = mknod(a[1], S_IFBLK | 0600,
			  makedev((unsigned)atoi(a[2]), (unsigned)atoi(a[3])));
	} else if (strcmp(op, "socket") == 0) {
		NEED(3);
		used = 3;
		r = socket(atoi(a[1]), atoi(a[2]), atoi(a[3]));
	} else {
		fprintf(stderr, "sysprobe: unknown operation %s\n", op);
		return -1;
	}
#undef NEED
	*status = result(op, r);
	return used;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: sysprobe OP [ARGS...] [+ OP [ARGS...]]...\n");
		return 2;
	}
	int status = 2;
	int i = 1;
	while (i < argc && i < 64) {
		int end = i;
		while (end < argc && strcmp(argv[end], "+") != 0)
			end++;
		int used = run_op(argv + i, end - i, &status);
		if (used < 0)
			return 2;
		if (used != end - i - 1) {
			fprintf(stderr, "sysprobe: %s: too many arguments\n", argv[i]);
			return 2;
		}
		i = end + 1;
	}
	return status;
}
