/* spawnbench: wall time of short-lived commands, measured interleaved.
 *
 *   spawnbench [-n N] [-w W] [-t SECS] [-s SEP] [-o FILE] [-r FILE] [-x] [-b SHELLCMD]
 *              [-e FILE] SEP NAME CMD [ARGS...] [SEP NAME CMD ...]
 *
 * Every command is run N times (after W warm-up rounds that are thrown
 * away), round-robin: one run of each command per round, the starting
 * command rotating from round to round, so that drift (frequency scaling,
 * caches, other load) affects all of them alike. Each run is a
 * posix_spawnp() and a wait4(), timed with CLOCK_MONOTONIC; stdin and
 * stdout are /dev/null, stderr is inherited.
 *
 * Prints, per command: mean, median, p10, p90, min, max wall time in ms,
 * mean CPU time (user + system of the command and all of its waited-for
 * descendants) in ms, and the peak RSS of any single process of the run
 * (wait4's ru_maxrss, KiB). With -o, also writes those numbers as
 * tab-separated lines to FILE for scripts.
 *
 * A benchmark of a failing command is meaningless: if any run exits
 * nonzero, dies of a signal or takes longer than SECS (default 10)
 * seconds, spawnbench says which and exits 1. Each run gets its own
 * process group, killed as a whole on a timeout or when spawnbench is
 * told to stop (SIGTERM, SIGINT, SIGHUP), so nothing outlives the bench.
 * SEP (default "::") separates the commands; it must not occur as an
 * argument of a command.
 *
 * For workloads that are more than a start-up:
 *   -x  each command measures itself: its stdout is a pipe, and the last
 *       line it prints is a time in ms (a program that times its own inner
 *       loop, without the sandbox's start-up). Reported as "inner" next to
 *       the wall time; a run that prints no number is a failure.
 *   -b SHELLCMD  run `sh -c SHELLCMD` before every run, untimed (e.g. a
 *       `make clean`); its failure stops the bench.
 *   -e FILE  each run's stderr goes to FILE (e.g. /dev/null for a command
 *       that prints a line per event) instead of being inherited.
 *   -r FILE  also write every measured run, one line each: round, name,
 *       wall ms, inner ms (or "-"), cpu ms, for paired statistics. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile sig_atomic_t timed_out;
static volatile pid_t current_pgid;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static void on_stop(int sig)
{
	static const char msg[] = "spawnbench: stopped by a signal; killing the current run\n";
	if (current_pgid > 0)
		kill(-current_pgid, SIGKILL);
	ssize_t r = write(STDERR_FILENO, msg, sizeof msg - 1);
	(void)r;
	_exit(128 + sig);
}

static void install_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_alarm; /* no SA_RESTART: wait4() returns EINTR */
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

struct cmd {
	const char *name;
	char **argv;
	double *wall;   /* ms, one per measured run */
	double *inner;  /* ms, as the command reported it (-x) */
	double cpu_sum; /* ms */
	long maxrss;    /* KiB */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: spawnbench [-n N] [-w WARMUP] [-t SECS] [-s SEP] [-o FILE] [-r FILE] [-x]\n"
		   "                  [-b SHELLCMD] [-e FILE] "
		   "SEP NAME CMD [ARGS...] [SEP NAME CMD [ARGS...]]...\n");
}

