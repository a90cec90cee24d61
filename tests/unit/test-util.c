/* lib/util.c: what wicket exits with for a process's wait status (its
 * own status, or 128 + the signal), checked on real processes; where
 * this program's executable is, and what lies next to it. */
#include "config.h"
#include "tap.h"
#include "util.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The wait status of a child that exits with CODE, or dies of SIG. */
static int status_of(int code, int sig)
{
	pid_t p = fork();
	if (p == 0) {
		if (sig) {
			signal(sig, SIG_DFL);
			raise(sig);
		}
		_exit(code);
	}
	int st = -1;
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return st;
}

int main(void)
{
	ok(exit_code_of(status_of(0, 0)) == 0, "exit 0: 0");
	ok(exit_code_of(status_of(3, 0)) == 3, "exit 3: 3");
	ok(exit_code_of(status_of(255, 0)) == 255, "exit 255: 255");
	ok(exit_code_of(status_of(0, SIGKILL)) == 137, "SIGKILL: 137");
	ok(exit_code_of(status_of(0, SIGTERM)) == 128 + SIGTERM, "SIGTERM: 128 + 15");
	ok(exit_code_of_signal(SIGINT) == 130, "SIGINT itself: 130");
	/* A stopped child's status (WIFSTOPPED) is neither. */
	ok(exit_code_of(0x137f) == EXIT_WICKET, "stopped: %d", EXIT_WICKET);

	char exe[PATH_MAX], small[4];
	char *real = realpath("/proc/self/exe", NULL);
	ok(self_exe(exe, sizeof exe) && real && strcmp(exe, real) == 0, "self_exe: this test (%s)", exe);
	ok(!self_exe(small, sizeof small), "self_exe: a buffer too small is no path");
	char *dir = self_relative(".");
	char *slash = strrchr(exe, '/');
	ok(dir && slash && strlen(dir) == (size_t)(slash - exe) && strncmp(dir, exe, strlen(dir)) == 0,
	   "self_relative(\".\"): the executable's directory (%s)", dir ? dir : "NULL");
	char *up = self_relative("../unit/..");
	ok(up && strrchr(dir, '/') && strlen(up) == (size_t)(strrchr(dir, '/') - dir),
	   "self_relative: canonical (%s)", up ? up : "NULL");
	ok(self_relative("no-such-file-here") == NULL, "self_relative: nothing there, NULL");
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	char named[PATH_MAX];
	ok(nul >= 0 && path_of_fd(nul, named, sizeof named) && strcmp(named, "/dev/null") == 0,
	   "path_of_fd: what a descriptor names");
	ok(nul >= 0 && !path_of_fd(nul, small, sizeof small), "path_of_fd: a buffer too small is no path");
	close(nul);
	ok(!path_of_fd(nul, named, sizeof named), "path_of_fd: a closed descriptor names nothing");
	free(real);
	free(dir);
	free(up);
	for (long ms = 0; ms <= 2500; ms += 833) {
		struct timespec before, t, after;
		clock_gettime(CLOCK_MONOTONIC, &before);
		t = monotonic_after_ms(ms);
		clock_gettime(CLOCK_MONOTONIC, &after);
		long long tn = t.tv_sec * 1000000000LL + t.tv_nsec;
		long long lo = before.tv_sec * 1000000000LL + before.tv_nsec + ms * 1000000LL;
		long long hi = after.tv_sec * 1000000000LL + after.tv_nsec + ms * 1000000LL;
		ok(t.tv_nsec >= 0 && t.tv_nsec < 1000000000L && tn >= lo && tn <= hi,
		   "monotonic_after_ms(%ld): that far from now, nanoseconds below a second", ms);
	}
	return done_testing();
}
