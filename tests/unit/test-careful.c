/* Escalation rules (ask_args_match: exact, "*", a last "**", escapes) and
 * the CAREFUL decision (careful.h) on a small tree: a workspace the
 * "sandbox" can write, a read-only place beside it, links between them. */
#include "config.h"
#include "tap.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "askproto.h"
#include "careful.h"
#include "util.h"

static char top[160];
static struct wk_wset ws;

static char *at(const char *rel)
{
	return xasprintf("%s/%s", top, rel);
}

static void put(const char *rel, const char *text, mode_t mode)
{
	char *p = at(rel);
	FILE *f = fopen(p, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	chmod(p, mode);
	free(p);
}

static void dir(const char *rel)
{
	char *p = at(rel);
	mkdir(p, 0755);
	free(p);
}

static void lnk(const char *target, const char *rel)
{
	char *p = at(rel);
	if (symlink(target, p) < 0)
		abort();
	free(p);
}

static bool rule_is(const char *const *rule, const char *const *argv)
{
	struct strv r = {0};
	size_t n = 0;
	for (size_t i = 0; rule[i]; i++)
		strv_add(&r, rule[i]);
	while (argv[n])
		n++;
	bool m = ask_args_match(&r, (char *const *)argv, n);
	strv_free(&r);
	return m;
}

static void rules(void)
{
	const char *gp[] = {"git", "push", NULL};
	const char *gp_open[] = {"git", "push", "**", NULL};
	const char *star[] = {"git", "*", "x", NULL};
	const char *lit[] = {"echo", "\\*", NULL};
	const char *lit2[] = {"echo", "\\**", NULL};
	const char *bs[] = {"echo", "\\\\x", NULL};
	ok(rule_is(gp, (const char *[]){"git", "push", NULL}), "exact: the same argv matches");
	ok(!rule_is(gp, (const char *[]){"git", "push", "--receive-pack=sh -c x", "r", NULL}),
	   "exact: a longer argv does not (no prefix matching)");
	ok(!rule_is(gp, (const char *[]){"git", NULL}), "exact: a shorter argv does not");
	ok(!rule_is(gp, (const char *[]){"git", "pull", NULL}), "exact: another argument does not");
	ok(rule_is(gp_open, (const char *[]){"git", "push", NULL}), "**: no further argument");
	ok(rule_is(gp_open, (const char *[]){"git", "push", "a", "b", NULL}), "**: any further");
	ok(!rule_is(gp_open, (const char *[]){"git", "pull", "a", NULL}), "**: the rest still exact");
	ok(rule_is(star, (const char *[]){"git", "anything", "x", NULL}), "*: one argument");
	ok(!rule_is(star, (const char *[]){"git", "a", NULL}), "*: not none");
	ok(!rule_is(star, (const char *[]){"git", "a", "b", "x", NULL}), "*: not two");
	ok(rule_is(lit, (const char *[]){"echo", "*", NULL}), "\\*: a literal *");
	ok(!rule_is(lit, (const char *[]){"echo", "a", NULL}), "\\*: not a wildcard");
	ok(rule_is(lit2, (const char *[]){"echo", "**", NULL}), "\\**: a literal **");
	ok(!rule_is(lit2, (const char *[]){"echo", NULL}), "\\**: not the rest form");
	ok(rule_is(bs, (const char *[]){"echo", "\\x", NULL}), "\\\\x: a literal \\x");
	struct strv o = {0};
	strv_add(&o, "git");
	strv_add(&o, "**");
	ok(ask_rule_open(&o), "a last ** is open");
	strv_free(&o);
	strv_add(&o, "git");
	strv_add(&o, "\\**");
	ok(!ask_rule_open(&o), "an escaped ** is not");
	strv_free(&o);
}

static const char *xdg_config; /* the XDG_CONFIG_HOME the command gets, or NULL */
static const char *home_rel = "ro/home"; /* its HOME (relative to top), or NULL */

/* CAREFUL for PROGRAM ARGV... in CWD (relative to top), PATH, HOME. */
static char *careful(const char *cwd, const char *path_env, const char *program, ...)
{
	const char *argv[16];
	size_t n = 0;
	va_list ap;
	va_start(ap, program);
	for (const char *a; n < 15 && (a = va_arg(ap, const char *));)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	char *c = at(cwd), *home = home_rel ? at(home_rel) : NULL;
	char *prog = program[0] == '/' ? xstrdup(program) : at(program);
	struct wk_careful_in in = {.wset = &ws, .cwd = c, .path_env = path_env, .home = home,
				   .xdg_config = xdg_config, .program = prog,
				   .argv = (char *const *)argv, .argc = n};
	char *r = wk_careful(&in);
	free(c);
	free(home);
	free(prog);
	return r;
}

#define CAREFUL(want, what, ...) do { \
	char *r_ = careful(__VA_ARGS__, NULL); \
	ok(want ? r_ != NULL : r_ == NULL, "%s%s%s", what, r_ ? ": " : "", r_ ? r_ : ""); \
	free(r_); \
} while (0)

/* A table of commands (PATH /usr/bin:/bin), each CAREFUL or not. */
struct argv_case {
	bool want;
	const char *what, *cwd, *prog, *argv[8];
};

static void argv_cases(const struct argv_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		CAREFUL(c[i].want, c[i].what, c[i].cwd, "/usr/bin:/bin", c[i].prog, c[i].argv[0],
			c[i].argv[1], c[i].argv[2], c[i].argv[3], c[i].argv[4], c[i].argv[5],
			c[i].argv[6]);
}

static void git(const char *repo, const char *args)
{
	char *cmd = xasprintf("cd %s/%s && git %s >/dev/null 2>&1", top, repo, args);
	if (system(cmd) != 0)
		abort();
	free(cmd);
}

