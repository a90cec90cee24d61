/* forkchain DIR SECONDS: a process that will not stop. It ignores SIGHUP
 * and SIGTERM, leaves its session, then forks as fast as it can, each
 * generation exiting as soon as its child exists, so no pid lives long
 * enough for a scan of /proc to signal it. Every 64 generations it
 * writes "PID COUNT" to DIR/alive (by rename, whole). It ends by itself
 * after SECONDS, so a test that fails does not leave it running. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	time_t end = time(NULL) + atoi(argv[2]);
	char tmp[4096], alive[4096];
	snprintf(tmp, sizeof tmp, "%s/alive.tmp", argv[1]);
	snprintf(alive, sizeof alive, "%s/alive", argv[1]);
	if (fork() != 0)
		_exit(0);
	setsid();
	unsigned long n = 0;
	while (time(NULL) < end) {
		pid_t p = fork();
		if (p > 0)
			_exit(0);
		if (p < 0) {
			usleep(1000);
			continue;
		}
		if (++n % 64 == 0) {
			FILE *f = fopen(tmp, "w");
			if (f) {
				fprintf(f, "%d %lu\n", (int)getpid(), n);
				fclose(f);
				rename(tmp, alive);
			}
		}
	}
	return 0;
}
