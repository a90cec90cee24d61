/* floor: the physical floor of a namespace sandbox, for `make bench`.
 *
 *   floor [-L RULES] [-s [-n]] [-c] [-p SHIM] CMD [ARGS...]
 *
 * Does only what no sandbox of wicket's shape can avoid: one unshare() of
 * the namespaces wicket uses (the user namespace only when not root, mapping
 * the caller to itself), a fork (a new pid namespace takes effect for
 * children only), and in the child (pid 1) a private / and a new /proc,
 * then exec. No read-only view, no Landlock, no seccomp, no capability
 * dropping: whatever wicket spends beyond this is wicket's own overhead.
 *
 * The options add, in the child after the mounts and before exec, the
 * layers a session applies anyway, so that the floor with all of them
 * (run-bench's floor-layers row) is the kernel's price of wicket's layers
 * without wicket's own work (policy, planning, the supervisor, records):
 *
 * -c  the capability bounding set emptied as a session's init does
 *     (caps_drop_bounding, launcher/child/caps.c, compiled in), and
 *     no_new_privs.
 * -L  the Landlock rules of RULES (layers.h; run-bench makes the file from
 *     strace of `wicket run -- true`, as for layerwrap -L).
 * -s  wicket's seccomp program for the default policy (layers_seccomp).
 *     Neither needs no_new_privs here: the child holds CAP_SYS_ADMIN in
 *     its (user) namespace, so each flag alone adds only its layer.
 * -n  with -s: loaded with a listener, which this process (the
 *     supervisor's place) takes from the child as a session's supervisor
 *     does (launcher/supervisor/netnotify.c): the child writes the
 *     listener's number on a socket pair (not sendmsg with SCM_RIGHTS,
 *     which the program refers to the listener no one reads yet), the
 *     parent takes it with pidfd_getfd and acknowledges, the child closes
 *     its copy and execs. The parent then answers every referral
 *     "continue" until the child ends: a floor, not a sandbox.
 * -p  LD_PRELOAD=SHIM in the command's environment (the diagnostics' shim,
 *     loaded by the exec'd command as in a session).
 *
 * Exit status: the command's; 128+N if it died of signal N; 125 if the
 * floor itself failed; 127 if the command could not be executed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/setupfail.h"
#include "child/caps.h"
#include "layers.h"

static void fail(const char *what)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
	_exit(125);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail(path);
	size_t len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len)
		fail(path);
	close(fd);
}

static void xwrite(int fd, const void *buf, size_t len, const char *what)
{
	ssize_t r;
	do
		r = write(fd, buf, len);
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)len)
		fail(what);
}

static void xread(int fd, void *buf, size_t len, const char *what)
{
	ssize_t r;
	do
		r = read(fd, buf, len);
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)len) {
		if (r >= 0)
			errno = EIO;
		fail(what);
	}
}

/* -n, the child: the listener's number to the parent, its answer, then
 * the child's copy closed (never held across exec). */
static void hand_over(int pair, int fd)
{
	char ack = 0;
	xwrite(pair, &fd, sizeof fd, "send the listener's number");
	xread(pair, &ack, 1, "the parent's answer");
	if (ack != 'k') {
		errno = EIO;
		fail("hand the listener over");
	}
	close(fd);
}

/* -n, the parent: the listener taken from the child (PIDFD) and answered
 * "continue" until the child ends. Returns when it has, or when the child
 * failed before it had a listener to hand over (its status says why). */
static void serve(int pair, int pidfd)
{
	int theirs;
	ssize_t r;
	do
		r = read(pair, &theirs, sizeof theirs);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return;
	if (r != (ssize_t)sizeof theirs) {
		if (r >= 0)
			errno = EIO;
		fail("the listener's number");
	}
	int fd = (int)syscall(SYS_pidfd_getfd, pidfd, theirs, 0);
	if (fd < 0)
		fail("pidfd_getfd");
	xwrite(pair, "k", 1, "answer the child");
	close(pair);
	struct seccomp_notif_sizes sz;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0)
		fail("SECCOMP_GET_NOTIF_SIZES");
	size_t nsz = sz.seccomp_notif > sizeof(struct seccomp_notif) ? sz.seccomp_notif
								    : sizeof(struct seccomp_notif);
	size_t rsz = sz.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
			     ? sz.seccomp_notif_resp
			     : sizeof(struct seccomp_notif_resp);
	struct seccomp_notif *req = malloc(nsz);
	struct seccomp_notif_resp *resp = malloc(rsz);
	if (!req || !resp)
		fail("malloc");
	struct pollfd p[2] = {{.fd = pidfd, .events = POLLIN}, {.fd = fd, .events = POLLIN}};
	for (;;) {
		if (poll(p, p[1].fd < 0 ? 1 : 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fail("poll");
		}
		if (p[0].revents)
			break;
		if (p[1].revents & (POLLHUP | POLLERR)) {
			p[1].fd = -1; /* no process under the filter any more */
			continue;
		}
		if (!(p[1].revents & POLLIN))
			continue;
		memset(req, 0, nsz);
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
			continue; /* the caller went away (ENOENT), or a signal */
		memset(resp, 0, rsz);
		resp->id = req->id;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, resp); /* ENOENT: gone since */
	}
	free(req);
	free(resp);
	close(fd);
}

static void layers(const char *rules, int sc, int listener, int pair, int caps, const char *shim)
{
	if (caps) {
		if (caps_drop_bounding() < 0) {
			errno = setup_err.err;
			fail(setup_err.detail);
		}
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			fail("no_new_privs");
	}
	if (rules)
		layers_landlock_file(rules);
	if (sc) {
		int fd = layers_seccomp(listener);
		if (listener)
			hand_over(pair, fd);
	}
	if (shim && setenv("LD_PRELOAD", shim, 1) < 0)
		fail("setenv");
}

int main(int argc, char **argv)
{
	const char *rules = NULL, *shim = NULL;
	int opt, sc = 0, listener = 0, caps = 0;
	while ((opt = getopt(argc, argv, "+L:snp:c")) != -1) {
		if (opt == 'L')
			rules = optarg;
		else if (opt == 's')
			sc = 1;
		else if (opt == 'n')
			listener = 1;
		else if (opt == 'p')
			shim = optarg;
		else if (opt == 'c')
			caps = 1;
		else
			goto usage;
	}
	if (optind >= argc || (listener && !sc))
		goto usage;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC;
	if (uid != 0)
		flags |= CLONE_NEWUSER;
	if (unshare(flags) < 0)
		fail("unshare");
	if (uid != 0) {
		char map[64];
		write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
		write_file("/proc/self/uid_map", map);
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
		write_file("/proc/self/gid_map", map);
	}
	/* -n: made before the fork, as the supervisor makes its pair before
	 * the clone. */
	int pair[2] = {-1, -1};
	if (listener && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
		fail("socketpair");

	pid_t pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			fail("make / private");
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			fail("mount /proc");
		if (listener)
			close(pair[0]);
		layers(rules, sc, listener, pair[1], caps, shim);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "floor: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	if (listener) {
		close(pair[1]);
		int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (pidfd < 0)
			fail("pidfd_open");
		serve(pair[0], pidfd);
		close(pidfd);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			fail("waitpid");
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 125;
usage:
	fprintf(stderr, "usage: floor [-L RULES] [-s [-n]] [-c] [-p SHIM] CMD [ARGS...]\n");
	return 125;
}