static void decisions(void)
{
	dir("ws");
	dir("ws/sub");
	dir("ro");
	dir("ro/home");
	dir("ro/bin");
	dir("ro/cwd");
	put("ro/bin/tool", "#!/bin/sh\n", 0755);
	put("ro/script.py", "print(1)\n", 0644);
	put("ws/tool", "#!/bin/sh\n", 0755);
	put("ws/x.py", "print(1)\n", 0644);
	char *wsx = at("ws/x.py"), *ros = at("ro/script.py");
	lnk(wsx, "ro/link-to-ws");
	lnk(ros, "ws/link-to-ro");
	char *w = at("ws");
	strv_push(&ws.roots, w);

	const char *P = "/usr/bin:/bin";
	CAREFUL(true, "the program in the workspace", "ro/cwd", P, "ws/tool", "tool");
	/* Any program that runs another it is given: a program or script
	 * of the sandbox's among its arguments (red team 9, F1). */
	put("ws/data.txt", "plain\n", 0644);
	put("ws/noexec.sh", "#!/bin/sh\n", 0644);
	CAREFUL(true, "find -exec a program of the sandbox's", "ro/cwd", P, "/usr/bin/find", "find",
		".", "-exec", "../../ws/tool", ";");
	CAREFUL(true, "tar -I/path (the value bundled)", "ws", P, "/usr/bin/tar", "tar", "-I./tool",
		"-xf", "t.tar");
	CAREFUL(true, "tar --to-command=path", "ro/cwd", P, "/usr/bin/tar", "tar",
		"--to-command=../../ws/tool", "-xf", "t.tar");
	CAREFUL(true, "a script (#!) even when not executable", "ro/cwd", P, "/usr/bin/setarch",
		"setarch", "x86_64", "../../ws/noexec.sh");
	CAREFUL(true, "an interpreter among the arguments, with a script of the sandbox's",
		"ro/cwd", P, "/usr/bin/prlimit", "prlimit", "--nofile=10", "python3", "../../ws/x.py");
	/* Decided on where the program is, not on what is there now: the
	 * sandbox can write it after the check (find waits, tar too). */
	CAREFUL(true, "find -exec a path of the sandbox's that does not exist yet", "ws", P,
		"/usr/bin/find", "find", ".", "-exec", "sleep", "1", ";", "-exec", "./later", ";");
	CAREFUL(true, "find -exec a data file of the sandbox's (made a program later)", "ws", P,
		"/usr/bin/find", "find", ".", "-exec", "./data.txt", ";");
	CAREFUL(true, "find -exec {}: the files it finds", "ro/cwd", P, "/usr/bin/find", "find",
		"/usr", "-exec", "{}", ";");
	CAREFUL(true, "find -exec python3 {}: a script it finds", "ro/cwd", P, "/usr/bin/find",
		"find", ".", "-exec", "python3", "{}", ";");
	CAREFUL(true, "find -exec env with a program of the sandbox's", "ro/cwd", P,
		"/usr/bin/find", "find", ".", "-exec", "env", "../../ws/later", "+");
	CAREFUL(true, "find -execdir ./x: relative to each directory found", "ro/cwd", P,
		"/usr/bin/find", "find", ".", "-execdir", "./x", ";");
	CAREFUL(true, "find -fprint writes a file outside", "ro/cwd", P, "/usr/bin/find", "find",
		".", "-fprint", "/tmp/list");
	CAREFUL(false, "find -exec rm {} runs rm", "ws", P, "/usr/bin/find", "find", ".", "-name",
		"*.o", "-exec", "rm", "{}", "+");
	CAREFUL(false, "find -exec grep with a pattern", "ws", P, "/usr/bin/find", "find", ".",
		"-exec", "grep", "-l", "x", "{}", ";", "-print");
	CAREFUL(true, "tar --to-com=path (abbreviated) not there yet", "ws", P, "/usr/bin/tar",
		"tar", "-xf", "t.tar", "--to-com=./later");
	CAREFUL(true, "tar's old style: xIf PROG FILE", "ws", P, "/usr/bin/tar", "tar", "xIf",
		"./later", "t.tar");
	CAREFUL(true, "tar --checkpoint-action=exec=", "ws", P, "/usr/bin/tar", "tar", "-xf",
		"t.tar", "--checkpoint-action=exec=./later");
	CAREFUL(false, "tar --checkpoint-action=sleep=1 and old-style xf", "ws", P, "/usr/bin/tar",
		"tar", "xf", "t.tar", "--checkpoint=1", "--checkpoint-action=sleep=1");
	CAREFUL(true, "setarch with a path of the sandbox's not there yet", "ws", P,
		"/usr/bin/setarch", "setarch", "x86_64", "./later");
	CAREFUL(true, "sg GROUP CODE: sh -c code", "ws", P, "/usr/bin/sg", "sg", "users",
		"true; ./later");
	CAREFUL(true, "su -c CODE", "ws", P, "/bin/su", "su", "-c", "./later", "root");
	CAREFUL(false, "sg GROUP with a command outside", "ws", P, "/usr/bin/sg", "sg", "users",
		"/bin/true");
	/* Red team 10. */
	char *wsbin = at("ws");
	CAREFUL(true, "env PATH=<writable> PROG: looked up there", "ro/cwd", P, "/usr/bin/env",
		"env", xasprintf("PATH=%s", wsbin), "nosuchprog");
	CAREFUL(true, "find -exec ... + ... {} ;: + not after {} is a word", "ro/cwd", P,
		"/usr/bin/find", "find", ".", "-exec", "env", "-u", "+", "{}", ";");
	CAREFUL(true, "find -execdir env ./x: in each directory found", "ro/cwd", P,
		"/usr/bin/find", "find", ".", "-execdir", "env", "./x", ";");
	CAREFUL(true, "run-parts on a directory of the sandbox's", "ro/cwd", P, "/bin/run-parts",
		"run-parts", "../../ws");
	CAREFUL(false, "run-parts on a read-only directory", "ws", P, "/bin/run-parts", "run-parts",
		"--test", "../ro");
	CAREFUL(true, "zip -TT CMD", "ro/cwd", P, "/usr/bin/zip", "zip", "-T", "-TT", "/bin/true",
		"out.zip", "f");
	CAREFUL(true, "zip --unzip-command=CMD", "ro/cwd", P, "/usr/bin/zip", "zip",
		"--unzip-command=/bin/true", "out.zip", "f");
	CAREFUL(false, "zip -r out.zip dir", "ro/cwd", P, "/usr/bin/zip", "zip", "-r", "out.zip",
		"d");
	CAREFUL(true, "gdb -batch -ex 'shell ...'", "ro/cwd", P, "/usr/bin/gdb", "gdb", "-batch",
		"-ex", "shell touch /tmp/x", "/bin/true");
	CAREFUL(true, "strace -o FILE writes it (\"|cmd\" runs cmd)", "ro/cwd", P,
		"/usr/bin/strace", "strace", "-f", "-o", "|sh", "/bin/true");
	CAREFUL(true, "valgrind --log-file=", "ro/cwd", P, "/usr/bin/valgrind", "valgrind",
		"--log-file=/tmp/x", "/bin/true");
	CAREFUL(false, "strace -f -e trace=open /bin/true", "ro/cwd", P, "/usr/bin/strace",
		"strace", "-f", "-e", "trace=open", "/bin/true");
	free(wsbin);
	CAREFUL(false, "a data file of the sandbox's is no program", "ro/cwd", P, "/usr/bin/cp",
		"cp", "../../ws/data.txt", "/tmp/x");
	CAREFUL(false, "a program outside the writable places is not either", "ro/cwd", P,
		"/usr/bin/find", "find", ".", "-exec", "/bin/true", ";");
	CAREFUL(false, "a program in a read-only place, not an interpreter", "ws", P, "ro/bin/tool",
		"tool", "x.py");
	CAREFUL(false, "python3 with a read-only script and cwd", "ro", P, "/usr/bin/python3",
		"python3", "script.py");
	CAREFUL(true, "python3 in the workspace (it imports from its cwd)", "ws", P,
		"/usr/bin/python3", "python3", "-c", "print(1)");
	CAREFUL(true, "a script in the workspace", "ro/cwd", P, "/usr/bin/python3", "python3",
		wsx);
	CAREFUL(true, "a read-only link to a script in the workspace", "ro", P, "/usr/bin/python3",
		"python3.11", "link-to-ws");
	char *l = at("ws/link-to-ro");
	CAREFUL(true, "a link in the workspace to a read-only script", "ro", P, "/usr/bin/perl",
		"perl", l);
	char *code = xasprintf("exec(open('%s').read())", wsx);
	CAREFUL(true, "a workspace path inside inline code", "ro", P, "/usr/bin/python3", "python3",
		"-c", code);
	CAREFUL(true, "a script through /proc", "ro", P, "/bin/sh", "sh", "/proc/1/root/x");
	CAREFUL(false, "env, then a read-only script", "ro", P, "/usr/bin/env", "env", "A=1",
		"python3", "script.py");
	char *wpath = xasprintf("%s:/usr/bin:/bin", w);
	CAREFUL(true, "env, with a workspace directory in PATH", "ro", wpath, "/usr/bin/env", "env",
		"python3", "script.py");
	CAREFUL(true, "env -S", "ro", P, "/usr/bin/env", "env", "-S", "python3 script.py");
	CAREFUL(true, "timeout wrapping a workspace program", "ro", P, "/usr/bin/timeout", "timeout",
		"10", "../ws/tool");
	CAREFUL(true, "xargs takes its arguments from its input", "ro", P, "/usr/bin/xargs", "xargs",
		"echo");
	CAREFUL(true, "make in the workspace (its Makefile)", "ws", P, "/usr/bin/make", "make");
	/* red team 12, F5: what runs code from the working directory or a
	 * file named, besides the usual interpreters. */
	CAREFUL(true, "java's source-file mode", "ro", P, "/usr/bin/java", "java", "../ws/Evil.java");
	CAREFUL(true, "java in the workspace (classpath .)", "ws", P, "/usr/bin/java", "java", "Evil");
	CAREFUL(true, "jshell with a script", "ro", P, "/usr/bin/jshell", "jshell", "../ws/e.jsh");
	CAREFUL(true, "javac in the workspace (annotation processors)", "ws", P, "/usr/bin/javac",
		"javac", "A.java");
	CAREFUL(true, "ctest in the workspace (CTestTestfile.cmake)", "ws", P, "/usr/bin/ctest", "ctest");
	CAREFUL(true, "autoconf in the workspace (m4_esyscmd)", "ws", P, "/usr/bin/autoconf", "autoconf");
	CAREFUL(true, "autoreconf in the workspace", "ws", P, "/usr/bin/autoreconf", "autoreconf", "-fi");
	CAREFUL(true, "ipython with a script", "ro", P, "/usr/bin/ipython3", "ipython3", "../ws/x.py");
	CAREFUL(true, "R in the workspace (.Rprofile)", "ws", P, "/usr/bin/R", "R");
	CAREFUL(true, "terraform in the workspace (.terraform providers)", "ws", P,
		"/usr/bin/terraform", "terraform", "plan");
	CAREFUL(true, "tofu in the workspace", "ws", P, "/usr/bin/tofu", "tofu", "init");
	CAREFUL(true, "docker compose in the workspace", "ws", P, "/usr/bin/docker", "docker",
		"compose", "up");
	CAREFUL(true, "pre-commit in the workspace", "ws", P, "/usr/bin/pre-commit", "pre-commit",
		"run");
	CAREFUL(true, "uv run in the workspace", "ws", P, "/usr/bin/uv", "uv", "run", "x");
	CAREFUL(true, "poetry in the workspace", "ws", P, "/usr/bin/poetry", "poetry", "install");
	CAREFUL(true, "dotnet in the workspace", "ws", P, "/usr/bin/dotnet", "dotnet", "build");
	CAREFUL(true, "ansible-playbook in the workspace", "ws", P, "/usr/bin/ansible-playbook",
		"ansible-playbook", "x.yml");
	CAREFUL(true, "hg in the workspace (.hg/hgrc hooks)", "ws", P, "/usr/bin/hg", "hg", "status");
	CAREFUL(false, "terraform --version in a read-only place", "ro", P, "/usr/bin/terraform",
		"terraform", "--version");
	CAREFUL(true, "make -f a workspace Makefile", "ro", P, "/usr/bin/make", "make", "-f",
		"../ws/Makefile");
	CAREFUL(true, "npm in the workspace (package.json's scripts)", "ws", P, "/usr/bin/npm", "npm",
		"test");
	CAREFUL(false, "cargo --version in a read-only place", "ro", P, "/usr/bin/cargo", "cargo",
		"--version");

	/* Shells: their -c code, command by command; a script; standard input. */
	static const struct {
		bool want;
		const char *what, *cwd, *prog, *argv[4];
	} sh[] = {
		{false, "sh -c with plain commands, in the workspace", "ws", "/bin/sh",
		 {"sh", "-c", "touch x; sleep 0.3"}},
		{true, "sh -c running make in the workspace", "ws", "/bin/sh",
		 {"sh", "-c", "true && make"}},
		{true, "sh -c with a variable", "ro", "/bin/sh", {"sh", "-c", "echo $HOME"}},
		{false, "sh -c with redirections", "ws", "/bin/sh",
		 {"sh", "-c", "echo x >&2; touch y 2>/dev/null >>out <in &>all 2>&1"}},
		{true, "sh -c with a redirection, then make", "ws", "/bin/sh",
		 {"sh", "-c", "echo x >f; make"}},
		{true, "sh -c reading a script on standard input", "ro", "/bin/sh",
		 {"sh", "-c", "sh <../ws/x"}},
		{true, "sh -c with process substitution", "ro", "/bin/bash",
		 {"bash", "-c", "cat <(id)"}},
		{true, "sh -c with cd", "ro", "/bin/bash", {"bash", "-ec", "cd ../ws"}},
		{true, "sh -c running a workspace program", "ro", "/bin/sh", {"sh", "-c", "../ws/tool"}},
		{true, "a shell script in the workspace", "ws", "/bin/bash", {"bash", "-x", "script.sh"}},
		{false, "a shell script in a read-only place", "ro", "/bin/bash", {"bash", "script.sh"}},
		{true, "sh without a script reads standard input", "ro", "/bin/sh", {"sh"}},
		{true, "bash -s reads standard input", "ro", "/bin/bash", {"bash", "-s", "x"}},
	};
	for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++)
		CAREFUL(sh[i].want, sh[i].what, sh[i].cwd, P, sh[i].prog, sh[i].argv[0],
			sh[i].argv[1], sh[i].argv[2], sh[i].argv[3]);
	/* F6: what wrappers and shells do with their options' values. */
	dir("ws/d");
	char *rocwd = at("ro/cwd");
	lnk(rocwd, "ws/dlink");
	free(rocwd);
	CAREFUL(true, "env --chdir=DIR make: make runs in DIR", "ro", P, "/usr/bin/env", "env",
		"--chdir=../ws", "make");
	CAREFUL(true, "env -C DIR make", "ro", P, "/usr/bin/env", "env", "-C", "../ws/d", "make");
	CAREFUL(true, "env -iCDIR make (bundled)", "ro", P, "/usr/bin/env", "env", "-iC../ws",
		"make");
	CAREFUL(true, "env --ch=DIR (an abbreviation)", "ro", P, "/usr/bin/env", "env", "--ch",
		"../ws", "make");
	CAREFUL(false, "env -C a read-only directory, from the workspace", "ws", P, "/usr/bin/env",
		"env", "-C", "../ro/cwd", "make");
	CAREFUL(false, "env -uC../ws: the value of -u, not -C", "ro", P, "/usr/bin/env", "env",
		"-uC../ws", "make");
	CAREFUL(true, "env -C through a link the sandbox can change", "ro", P, "/usr/bin/env", "env",
		"-C", "../ws/dlink", "true");
	CAREFUL(true, "env -C DIR git: git looks for its repository in DIR", "ro", P,
		"/usr/bin/env", "env", "-C", "../ws/d", "git", "status", "--ignore-submodules");
	CAREFUL(true, "bash --rcfile FILE -c CODE: CODE is checked", "ro", P, "/bin/bash", "bash",
		"--rcfile", "/dev/null", "-c", ". ../ws/x.sh");
	CAREFUL(true, "bash --init-file in the workspace", "ro", P, "/bin/bash", "bash",
		"--init-file", "../ws/x.py", "-c", "true");
	CAREFUL(true, "bash -eo pipefail -c CODE: CODE is checked", "ro", P, "/bin/bash", "bash",
		"-eo", "pipefail", "-c", "../ws/tool");
	CAREFUL(false, "bash -eo pipefail -c with plain commands", "ro", P, "/bin/bash", "bash",
		"-eo", "pipefail", "-c", "true");
	CAREFUL(true, "flock FILE -c CODE: CODE is shell code", "ro", P, "/usr/bin/flock", "flock",
		"/etc/hostname", "-c", ". ../ws/x.sh");
	CAREFUL(true, "flock -xc CODE FILE (bundled)", "ro", P, "/usr/bin/flock", "flock",
		"-xc../ws/tool", "/etc/hostname");
	CAREFUL(false, "flock FILE -c with plain commands", "ro", P, "/usr/bin/flock", "flock",
		"/etc/hostname", "-c", "echo hi");
	CAREFUL(true, "watch joins its words into sh -c code", "ro", P, "/usr/bin/watch", "watch",
		"-n", "1", "echo", "$(id)");
	CAREFUL(false, "watch -x execs them, no shell", "ro", P, "/usr/bin/watch", "watch", "-x",
		"echo", "$(id)");
	CAREFUL(false, "watch -n1 with plain commands", "ro", P, "/usr/bin/watch", "watch", "-n1",
		"date");
	/* F7, F17: programs that run code, or write files, an option names. */
	static const struct argv_case opts[] = {
		{true, "the dynamic loader runs its argument", "ro",
		 "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
		 {"/lib64/ld-linux-x86-64.so.2", "../ws/tool"}},
		{false, "the loader with a read-only program", "ro", "/lib/ld-linux.so.2",
		 {"ld-linux.so.2", "bin/tool"}},
		{true, "m4 in the workspace (syscmd)", "ws", "/usr/bin/m4",
		 {"m4", "x.m4"}},
		{true, "sqlite3 -init a workspace file", "ro", "/usr/bin/sqlite3",
		 {"sqlite3", "-init", "../ws/x.sql", ":memory:"}},
		{false, "sqlite3 with SQL inline, in a read-only place", "ro", "/usr/bin/sqlite3",
		 {"sqlite3", ":memory:", "select 1"}},
		{true, "ssh -F a workspace config (ProxyCommand)", "ro", "/usr/bin/ssh",
		 {"ssh", "-F", "../ws/cfg", "x"}},
		{true, "ssh -vF<file> (bundled)", "ro", "/usr/bin/ssh",
		 {"ssh", "-vF../ws/cfg", "x"}},
		{true, "ssh -o ProxyCommand=", "ro", "/usr/bin/ssh",
		 {"ssh", "-o", "ProxyCommand=sh -c x", "x"}},
		{true, "ssh -oLocalCommand=", "ro", "/usr/bin/ssh",
		 {"ssh", "-oLocalCommand=x", "x"}},
		{false, "ssh -o StrictHostKeyChecking=no", "ro", "/usr/bin/ssh",
		 {"ssh", "-o", "StrictHostKeyChecking=no", "x", "uptime"}},
		{true, "curl -K<file> in the workspace", "ro", "/usr/bin/curl",
		 {"curl", "-K../ws/cfg"}},
		{true, "curl --config <file> in the workspace", "ro", "/usr/bin/curl",
		 {"curl", "--config", "../ws/cfg"}},
		{true, "curl -K - (standard input)", "ro", "/usr/bin/curl",
		 {"curl", "-K", "-"}},
		{true, "curl -sSLo FILE writes a file", "ro", "/usr/bin/curl",
		 {"curl", "-sSLo", "/tmp/x", "https://example.invalid/"}},
		{true, "curl --output=FILE", "ro", "/usr/bin/curl",
		 {"curl", "--output=/tmp/x", "https://example.invalid/"}},
		{true, "curl -O into a directory the sandbox cannot write", "ro", "/usr/bin/curl",
		 {"curl", "-O", "https://example.invalid/.bashrc"}},
		{false, "curl -O into the workspace", "ws", "/usr/bin/curl",
		 {"curl", "-O", "https://example.invalid/x"}},
		{false, "curl -XPOST -sS (X takes the rest)", "ro", "/usr/bin/curl",
		 {"curl", "-XPOST", "-sS", "https://example.invalid/"}},
		{true, "wget --config in the workspace", "ro", "/usr/bin/wget",
		 {"wget", "--config=../ws/rc", "-O", "-", "https://example.invalid/"}},
		{true, "wget -i a list in the workspace", "ro", "/usr/bin/wget",
		 {"wget", "-i", "../ws/list", "-O-"}},
		{true, "wget -e a command", "ro", "/usr/bin/wget",
		 {"wget", "-e", "output_document=/tmp/x", "https://example.invalid/"}},
		{true, "wget into a directory the sandbox cannot write", "ro", "/usr/bin/wget",
		 {"wget", "https://example.invalid/.bashrc"}},
		{false, "wget -qO- (standard output)", "ro", "/usr/bin/wget",
		 {"wget", "-qO-", "https://example.invalid/"}},
		{false, "wget into the workspace", "ws", "/usr/bin/wget",
		 {"wget", "https://example.invalid/x"}},
		/* Red team 8, F15: a client that hands its terminal to a
		 * connection-sharing master or a terminal server at a socket. */
		{true, "ssh -S a control socket in the workspace", "ro", "/usr/bin/ssh",
		 {"ssh", "-S", "../ws/ctl", "host"}},
		{true, "ssh -S anywhere (the socket can come later)", "ro", "/usr/bin/ssh",
		 {"ssh", "-S", "/tmp/ctl", "host"}},
		{true, "ssh -vS<path> (bundled)", "ro", "/usr/bin/ssh", {"ssh", "-vS../ws/ctl", "host"}},
		{true, "ssh -o ControlPath=", "ro", "/usr/bin/ssh",
		 {"ssh", "-o", "ControlPath=../ws/ctl", "host"}},
		{true, "ssh -o controlmaster=auto", "ro", "/usr/bin/ssh",
		 {"ssh", "-o", "controlmaster=auto", "host"}},
		{true, "ssh -oControlPersist=yes", "ro", "/usr/bin/ssh",
		 {"ssh", "-oControlPersist=yes", "host"}},
		{true, "tmux -S a socket", "ro", "/usr/bin/tmux", {"tmux", "-S", "../ws/s", "attach"}},
		{true, "tmux -L a socket name", "ro", "/usr/bin/tmux", {"tmux", "-L", "x", "attach"}},
		{true, "tmux -f a config in the workspace", "ro", "/usr/bin/tmux",
		 {"tmux", "-f", "../ws/conf", "new"}},
		{false, "tmux attach, its own socket", "ro", "/usr/bin/tmux", {"tmux", "attach"}},
		{true, "screen -S a session", "ro", "/usr/bin/screen", {"screen", "-S", "x", "-x"}},
		{true, "screen -c a config in the workspace", "ro", "/usr/bin/screen",
		 {"screen", "-c", "../ws/rc"}},
		{false, "screen -ls", "ro", "/usr/bin/screen", {"screen", "-ls"}},
		/* F9: a library the sandbox compiled, loaded outside. */
		{true, "curl --engine LIB", "ro", "/usr/bin/curl",
		 {"curl", "--engine", "/tmp/e.so", "https://example.invalid/"}},
		{true, "curl --engine=LIB", "ro", "/usr/bin/curl",
		 {"curl", "--engine=../ws/e.so", "https://example.invalid/"}},
		{true, "openssl version -engine LIB", "ro", "/usr/bin/openssl",
		 {"openssl", "version", "-engine", "../ws/e.so"}},
		{true, "openssl req --engine=LIB", "ro", "/usr/bin/openssl",
		 {"openssl", "req", "--engine=/tmp/e.so"}},
		{true, "openssl s_client -provider NAME", "ro", "/usr/bin/openssl",
		 {"openssl", "s_client", "-provider", "x"}},
		{true, "openssl list -provider-path DIR", "ro", "/usr/bin/openssl",
		 {"openssl", "list", "-provider-path", "../ws"}},
		{true, "openssl req -config FILE in the workspace", "ro", "/usr/bin/openssl",
		 {"openssl", "req", "-config", "../ws/x.cnf"}},
		{false, "openssl version -a", "ro", "/usr/bin/openssl", {"openssl", "version", "-a"}},
		{false, "openssl x509 -in FILE -noout", "ro", "/usr/bin/openssl",
		 {"openssl", "x509", "-in", "/etc/hostname", "-noout"}},
		/* F11: code in a file an option names, or on the argv. */
		{true, "less --lesskey-src=FILE in the workspace", "ro", "/usr/bin/less",
		 {"less", "--lesskey-src=../ws/k", "/etc/hostname"}},
		{true, "less -k FILE in the workspace", "ro", "/usr/bin/less",
		 {"less", "-k", "../ws/k", "/etc/hostname"}},
		{true, "less -Rk<file> (bundled)", "ro", "/usr/bin/less",
		 {"less", "-Rk../ws/k", "/etc/hostname"}},
		{true, "less --lesskey-file FILE", "ro", "/usr/bin/less",
		 {"less", "--lesskey-file", "../ws/k", "/etc/hostname"}},
		{false, "less -R FILE", "ro", "/usr/bin/less", {"less", "-R", "/etc/hostname"}},
		{true, "ssh-keygen -D LIB in the workspace", "ro", "/usr/bin/ssh-keygen",
		 {"ssh-keygen", "-D", "../ws/p11.so"}},
		{true, "ssh-keygen -w LIB (a security key provider)", "ro", "/usr/bin/ssh-keygen",
		 {"ssh-keygen", "-t", "ed25519-sk", "-w", "../ws/sk.so"}},
		{true, "ssh-keygen -O sk-provider=LIB", "ro", "/usr/bin/ssh-keygen",
		 {"ssh-keygen", "-O", "sk-provider=../ws/sk.so", "-K"}},
		{false, "ssh-keygen -lf FILE", "ro", "/usr/bin/ssh-keygen",
		 {"ssh-keygen", "-lf", "/etc/hostname"}},
		{true, "vim -S FILE in the workspace", "ro", "/usr/bin/vim",
		 {"vim", "-S", "../ws/s.vim"}},
		{true, "vi -u FILE in the workspace", "ro", "/usr/bin/vi", {"vi", "-u", "../ws/rc"}},
		{true, "vim -c CMD", "ro", "/usr/bin/vim", {"vim", "-c", "!id", "/etc/hostname"}},
		{true, "view --cmd CMD", "ro", "/usr/bin/view", {"view", "--cmd", "!id"}},
		{true, "ex +CMD", "ro", "/usr/bin/ex", {"ex", "+!id", "/etc/hostname"}},
		{true, "nvim -s FILE (typed input) in the workspace", "ro", "/usr/bin/nvim",
		 {"nvim", "-s", "../ws/keys"}},
		{true, "vim -S -c CMD: -S without a file does not take -c", "ro", "/usr/bin/vim",
		 {"vim", "-S", "-c", "!id"}},
		{false, "vim +42 FILE", "ro", "/usr/bin/vim", {"vim", "+42", "/etc/hostname"}},
		{false, "vim -R FILE", "ro", "/usr/bin/vim", {"vim", "-R", "/etc/hostname"}},
		{false, "vim -es FILE: after -e, -s is silent mode", "ro", "/usr/bin/vim",
		 {"vim", "-es", "../ws/notes.txt"}},
		{false, "vim -E -s FILE", "ro", "/usr/bin/vim", {"vim", "-E", "-s", "../ws/notes.txt"}},
		{true, "vim -Tx-e -s FILE: the e is -T's", "ro", "/usr/bin/vim",
		 {"vim", "-Tx-e", "-s", "../ws/keys"}},
		/* F1: GNU sed's e runs shell code, w and W write files. */
		{true, "sed -f a script in the workspace", "ro", "/usr/bin/sed",
		 {"sed", "-f", "../ws/s.sed", "/etc/hostname"}},
		{true, "sed --file=SCRIPT in the workspace", "ro", "/usr/bin/sed",
		 {"sed", "--file=../ws/s.sed", "/etc/hostname"}},
		{true, "sed -nf<script> (bundled)", "ro", "/usr/bin/sed",
		 {"sed", "-nf../ws/s.sed", "/etc/hostname"}},
		{true, "sed -f - (standard input)", "ro", "/usr/bin/sed", {"sed", "-f", "-", "x"}},
		{true, "sed with the e command", "ro", "/usr/bin/sed", {"sed", "1e id", "/etc/hostname"}},
		{true, "sed -e s///e", "ro", "/usr/bin/sed",
		 {"sed", "-n", "-e", "s/.*/id/e", "/etc/hostname"}},
		{true, "sed with w FILE", "ro", "/usr/bin/sed", {"sed", "w /tmp/x", "/etc/hostname"}},
		{true, "sed --expression=W FILE", "ro", "/usr/bin/sed",
		 {"sed", "--expression=W /tmp/x", "/etc/hostname"}},
		{false, "sed s/a/b/ without e or w", "ro", "/usr/bin/sed",
		 {"sed", "-n", "s/a/b/p", "/etc/hostname"}},
		{false, "sed --sandbox refuses e and w", "ro", "/usr/bin/sed",
		 {"sed", "-e", "1e id", "--sandbox", "/etc/hostname"}},
		{false, "sed --sandbox -f a script in the workspace", "ro", "/usr/bin/sed",
		 {"sed", "--sandbox", "-f", "../ws/s.sed", "x"}},
		{true, "sed -e --sandbox is a script, not the option", "ro", "/usr/bin/sed",
		 {"sed", "-e", "--sandbox", "-e", "1e id", "x"}},
		/* F3: wget runs the program --use-askpass names. */
		{true, "wget --use-askpass=PROG", "ws", "/usr/bin/wget",
		 {"wget", "--use-askpass=/usr/bin/id", "-O-", "https://example.invalid/"}},
		{true, "wget --use-askpass PROG", "ws", "/usr/bin/wget",
		 {"wget", "--use-askpass", "./p", "-O-", "https://example.invalid/"}},
		/* F13: scalar runs git (maintenance, fetch) with the repository's
		 * config and settings of its own. */
		{true, "scalar run in a read-only repository", "ro/cwd", "/usr/bin/scalar",
		 {"scalar", "run", "all"}},
		{true, "scalar list", "ro", "/usr/bin/scalar", {"scalar", "list"}},
		/* F2: ssh skips blanks (and a leading "=") before the key, and
		 * takes it in quotes. */
		{true, "ssh -o \" ProxyCommand=\"", "ro", "/usr/bin/ssh",
		 {"ssh", "-o", " ProxyCommand=sh -c x", "x"}},
		{true, "ssh -o \"\\tProxyCommand x\"", "ro", "/usr/bin/ssh",
		 {"ssh", "-o", "\tProxyCommand sh -c x", "x"}},
		{true, "ssh -o '\"ProxyCommand\" x'", "ro", "/usr/bin/ssh",
		 {"ssh", "-o", "\"ProxyCommand\" sh -c x", "x"}},
		{true, "ssh -o =ProxyCommand", "ro", "/usr/bin/ssh",
		 {"ssh", "-o", "=ProxyCommand=sh -c x", "x"}},
		{true, "ssh -o PROXYCOMMAND (any case)", "ro", "/usr/bin/ssh",
		 {"ssh", "-o", "PROXYCOMMAND sh -c x", "x"}},
		{true, "ssh -vo\" ProxyCommand=\" (bundled)", "ro", "/usr/bin/ssh",
		 {"ssh", "-vo ProxyCommand=sh -c x", "x"}},
		/* F4: wget's other files written. */
		{true, "wget --save-cookies FILE", "ws", "/usr/bin/wget",
		 {"wget", "--save-cookies", "/tmp/c", "-O-", "https://example.invalid/"}},
		{true, "wget --rejected-log=FILE", "ws", "/usr/bin/wget",
		 {"wget", "--rejected-log=/tmp/r", "-O-", "https://example.invalid/"}},
		{true, "wget --warc-file=NAME", "ws", "/usr/bin/wget",
		 {"wget", "--warc-file=/tmp/w", "-O-", "https://example.invalid/"}},
		{true, "wget --hsts-file FILE", "ws", "/usr/bin/wget",
		 {"wget", "--hsts-file", "/tmp/h", "-O-", "https://example.invalid/"}},
		{true, "wget --output-doc=FILE (an abbreviation)", "ws", "/usr/bin/wget",
		 {"wget", "--output-doc=/tmp/x", "https://example.invalid/"}},
		/* F12: script writes what the session shows to a file. */
		{true, "script -c CMD FILE", "ws", "/usr/bin/script",
		 {"script", "-qc", "true", "/tmp/x"}},
		{true, "script -a FILE", "ws", "/usr/bin/script", {"script", "-a", "/tmp/x"}},
		{true, "script -c CMD writes ./typescript", "ws", "/usr/bin/script",
		 {"script", "-c", "true"}},
		{true, "script --log-out FILE", "ws", "/usr/bin/script",
		 {"script", "--log-out", "/tmp/x", "-c", "true"}},
		{true, "script -I FILE", "ws", "/usr/bin/script",
		 {"script", "-I", "/tmp/x", "-c", "true", "/dev/null"}},
		{true, "script -T FILE", "ws", "/usr/bin/script",
		 {"script", "-T", "/tmp/x", "-c", "true", "/dev/null"}},
		{true, "script -B FILE", "ws", "/usr/bin/script",
		 {"script", "-B/tmp/x", "-c", "true"}},
		{true, "script --timing=FILE", "ws", "/usr/bin/script",
		 {"script", "--timing=/tmp/x", "-c", "true", "/dev/null"}},
		{false, "script -qc CMD /dev/null", "ro", "/usr/bin/script",
		 {"script", "-qc", "true", "/dev/null"}},
		{false, "script -E never -O /dev/null -c CMD", "ro", "/usr/bin/script",
		 {"script", "-E", "never", "-O", "/dev/null", "-c", "true"}},
	};
	argv_cases(opts, sizeof opts / sizeof opts[0]);
	CAREFUL(true, "python3 without a program reads standard input", "ro", P, "/usr/bin/python3",
		"python3", "-u");
	CAREFUL(true, "python3 - reads standard input", "ro", P, "/usr/bin/python3", "python3", "-",
		"script.py");
	CAREFUL(false, "python3 -c in a read-only place", "ro", P, "/usr/bin/python3", "python3",
		"-c", "print(1)");
	CAREFUL(false, "awk with a program inline, in a read-only place", "ro", P, "/usr/bin/awk",
		"awk", "{print}", "script.py");
	CAREFUL(true, "awk -f a program in the workspace", "ro", P, "/usr/bin/gawk", "gawk", "-f",
		wsx);
	CAREFUL(true, "busybox sh -c make in the workspace", "ws", P, "/bin/busybox", "busybox",
		"sh", "-c", "make");

	/* git: a read-only repository (like workspace-write-strict's .git). */
	dir("ro/repo");
	git("ro/repo", "init -q -b main");
	git("ro/repo", "remote add up ../../ws/bare.git");
	git("ro/repo", "remote add far ssh://example.invalid/x.git");
	dir("ro/repo2");
	git("ro/repo2", "init -q -b main");
	git("ro/repo2", "remote add far host.invalid:x.git");
	CAREFUL(false, "git status in a read-only repository", "ro/repo2", P, "/usr/bin/git", "git",
		"status");
	CAREFUL(false, "git push over ssh", "ro/repo2", P, "/usr/bin/git", "git", "push", "far",
		"HEAD:main");
	CAREFUL(true, "git push --receive-pack", "ro/repo2", P, "/usr/bin/git", "git", "push",
		"--receive-pack=sh -c x", "far");
	CAREFUL(true, "git -c", "ro/repo2", P, "/usr/bin/git", "git", "-c", "core.pager=x", "log");
	CAREFUL(true, "git fetch --upl= (a prefix git accepts)", "ro/repo2", P, "/usr/bin/git",
		"git", "fetch", "--upl=sh -c x", "far");
	CAREFUL(true, "git push --rece", "ro/repo2", P, "/usr/bin/git", "git", "push", "--rece",
		"sh -c x", "far");
	CAREFUL(true, "git ls-remote --exe=", "ro/repo2", P, "/usr/bin/git", "git", "ls-remote",
		"--exe=sh -c x", "far");
	CAREFUL(true, "git --exec-p=", "ro/repo2", P, "/usr/bin/git", "git", "--exec-p=/tmp", "log");
	CAREFUL(true, "git --config-e", "ro/repo2", P, "/usr/bin/git", "git", "--config-e",
		"core.pager=X", "log");
	CAREFUL(true, "git -ccore.pager=x", "ro/repo2", P, "/usr/bin/git", "git", "-ccore.pager=x",
		"log");
	CAREFUL(true, "git clone --templ=", "ro/repo2", P, "/usr/bin/git", "git", "clone",
		"--templ=/tmp/t", "far", "x");
	CAREFUL(true, "git clone -c", "ro/repo2", P, "/usr/bin/git", "git", "clone", "-c",
		"core.fsmonitor=x", "far", "x");
	CAREFUL(true, "git clone -uX", "ro/repo2", P, "/usr/bin/git", "git", "clone", "-usx",
		"far", "x");
	/* F14, F15: parse-options takes the rest of a bundle of short options
	 * as the value of the one that takes a value. */
	CAREFUL(true, "git clone -qc<key=value> (bundled)", "ro/repo2", P, "/usr/bin/git", "git",
		"clone", "-qccore.hooksPath=/tmp/h", "far", "x");
	CAREFUL(true, "git clone -qu<cmd> (bundled)", "ro/repo2", P, "/usr/bin/git", "git",
		"clone", "-qusx", "far", "x");
	CAREFUL(true, "git grep -iO<cmd> (bundled)", "ro/repo2", P, "/usr/bin/git", "git", "grep",
		"--no-recurse-submodules", "-iOid; :", "hi");
	CAREFUL(true, "git archive -vo FILE (bundled)", "ro/repo2", P, "/usr/bin/git", "git",
		"archive", "-vo", "/tmp/x", "HEAD");
	CAREFUL(false, "git grep -in (no program)", "ro/repo2", P, "/usr/bin/git", "git", "grep",
		"--no-recurse-submodules", "-in", "hi");
	CAREFUL(true, "env -iS (bundled)", "ro", P, "/usr/bin/env", "env", "-iS",
		"python3 script.py");
	CAREFUL(false, "git push --up (not a prefix of upload-pack's 3)", "ro/repo2", P,
		"/usr/bin/git", "git", "push", "--up", "far");
	char *bare = at("ws/bare.git");
	CAREFUL(true, "git push to a bare repository in the workspace", "ro/repo2", P,
		"/usr/bin/git", "git", "push", bare, "HEAD:main");
	char *url = xasprintf("file://%s", bare);
	CAREFUL(true, "the same as a file:// URL", "ro/repo2", P, "/usr/bin/git", "git", "push", url);
	CAREFUL(true, "a remote whose url is in the workspace", "ro/repo", P, "/usr/bin/git", "git",
		"push", "up", "HEAD:main");
	CAREFUL(true, "ext:: runs a command", "ro/repo2", P, "/usr/bin/git", "git", "fetch",
		"ext::sh -c x");
	CAREFUL(false, "git -C a read-only repository", "ro", P, "/usr/bin/git", "git", "-C",
		"repo2", "status");
	dir("ro/repo3");
	git("ro/repo3", "init -q -b main");
	char *husky = xasprintf("config core.hooksPath %s/ws/.husky", top);
	git("ro/repo3", husky);
	CAREFUL(true, "core.hooksPath in the workspace", "ro/repo3", P, "/usr/bin/git", "git",
		"commit", "-m", "x");
	free(husky);

	/* git: a repository in the workspace, hooks and config protected. */
	dir("ws/repo");
	git("ws/repo", "init -q -b main");
	char *hooks = at("ws/repo/.git/hooks"), *cfg = at("ws/repo/.git/config");
	char *gitd = at("ws/repo/.git");
	strv_add(&ws.ro, hooks);
	strv_add(&ws.ro, cfg);
	strv_add(&ws.fixed, gitd);
	CAREFUL(true, "hooks and config protected, but .git/commondir can be created", "ws/repo",
		P, "/usr/bin/git", "git", "status");
	strv_add(&ws.ro, gitd);
	CAREFUL(false, "all of .git protected (workspace-write-strict): git log, kept out",
		"ws/repo", P, "/usr/bin/git", "git", "log", "-p", "--ignore-submodules");
	/* F3: a patch of a gitlink (--submodule=diff, diff.submodule=diff in
	 * the person's config) runs git diff in the submodule, with its
	 * config (diff.external). */
	CAREFUL(true, "git log -p may diff inside submodules", "ws/repo", P, "/usr/bin/git", "git",
		"log", "-p");
	CAREFUL(true, "git show --submodule=diff", "ws/repo", P, "/usr/bin/git", "git", "show",
		"--submodule=diff");
	CAREFUL(true, "git format-patch", "ws/repo", P, "/usr/bin/git", "git", "format-patch",
		"-1");
	CAREFUL(true, "git reflog -p", "ws/repo", P, "/usr/bin/git", "git", "reflog", "-p");
	CAREFUL(true, "git log -p --ignore-submodules=dirty still diffs them", "ws/repo", P,
		"/usr/bin/git", "git", "log", "-p", "--ignore-submodules=dirty");
	CAREFUL(false, "git show --submodule=diff --ignore-submodules", "ws/repo", P,
		"/usr/bin/git", "git", "show", "--submodule=diff", "--ignore-submodules");
	/* The index and the worktree are the sandbox's: a .git it makes at a
	 * gitlink is a repository git status enters, with its config. */
	CAREFUL(true, "all of .git protected, but git status enters submodules of the worktree",
		"ws/repo", P, "/usr/bin/git", "git", "status");
	CAREFUL(true, "git diff too", "ws/repo", P, "/usr/bin/git", "git", "diff", "HEAD");
	CAREFUL(true, "git add too", "ws/repo", P, "/usr/bin/git", "git", "add", "-A");
	CAREFUL(true, "an alias is not known to keep out", "ws/repo", P, "/usr/bin/git", "git",
		"st");
	CAREFUL(true, "git fetch fetches submodules", "ws/repo", P, "/usr/bin/git", "git",
		"fetch", "far");
	CAREFUL(false, "git status --ignore-submodules", "ws/repo", P, "/usr/bin/git", "git",
		"status", "--ignore-submodules");
	/* F1: git-X is git X, whatever file runs it (a link, a hard link). */
	CAREFUL(true, "git-status (the dashed form) enters submodules", "ws/repo", P,
		"/usr/lib/git-core/git", "/usr/lib/git-core/git-status");
	CAREFUL(true, "a hard link named git-status", "ws/repo", P, "/usr/lib/git-core/git-status",
		"git-status");
	CAREFUL(false, "git-status --ignore-submodules", "ws/repo", P, "/usr/lib/git-core/git",
		"/usr/lib/git-core/git-status", "--ignore-submodules");
	CAREFUL(true, "git-log --output=FILE", "ro/repo2", P, "/usr/lib/git-core/git",
		"/usr/lib/git-core/git-log", "--output=/tmp/x");
	CAREFUL(true, "./git-clone push origin -u<cmd> is a clone, not a push", "ro/repo2", P,
		"/usr/bin/git", "./git-clone", "push", "far", "-usx");
	CAREFUL(true, "git-grep -O<cmd>", "ro/repo2", P, "/usr/bin/git", "git-grep",
		"--no-recurse-submodules", "-Oid; :", "hi");
	CAREFUL(false, "git diff --ignore-submodules=all", "ws/repo", P, "/usr/bin/git", "git",
		"diff", "--ignore-submodules=all");
	CAREFUL(true, "git diff --ignore-submodules=dirty still looks", "ws/repo", P,
		"/usr/bin/git", "git", "diff", "--ignore-submodules=dirty");
	CAREFUL(true, "--ignore-submodules after -- is a path", "ws/repo", P, "/usr/bin/git",
		"git", "diff", "--", "--ignore-submodules");
	CAREFUL(true, "git fetch --no-recurse-submodules from a path in the workspace", "ws/repo", P,
		"/usr/bin/git", "git", "fetch", "--no-recurse-submodules", "far");
	git("ws/repo", "remote add far https://example.invalid/far.git");
	git("ws/repo", "config remote.nourl.fetch +refs/heads/*:refs/remotes/nourl/*");
	CAREFUL(false, "git fetch --no-recurse-submodules from a configured remote", "ws/repo", P,
		"/usr/bin/git", "git", "fetch", "--no-recurse-submodules", "far");
	CAREFUL(false, "git push to a configured remote, SRC:DST", "ws/repo", P, "/usr/bin/git",
		"git", "push", "far", "HEAD:main");
	CAREFUL(true, "a bare refspec could be a repository in the workspace", "ws/repo", P,
		"/usr/bin/git", "git", "push", "far", "main");
	CAREFUL(true, "a remote section without a url is a path to git", "ws/repo", P,
		"/usr/bin/git", "git", "push", "nourl", "HEAD:main");
	char *repo_opt = xasprintf("--repo=%s", bare);
	CAREFUL(true, "git push --repo=<a bare repository in the workspace>", "ro/repo2", P,
		"/usr/bin/git", "git", "push", repo_opt);
	free(repo_opt);
	repo_opt = xasprintf("--rep=%s", bare);
	CAREFUL(true, "and its abbreviation --rep=", "ro/repo2", P, "/usr/bin/git", "git", "push",
		repo_opt);
	free(repo_opt);
	CAREFUL(false, "git push --repo=<a configured remote>", "ws/repo", P, "/usr/bin/git", "git",
		"push", "--repo=far", "HEAD:main");
	CAREFUL(true, "git log --recu=on-demand (an abbreviation) enters submodules", "ws/repo", P,
		"/usr/bin/git", "git", "log", "--recu=on-demand");
	CAREFUL(true, "the last of --ignore-submodules and =none counts", "ws/repo", P,
		"/usr/bin/git", "git", "diff", "--ignore-submodules", "--ignore-submodules=none");
	CAREFUL(true, "--no-recurse-submodules then --recurse-submodules=yes", "ws/repo", P,
		"/usr/bin/git", "git", "fetch", "--no-recurse-submodules", "--recurse-submodules=yes",
		"far");
	CAREFUL(true, "git grep -O<cmd> runs a program", "ws/repo", P, "/usr/bin/git", "git", "grep",
		"--no-recurse-submodules", "-Oid; :", "hi");
	CAREFUL(true, "git log --output=FILE writes a file", "ro/repo2", P, "/usr/bin/git", "git",
		"log", "--output=/tmp/x");
	CAREFUL(true, "git log --recurse-submodules is told to enter", "ws/repo", P,
		"/usr/bin/git", "git", "log", "--recurse-submodules");
	CAREFUL(false, "git --version", "ws/repo", P, "/usr/bin/git", "git", "--version");
	char *wsrepo = at("ws/repo");
	CAREFUL(true, "--git-dir with the worktree in the workspace", "ro", P, "/usr/bin/git",
		"git", "--git-dir", gitd, "--work-tree", wsrepo, "status");
	free(wsrepo);
	dir("ws/repo/sub");
	CAREFUL(true, "from a subdirectory, where the sandbox could make a repository",
		"ws/repo/sub", P, "/usr/bin/git", "git", "status");
	CAREFUL(true, "git --bare: the working directory is the repository (F7)", "ws/repo", P,
		"/usr/bin/git", "git", "--bare", "log", "-p", "--ignore-submodules");
	CAREFUL(false, "--git-dir before --bare wins", "ws/repo", P, "/usr/bin/git", "git",
		"--git-dir=.git", "--bare", "log", "-p", "--ignore-submodules");
	put("ws/repo/.gitmodules", "", 0644);
	CAREFUL(true, "submodules", "ws/repo", P, "/usr/bin/git", "git", "status");
	CAREFUL(false, "submodules, kept out", "ws/repo", P, "/usr/bin/git", "git", "status",
		"--ignore-submodules");
	/* XDG_CONFIG_HOME in a writable place: git reads git/config there
	 * (red team 5, F11). */
	char *xdg = at("ws/xdg");
	xdg_config = xdg;
	CAREFUL(true, "git's config under a writable XDG_CONFIG_HOME", "ro/repo2", P,
		"/usr/bin/git", "git", "status");
	xdg_config = NULL;
	CAREFUL(false, "not without it", "ro/repo2", P, "/usr/bin/git", "git", "status");
	free(xdg);
	char *h = at("ro/home/.gitconfig");
	strv_add(&ws.roots, h);
	CAREFUL(true, "the user's git config writable", "ro/repo2", P, "/usr/bin/git", "git",
		"status");

	/* One test of "the sandbox can change the program": what the approver
	 * is told and why an approver is refused, and the first reason a
	 * command is CAREFUL, for every program alike. */
	const char *progs[] = {"ws/tool", "ro/bin/tool", "ws/sub/none", "ro/script.py", "ws"};
	for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
		char *prog = at(progs[i]);
		char *pw = wk_program_writable(&ws, prog);
		ok((pw != NULL) == wk_wset_writable(&ws, prog), "wk_program_writable %s: %s",
		   progs[i], pw ? pw : "no");
		char *c = careful("ro/cwd", P, progs[i], "tool", NULL);
		ok(!pw || (c && strcmp(c, pw) == 0), "a program it says the sandbox can change is "
		   "CAREFUL, for that reason: %s", progs[i]);
		free(c);
		free(pw);
		free(prog);
	}
	char *rop = at("ro/bin/tool"), *wsp = at("ws/tool");
	char *pw = wk_program_writable(&ws, wsp);
	ok(pw != NULL, "a program in a root can be changed");
	free(pw);
	ok(!(pw = wk_program_writable(&ws, rop)), "one outside the roots cannot");
	free(pw);
	free(rop);
	free(wsp);

	/* The writable set itself. */
	ok(wk_wset_writable(&ws, w), "a root is writable");
	ok(!wk_wset_writable(&ws, hooks), "a protected path is not");
	ok(!wk_wset_writable(&ws, top), "its parent is not");
	char *why = NULL, *p = wk_path_place(&ws, top, "ro/link-to-ws", &why);
	ok(p && strcmp(p, wsx) == 0 && why, "a link resolves to its target, in the workspace");
	free(p);
	free(why);
	p = wk_path_place(&ws, top, "/proc/self/root/etc", &why);
	ok(!p && why, "a path through /proc is refused");
	free(why);
	free(h);
	free(hooks);
	free(cfg);
	free(gitd);
	free(bare);
	free(url);
	free(wpath);
	free(code);
	free(l);
	free(wsx);
	free(ros);
}

