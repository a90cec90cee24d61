/* lib/util.c: what wicket exits with for a process's wait status (its
 * own status, or 128 + the signal), checked on real processes. */
#include "config.h"
#include "tap.h"
#include "util.h"

#include <signal.h>
#include <stdlib.h>
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
	return done_testing();
}
