/* walkidx (launcher/plan/walkidx.c): the index of a root's directories
 * reads back as it was saved, finds a child by name, and is refused
 * whole when it does not read back (another root's, cut short). */
#include "config.h"
#include "plan/walkidx.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct stat at(unsigned long ino, long long ctime_ns)
{
	struct stat st = {0};
	st.st_dev = 7;
	st.st_ino = ino;
	st.st_ctim.tv_sec = ctime_ns / 1000000000LL;
	st.st_ctim.tv_nsec = ctime_ns % 1000000000LL;
	return st;
}

int main(void)
{
	char tmpl[] = "/tmp/wicket-widx-XXXXXX";
	if (!mkdtemp(tmpl))
		return 1;
	setenv("XDG_STATE_HOME", tmpl, 1);
	struct widx x = {.made_ns = 123456789};
	struct stat st = at(1, 1000000001);
	uint32_t r = widx_add(&x, WIDX_NONE, "", &st);
	st = at(2, 5);
	uint32_t a = widx_add(&x, r, "a", &st);
	st = at(3, 6);
	widx_add(&x, a, "deep", &st);
	st = at(4, 7);
	uint32_t b = widx_add(&x, r, "b", &st);
	x.v[b].flags = WIDX_GIT | WIDX_HEAD;
	for (int i = 0; i < 50; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "z%02d", 49 - i);
		st = at(100 + (unsigned)i, 8);
		widx_add(&x, r, nm, &st);
	}
	widx_link(&x);
	widx_save("/w/root", &x);

	struct widx y;
	widx_load("/w/root", &y);
	ok(y.n == x.n && y.made_ns == x.made_ns, "reads back: %zu nodes", y.n);
	uint32_t *sorted = NULL;
	size_t ns = 0;
	uint32_t yb = widx_child(&y, 0, "b", &sorted, &ns);
	ok(yb != WIDX_NONE && y.v[yb].flags == (WIDX_GIT | WIDX_HEAD) && y.v[yb].ino == 4,
	   "a child by name, with its flags");
	uint32_t z = widx_child(&y, 0, "z07", &sorted, &ns);
	ok(z != WIDX_NONE && y.v[z].ino == 100 + 42, "a child among many");
	ok(widx_child(&y, 0, "nope", &sorted, &ns) == WIDX_NONE, "no such child");
	free(sorted);
	sorted = NULL;
	uint32_t ya = widx_child(&y, 0, "a", &sorted, &ns);
	free(sorted);
	sorted = NULL;
	uint32_t d = ya != WIDX_NONE ? widx_child(&y, ya, "deep", &sorted, &ns) : WIDX_NONE;
	free(sorted);
	ok(d != WIDX_NONE && y.v[d].ctime_ns == 6 && y.v[0].ctime_ns == 1000000001,
	   "a grandchild, change times kept");
	widx_free(&y);

	/* Another root's name: nothing. */
	widx_load("/w/other", &y);
	ok(y.n == 0, "another root has no index");
	/* Cut short: refused whole. */
	char path[256];
	snprintf(path, sizeof path, "%s/wicket/walk", tmpl);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "for f in %s/*; do truncate -s -3 \"$f\"; done", path);
	ok(system(cmd) == 0, "cut the index short");
	widx_load("/w/root", &y);
	ok(y.n == 0, "an index cut short is refused");
	widx_free(&y);
	/* The roots used last are kept, the oldest indexes go. */
	for (int i = 0; i < 70; i++) {
		char root[32];
		snprintf(root, sizeof root, "/w/r%d", i);
		widx_save(root, &x);
	}
	snprintf(cmd, sizeof cmd, "test \"$(ls %s | wc -l)\" -eq 64", path);
	ok(system(cmd) == 0, "64 indexes kept");
	widx_load("/w/r69", &y);
	ok(y.n == x.n, "the newest among them");
	widx_free(&y);
	widx_free(&x);
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpl);
	ok(system(cmd) == 0, "cleaned up");
	return done_testing();
}