static long parse_count(const char *s, const char *what, long min)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > 10000000) {
		fprintf(stderr, "spawnbench: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double tv_ms(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e3 + (double)tv->tv_usec / 1e3;
}

static void describe_run(char *buf, size_t sz, long round, long warmup)
{
	snprintf(buf, sz, "%sround %ld", round < 0 ? "warm-up " : "",
		 round < 0 ? round + warmup + 1 : round + 1);
}

/* Reads the run's stdout (-x) to the end, keeping its last non-empty
 * line in LAST. Returns false when a timeout interrupted it. */
static bool read_report(int fd, char *last, size_t sz)
{
	char buf[512], cur[128];
	size_t n = 0;
	last[0] = '\0';
	for (;;) {
		ssize_t r = read(fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR) {
			if (timed_out)
				return false;
			continue;
		}
		for (ssize_t i = 0; i <= r; i++) {
			bool eol = i == r ? r <= 0 : buf[i] == '\n';
			if (eol && n > 0) {
				cur[n] = '\0';
				snprintf(last, sz, "%s", cur);
				n = 0;
			} else if (i < r && !eol && n < sizeof cur - 1) {
				cur[n++] = buf[i];
			}
		}
		if (r <= 0)
			return true;
	}
}

/* One run: spawn, wait, check. Returns the wall time in ms. With -x the
 * run's stdout is the pipe OUT_WR (closed here once the child has it),
 * and *INNER is the number it printed last on it, read from OUT_RD. */
static double run_once(struct cmd *c, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, unsigned timeout, long round, long warmup,
		       struct rusage *ru, int out_rd, int out_wr, double *inner)
{
	pid_t pid;
	timed_out = 0;
	alarm(timeout);
	double t0 = now_ms();
	int e = posix_spawnp(&pid, c->argv[0], fa, attr, c->argv, environ);
	if (e) {
		alarm(0);
		fprintf(stderr, "spawnbench: %s: cannot run %s: %s\n", c->name, c->argv[0],
			strerror(e));
		exit(1);
	}
	current_pgid = pid;
	if (out_wr >= 0)
		close(out_wr); /* the child has its copy; the read ends with the run */
	int st;
	bool killed = false;
	char last[128];
	if (out_rd >= 0 && !read_report(out_rd, last, sizeof last)) {
		kill(-pid, SIGKILL);
		killed = true;
	}
	while (wait4(pid, &st, 0, ru) < 0) {
		if (errno != EINTR) {
			perror("spawnbench: wait4");
			kill(-pid, SIGKILL);
			exit(1);
		}
		if (timed_out && !killed) {
			kill(-pid, SIGKILL);
			killed = true;
		}
	}
	double t = now_ms() - t0;
	current_pgid = 0;
	alarm(0);
	char when[48];
	describe_run(when, sizeof when, round, warmup);
	if (!killed && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		if (out_rd < 0)
			return t;
		char *end;
		errno = 0;
		*inner = strtod(last, &end);
		if (end != last && *end == '\0' && !errno && *inner >= 0)
			return t;
		fprintf(stderr, "spawnbench: %s: %s: the last line of its output is not a time in "
				"ms: '%s'\n", c->name, when, last);
		fprintf(stderr, "spawnbench: a benchmark of a failing command is meaningless; "
				"stopping\n");
		exit(1);
	}
	if (killed)
		fprintf(stderr, "spawnbench: %s: %s: no exit after %u s, killed\n", c->name, when,
			timeout);
	else if (WIFEXITED(st))
		fprintf(stderr, "spawnbench: %s: %s: exit status %d\n", c->name, when,
			WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		fprintf(stderr, "spawnbench: %s: %s: killed by signal %d (%s)\n", c->name, when,
			WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		fprintf(stderr, "spawnbench: %s: %s: wait status 0x%x\n", c->name, when, st);
	fprintf(stderr, "spawnbench: a benchmark of a failing command is meaningless; stopping\n");
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* `sh -c CMD` (-b), before a run, untimed, in its own process group so
 * that a timeout or a signal ends all of it. */
static void prep(const char *cmd, const posix_spawnattr_t *attr, unsigned timeout,
		 const char *name, long round, long warmup)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	char *argv[] = {"sh", "-c", (char *)cmd, NULL};
	pid_t pid;
	timed_out = 0;
	alarm(timeout);
	int e = posix_spawn(&pid, "/bin/sh", &fa, attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e) {
		alarm(0);
		fprintf(stderr, "spawnbench: cannot run /bin/sh: %s\n", strerror(e));
		exit(1);
	}
	current_pgid = pid;
	int st;
	bool killed = false;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			perror("spawnbench: waitpid");
			kill(-pid, SIGKILL);
			exit(1);
		}
		if (timed_out && !killed) {
			kill(-pid, SIGKILL);
			killed = true;
		}
	}
	current_pgid = 0;
	alarm(0);
	if (!killed && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	char when[48];
	describe_run(when, sizeof when, round, warmup);
	fprintf(stderr, "spawnbench: %s: %s: the command before it (-b '%s') failed%s\n", name,
		when, cmd, killed ? " to finish in time" : "");
	exit(1);
}

/* Linear interpolation between closest ranks, on sorted data. */
static double quantile(const double *v, long n, double q)
{
	double pos = q * (double)(n - 1);
	long i = (long)pos;
	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

struct stats {
	double mean, med, p10, p25, p75, p90, min, max;
};

/* Sorts V in place. */
static struct stats stats_of(double *v, long n)
{
	double sum = 0;
	for (long i = 0; i < n; i++)
		sum += v[i];
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return (struct stats){
		.mean = sum / (double)n,
		.med = quantile(v, n, 0.5),
		.p10 = quantile(v, n, 0.1),
		.p25 = quantile(v, n, 0.25),
		.p75 = quantile(v, n, 0.75),
		.p90 = quantile(v, n, 0.9),
		.min = v[0],
		.max = v[n - 1],
	};
}

int main(int argc, char **argv)
{
	long n = 300, warmup = 5, timeout = 10;
	const char *sep = "::", *out = NULL, *raw = NULL, *before = NULL, *errfile = NULL;
	bool report = false;
	int opt;
	while ((opt = getopt(argc, argv, "+n:w:t:s:o:r:xb:e:h")) != -1) {
		switch (opt) {
		case 'n':
			n = parse_count(optarg, "iteration count", 1);
			break;
		case 'w':
			warmup = parse_count(optarg, "warm-up count", 0);
			break;
		case 't':
			timeout = parse_count(optarg, "timeout", 1);
			break;
		case 's':
			sep = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'r':
			raw = optarg;
			break;
		case 'x':
			report = true;
			break;
		case 'b':
			before = optarg;
			break;
		case 'e':
			errfile = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc || strcmp(argv[optind], sep) != 0) {
		usage(stderr);
		return 2;
	}

	/* Split the rest at SEP, in place: each group is NAME CMD [ARGS...]. */
	size_t ncmd = 0;
	for (int i = optind; i < argc; i++)
		if (strcmp(argv[i], sep) == 0)
			ncmd++;
	struct cmd *cmds = calloc(ncmd, sizeof *cmds);
	if (!cmds) {
		perror("spawnbench");
		return 1;
	}
	size_t k = 0;
	for (int i = optind; i < argc;) {
		int j = i + 1;
		while (j < argc && strcmp(argv[j], sep) != 0)
			j++;
		if (j - i < 3) {
			fprintf(stderr, "spawnbench: command %zu: need NAME and CMD after '%s'\n",
				k + 1, sep);
			return 2;
		}
		cmds[k].name = argv[i + 1];
		cmds[k].argv = argv + i + 2;
		argv[j < argc ? j : argc] = NULL; /* argv[argc] is NULL already */
		cmds[k].wall = calloc((size_t)n, sizeof(double));
		cmds[k].inner = calloc((size_t)n, sizeof(double));
		if (!cmds[k].wall || !cmds[k].inner) {
			perror("spawnbench");
			return 1;
		}
		k++;
		i = j;
	}

	FILE *rf = NULL;
	if (raw) {
		if (!(rf = fopen(raw, "w"))) {
			fprintf(stderr, "spawnbench: %s: %s\n", raw, strerror(errno));
			return 1;
		}
		fprintf(rf, "#round\tname\twall_ms\tinner_ms\tcpu_ms\n");
	}

	posix_spawnattr_t attr;
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	install_handlers();

	for (long r = -warmup; r < n; r++) {
		for (size_t j = 0; j < ncmd; j++) {
			/* Rotate the start so no command always follows the same one. */
			struct cmd *c = &cmds[((size_t)(r + warmup) + j) % ncmd];
			if (before)
				prep(before, &attr, (unsigned)timeout, c->name, r, warmup);
			/* With -x a fresh pipe per run, so that its end is the run's end. */
			int p[2] = {-1, -1};
			if (report && pipe2(p, O_CLOEXEC) < 0) {
				perror("spawnbench: pipe");
				return 1;
			}
			posix_spawn_file_actions_t fa;
			posix_spawn_file_actions_init(&fa);
			posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
			if (report)
				posix_spawn_file_actions_adddup2(&fa, p[1], 1);
			else
				posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
			if (errfile)
				posix_spawn_file_actions_addopen(&fa, 2, errfile,
								 O_WRONLY | O_CREAT | O_TRUNC, 0600);
			struct rusage ru;
			double inner = 0;
			double t = run_once(c, &fa, &attr, (unsigned)timeout, r, warmup, &ru, p[0],
					    p[1], &inner);
			posix_spawn_file_actions_destroy(&fa);
			if (report)
				close(p[0]);
			if (r < 0)
				continue;
			c->wall[r] = t;
			c->inner[r] = inner;
			double cpu = tv_ms(&ru.ru_utime) + tv_ms(&ru.ru_stime);
			c->cpu_sum += cpu;
			if (ru.ru_maxrss > c->maxrss)
				c->maxrss = ru.ru_maxrss;
			if (rf && report)
				fprintf(rf, "%ld\t%s\t%.4f\t%.6f\t%.3f\n", r + 1, c->name, t, inner, cpu);
			else if (rf)
				fprintf(rf, "%ld\t%s\t%.4f\t-\t%.3f\n", r + 1, c->name, t, cpu);
		}
	}
	posix_spawnattr_destroy(&attr);
	if (rf && fclose(rf) != 0) {
		fprintf(stderr, "spawnbench: %s: %s\n", raw, strerror(errno));
		return 1;
	}

	FILE *of = NULL;
	if (out && !(of = fopen(out, "w"))) {
		fprintf(stderr, "spawnbench: %s: %s\n", out, strerror(errno));
		return 1;
	}
	if (of)
		fprintf(of, "#name\truns\tmean_ms\tmedian_ms\tp10_ms\tp90_ms\tmin_ms\tmax_ms"
			    "\tcpu_ms\tmaxrss_kib\tp25_ms\tp75_ms\tinner_mean_ms\tinner_median_ms"
			    "\tinner_p25_ms\tinner_p75_ms\n");
	int w = 12;
	for (size_t j = 0; j < ncmd; j++)
		if ((int)strlen(cmds[j].name) > w)
			w = (int)strlen(cmds[j].name);
	printf("%-*s %6s %8s %8s %8s %8s %8s %8s %8s %10s\n", w, "command", "runs", "mean",
	       "median", "p10", "p90", "min", "max", "cpu", "maxrss");
	for (size_t j = 0; j < ncmd; j++) {
		struct cmd *c = &cmds[j];
		struct stats s = stats_of(c->wall, n);
		double cpu = c->cpu_sum / (double)n;
		printf("%-*s %6ld %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %6ld KiB\n", w, c->name,
		       n, s.mean, s.med, s.p10, s.p90, s.min, s.max, cpu, c->maxrss);
		if (!of)
			continue;
		fprintf(of, "%s\t%ld\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%ld\t%.4f\t%.4f",
			c->name, n, s.mean, s.med, s.p10, s.p90, s.min, s.max, cpu, c->maxrss,
			s.p25, s.p75);
		if (report) {
			struct stats in = stats_of(c->inner, n);
			fprintf(of, "\t%.6f\t%.6f\t%.6f\t%.6f\n", in.mean, in.med, in.p25, in.p75);
		} else {
			fprintf(of, "\t-\t-\t-\t-\n");
		}
	}
	if (report) {
		printf("inner: the time each command reported for its own work, in ms\n");
		printf("%-*s %6s %8s %8s %8s %8s %8s %8s %8s %8s\n", w, "command", "runs", "mean",
		       "median", "p10", "p25", "p75", "p90", "min", "max");
		for (size_t j = 0; j < ncmd; j++) {
			struct cmd *c = &cmds[j];
			struct stats s = stats_of(c->inner, n);
			printf("%-*s %6ld %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n", w,
			       c->name, n, s.mean, s.med, s.p10, s.p25, s.p75, s.p90, s.min, s.max);
		}
	}
	if (of && fclose(of) != 0) {
		fprintf(stderr, "spawnbench: %s: %s\n", out, strerror(errno));
		return 1;
	}
	return 0;
}