/* CAREFUL for the command, and its reason holds SAYS. */
#define CAREFUL_SAYS(says, what, ...) do { \
	char *r_ = careful(__VA_ARGS__, NULL); \
	ok(r_ && strstr(r_, says), "%s: %s", what, r_ ? r_ : "(not CAREFUL)"); \
	free(r_); \
} while (0)

/* wk_path_place from TOP: the canonical path it gives is WANT (relative
 * to top), or NULL. */
static void place_is(const char *path, const char *want, const char *what)
{
	char *why = NULL, *p = wk_path_place(&ws, top, path, &why);
	char *w = want ? at(want) : NULL;
	ok(want ? p && strcmp(p, w) == 0 : !p && why, "%s: %s (%s)", what, p ? p : "NULL",
	   why ? why : "no reason");
	free(w);
	free(why);
	free(p);
}

/* git CMD... in a repository of its own at REL. */
static void repo(const char *rel)
{
	dir(rel);
	git(rel, "init -q -b main");
}

/* The decisions of CAREFUL one at a time, each pinned by what it
 * refuses and what it lets pass (tests/mutate changes them). A fresh
 * writable set: the workspace alone. */
static void details(void)
{
	int root = ws.root; /* the view, kept */
	wk_wset_free(&ws);
	memset(&ws, 0, sizeof ws);
	ws.root = root;
	strv_push(&ws.roots, at("ws"));
	const char *P = "/usr/bin:/bin";

	/* Where a path leads. */
	place_is("ws/sub/../sub/./x", "ws/sub/x", ". and .. as the kernel takes them");
	place_is("ws/d", "ws/d", "a one-letter name is a name");
	place_is("ws/nosuch/../link-to-ro", "ws/link-to-ro",
		 "nothing past a missing directory is followed");
	dir("ro/chain");
	char *target = at("ro/script.py");
	for (int i = 39; i >= 0; i--) {
		char *name = xasprintf("ro/chain/l%d", i);
		char *next = i == 39 ? xstrdup(target) : xasprintf("l%d", i + 1);
		lnk(next, name);
		free(name);
		free(next);
	}
	free(target);
	place_is("ro/chain/l0", "ro/script.py", "40 links are followed");
	lnk("grow/x", "ro/grow");
	char *why = NULL, *p = wk_path_place(&ws, top, "ro/grow", &why);
	ok(!p && why && strstr(why, "loop"), "a link that grows is a loop of links: %s", why);
	free(p);
	free(why);
	place_is("", NULL, "an empty path is refused");
	char *longp = xmalloc(PATH_MAX + 1);
	memset(longp, 'a', PATH_MAX);
	longp[0] = '/';
	longp[PATH_MAX] = '\0';
	place_is(longp, NULL, "a path of PATH_MAX characters is refused");
	why = NULL;
	p = wk_path_place(&ws, longp, "/usr", &why);
	ok(p && strcmp(p, "/usr") == 0, "an absolute path, whatever the cwd's length");
	free(p);
	free(why);
	why = NULL;
	p = wk_path_place(&ws, longp, "usr", &why);
	ok(!p && why, "a relative path against a cwd of PATH_MAX characters is refused");
	free(p);
	free(why);
	/* A link's target with the rest of the path: at PATH_MAX - 2 it is
	 * too long to check. */
	size_t rl = 2000, tl = PATH_MAX - 2 - rl;
	char *lt = xmalloc(tl + 1);
	memset(lt, '/', tl);
	memcpy(lt + tl - 3, "usr", 3);
	lt[tl] = '\0';
	lnk(lt, "ro/longlink");
	free(lt);
	char *rest = xmalloc(rl + 1);
	memset(rest, '/', rl);
	rest[rl - 1] = 'x';
	rest[rl] = '\0';
	char *lp = xasprintf("ro/longlink%s", rest);
	place_is(lp, NULL, "a link whose target and rest reach PATH_MAX - 2 is refused");
	free(lp);
	free(rest);
	free(longp);
	char *wsx = at("ws/x.py");
	why = NULL;
	p = wk_path_place(&ws, top, wsx, &why);
	ok(why && strcmp(why, "is in a place the sandbox can write") == 0,
	   "a canonical path is not repeated: %s", why);
	free(p);
	free(why);
	why = NULL;
	p = wk_path_place(&ws, top, "ws/x.py", &why);
	ok(why && strstr(why, wsx), "a relative one is said canonical: %s", why);
	free(p);
	free(why);
	free(wsx);
	struct wk_careful_in none = {.wset = &ws, .cwd = "/", .program = "/bin/true"};
	char *r = wk_careful(&none);
	ok(r != NULL, "no argv: nothing to check");
	free(r);
	char *argv0[] = {"true", NULL};
	struct wk_careful_in noprog = {.wset = &ws, .cwd = "/", .argv = argv0, .argc = 1};
	r = wk_careful(&noprog);
	ok(r != NULL, "no program: nothing to check");
	free(r);

	/* Programs that read or write what an option names: their plain uses
	 * outside the workspace, and -NAME as no long option. */
	static const struct argv_case opts[] = {
		{false, "tar -tf in a read-only place", "ro", "/usr/bin/tar",
		 {"tar", "-tf", "/etc/hostname"}},
		{false, "tar -rsh-command: letters, not the long option", "ro", "/usr/bin/tar",
		 {"tar", "-rsh-command=/bin/true"}},
		{false, "tar with no argument", "ro", "/usr/bin/tar", {"tar"}},
		{true, "tar xf FILE --checkpoint-action=exec=", "ro", "/usr/bin/tar",
		 {"tar", "xf", "t.tar", "--checkpoint-action=exec=x"}},
		{false, "ssh host in a read-only place", "ro", "/usr/bin/ssh", {"ssh", "host"}},
		{false, "curl URL in a read-only place", "ro", "/usr/bin/curl",
		 {"curl", "https://example.invalid/"}},
		{false, "curl -engine: letters", "ro", "/usr/bin/curl",
		 {"curl", "-engine", "x", "https://example.invalid/"}},
		{false, "wget -hsts-file: letters", "ws", "/usr/bin/wget",
		 {"wget", "-hsts-file", "/tmp/h", "https://example.invalid/"}},
		{true, "wget --config=FILE still writes into the cwd", "ro", "/usr/bin/wget",
		 {"wget", "--config=/etc/hostname", "https://example.invalid/"}},
		{false, "tmux ls", "ro", "/usr/bin/tmux", {"tmux", "ls"}},
		{false, "screen -list", "ro", "/usr/bin/screen", {"screen", "-list"}},
		{false, "less FILE", "ro", "/usr/bin/less", {"less", "/etc/hostname"}},
		{false, "less -lesskey-content=: letters", "ro", "/usr/bin/less",
		 {"less", "-lesskey-content=x", "/etc/hostname"}},
		{false, "ssh-keygen -l -f FILE", "ro", "/usr/bin/ssh-keygen",
		 {"ssh-keygen", "-l", "-f", "/etc/hostname"}},
		{false, "vim FILE", "ro", "/usr/bin/vim", {"vim", "/etc/hostname"}},
		{false, "vim -startuptime: letters", "ro", "/usr/bin/vim",
		 {"vim", "-startuptime", "/etc/hostname"}},
		{false, "vim -S FILE takes FILE, even +CMD", "ro", "/usr/bin/vim",
		 {"vim", "-S", "+!id"}},
		{false, "openssl req -key: not --keyout", "ro", "/usr/bin/openssl",
		 {"openssl", "req", "-new", "-key", "/etc/hostname"}},
		{true, "ld.so runs its argument", "ro", "/lib/ld.so", {"ld.so", "../ws/later"}},
		{false, "ld-config is no loader", "ro", "/usr/bin/ld-config", {"ld-config"}},
		{false, "libx.so is no loader", "ro", "/usr/bin/libx.so", {"libx.so"}},
		/* sed: the -- and what is a script. */
		{true, "sed -- SCRIPT", "ro", "/usr/bin/sed", {"sed", "--", "1e id", "x"}},
		{false, "sed -e S -- FILE: FILE is a file", "ro", "/usr/bin/sed",
		 {"sed", "-e", "p", "--", "wfile"}},
		{false, "sed --", "ro", "/usr/bin/sed", {"sed", "--"}},
		{false, "sed -f FILE then a file", "ro", "/usr/bin/sed",
		 {"sed", "-f", "/etc/hostname", "new.txt"}},
		{false, "sed -e S then a file", "ro", "/usr/bin/sed", {"sed", "-e", "p", "new.txt"}},
		/* script: the values of -E, -m, --timing. */
		{true, "script -E -m FILE: -m is -E's value", "ro", "/usr/bin/script",
		 {"script", "-E", "-m", "/tmp/x", "/dev/null"}},
		{true, "script -m -o FILE: -o is -m's value", "ro", "/usr/bin/script",
		 {"script", "-m", "-o", "/tmp/x", "/dev/null"}},
		{false, "script --timing without a file", "ro", "/usr/bin/script",
		 {"script", "--timing", "-qc", "true", "/dev/null"}},
	};
	argv_cases(opts, sizeof opts / sizeof opts[0]);

	/* No HOME: no config relative to it. */
	home_rel = NULL;
	CAREFUL(false, "curl without HOME", "ro", P, "/usr/bin/curl", "curl",
		"https://example.invalid/");
	CAREFUL(false, "git without HOME", "ro/repo2", P, "/usr/bin/git", "git", "status");
	home_rel = "ro/home";

	/* Shells and their -c code. */
	CAREFUL(false, "sh -c >FILE", "ro", P, "/bin/sh", "sh", "-c", ">f");
	CAREFUL(false, "sh -c 2>FILE CMD", "ro", P, "/bin/sh", "sh", "-c", "2>/dev/null true");
	CAREFUL(false, "sh -c >|FILE", "ro", P, "/bin/sh", "sh", "-c", "echo x >|out");
	char *echo = xstrdup("echo"), *cat = xstrdup("cat");
	for (int i = 0; i < 300; i++) {
		char *e = xasprintf("%s x", echo), *c = xasprintf("%s x", cat);
		free(echo);
		free(cat);
		echo = e;
		cat = c;
	}
	CAREFUL(false, "sh -c echo with 300 words", "ro", P, "/bin/sh", "sh", "-c", echo);
	CAREFUL(true, "sh -c cat with 300 words is too long", "ro", P, "/bin/sh", "sh", "-c", cat);
	free(echo);
	free(cat);
	CAREFUL(true, "a command too deep in wrappers and sh -c", "ro", P, "/usr/bin/nice", "nice",
		"nice", "nice", "sh", "-c", "cat");
	CAREFUL(true, "wrappers too deep", "ro", P, "/usr/bin/nice", "nice", "nice", "nice", "nice",
		"nice", "true");
	CAREFUL(true, "find -exec too deep", "ro", P, "/usr/bin/nice", "nice", "nice", "nice",
		"nice", "find", ".", "-exec", "true", ";");
	CAREFUL(true, "bash --rcfile without its file", "ro", P, "/bin/bash", "bash", "--rcfile");
	CAREFUL(false, "bash -x SCRIPT (read-only)", "ro", P, "/bin/bash", "bash", "-x",
		"script.sh");
	CAREFUL(false, "bash --noprofile SCRIPT: no value", "ws", P, "/bin/bash", "bash",
		"--noprofile", "../ro/script.py");
	CAREFUL(false, "bash -o OPT SCRIPT: OPT is -o's", "ws", P, "/bin/bash", "bash", "-o",
		"errexit", "../ro/script.py");
	CAREFUL(true, "bash --", "ro", P, "/bin/bash", "bash", "--");
	/* Interpreters: what names their program. */
	static const char *const progs[][4] = {
		{"python3", "-c", "-1"}, {"perl", "-e", "-1"}, {"perl", "-E", "-1"},
		{"php", "-r", "-1;"},    {"python3", "-m"},    {"perl", "-p", "-i"},
		{"node", "--eval=-1"},   {"node", "--print=-1"},
	};
	for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
		char *bin = xasprintf("/usr/bin/%s", progs[i][0]);
		char *what = xasprintf("%s %s names its program", progs[i][0], progs[i][1]);
		CAREFUL(false, what, "ro", P, bin, progs[i][0], progs[i][1], progs[i][2]);
		free(bin);
		free(what);
	}
	CAREFUL(false, "python3 -c ' print(1)' (a blank first)", "ro", P, "/usr/bin/python3",
		"python3", "-c", " print(1)");
	CAREFUL(false, "a word of the code without / is no path", "ro", P, "/usr/bin/python3",
		"python3", "-c", "print(link-to-ws)");
	/* Wrappers. */
	char *w2 = at("ws/sub"), *w1 = at("ws");
	char *pe = xasprintf("PATH=%s:%s", w2, w1);
	CAREFUL_SAYS(w2, "the first writable PATH directory is the reason", "ro", P,
		     "/usr/bin/env", "env", pe, "nosuchprog");
	free(pe);
	free(w1);
	free(w2);
	CAREFUL(true, "env -C without a directory", "ro", P, "/usr/bin/env", "env", "-C");
	CAREFUL(true, "env --chdir without a directory", "ro", P, "/usr/bin/env", "env",
		"--chdir");
	CAREFUL(true, "env -C through /proc", "ro", P, "/usr/bin/env", "env", "-C",
		"/proc/self/cwd", "true");
	CAREFUL(false, "watch -x", "ro", P, "/usr/bin/watch", "watch", "-x");
	CAREFUL(false, "watch -n 1", "ro", P, "/usr/bin/watch", "watch", "-n", "1");
	CAREFUL(false, "watch -n 1 date", "ro", P, "/usr/bin/watch", "watch", "-n", "1", "date");
	CAREFUL(true, "ltrace -o FILE", "ro", P, "/usr/bin/ltrace", "ltrace", "-o", "/tmp/x",
		"/bin/true");
	CAREFUL(false, "flock -o FILE CMD: no tracer", "ro", P, "/usr/bin/flock", "flock", "-o",
		"/tmp/lock", "true");
	CAREFUL(false, "valgrind CMD", "ro", P, "/usr/bin/valgrind", "valgrind",
		"--leak-check=full", "/bin/true");
	CAREFUL(true, "valgrind --xml-file=", "ro", P, "/usr/bin/valgrind", "valgrind",
		"--xml-file=/tmp/x", "/bin/true");
	CAREFUL(true, "valgrind --log-socket=", "ro", P, "/usr/bin/valgrind", "valgrind",
		"--log-socket=127.0.0.1", "/bin/true");
	CAREFUL(true, "sg GROUP CODE: shell code, not a program's name", "ro", P, "/usr/bin/sg",
		"sg", "staff", "true; ../ws/later");
	CAREFUL(false, "sg GROUP CMD, GROUP no program", "ro", P, "/usr/bin/sg", "sg", "staff",
		"/bin/true");
	CAREFUL(false, "unshare --mount-proc=/proc CMD: an option, no command", "ws", P,
		"/usr/bin/unshare", "unshare", "--mount-proc=/proc", "true");
	/* find, zip, run-parts. */
	CAREFUL(false, "find . -fprint (no file)", "ro", P, "/usr/bin/find", "find", ".",
		"-fprint");
	CAREFUL(false, "find -fprint /dev/stdout", "ro", P, "/usr/bin/find", "find", ".",
		"-fprint", "/dev/stdout");
	CAREFUL(true, "find -execdir CMD {} ./x: ./x in the directory found", "ro/cwd", P,
		"/usr/bin/find", "find", ".", "-execdir", "cat", "{}", "./tool", ";");
	CAREFUL(false, "run-parts --", "ro", P, "/bin/run-parts", "run-parts", "--");
	CAREFUL(true, "run-parts -- DIR", "ro/cwd", P, "/bin/run-parts", "run-parts", "--",
		"../../ws");
	CAREFUL(false, "zip out.zip -- -TTx: a file name", "ro", P, "/usr/bin/zip", "zip",
		"out.zip", "--", "-TTx");
	/* Any program: a program among its arguments. */
	put("ws/elf", "\177ELF", 0755);
	put("ws/bang.txt", "a!b\n", 0644);
	put("ws/hash.txt", "#a\n", 0644);
	CAREFUL(true, "an executable of the sandbox's as an argument", "ro/cwd", P,
		"/usr/bin/perf", "perf", "record", "../../ws/elf");
	CAREFUL(true, "a script (#!) of the sandbox's as an argument", "ro/cwd", P,
		"/usr/bin/perf", "perf", "record", "../../ws/noexec.sh");
	CAREFUL(false, "a data file a! is not", "ro/cwd", P, "/usr/bin/perf", "perf", "record",
		"../../ws/bang.txt");
	CAREFUL(false, "a data file #a is not", "ro/cwd", P, "/usr/bin/perf", "perf", "record",
		"../../ws/hash.txt");
	CAREFUL(true, "an interpreter among the arguments", "ro/cwd", P, "/usr/bin/perf", "perf",
		"stat", "python3", "../../ws/x.py");
	CAREFUL(false, "a last word naming an interpreter is an operand", "ro/cwd", P,
		"/usr/bin/apt-get", "apt-get", "install", "python3");
	CAREFUL(true, "a relative path not starting with .", "", P, "/usr/bin/perf", "perf",
		"stat", "ws/tool");
	CAREFUL(false, "a word without / is no path", "ws", P, "/usr/bin/perf", "perf", "stat",
		"tool");
	CAREFUL(true, "-I../PATH", "ro/cwd", P, "/usr/bin/perf", "perf", "-I../../ws/tool");
	char *abs = xasprintf("-I%s/ws/tool", top);
	CAREFUL(true, "-I/PATH", "ro/cwd", P, "/usr/bin/perf", "perf", abs);
	free(abs);
	CAREFUL(true, "-o./PATH", "ws", P, "/usr/bin/perf", "perf", "-o./tool");
	/* The name it is run as, besides the file. */
	CAREFUL(true, "git's file run as sh", "ro/repo2", P, "/usr/bin/git", "sh");
	CAREFUL(true, "busybox run as git", "ws", P, "/bin/busybox", "git", "status");
}

