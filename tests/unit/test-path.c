#include "config.h"
#include "path.h"
#include "pathlex.h"

#include <string.h>
#include "util.h"
#include "tap.h"

#include <stdlib.h>

/* The launcher's copy (path_normalize) and the shim's in place
 * (pathlex_normalize) give the same. */
static void norm(const char *in, const char *want)
{
	char *got = path_normalize(in);
	is_str(got, want, "normalize %s", in ? in : "(null)");
	free(got);
	if (!want)
		return;
	char buf[256];
	strcpy(buf, in);
	size_t n = pathlex_normalize(buf);
	is_str(buf, want, "in place %s", in);
	ok(n == strlen(want), "in place %s: its length", in);
}

int main(void)
{
	norm("/", "/");
	norm("//", "/");
	norm("/a/b/", "/a/b");
	norm("/a//b", "/a/b");
	norm("/a/./b", "/a/b");
	norm("/a/b/..", "/a");
	norm("/a/b/../../..", "/");
	norm("/../a", "/a");
	norm("/a/../b/./c/", "/b/c");
	norm("/a/..b/c", "/a/..b/c");
	norm("/a/.../b", "/a/.../b");
	norm("/.a/b/.", "/.a/b");
	norm("/a/b/c/../../d", "/a/d");
	norm("relative/path", NULL);
	norm("", NULL);

	ok(path_is_under("/a/b", "/a"), "/a/b under /a");
	ok(path_is_under("/a", "/a"), "/a under itself");
	ok(!path_is_under("/ab", "/a"), "/ab not under /a");
	ok(path_is_under("/anything", "/"), "everything under /");
	ok(!path_is_under("/a", "/a/b"), "parent not under child");
	ok(pathlex_under("/a/b", "/a/x", 2) && !pathlex_under("/ab", "/a/x", 2),
	   "a root given by length");
	ok(pathlex_under("/a/b", "/a//", 4) && pathlex_under("/x", "//", 2),
	   "a root's trailing slashes do not count");

	char *j = path_join("/a/", "/b");
	is_str(j, "/a/b", "join collapses slashes");
	free(j);
	j = path_expand_home("~/.ssh", "/home/u");
	is_str(j, "/home/u/.ssh", "tilde expands");
	free(j);
	j = path_expand_home("~", "/home/u");
	is_str(j, "/home/u", "lone tilde");
	free(j);
	j = path_expand_home("~other/x", "/home/u");
	is_str(j, "~other/x", "~user is not expanded");
	free(j);
	j = path_dirname("/a/b/c");
	is_str(j, "/a/b", "dirname");
	free(j);
	j = path_dirname("/a");
	is_str(j, "/", "dirname of top level");
	free(j);

	const char *homes[] = {"/home/u", "/root", NULL};
	ok(path_is_home_state("/home/u/.bash_history", homes), "bash history is state");
	ok(path_is_home_state("/home/u/.bash_history-123.tmp", homes), "and bash's temporary file");
	ok(path_is_home_state("/root/.zsh_history.LOCK", homes), "zsh's lock, in the second home");
	ok(path_is_home_state("/home/u/.viminfz.tmp", homes), "vim's temporary viminfo");
	ok(path_is_home_state("/home/u/.lesshst", homes), "less history");
	ok(path_is_home_state("/home/u/.lesshsQ", homes), "and the file less writes it as first");
	ok(path_is_home_state("/home/u/.python_history", homes), "python history");
	ok(path_is_home_state("/home/u/.npm/_cacache/x", homes), "anything in .npm");
	ok(path_is_home_state("/home/u/.cache", homes), ".cache itself");
	ok(!path_is_home_state("/home/u/.cachet", homes), "not .cachet");
	ok(!path_is_home_state("/home/u/.bashrc", homes), "not .bashrc");
	ok(!path_is_home_state("/home/u/x/.bash_history", homes), "not a history below the home");
	ok(!path_is_home_state("/home/uv/.bash_history", homes), "not another home with the same prefix");
	ok(!path_is_home_state("/etc/hosts", homes), "not /etc/hosts");
	ok(!path_is_home_state("/home/u/.bash_history", NULL), "no homes, nothing");

	/* A component walk: slashes skipped, "." and ".." taken on the
	 * part resolved so far. */
	size_t n = 0;
	const char *c = pathlex_next("//ab/cd", &n);
	ok(c && strncmp(c, "ab", 2) == 0 && n == 2, "next: the first component, slashes skipped");
	c = pathlex_next(c + n, &n);
	ok(c && strcmp(c, "cd") == 0 && n == 2, "next: the second, to the end");
	ok(pathlex_next(c + n, &n) == NULL && pathlex_next("///", &n) == NULL, "next: none left");
	char cur[32] = "/a/b";
	ok(pathlex_dot_step(cur, "./x", 1) && strcmp(cur, "/a/b") == 0, "dot: \".\" leaves it");
	ok(pathlex_dot_step(cur, "../x", 2) && strcmp(cur, "/a") == 0, "dot: \"..\" drops the last");
	ok(pathlex_dot_step(cur, "..", 2) && strcmp(cur, "") == 0, "dot: up to \"\", the root");
	ok(pathlex_dot_step(cur, "..", 2) && strcmp(cur, "") == 0, "dot: not above the root");
	ok(!pathlex_dot_step(cur, "..x", 3) && !pathlex_dot_step(cur, ".x", 2) && !pathlex_dot_step(cur, "x", 1),
	   "dot: other names are not");
	return done_testing();
}
