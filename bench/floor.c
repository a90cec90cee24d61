/* floor: the physical floor of a namespace sandbox, for `make bench`.
 *
 *   floor CMD [ARGS...]
 *
 * Does only what no sandbox of wicket's shape can avoid: one unshare() of
 * the namespaces wicket uses (the user namespace only when not root, mapping
 * the caller to itself), a fork (a new pid namespace takes effect for
 * children only), and in the child (pid 1) a private / and a new /proc,
 * then exec. No read-only view, no Landlock, no seccomp, no capability
 * dropping: whatever wicket spends beyond this is wicket's own overhead.
 *
 * Exit status: the command's; 128+N if it died of signal N; 125 if the
 * floor itself failed; 127 if the command could not be executed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

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

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: floor CMD [ARGS...]\n");
		return 125;
	}
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

	pid_t pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			fail("make / private");
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			fail("mount /proc");
		execvp(argv[1], argv + 1);
		fprintf(stderr, "floor: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
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
}
