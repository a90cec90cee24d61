/* What a tool call costs a harness that speaks a warm session's protocol
 * itself (lib/warmproto.h), with no `wicket exec` process of its own:
 * N calls of CMD through the session's socket against N posix_spawn and
 * wait of CMD here, interleaved; prints each one's median in ms.
 *
 *   warmcall SOCKET N CMD [ARGS...]
 */
#include "config.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "warmproto.h"

extern char **environ;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int call(const char *path, char **argv, int argc)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) < 0)
		return -1;
	char cwd[4096];
	struct warm_msg m = {.verb = WARM_EXEC, .fds = "nnn", .status = -1,
			     .cwd = getcwd(cwd, sizeof cwd), .argv = (const char **)argv,
			     .argc = (size_t)argc};
	size_t len;
	char *buf = warm_encode(&m, &len);
	int status = -1;
	if (buf && send(s, buf, len, MSG_NOSIGNAL) == (ssize_t)len) {
		char r[WARM_MSG_MAX];
		ssize_t n = recv(s, r, sizeof r, 0);
		struct warm_msg res;
		const char *err;
		if (n > 0 && warm_decode(r, (size_t)n, &res, &err)) {
			status = res.verb == WARM_EXIT ? res.status : -1;
			warm_msg_free(&res);
		}
	}
	free(buf);
	close(s);
	return status;
}

static int spawn(char **argv)
{
	pid_t pid;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	for (int fd = 0; fd < 3; fd++)
		posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", O_RDWR, 0);
	int r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	int st;
	if (r != 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return fprintf(stderr, "usage: warmcall SOCKET N CMD [ARGS...]\n"), 2;
	int n = atoi(argv[2]);
	if (n < 1)
		return 2;
	double *w = calloc((size_t)n, sizeof *w), *b = calloc((size_t)n, sizeof *b);
	for (int i = 0; i < n; i++) {
		double t0 = now_ms();
		if (call(argv[1], argv + 3, argc - 3) != 0)
			return fprintf(stderr, "warmcall: the call through the session failed\n"), 1;
		double t1 = now_ms();
		if (spawn(argv + 3) != 0)
			return fprintf(stderr, "warmcall: the bare call failed\n"), 1;
		double t2 = now_ms();
		w[i] = t1 - t0;
		b[i] = t2 - t1;
	}
	qsort(w, (size_t)n, sizeof *w, cmp);
	qsort(b, (size_t)n, sizeof *b, cmp);
	printf("%.3f %.3f\n", w[n / 2], b[n / 2]);
	free(w);
	free(b);
	return 0;
}
