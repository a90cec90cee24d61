/* wk_realpath (lib/realpath.c) gives what realpath() gives, errno
 * included, on a real tree: existing paths, missing ones, links on the
 * way and at the end, dangling links, loops, a file taken for a
 * directory, a directory without search permission (as a user), "."
 * and ".." and extra slashes. */
#include "config.h"
#include "realpath.h"
#include "util.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void same_as(const char *p, const char *label)
{
	errno = 0;
	char *want = realpath(p, NULL);
	int we = want ? 0 : errno;
	errno = 0;
	char *got = wk_realpath(p);
	int ge = got ? 0 : errno;
	is_str(got, want, "%s", label);
	ok(we == ge, "%s: errno %d, realpath's %d", label, ge, we);
	free(want);
	free(got);
}

/* wk_no_link_on_way against lstat() of each leading part up to the first
 * that is missing or no directory: never true where one is a link; true
 * where none is and every part could be looked at. */
static void links_as(const char *p, const char *label)
{
	char buf[PATH_MAX * 2];
	bool link = false, blind = false;
	if (p[0] == '/' && strlen(p) < sizeof buf) {
		strcpy(buf, p);
		for (char *c = buf + 1;; c++) {
			char keep = *c;
			if (keep != '/' && keep != '\0')
				continue;
			*c = '\0';
			struct stat st;
			if (lstat(buf, &st) < 0) {
				blind = errno != ENOENT && errno != ENOTDIR;
				break;
			}
			if (S_ISLNK(st.st_mode)) {
				link = true;
				break;
			}
			*c = keep;
			if (!keep || (keep == '/' && !S_ISDIR(st.st_mode) && c[1]))
				break;
		}
	}
	bool got = wk_no_link_on_way(p);
	if (link)
		ok(!got, "%s: a link on the way", label);
	else if (!blind && p[0] == '/' && strlen(p) < PATH_MAX)
		ok(got, "%s: no link on the way", label);
	else
		ok(1, "%s: not known (%s)", label, got ? "none" : "maybe");
}

static void same(const char *p)
{
	same_as(p, p);
	links_as(p, p);
}

static void at(const char *root, const char *rel)
{
	char *p = xasprintf("%s%s", root, rel);
	same(p);
	free(p);
}

int main(void)
{
	char tmpl[] = "/tmp/wk-realpath-XXXXXX";
	char *d = mkdtemp(tmpl);
	ok(d != NULL, "a directory to work in");
	if (!d)
		return done_testing();
	char *cmd = xasprintf(
		"set -e; cd '%s'; mkdir -p a/b/c e; echo x >a/f; ln -s a la; ln -s b a/lb;"
		" ln -s /nonexistent-wk dangle; ln -s missing rel-dangle; ln -s loop1 loop2;"
		" ln -s loop2 loop1; ln -s ../a/b e/up; ln -s f a/lf; ln -s a/f lfile;"
		" mkdir -p shut/in; chmod 0 shut",
		d);
	ok(system(cmd) == 0, "the tree");
	free(cmd);
	static const char *const rels[] = {
		"", "/", "/.", "/..", "/a", "/a/", "/a//b", "/a/./b/", "/a/b/c", "/a/b/..",
		"/a/b/../..", "/a/b/c/../../f", "/a/f", "/a/f/", "/a/f/.", "/a/f/..",
		"/missing", "/missing/", "/missing/..", "/a/missing", "/a/missing/x",
		"/a/f/x", "/la", "/la/", "/la/b/c", "/la/f", "/la/..", "/a/lb/c",
		"/a/lb/..", "/dangle", "/dangle/x", "/rel-dangle", "/loop1", "/loop1/x",
		"/e/up", "/e/up/..", "/e/up/c/..", "/a/lf", "/lfile", "/lfile/",
		"/a/b/c/../../../la/b", "//a///b//c//", "/shut", "/shut/in", "/shut/x", "/shut/..",
	};
	for (size_t i = 0; i < sizeof rels / sizeof *rels; i++)
		at(d, rels[i]);
	static const char *const fixed[] = {
		"/", "/etc", "/etc/passwd", "/proc/self", "/proc/self/fd/0", "/dev/null",
		"/nonexistent-wk/x", "/..", "//", "/usr/../etc/.",
	};
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		same(fixed[i]);
	/* Relative paths and the empty one: realpath() itself. */
	ok(chdir(d) == 0, "into the tree");
	same("a/b");
	same("la/f");
	same("");
	same(".");
	/* A path as long as the kernel takes, without links. */
	char longp[PATH_MAX + 16];
	size_t n = (size_t)snprintf(longp, sizeof longp, "%s/a", d);
	while (n + 2 < PATH_MAX + 8) {
		longp[n++] = '/';
		longp[n++] = '.';
	}
	longp[n] = '\0';
	same_as(longp, "a path longer than PATH_MAX, \"/.\" repeated");
	longp[PATH_MAX - 1] = '\0';
	same_as(longp, "a path of PATH_MAX - 1 bytes");
	cmd = xasprintf("chmod 700 '%s/shut' && rm -rf '%s'", d, d);
	ok(system(cmd) == 0, "cleaned up");
	free(cmd);
	return done_testing();
}