/* TEXT added to the config of the repository at REL (as git writes it). */
static void config(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s/.git/config", top, rel);
	FILE *f = fopen(p, "a");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	free(p);
}

/* git: how it finds its repository, what its config names, its options. */
static void git_details(void)
{
	const char *P = "/usr/bin:/bin";
	char *wsbare = at("ws/bare.git"), *wsp = at("ws/p");
	/* A .git the sandbox cannot rename (pinned), everything in it
	 * protected. */
	repo("ws/repo4");
	static const char *const parts[] = {"config", "hooks", "commondir", "config.worktree",
					    "modules"};
	for (size_t i = 0; i < 5; i++) {
		char *rel = xasprintf("ws/repo4/.git/%s", parts[i]);
		strv_push(&ws.ro, at(rel));
		free(rel);
	}
	strv_push(&ws.fixed, at("ws/repo4/.git"));
	CAREFUL(false, "a pinned .git with all of git's parts protected", "ws/repo4", P,
		"/usr/bin/git", "git", "log", "--ignore-submodules");
	/* .git files. */
	dir("ro/wt2");
	put("ro/wt2/.git", "gitdir: ../../ws/gd\n", 0644);
	CAREFUL(true, "a .git file naming (relative to it) a directory of the sandbox's", "ro", P,
		"/usr/bin/git", "git", "-C", "wt2", "status", "--ignore-submodules");
	dir("ro/wt5");
	put("ro/wt5/.git", "01234567../../ws/g\n", 0644);
	CAREFUL(false, "a .git file without gitdir: names nothing", "ro", P, "/usr/bin/git", "git",
		"-C", "wt5", "status", "--ignore-submodules");
	dir("ro/wt4");
	char *r2 = at("ro/repo2/.git");
	lnk(r2, "ws/gl");
	free(r2);
	lnk("../../ws/gl", "ro/wt4/.git");
	CAREFUL(true, "a .git through a link the sandbox can change", "ro", P, "/usr/bin/git",
		"git", "-C", "wt4", "status", "--ignore-submodules");
	/* commondir. */
	dir("ro/gd");
	put("ro/gd/commondir", "../../ws/common\n", 0644);
	char *gd = xasprintf("--git-dir=%s/ro/gd", top);
	CAREFUL(true, "commondir (relative to the git directory) in the workspace", "ro", P,
		"/usr/bin/git", "git", gd, "status", "--ignore-submodules");
	free(gd);
	dir("ro/gd2");
	put("ro/gd2/commondir", "../repo2/.git\n", 0644);
	gd = xasprintf("--git-dir=%s/ro/gd2", top);
	CAREFUL(false, "commondir in a read-only repository", "ro", P, "/usr/bin/git", "git", gd,
		"status", "--ignore-submodules");
	free(gd);
	/* A read-only repository whose hooks are a link into the workspace. */
	dir("ws/hooks");
	repo("ro/repo5");
	dir("ro/repo5/sub");
	char *cmd = xasprintf("rm -rf %s/ro/repo5/.git/hooks && ln -s %s/ws/hooks "
			      "%s/ro/repo5/.git/hooks", top, top, top);
	if (system(cmd) != 0)
		abort();
	free(cmd);
	CAREFUL(true, "hooks a link into the workspace", "ro/repo5", P, "/usr/bin/git", "git",
		"status", "--ignore-submodules");
	CAREFUL(true, "and from a subdirectory", "ro/repo5/sub", P, "/usr/bin/git", "git",
		"status", "--ignore-submodules");
	gd = xasprintf("--git-dir=%s/ro/repo5/.git", top);
	CAREFUL(true, "and as --git-dir", "ro", P, "/usr/bin/git", "git", gd, "log",
		"--ignore-submodules");
	free(gd);
	dir("ro/bare5");
	git("ro/bare5", "init -q --bare");
	cmd = xasprintf("rm -rf %s/ro/bare5/hooks && ln -s %s/ws/hooks %s/ro/bare5/hooks", top,
			top, top);
	if (system(cmd) != 0)
		abort();
	free(cmd);
	CAREFUL(true, "a bare repository as the cwd, its hooks a link", "ro/bare5", P,
		"/usr/bin/git", "git", "log", "--ignore-submodules");
	CAREFUL(false, "git status where there is no repository", "ro/cwd", P, "/usr/bin/git", "git",
		"status");
	/* Options and remotes. */
	CAREFUL(true, "git fetch X::Y, a transport that runs a command", "ro/repo2", P,
		"/usr/bin/git", "git", "fetch", "foo::bar");
	CAREFUL(true, "git push DIR/A:B is a path", "ro/repo2", P, "/usr/bin/git", "git", "push",
		"../../ws/r:1");
	CAREFUL(false, "git -C without a directory", "ro/cwd", P, "/usr/bin/git", "git", "-C");
	CAREFUL(false, "git --git-dir without a directory", "ro/cwd", P, "/usr/bin/git", "git",
		"--git-dir");
	CAREFUL(false, "git --work-tree without a directory", "ro/cwd", P, "/usr/bin/git", "git",
		"--work-tree");
	char *wsd = at("ws");
	CAREFUL(true, "git -C ABSOLUTE", "ro", P, "/usr/bin/git", "git", "-C", wsd, "status");
	free(wsd);
	CAREFUL(true, "git --upload-pack=", "ro/repo2", P, "/usr/bin/git", "git",
		"--upload-pack=x", "ls-remote", "far");
	CAREFUL(true, "git --receive-pack=", "ro/repo2", P, "/usr/bin/git", "git",
		"--receive-pack=x", "push");
	CAREFUL(true, "git --exec-path", "ro/repo2", P, "/usr/bin/git", "git", "--exec-path");
	gd = xasprintf("--git-dir=%s/ws/nogit", top);
	CAREFUL(true, "--git-dir=ABSOLUTE in the workspace", "ro", P, "/usr/bin/git", "git", gd,
		"log", "--ignore-submodules");
	free(gd);
	char *rox = at("ro/xdg");
	xdg_config = rox;
	CAREFUL(false, "a read-only XDG_CONFIG_HOME", "ro/repo2", P, "/usr/bin/git", "git",
		"status");
	xdg_config = NULL;
	free(rox);
	CAREFUL(false, "git log -c (no clone)", "ro/repo2", P, "/usr/bin/git", "git", "log", "-c");
	char *ropt = xasprintf("--repo=%s", wsbare);
	CAREFUL(false, "git log --repo= (no push)", "ro/repo2", P, "/usr/bin/git", "git", "log",
		ropt, "--ignore-submodules");
	free(ropt);
	CAREFUL(true, "a repository without a config: every name a path", "ro", P,
		"/usr/bin/git", "git", "--git-dir=/nonexistent/x", "push", "../ws/bare.git");
	/* What a config names: the keys alone, not their look-alikes. */
	repo("ro/repo6");
	static const char *const decoys[] = {"bar", "abcdefg", "pushurlx", "urlx", "abcdefghi",
					     "abcd", "pathx"};
	config("ro/repo6", "[remote \"x\"]\n\turl = https://example.invalid/x.git\n");
	for (const char *const *sec = (const char *const[]){"[foo]", "[remote \"dec\"]", NULL};
	     *sec; sec++) {
		config("ro/repo6", *sec);
		for (size_t i = 0; i < sizeof decoys / sizeof decoys[0]; i++) {
			char *c = xasprintf("\n\t%s = %s", decoys[i], wsp);
			config("ro/repo6", c);
			free(c);
		}
		config("ro/repo6", "\n");
	}
	CAREFUL(false, "keys like url, pushurl, hooksPath and path are none of them", "ro/repo6",
		P, "/usr/bin/git", "git", "push", "x", "HEAD:main");
	repo("ro/repo7");
	char *c = xasprintf("[remote \"y\"]\n\turl = https://example.invalid/y.git\n"
			    "\tpushurl = %s\n", wsbare);
	config("ro/repo7", c);
	free(c);
	CAREFUL(true, "a pushurl in the workspace", "ro/repo7", P, "/usr/bin/git", "git", "push",
		"y");
	repo("ro/repo8");
	config("ro/repo8", "[core]\n\thooksPath = ../../ws/h\n");
	CAREFUL(true, "core.hooksPath relative to the worktree", "ro/repo8", P, "/usr/bin/git",
		"git", "status", "--ignore-submodules");
	repo("ro/repo9");
	c = xasprintf("[include]\n\tpath = %s\n", wsp);
	config("ro/repo9", c);
	free(c);
	CAREFUL(true, "include.path in the workspace", "ro/repo9", P, "/usr/bin/git", "git",
		"status", "--ignore-submodules");
	/* Remote names, in a repository in the workspace. */
	repo("ws/repo10");
	config("ws/repo10", "[remote \"far\"]\n\turl = https://example.invalid/far.git\n"
			    "[remote \"dec\"]\n");
	for (size_t i = 0; i < 4; i++) {
		c = xasprintf("\t%s = https://example.invalid/\n", decoys[i]);
		config("ws/repo10", c);
		free(c);
	}
	strv_push(&ws.ro, at("ws/repo10/.git"));
	strv_push(&ws.fixed, at("ws/repo10/.git"));
	CAREFUL(true, "a remote without url or pushurl is a path", "ws/repo10", P,
		"/usr/bin/git", "git", "push", "dec", "HEAD:main");
	CAREFUL(true, "a prefix of a remote's name is a path", "ws/repo10", P, "/usr/bin/git",
		"git", "push", "fa", "HEAD:main");
	CAREFUL(false, "the remote itself", "ws/repo10", P, "/usr/bin/git", "git", "push", "far",
		"HEAD:main");
	free(wsbare);
	free(wsp);
	/* Last: a repository around the whole tree, the workspace in it. */
	git("", "init -q -b main");
	CAREFUL(true, "a worktree with a writable root inside it", "ro", P, "/usr/bin/git", "git",
		"-C", top, "status");
}

int main(void)
{
	/* The view the paths are looked at through (view.h): here the
	 * host's own, as a session's is for the places it shares. */
	ws.root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ws.root < 0)
		return 1;
	rules();
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !tmp[0] || strlen(tmp) > 128)
		tmp = "/tmp";
	snprintf(top, sizeof top, "%s/wk-careful-XXXXXX", tmp);
	if (!mkdtemp(top))
		return 1;
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	decisions();
	details();
	git_details();
	char *rm = xasprintf("rm -rf %s", top);
	if (system(rm) != 0)
		ok(0, "cleanup");
	free(rm);
	wk_wset_free(&ws);
	return done_testing();
}
