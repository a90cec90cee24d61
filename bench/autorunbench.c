/* autorunbench ROOT [N]: what the check of the files that run code
 * (launcher/plan/autorun.c) costs a session whose writable root is ROOT.
 *
 * At the start the supervisor lists the places (autorun_places); at the
 * exit it lists them again and looks only at the new ones, so a session
 * that created nothing pays one listing at each end. Both are timed here
 * over N rounds (default 20000), with one lstat() of a missing path as
 * the machine's unit: the listing's cost depends on the root's git
 * metadata (a few calls per git directory), never on how many files the
 * root holds. `make bench-autorun` runs it on a generated root of 100 000
 * files, without and with a .git (and a submodule).
 *
 * Then the check at exit for nested .git entries (autorun_check_nested):
 * after a session that made no directory and no name (the filter told
 * the supervisor of none: one test of a flag), and after one that did
 * (a walk of the whole root, timed once: the first walk pays for a cold
 * cache, the figure is the best of 5). */
#include "config.h"
#include "base/session.h"
#include "plan/autorun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "path.h"

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	long n = 20000;
	if (argc < 2 || argc > 3 || (argc == 3 && !parse_long(argv[2], 1, 10000000, &n))) {
		fprintf(stderr, "usage: autorunbench ROOT [N]\n");
		return 2;
	}
	char *root = realpath(argv[1], NULL);
	if (!root) {
		perror(argv[1]);
		return 1;
	}
	struct strv roots = {0};
	strv_push(&roots, root);
	const char *home = getenv("HOME");
	const char *homes[] = {home && home[0] == '/' ? home : "/", NULL};

	char *missing = path_join(root, ".wicket-bench-missing");
	struct stat st;
	double t0 = now_us();
	for (long i = 0; i < n; i++)
		(void)lstat(missing, &st);
	double unit = (now_us() - t0) / (double)n;

	size_t places = 0;
	t0 = now_us();
	for (long i = 0; i < n; i++) {
		struct strv out = {0};
		autorun_places(&roots, homes, &out);
		places = out.n;
		strv_free(&out);
	}
	double listing = (now_us() - t0) / (double)n;
	printf("%s: %zu places; one listing %.2f us (%.1f lstat() of a missing path, "
	       "%.2f us each)\n", root, places, listing, listing / unit, unit);

	struct session s;
	memset(&s, 0, sizeof s);
	s.pol.write = roots;
	s.session_id = "bench";
	clock_gettime(CLOCK_REALTIME, &s.started);
	double walk = 0;
	for (int i = 0; i < 5; i++) {
		t0 = now_us();
		autorun_check_nested(&s);
		double t = now_us() - t0;
		if (i == 0 || t < walk)
			walk = t;
	}
	printf("%s: exit check for nested .git (a walk, after every session) %.0f us\n", root, walk);
	free(missing);
	strv_free(&roots);
	return 0;
}
