/* CAREFUL: is the code a command would run one the sandbox can write?
 * See careful.h; the lists of programs are documented in wicket(1),
 * "CAREFUL COMMANDS". */
#include "config.h"
#include "careful.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify.h"
#include "path.h"
#include "pathlex.h"
#include "rules.h"
#include "view.h"

#define MAX_LINKS 40 /* like the kernel's */
#define MAX_DEPTH 4  /* wrappers inside wrappers */

/* The decision of lib/classify.c, the one the shim and `wicket why`
 * make, over the set: its roots writable, what is read-only inside them
 * protected. */
bool wk_wset_writable(const struct wk_wset *w, const char *path)
{
	struct wk_fsrule *tab = xcalloc(w->roots.n + w->ro.n + w->keep.n + 1, sizeof *tab);
	size_t n = 0;
	for (size_t i = 0; i < w->roots.n; i++)
		tab[n++] = (struct wk_fsrule){.kind = RULE_WRITE, .path = w->roots.v[i]};
	for (size_t i = 0; i < w->ro.n; i++)
		tab[n++] = (struct wk_fsrule){.kind = RULE_PROTECT, .path = w->ro.v[i]};
	for (size_t i = 0; i < w->keep.n; i++)
		tab[n++] = (struct wk_fsrule){.kind = RULE_KEEP, .path = w->keep.v[i]};
	struct wk_fstable t = {.v = tab, .n = n};
	bool in = wk_classify(&t, path, NULL) == WK_FS_WRITABLE;
	free(tab);
	return in;
}

void wk_wset_free(struct wk_wset *w)
{
	strv_free(&w->roots);
	strv_free(&w->ro);
	strv_free(&w->keep);
	strv_free(&w->fixed);
}

/* The entry PATH itself (not only its contents) can be removed, renamed
 * or replaced: its directory is writable and it is not pinned. A question
 * of its own, about the name rather than the object: classify says what
 * may be written, the pins (mounts.c binds them over themselves) what
 * cannot be renamed even inside a writable root. */
static bool replaceable(const struct wk_wset *w, const char *path)
{
	char *dir = path_dirname(path);
	bool r = wk_wset_writable(w, dir) && wk_wset_writable(w, path) &&
		 !strv_contains(&w->fixed, path);
	free(dir);
	return r;
}

static bool in_proc(const char *p)
{
	return path_is_under(p, "/proc");
}

char *wk_path_place(const struct wk_wset *w, const char *cwd, const char *path, char **reason)
{
	*reason = NULL;
	if (!path[0] || strlen(path) >= PATH_MAX || (path[0] != '/' && strlen(cwd) >= PATH_MAX)) {
		*reason = xstrdup("is empty or too long to check");
		return NULL;
	}
	/* TODO holds what is left to walk; CUR what is resolved ("" is "/"). */
	char *todo = path[0] == '/' ? xstrdup(path) : path_join(cwd, path);
	char *cur = xstrdup("");
	bool missing = false;
	int links = 0;
	char *p = todo;
	size_t len;
	while ((p = (char *)pathlex_next(p, &len))) {
		char *rest = p + len;
		if (pathlex_dot_step(cur, p, len)) {
			p = rest;
			continue;
		}
		char *next = xasprintf("%s/%.*s", cur, (int)len, p);
		if (in_proc(next)) {
			*reason = xstrdup("goes through /proc, whose links lead into other "
					  "processes' views (refused)");
			free(next);
			goto fail;
		}
		struct stat st;
		if (missing || !view_lstat(w->root, next, &st)) {
			missing = true;
			free(cur);
			cur = next;
			p = rest;
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = view_readlink(w->root, next, target, sizeof target - 1);
			if (n <= 0 || ++links > MAX_LINKS) {
				*reason = xstrdup("cannot be followed (a loop of links?)");
				free(next);
				goto fail;
			}
			target[n] = '\0';
			if (!*reason && wk_wset_writable(w, next))
				*reason = xasprintf("goes through the link %s, which the sandbox can "
						    "change", next);
			free(next);
			if (strlen(target) + strlen(rest) + 2 >= PATH_MAX) {
				free(*reason);
				*reason = xstrdup("is too long to check");
				goto fail;
			}
			char *t = xasprintf("%s%s", target, rest);
			free(todo);
			todo = t;
			p = todo;
			if (target[0] == '/')
				cur[0] = '\0';
			continue;
		}
		free(cur);
		cur = next;
		p = rest;
	}
	free(todo);
	if (!cur[0]) {
		free(cur);
		cur = xstrdup("/");
	}
	if (!*reason && wk_wset_writable(w, cur))
		*reason = strcmp(cur, path) == 0 ? xstrdup("is in a place the sandbox can write")
						 : xasprintf("is %s, in a place the sandbox can write", cur);
	return cur;
fail:
	free(todo);
	free(cur);
	return NULL;
}

/* WHAT (e.g. "the script") at PATH: why the sandbox controls it, or NULL. */
static char *place_reason(const struct wk_careful_in *in, const char *base, const char *path,
			  const char *what)
{
	char *why = NULL;
	free(wk_path_place(in->wset, base, path, &why));
	if (!why)
		return NULL;
	char *r = xasprintf("%s %s %s", what, path, why);
	free(why);
	return r;
}

static const char *base_of(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Where A holds the short option -C: alone ("-C", "-Cvalue") or in a
 * bundle ("-iO<cmd>"), where getopt and git's parse-options take the rest
 * of the bundle as the value of an option that takes one: C before any
 * letter of TAKES (those options). NULL when it does not. */
static const char *short_opt_at(const char *a, char c, const char *takes)
{
	if (a[0] != '-' || !a[1] || a[1] == '-')
		return NULL;
	for (const char *p = a + 1; *p; p++)
		if (*p == c)
			return p;
		else if (strchr(takes, *p))
			break;
	return NULL;
}

/* A holds -C, where which letters take a value is not known here: C
 * anywhere in the bundle counts (more CAREFUL, never less). */
static bool short_opt(const char *a, char c)
{
	return short_opt_at(a, c, "") != NULL;
}

/* A is the long option --NAME: NAME itself or a prefix of it of at least
 * MIN characters (getopt_long and git take any unambiguous one), with or
 * without "=value". */
static bool long_opt_min(const char *a, const char *name, size_t min)
{
	if (strncmp(a, "--", 2) != 0)
		return false;
	a += 2;
	size_t n = strcspn(a, "=");
	return n >= min && n <= strlen(name) && strncmp(a, name, n) == 0;
}

/* getopt_long's --NAME. */
static bool long_opt(const char *a, const char *name)
{
	return long_opt_min(a, name, 1);
}

/* git's --NAME: a prefix of at least 3 characters. */
static bool git_long_opt(const char *a, const char *name)
{
	return long_opt_min(a, name, 3);
}

static bool name_in(const char *name, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(name, list[i]) == 0)
			return true;
	return false;
}

/* "python3.11" is python: a known name, then digits and dots. */
static bool versioned(const char *name, const char *const *list)
{
	for (size_t i = 0; list[i]; i++) {
		size_t n = strlen(list[i]);
		if (strncmp(name, list[i], n) == 0 && strspn(name + n, "0123456789.") == strlen(name + n))
			return true;
	}
	return false;
}

/* Interpreters: they run a script named among their arguments, and most
 * load code from their working directory (modules, a Makefile). */
static const char *const interpreters[] = {
	"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh", "python", "pypy", "perl", "node", "nodejs", "deno", "bun", "ruby", "php",
	"lua", "luajit", "tclsh", "wish", "awk", "gawk", "mawk", "nawk", "Rscript", "pwsh",
	"osascript", "m4", "sqlite3",
	/* The JVM runs classes from its working directory (the default
	 * classpath is "."), and a source file whole; javac runs annotation
	 * processors found on that classpath (red team 12, F5). */
	"java", "javaw", "jshell", "javac", "jrunscript", "kotlin", "kotlinc", "scala", "scalac",
	"groovy", "groovysh", "clojure", "clj", "jruby", "jython", "ipython", "irb", "pry", "R",
	"julia", "erl", "escript", "elixir", "iex", "runghc", "runhaskell", "ghci", "ghc",
	"racket", "guile", "sbcl", "clisp", "ocaml", "swipl", "gnuplot", "octave", "expect",
	"dart", "swift", "crystal", NULL};
/* Build tools and task runners: they run code their working directory
 * names (a Makefile, package.json's scripts, build.rs, setup.py...). */
static const char *const builders[] = {
	"make", "gmake", "bmake", "npm", "npx", "yarn", "pnpm", "cargo", "go", "gradle", "gradlew",
	"mvn", "ant", "pip", "pytest", "tox", "nox", "rake", "bundle", "composer", "cmake",
	"meson", "ninja", "just", "scons", "bazel", "tsc", "terraform", "tofu", "dotnet", "task",
	"uv", "uvx", "poetry", "pre-commit", "ansible-playbook", "hg", "jest", "eslint", "vite",
	"vitest", "docker-compose", "docker", "podman-compose",
	/* CTestTestfile.cmake, configure.ac's m4_esyscmd, a Makefile.am's
	 * rules, .pro files, build.sbt, project.clj, mix.exs ... */
	"ctest", "cpack", "autoconf", "autoreconf", "autoheader", "automake", "aclocal",
	"autom4te", "autoscan", "autoupdate", "libtoolize", "qmake", "premake5", "waf", "sbt",
	"lein", "mix", "rebar3", "cabal", "stack", "dune", "zig", "xmake", "buck", "buck2",
	"pants", "nx", "turbo", "lerna", "bundler", "hatch", "pdm", "pipenv", "conan", NULL};
/* Wrappers: they run the command in their arguments. */
static const char *const wrappers[] = {
	"env", "nice", "nohup", "timeout", "stdbuf", "setsid", "ionice", "taskset", "chrt",
	"time", "flock", "sudo", "doas", "runuser", "setpriv", "unshare", "nsenter", "chroot",
	"unbuffer", "faketime", "strace", "ltrace", "valgrind", "watch", "script",
	"busybox", "setarch", "linux32", "linux64", "prlimit", "numactl", "fakeroot",
	"eatmydata", "ssh-agent", "dbus-run-session", "xvfb-run", "systemd-run", "firejail",
	"bwrap", "torsocks", "proxychains", "proxychains4", "catchsegv", "chpst", "pkexec",
	"cgexec", "ccache", "su", "sg", NULL};
/* Shells: their code is a script or the string of -c, which is checked
 * command by command when it is plain words. */
static const char *const shells[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash",
				     "fish", "csh", "tcsh", NULL};


/* Programs that take code from a file an option names (a config with a
 * command in it), or write a file an option names; with the options
 * that take a value (TAKES: the rest of a bundle is theirs; a letter
 * missing there makes more CAREFUL, one too many less: only letters
 * that take a value), and their own config files (relative to HOME, or
 * absolute). */
enum optwhat {
	O_CODEFILE, /* reads code or options from the file (or "-": stdin) */
	O_CODE,     /* the value is code */
	O_WRITES,   /* writes the file ("-" is standard output) */
	O_INTO_CWD, /* writes a file of the server's naming into the cwd */
	O_NOWRITE,  /* writes nothing, where it would into the cwd */
	O_SSH,      /* ssh -o KEY=VALUE */
	O_ALWAYS,   /* CAREFUL whatever the value: WHY says what it does */
	O_SCRIPTIN, /* vim -s: a code file, but after -e or -E silent mode */
	O_EXEC_ACTION, /* tar --checkpoint-action: code when it is exec=CMD */
};
struct optrule {
	char c;           /* the short option, or 0 */
	const char *name; /* the long one, or NULL */
	enum optwhat what;
	const char *why;  /* O_ALWAYS: what the option does */
};
struct optprog {
	const char *prog, *takes;
	const struct optrule *rules;
	const char *const *config;
	bool into_cwd; /* writes into its cwd unless an option says otherwise */
	bool one_dash; /* -NAME is the long option NAME, in full */
};
/* A client that hands its terminal (and an ssh its connection) to a
 * server at a socket: a server the sandbox runs there reads what the
 * person types, or a master ssh makes there serves the sandbox. Always,
 * not only when the path is the sandbox's: the socket can be made after
 * the check, and ssh expands %-tokens and ~ in it. */
#define LOADS_LIB "loads a library (an OpenSSL engine or provider), which could be one " \
	"the sandbox compiled"
#define RUNS_CMD "is a command for it to run"
#define HANDS_OVER "connects to (or makes) a server at a socket, which is handed the " \
	"terminal or the connection"
static const struct optrule ssh_rules[] = {
	{'F', NULL, O_CODEFILE, NULL}, {'I', NULL, O_CODEFILE, NULL}, {'E', NULL, O_WRITES, NULL},
	{'o', NULL, O_SSH, NULL}, {'S', NULL, O_ALWAYS, HANDS_OVER}, {0, NULL, 0, NULL}};
static const struct optrule tmux_rules[] = {
	{'S', NULL, O_ALWAYS, HANDS_OVER}, {'L', NULL, O_ALWAYS, HANDS_OVER},
	{'f', NULL, O_CODEFILE, NULL}, {0, NULL, 0, NULL}};
static const struct optrule screen_rules[] = {
	{'S', NULL, O_ALWAYS, HANDS_OVER}, {'c', NULL, O_CODEFILE, NULL}, {0, NULL, 0, NULL}};
static const struct optrule curl_rules[] = {
	{'K', "config", O_CODEFILE, NULL}, {'o', "output", O_WRITES, NULL},
	{'D', "dump-header", O_WRITES, NULL}, {'c', "cookie-jar", O_WRITES, NULL},
	{0, "trace", O_WRITES, NULL}, {0, "trace-ascii", O_WRITES, NULL},
	{0, "stderr", O_WRITES, NULL}, {0, "libcurl", O_WRITES, NULL},
	{0, "etag-save", O_WRITES, NULL}, {0, "hsts", O_WRITES, NULL},
	{0, "alt-svc", O_WRITES, NULL}, {0, "output-dir", O_WRITES, NULL},
	{'O', "remote-name", O_INTO_CWD, NULL}, {0, "remote-name-all", O_INTO_CWD, NULL},
	{0, "engine", O_ALWAYS, LOADS_LIB}, {0, NULL, 0, NULL}};
/* openssl's options are long ones with one dash (or two), never
 * abbreviated. */
static const struct optrule openssl_rules[] = {
	{0, "engine", O_ALWAYS, LOADS_LIB}, {0, "provider", O_ALWAYS, LOADS_LIB},
	{0, "provider-path", O_ALWAYS, LOADS_LIB}, {0, "config", O_CODEFILE, NULL},
	{0, "out", O_WRITES, NULL}, {0, "keyout", O_WRITES, NULL},
	{0, "writerand", O_WRITES, NULL}, {0, NULL, 0, NULL}};
static const struct optrule wget_rules[] = {
	{0, "config", O_CODEFILE, NULL}, {'i', "input-file", O_CODEFILE, NULL},
	{'e', "execute", O_CODE, NULL},
	{'o', "output-file", O_WRITES, NULL}, {'a', "append-output", O_WRITES, NULL},
	{'O', "output-document", O_WRITES, NULL}, {'P', "directory-prefix", O_WRITES, NULL},
	{0, "save-cookies", O_WRITES, NULL}, {0, "rejected-log", O_WRITES, NULL},
	{0, "warc-file", O_WRITES, NULL}, {0, "hsts-file", O_WRITES, NULL},
	{0, "spider", O_NOWRITE, NULL}, {0, "use-askpass", O_ALWAYS, "runs the program it names"},
	{0, NULL, 0, NULL}};
/* less: lesskey files (#env can set LESSOPEN, a command), its logs. */
static const struct optrule less_rules[] = {
	{'k', "lesskey-file", O_CODEFILE, NULL}, {0, "lesskey-src", O_CODEFILE, NULL},
	{0, "lesskey-content", O_ALWAYS, "is lesskey code (#env sets LESSOPEN, a command)"},
	{'o', "log-file", O_WRITES, NULL}, {'O', "LOG-FILE", O_WRITES, NULL}, {0, NULL, 0, NULL}};
/* ssh-keygen: PKCS#11 and security key providers are libraries it loads. */
static const struct optrule keygen_rules[] = {
	{'D', NULL, O_CODEFILE, NULL}, {'w', NULL, O_CODEFILE, NULL}, {'O', NULL, O_SSH, NULL},
	{0, NULL, 0, NULL}};
/* vim and its names: Ex commands on the argv (-c, --cmd, +CMD; +N is a
 * line), scripts (-S, -u, -U, -s: typed input), files it writes. */
static const struct optrule vim_rules[] = {
	{'c', "cmd", O_ALWAYS, RUNS_CMD}, {'+', NULL, O_ALWAYS, RUNS_CMD},
	{'S', NULL, O_CODEFILE, NULL}, {'u', NULL, O_CODEFILE, NULL}, {'U', NULL, O_CODEFILE, NULL},
	{'s', NULL, O_SCRIPTIN, NULL}, {'w', NULL, O_WRITES, NULL}, {'W', NULL, O_WRITES, NULL},
	{'i', NULL, O_WRITES, NULL}, {0, "startuptime", O_WRITES, NULL}, {0, NULL, 0, NULL}};
static const char *const vims[] = {"vim", "vi", "nvim", "view", "ex", "vimdiff", "rvim", "rview",
				   "gvim", "gview", "evim", "vimx", "nvi", NULL};
static const char *const ssh_config[] = {".ssh/config", "/etc/ssh/ssh_config", NULL};
static const char *const curl_config[] = {".curlrc", ".config/curlrc", NULL};
static const char *const wget_config[] = {".wgetrc", "/etc/wgetrc", NULL};
static const char *const tmux_config[] = {".tmux.conf", ".config/tmux/tmux.conf",
					  "/etc/tmux.conf", NULL};
static const char *const screen_config[] = {".screenrc", "/etc/screenrc", NULL};
static const char *const less_config[] = {".lesskey", ".less", ".config/lesskey",
					  "/etc/syslesskey", "/etc/sysless", NULL};
static const char *const no_config[] = {NULL};
static const char *const vim_config[] = {".vimrc", ".vim", ".exrc", ".gvimrc", ".config/vim",
					 ".config/nvim", ".local/share/nvim", NULL};
static const char *const openssl_config[] = {"/usr/lib/ssl/openssl.cnf", "/etc/ssl/openssl.cnf",
					     "/etc/pki/tls/openssl.cnf", NULL};
/* tar: the programs it runs (a compressor, a script between volumes, a
 * command each member is piped to, the remote shell, checkpoint exec=). */
static const struct optrule tar_rules[] = {
	{'I', "use-compress-program", O_CODE, NULL}, {'F', "info-script", O_CODE, NULL},
	{0, "new-volume-script", O_CODE, NULL}, {0, "to-command", O_CODE, NULL},
	{0, "rsh-command", O_CODE, NULL}, {0, "rmt-command", O_CODE, NULL},
	{0, "checkpoint-action", O_EXEC_ACTION, NULL}, {0, NULL, 0, NULL}};
static const struct optprog optprogs[] = {
	{"tar", "bCfFgHIKLNTVX", tar_rules, no_config, false, false},
	{"ssh", "BbcDEeFIiJLlmOopQRSWw", ssh_rules, ssh_config, false, false},
	{"curl", "EKCbcdDFPHmoxUQreXYytzTuAw", curl_rules, curl_config, false, false},
	{"wget", "oaeiBtOTwQPUlARDXI", wget_rules, wget_config, true, false},
	{"tmux", "cfLST", tmux_rules, tmux_config, false, false},
	{"screen", "cehpST", screen_rules, screen_config, false, false},
	{"openssl", "", openssl_rules, openssl_config, false, true},
	{"less", "bhjkoOpPtTxyzD#", less_rules, less_config, false, false},
	{"ssh-keygen", "CDEFIMNOPRVYZabfgjmnrstwz", keygen_rules, no_config, false, false},
	{"vim", "cSuUswWiTtq", vim_rules, vim_config, false, false},
};

static const struct optprog *optprog_of(const char *name)
{
	if (name_in(name, vims))
		name = "vim";
	for (size_t i = 0; i < sizeof optprogs / sizeof optprogs[0]; i++)
		if (strcmp(name, optprogs[i].prog) == 0)
			return &optprogs[i];
	return NULL;
}

/* The dynamic loader (ld-linux-x86-64.so.2, ld-musl-x86_64.so.1, ld.so)
 * runs the program it is given: an interpreter of ELF files. */
static bool loader(const char *name)
{
	return strcmp(name, "ld.so") == 0 || (starts(name, "ld-") && strstr(name, ".so"));
}

enum kind { K_OTHER, K_INTERP, K_WRAPPER, K_XARGS, K_GIT, K_OPTS, K_SED, K_FIND, K_RUNNER, K_ALWAYS };

/* Programs CAREFUL whatever their arguments, and why. */
static const struct {
	const char *name, *why;
} always[] = {
	/* git's scalar: git maintenance, fetch and config over the
	 * repositories it registers, whose config and hooks run; its
	 * subcommands are not git's, and not checked like them. */
	{"scalar", "runs git over its repositories (maintenance, fetch) with their config "
		   "and hooks, which are not checked"},
	/* gdb: -ex, -x, -batch -ex 'shell ...', ./.gdbinit */
	{"gdb", "runs the commands of its -ex and -x options and of .gdbinit files, which are "
		"not checked"},
};

static const char *always_why(const char *name)
{
	for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
		if (strcmp(name, always[i].name) == 0)
			return always[i].why;
	return NULL;
}

static enum kind kind_of(const char *name)
{
	/* git-X is git: git's own links (git-core/git-status), a hard link
	 * or a link of the sandbox's named so; git then runs X. */
	if (strcmp(name, "git") == 0 || starts(name, "git-"))
		return K_GIT;
	if (strcmp(name, "xargs") == 0 || strcmp(name, "parallel") == 0)
		return K_XARGS;
	if (name_in(name, wrappers))
		return K_WRAPPER;
	if (versioned(name, interpreters) || versioned(name, builders) || loader(name))
		return K_INTERP;
	if (optprog_of(name))
		return K_OPTS;
	if (strcmp(name, "sed") == 0 || strcmp(name, "gsed") == 0)
		return K_SED;
	if (strcmp(name, "find") == 0 || strcmp(name, "gfind") == 0)
		return K_FIND;
	if (strcmp(name, "zip") == 0 || strcmp(name, "run-parts") == 0)
		return K_RUNNER;
	if (always_why(name))
		return K_ALWAYS;
	return K_OTHER;
}

static char *check(const struct wk_careful_in *in, const char *program, char *const *argv,
		   size_t argc, int depth);
static char *arg_program_check(const struct wk_careful_in *in, char *const *argv, size_t argc,
			       int depth);

/* Every part of ARG that looks like a path ("/x", "./x", "a/b": split at
 * blanks, quotes and shell punctuation), checked: interpreters' arguments
 * are code and file names at once. */
static char *path_tokens(const struct wk_careful_in *in, const char *arg, const char *what)
{
	static const char seps[] = " \t\n\"'`;|&()<>=,:{}$";
	char *r = place_reason(in, in->cwd, arg, what);
	for (const char *p = arg; !r && *p;) {
		size_t len = strcspn(p, seps);
		if (len && memchr(p, '/', len)) {
			char *tok = xasprintf("%.*s", (int)len, p);
			r = place_reason(in, in->cwd, tok, what);
			free(tok);
		}
		p += len;
		p += strspn(p, seps);
	}
	return r;
}

static char *which(const struct wk_careful_in *in, const char *name, char **reason);

/* Words of a shell's -c string the shell runs as they are; anything else
 * a shell does (variables, quotes, globs, redirections, cd, eval, source,
 * functions) is not followed here, and makes the string CAREFUL. */
static const char *const shell_plain[] = {"echo", "printf", "true", "false", ":", "exit",
					  "test", "[", "wait", "pwd", NULL};

/* Blank out the redirections of shell code C (N>file, >>file, <file,
 * >&N, 2>&1, <&-, &>file): they move data and run nothing. A here-document's
 * lines stay, to be read as commands (more CAREFUL, never less). */
static void blank_redirections(char *c)
{
	for (char *p = c; *p; p++) {
		if (*p != '<' && *p != '>')
			continue;
		char *start = p;
		while (start > c && isdigit((unsigned char)start[-1]))
			start--;
		if (start > c && !strchr(" \t;&|\n", start[-1]))
			start = p; /* "a2>x": the digits belong to a word */
		char *q = p + 1;
		if (*q == *p || *q == '|')
			q++;
		if (*q == '&') {
			q++;
			while (isdigit((unsigned char)*q) || *q == '-')
				q++;
		} else {
			q += strspn(q, " \t");
			q += strcspn(q, " \t;&|\n<>()");
		}
		memset(start, ' ', (size_t)(q - start));
		p = q - 1;
	}
}

static char *shell_code_check(const struct wk_careful_in *in, const char *name, const char *code,
			      int depth)
{
	char *copy = xstrdup(code), *r = NULL, *save = NULL;
	blank_redirections(copy);
	if (strpbrk(copy, "$`\\\"'*?[]~(){}#!<>")) {
		free(copy);
		return xasprintf("the code of %s -c uses quotes, variables, patterns or "
				 "substitutions, which are not checked", name);
	}
	for (char *cmd = strtok_r(copy, ";&|\n", &save); cmd && !r;
	     cmd = strtok_r(NULL, ";&|\n", &save)) {
		char *words[256], *wsave = NULL;
		size_t n = 0;
		for (char *w = strtok_r(cmd, " \t", &wsave); w && n < 255; w = strtok_r(NULL, " \t", &wsave))
			words[n++] = w;
		words[n] = NULL;
		if (!n || name_in(words[0], shell_plain))
			continue;
		if (strchr(words[0], '=') || n == 255) {
			r = xasprintf("the code of %s -c sets variables or is too long to check", name);
			break;
		}
		char *why = NULL;
		char *prog = strchr(words[0], '/') ? wk_path_place(in->wset, in->cwd, words[0], &why)
						   : which(in, words[0], &why);
		if (why)
			r = xasprintf("%s -c runs %s, which %s", name, words[0], why);
		else if (prog && depth + 1 < MAX_DEPTH)
			r = check(in, prog, words, n, depth + 1);
		else if (prog)
			r = xasprintf("%s -c runs commands too deep to check", name);
		else if (!strchr(words[0], '/'))
			r = xasprintf("%s -c runs %s, a shell builtin or a command not found, which is "
				      "not checked", name, words[0]);
		free(why);
		free(prog);
	}
	free(copy);
	return r;
}

/* sh [OPTIONS] (-c CODE | SCRIPT | nothing: standard input). Options
 * that take a value: -o, +o, -O, +O (in a bundle too: -eo pipefail),
 * and bash's startup file (--rcfile, --init-file), code of its own. */
static char *shell_check(const struct wk_careful_in *in, const char *name, char *const *argv,
			 size_t argc, int depth)
{
	bool c = false;
	for (size_t k = 1; k < argc; k++) {
		const char *a = argv[k];
		if ((strcmp(a, "--rcfile") == 0 || strcmp(a, "--init-file") == 0) && k + 1 < argc) {
			char *r = place_reason(in, in->cwd, argv[++k], "the startup file");
			if (r)
				return r;
			continue;
		}
		if ((a[0] == '-' || a[0] == '+') && a[1] && strcmp(a, "--") != 0) {
			if (strchr(a, 's') && a[1] != '-')
				break; /* -s: commands from standard input */
			c |= a[1] != '-' && strchr(a, 'c') != NULL;
			for (const char *p = a + 1; a[1] != '-' && *p; p++)
				if ((*p == 'o' || *p == 'O') && k + 1 < argc)
					k++;
			continue;
		}
		if (strcmp(a, "--") == 0 && ++k >= argc)
			break;
		if (c)
			return shell_code_check(in, name, argv[k], depth);
		return place_reason(in, in->cwd, argv[k], "the script");
	}
	return xasprintf("%s reads its commands from standard input, which the sandbox gives",
			 name);
}

static char *interp_check(const struct wk_careful_in *in, const char *name, char *const *argv,
			  size_t argc, int depth)
{
	if (name_in(name, shells))
		return shell_check(in, name, argv, argc, depth);
	/* (Any argument is a file name in that directory too.) */
	if (wk_wset_writable(in->wset, in->cwd))
		return xasprintf("%s runs in %s, a directory the sandbox can write (it loads "
				 "code from there: modules, a Makefile)", name, in->cwd);
	for (size_t k = 1; k < argc; k++) {
		char *r = path_tokens(in, argv[k], "the argument");
		if (r)
			return r;
	}
	/* A program to run, inline (-c, -e...), as a file or a module;
	 * else it is read from standard input. make and awk need none. */
	static const char *const awks[] = {"awk", "gawk", "mawk", "nawk", NULL};
	bool prog = versioned(name, awks) || versioned(name, builders);
	for (size_t k = 1; k < argc; k++)
		if (strcmp(argv[k], "-") == 0)
			prog = false, argc = k; /* "-": the program is standard input */
	for (size_t k = 1; k < argc && !prog; k++)
		prog = argv[k][0] != '-' || strcmp(argv[k], "-c") == 0 || strcmp(argv[k], "-e") == 0 ||
		       strcmp(argv[k], "-E") == 0 || strcmp(argv[k], "-r") == 0 ||
		       strcmp(argv[k], "-m") == 0 || strcmp(argv[k], "-p") == 0 ||
		       starts(argv[k], "--eval") || starts(argv[k], "--print");
	if (!prog)
		return xasprintf("%s reads its program from standard input, which the sandbox "
				 "gives", name);
	return NULL;
}

/* NAME as the command's PATH finds it (canonical), or NULL. A PATH
 * directory the sandbox can write, met before NAME is found, makes the
 * lookup itself CAREFUL (*REASON). */
static char *which(const struct wk_careful_in *in, const char *name, char **reason)
{
	const char *p = in->path_env ? in->path_env : "/usr/local/bin:/usr/bin:/bin";
	*reason = NULL;
	while (*p) {
		size_t len = strcspn(p, ":");
		char *dir = len ? xasprintf("%.*s", (int)len, p) : xstrdup(".");
		char *cand = path_join(dir, name);
		char *why = NULL, *canon = wk_path_place(in->wset, in->cwd, cand, &why);
		struct stat st;
		bool found = canon && view_stat(in->wset->root, canon, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0111);
		if (why) {
			*reason = xasprintf("is looked up in PATH, and %s %s", dir, why);
			free(why);
			free(canon);
			canon = NULL;
			found = true;
		}
		free(dir);
		free(cand);
		if (found)
			return canon;
		free(canon);
		p += len;
		if (*p == ':')
			p++;
	}
	return NULL;
}

/* ARGV[0], an argument of the wrapper NAME, as the command it runs: checked
 * when it names a program (looked up like the wrapper would), else NULL. */
static char *wrapped_check(const struct wk_careful_in *in, const char *name, char *const *argv,
			   size_t argc, int depth)
{
	char *why = NULL, *prog, *r = NULL;
	if (strchr(argv[0], '/'))
		prog = wk_path_place(in->wset, in->cwd, argv[0], &why);
	else
		prog = which(in, argv[0], &why);
	if (why)
		r = xasprintf("%s runs %s, which %s", name, argv[0], why);
	else if (prog)
		r = check(in, prog, argv, argc, depth + 1);
	free(why);
	free(prog);
	return r;
}

/* The value of ARGV[*K] when it is the option -C or --NAME, as getopt
 * reads it: "--NAME=V", "--NAME V", "-CV", "-C V", and in a bundle the
 * rest after C, unless a letter of TAKES (the options that take a value)
 * comes first and takes the rest itself. *K moves past a value that is
 * the next argument. NULL when ARGV[*K] is not that option. */
static const char *opt_value(char *const *argv, size_t argc, size_t *k, char c, const char *name,
			     const char *takes)
{
	const char *a = argv[*k], *p = c ? short_opt_at(a, c, takes) : NULL;
	if (name && long_opt(a, name))
		return strchr(a, '=') ? strchr(a, '=') + 1 : *k + 1 < argc ? argv[++*k] : "";
	if (p)
		return p[1] ? p + 1 : *k + 1 < argc ? argv[++*k] : "";
	return NULL;
}

/* Wrappers whose -c (--command) is a string of shell code. */
static const char *const shell_c_wrappers[] = {"flock", "script", "runuser", "su", "sg", NULL};

static char *shell_code_check(const struct wk_careful_in *in, const char *name, const char *code,
			      int depth);

/* watch [OPTIONS] WORDS...: the words joined with blanks are sh -c code,
 * unless -x (--exec) runs them as they are. */
static char *watch_check(const struct wk_careful_in *in, char *const *argv, size_t argc,
			 int depth)
{
	size_t k = 1;
	bool exec = false;
	for (; k < argc && argv[k][0] == '-' && argv[k][1]; k++) {
		size_t n = k, q = k;
		if (strcmp(argv[k], "--") == 0) {
			k++;
			break;
		}
		exec |= short_opt_at(argv[k], 'x', "nq") || long_opt(argv[k], "exec");
		if (opt_value(argv, argc, &n, 'n', "interval", "nq") ||
		    opt_value(argv, argc, &q, 'q', "equexit", "nq"))
			k = n > q ? n : q;
	}
	if (exec || k >= argc)
		return NULL;
	char *code = xstrdup(argv[k]);
	while (++k < argc) {
		char *more = xasprintf("%s %s", code, argv[k]);
		free(code);
		code = more;
	}
	char *r = shell_code_check(in, "watch", code, depth);
	free(code);
	return r;
}

/* The file ARGV[*K] names for script(1) to write, as an option (its
 * logs; -t and --timing only with the file attached) or its operand (the
 * typescript), or NULL. */
static const char *script_file(char *const *argv, size_t argc, size_t *k)
{
	static const char takes[] = "cEIOBTmo";
	static const struct {
		char c;
		const char *name;
	} logs[] = {{'O', "log-out"}, {'I', "log-in"}, {'T', "log-timing"}, {'B', "log-io"}};
	const char *a = argv[*k], *v, *t = short_opt_at(a, 't', takes);
	for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++)
		if ((v = opt_value(argv, argc, k, logs[i].c, logs[i].name, takes)))
			return v;
	if (opt_value(argv, argc, k, 'E', "echo", takes) ||
	    opt_value(argv, argc, k, 'm', "logging-format", takes) ||
	    opt_value(argv, argc, k, 'o', "output-limit", takes))
		return NULL;
	if (t && t[1])
		return t + 1;
	if (long_opt(a, "timing") && strchr(a, '='))
		return strchr(a, '=') + 1;
	return a[0] != '-' ? a : NULL;
}

/* A wrapper runs one of its arguments as a command: each argument that
 * names a program is checked as the command (a number or an option value
 * names none), without knowing every wrapper's options. Known apart: the
 * shell code of flock -c and the like, and env's -C, the directory the
 * command then runs in. */
static char *wrapper_check(const struct wk_careful_in *in, const char *name, char *const *argv,
			   size_t argc, int depth)
{
	if (depth >= MAX_DEPTH)
		return xasprintf("%s wraps other wrappers too deep to check", name);
	bool env = strcmp(name, "env") == 0, script = strcmp(name, "script") == 0;
	bool sg = strcmp(name, "sg") == 0;
	bool valgrind = strcmp(name, "valgrind") == 0;
	bool tracer = valgrind || strcmp(name, "strace") == 0 || strcmp(name, "ltrace") == 0;
	int group = 0; /* sg: its group was named */
	bool written = false; /* script: a file to write was named */
	struct wk_careful_in at = *in;
	char *cwd = NULL, *r = strcmp(name, "watch") == 0 ? watch_check(in, argv, argc, depth)
							 : NULL;
	for (size_t k = 1; k < argc && !r; k++) {
		const char *a = argv[k], *v;
		if (env && (short_opt(a, 'S') || long_opt(a, "split-string")))
			r = xstrdup("env -S splits a string into a command, which is not checked");
		else if (name_in(name, shell_c_wrappers) && (short_opt(a, 'c') || long_opt(a, "command")))
			r = (v = opt_value(argv, argc, &k, 'c', "command", "")) ?
				    shell_code_check(&at, name, v, depth) : NULL;
		else if (script) {
			/* Its typescript and logs hold what the session shows,
			 * which the sandbox chooses; /dev/null keeps nothing. */
			if ((v = script_file(argv, argc, &k)) && strcmp(v, "/dev/null") != 0)
				r = xasprintf("script writes the file %s outside the sandbox with what "
					      "the sandbox can choose", v);
			written |= v != NULL;
		}
		else if (env && (v = opt_value(argv, argc, &k, 'C', "chdir", "Sua"))) {
			/* Checked there; a link the sandbox can change on the way
			 * could send it anywhere after the check. */
			char *why = NULL;
			free(cwd);
			cwd = wk_path_place(in->wset, at.cwd, v, &why);
			if (why && (!cwd || !wk_wset_writable(in->wset, cwd)))
				r = xasprintf("env -C runs the command in %s, which %s", v, why);
			free(why);
			at.cwd = cwd;
		} else if (tracer && ((v = opt_value(argv, argc, &k, 'o', "output", "eEopPsSuUaAbIX")) ||
				      (valgrind && (starts(a, "--log-file") || starts(a, "--xml-file") ||
						    starts(a, "--log-socket"))))) {
			/* strace -o "|cmd" runs cmd; any of them writes a file. */
			r = xasprintf("%s %s writes a file outside the sandbox with what the sandbox "
				      "can choose, or runs a command", name, v ? v : a);
		} else if (env && strncmp(a, "PATH=", 5) == 0) {
			at.path_env = a + 5; /* env looks the command up there */
		} else if (sg && a[0] != '-' && !group++) {
			continue; /* sg GROUP: then the command, a string for sh -c */
		} else if (sg && a[0] != '-') {
			char *code = xstrdup(argv[k]);
			for (size_t j = k + 1; j < argc; j++) {
				char *more = xasprintf("%s %s", code, argv[j]);
				free(code);
				code = more;
			}
			r = shell_code_check(&at, name, code, depth);
			free(code);
			break;
		} else if (a[0] != '-' && !(env && strchr(a, '=')))
			r = wrapped_check(&at, name, argv + k, argc - k, depth);
	}
	if (!r && script && !written)
		r = xasprintf("script writes ./typescript in %s outside the sandbox with what the "
			      "sandbox can choose (a file /dev/null keeps nothing)", in->cwd);
	free(cwd);
	return r;
}

/* S with every FROM in it replaced by TO (malloc'd). */
static char *replace_all(const char *s, const char *from, const char *to)
{
	size_t n = 0, fl = strlen(from), tl = strlen(to);
	for (const char *p = s; (p = strstr(p, from)); p += fl)
		n++;
	char *out = malloc(strlen(s) + n * tl + 1), *o = out;
	if (!out)
		die("out of memory");
	for (const char *p = s, *q;; p = q + fl) {
		q = strstr(p, from);
		size_t len = q ? (size_t)(q - p) : strlen(p);
		memcpy(o, p, len);
		o += len;
		if (!q)
			break;
		memcpy(o, to, tl);
		o += tl;
	}
	*o = '\0';
	return out;
}

/* find's actions: -exec, -execdir, -ok and -okdir run a command (up to
 * ";" or "+"), checked like any with "{}" standing for a file found,
 * which may be the sandbox's: a path in its first writable tree. So the
 * decision is on where the program is, never on what the file there is
 * now: the sandbox can write it between the check and the run, and find
 * can wait (a first -exec sleep 1). -fprint, -fprint0, -fprintf and -fls
 * write a file of what it finds. */
static char *find_check(const struct wk_careful_in *in, char *const *argv, size_t argc,
			int depth)
{
	static const char *const execs[] = {"-exec", "-execdir", "-ok", "-okdir", NULL};
	static const char *const writes[] = {"-fprint", "-fprint0", "-fprintf", "-fls", NULL};
	const char *found = in->wset->roots.n ? in->wset->roots.v[0] : in->cwd;
	char *r = NULL;
	for (size_t k = 1; !r && k < argc; k++) {
		const char *a = argv[k];
		if (name_in(a, writes) && k + 1 < argc) {
			if (strcmp(argv[k + 1], "/dev/stdout") != 0 &&
			    strcmp(argv[k + 1], "/dev/stderr") != 0)
				r = xasprintf("find %s writes the file %s outside the sandbox with "
					      "what the sandbox can choose", a, argv[k + 1]);
			continue;
		}
		if (!name_in(a, execs))
			continue;
		/* Up to ";", or "+" right after "{}" (elsewhere "+" is a word). */
		size_t e = k + 1;
		while (e < argc && strcmp(argv[e], ";") != 0 &&
		       !(strcmp(argv[e], "+") == 0 && strcmp(argv[e - 1], "{}") == 0))
			e++;
		if (e == k + 1)
			break;
		if (strstr(argv[k + 1], "{}"))
			r = xasprintf("find %s %s runs the files it finds, which may be the "
				      "sandbox's", a, argv[k + 1]);
		else if (depth >= MAX_DEPTH)
			r = xasprintf("find %s runs commands too deep to check", a);
		if (r)
			break;
		struct strv sub = {0};
		char *file = path_join(found, "wicket-found");
		for (size_t j = k + 1; j < e; j++)
			strv_push(&sub, replace_all(argv[j], "{}", file));
		free(file);
		/* -execdir and -okdir run it in each directory found: one the
		 * sandbox may write. */
		struct wk_careful_in at = *in;
		if (strstr(a, "dir"))
			at.cwd = found;
		r = wrapped_check(&at, "find", sub.v, sub.n, depth);
		strv_free(&sub);
		k = e;
	}
	return r;
}

/* zip runs the command of -TT (--unzip-command) to test what it wrote;
 * run-parts runs every program in its directory: decided by where that
 * directory is, not by what is in it now. */
static char *runner_check(const struct wk_careful_in *in, const char *name, char *const *argv,
			  size_t argc)
{
	bool parts = strcmp(name, "run-parts") == 0;
	for (size_t k = 1; k < argc; k++) {
		const char *a = argv[k];
		bool operand = a[0] != '-';
		if (strcmp(a, "--") == 0) {
			if (!parts || ++k == argc)
				break;
			a = argv[k]; /* run-parts -- DIR */
			operand = true;
		}
		if (!parts && ((a[0] == '-' && a[1] != '-' && strstr(a, "TT")) ||
			       long_opt(a, "unzip-command")))
			return xasprintf("the zip option %s is a command for zip to run", a);
		char *r = parts && operand ? place_reason(in, in->cwd, a,
							  "run-parts runs every program in") : NULL;
		if (r)
			return r;
	}
	return NULL;
}

/* The config files FILES (relative to HOME, or absolute) of WHAT. */
static char *files_check(const struct wk_careful_in *in, const char *const *files,
			 const char *what)
{
	char *r = NULL;
	for (size_t i = 0; !r && files[i]; i++) {
		if (files[i][0] != '/' && !in->home)
			continue;
		char *p = files[i][0] == '/' ? xstrdup(files[i]) : path_join(in->home, files[i]);
		r = place_reason(in, in->cwd, p, what);
		free(p);
	}
	return r;
}

/* The option A (with its value V) of the program P, by what it does. */
static char *optrule_check(const struct wk_careful_in *in, const struct optprog *p,
			   const struct optrule *o, const char *a, const char *v)
{
	static const char *const ssh_runs[] = {"proxycommand", "localcommand",
					       "knownhostscommand", "include", "pkcs11provider",
					       "securitykeyprovider", "match", NULL};
	/* ssh-keygen -O: libraries, files written */
	static const char *const keygen_opts[] = {"sk-provider", "write-attestation", NULL};
	static const char *const ssh_control[] = {"controlpath", "controlmaster",
						  "controlpersist", NULL};
	char *what, *r;
	switch (o->what) {
	case O_CODEFILE:
	case O_SCRIPTIN:
		if (strcmp(v, "-") == 0)
			return xasprintf("%s %s reads it from standard input, which the sandbox "
					 "gives", p->prog, a);
		what = xasprintf("the file %s reads with %s:", p->prog, a);
		r = place_reason(in, in->cwd, v, what);
		free(what);
		return r;
	case O_EXEC_ACTION:
		if (!strstr(v, "exec"))
			return NULL;
		/* fall through */
	case O_CODE:
		return xasprintf("the %s option %s is code for %s to run", p->prog, a, p->prog);
	case O_WRITES:
		if (strcmp(v, "-") == 0)
			return NULL;
		return xasprintf("the %s option %s writes a file outside the sandbox with what the "
				 "sandbox can choose", p->prog, a);
	case O_SSH: {
		/* As ssh reads a config line: blanks and an "=" before the
		 * key skipped, the key perhaps in quotes, any case. */
		static const char blanks[] = " \t\r\n\f\v";
		const char *kv = v + strspn(v, blanks);
		kv += *kv == '=';
		kv += strspn(kv, blanks);
		kv += *kv == '"';
		char *key = xasprintf("%.*s", (int)strcspn(kv, "=\" \t\r\n\f\v"), kv);
		for (char *q = key; *q; q++)
			*q = (char)tolower((unsigned char)*q);
		bool runs = name_in(key, ssh_runs) || name_in(key, keygen_opts),
		     control = name_in(key, ssh_control);
		free(key);
		if (control)
			return xasprintf("the %s option %s %s %s", p->prog, a, v, HANDS_OVER);
		return runs ? xasprintf("the %s option %s %s runs a program, loads a library or "
					"names a file", p->prog, a, v) : NULL;
	}
	case O_ALWAYS:
		return xasprintf("the %s option %s %s", p->prog, a, o->why);
	case O_INTO_CWD:
	case O_NOWRITE:
		break;
	}
	return NULL;
}

/* ssh, curl, wget: their config files, and the options that name code or
 * a file to write. A file written into the working directory is one the
 * sandbox could write itself when that directory is its own. */
static char *opts_check(const struct wk_careful_in *in, const struct optprog *p,
			char *const *argv, size_t argc)
{
	char *r = files_check(in, p->config, "the config file");
	bool into_cwd = p->into_cwd;
	struct strv dashed = {0}, old = {0};
	if (strcmp(p->prog, "tar") == 0 && argc > 1 && argv[1][0] && argv[1][0] != '-') {
		/* tar's old style, "tar xIf PROG FILE": a letter per option,
		 * the values the next words in turn. */
		size_t next = 2;
		strv_push(&old, xstrdup(argv[0]));
		for (const char *c = argv[1]; *c; c++)
			strv_push(&old, strchr(p->takes, *c) && next < argc ?
						xasprintf("-%c%s", *c, argv[next++]) :
						xasprintf("-%c", *c));
		while (next < argc)
			strv_push(&old, xstrdup(argv[next++]));
		argv = old.v;
		argc = old.n;
	}
	if (p->one_dash) {
		/* -NAME[=V] as --NAME[=V] when NAME is one of the rules', in
		 * full; anything else stays, and matches no rule. */
		for (size_t k = 0; k < argc; k++) {
			const char *a = argv[k], *n = a + (a[0] == '-') + (a[0] == '-' && a[1] == '-');
			size_t len = strcspn(n, "=");
			bool known = false;
			for (const struct optrule *o = p->rules; a[0] == '-' && o->name && !known; o++)
				known = strlen(o->name) == len && strncmp(n, o->name, len) == 0;
			strv_push(&dashed, known ? xasprintf("--%s", n) : xstrdup(a));
		}
		argv = dashed.v;
	}
	bool exmode = false; /* vim's -e or -E came before */
	for (size_t k = 1; !r && k < argc && strcmp(argv[k], "--") != 0; k++) {
		size_t next = k;
		for (const struct optrule *o = p->rules; !r && (o->c || o->name); o++) {
			const char *a = argv[k], *v = NULL;
			size_t j = k;
			if (o->what == O_SCRIPTIN) {
				const char *s = short_opt_at(a, o->c, p->takes), *e;
				bool ex = exmode;
				for (const char *c = "eE"; *c && s; c++)
					ex |= (e = short_opt_at(a, *c, p->takes)) && e < s;
				if (ex)
					continue;
			}
			if (o->what == O_INTO_CWD || o->what == O_NOWRITE) {
				if ((o->c && short_opt_at(a, o->c, p->takes)) ||
				    (o->name && long_opt(a, o->name)))
					into_cwd = o->what == O_INTO_CWD;
				continue;
			}
			if (o->c == '+') /* vim's +CMD; +N is a line */
				v = a[0] == '+' && a[1 + strspn(a + 1, "0123456789")] ? a + 1 : NULL;
			else
				v = opt_value(argv, argc, &j, o->c, o->name, p->takes);
			if (!v)
				continue;
			if (j > k && v[0] == '-' && v[1])
				j = k; /* an option: vim -S has none (Session.vim) */
			if (o->what == O_WRITES && p->into_cwd)
				into_cwd = false; /* wget -O: that file instead */
			r = optrule_check(in, p, o, a, v);
			next = j > next ? j : next;
		}
		exmode |= short_opt_at(argv[k], 'e', p->takes) || short_opt_at(argv[k], 'E', p->takes);
		k = next;
	}
	if (!r && into_cwd && !wk_wset_writable(in->wset, in->cwd))
		r = xasprintf("%s writes a file named by the server into %s, a directory the "
			      "sandbox cannot write", p->prog, in->cwd);
	strv_free(&dashed);
	strv_free(&old);
	return r;
}

/* A sed script: GNU sed's e command and s///e flag run shell code, w, W
 * and s///w write files. sed's grammar is not parsed here: a script
 * without those letters anywhere has none of them (more CAREFUL, never
 * less: "s/hello/x/" is too). */
static char *sed_script(const char *code)
{
	if (!strpbrk(code, "ewW"))
		return NULL;
	return xasprintf("the sed script '%s' may run a command or write a file (e, w, W, "
			 "s///e, s///w; --sandbox refuses them)", code);
}

/* sed [OPTIONS] [SCRIPT] FILES...: the scripts of -e, the files of -f
 * (code files), or the first operand; all of it harmless with GNU sed's
 * --sandbox, which refuses e, w and r wherever they come from. */
static char *sed_check(const struct wk_careful_in *in, char *const *argv, size_t argc)
{
	static const struct optrule file_rule = {'f', "file", O_CODEFILE, NULL};
	static const struct optprog sed = {"sed", "efl", &file_rule, no_config, false, false};
	char *r = NULL;
	bool script = false, sandbox = false;
	for (size_t k = 1; k < argc; k++) {
		const char *a = argv[k], *v;
		char *why = NULL;
		if (strcmp(a, "--") == 0) {
			if (!script && k + 1 < argc)
				why = sed_script(argv[k + 1]);
			k = argc;
		} else if ((v = opt_value(argv, argc, &k, 'f', "file", sed.takes)))
			script = true, why = optrule_check(in, &sed, &file_rule, a, v);
		else if ((v = opt_value(argv, argc, &k, 'e', "expression", sed.takes)))
			script = true, why = sed_script(v);
		else if (opt_value(argv, argc, &k, 'l', "line-length", sed.takes))
			continue;
		else if (long_opt_min(a, "sandbox", 2))
			sandbox = true;
		else if (a[0] != '-' && !script)
			script = true, why = sed_script(a);
		if (r)
			free(why);
		else
			r = why;
	}
	if (sandbox) {
		free(r);
		return NULL;
	}
	return r;
}

/* --- git ----------------------------------------------------------------- */

/* "gitdir: X" of a .git file, relative to its directory DIR. */
static char *gitfile_target(const struct wk_careful_in *in, const char *file, const char *dir)
{
	char buf[PATH_MAX + 16];
	if (view_read_text(in->wset->root, file, buf, sizeof buf) < 0 || !starts(buf, "gitdir: "))
		return NULL;
	char *t = buf + 8;
	t[strcspn(t, "\r\n")] = '\0';
	return t[0] == '/' ? xstrdup(t) : path_join(dir, t);
}

/* A repository that is not the sandbox's to change: its hooks, its config
 * and the files that redirect git (commondir) are read-only. */
static char *repo_check(const struct wk_careful_in *in, const char *gitdir)
{
	static const char *const parts[] = {"config", "hooks", "commondir", "config.worktree",
					    "modules", NULL};
	for (size_t i = 0; parts[i]; i++) {
		char *p = path_join(gitdir, parts[i]);
		char *r = place_reason(in, in->cwd, p, "the repository's");
		free(p);
		if (r)
			return r;
	}
	char *cd = path_join(gitdir, "commondir"), buf[PATH_MAX];
	char *r = NULL;
	if (view_read_text(in->wset->root, cd, buf, sizeof buf) >= 0) {
		buf[strcspn(buf, "\r\n")] = '\0';
		char *common = buf[0] == '/' ? xstrdup(buf) : path_join(gitdir, buf);
		for (size_t i = 0; parts[i] && !r; i++) {
			char *p = path_join(common, parts[i]);
			r = place_reason(in, in->cwd, p, "the repository's");
			free(p);
		}
		free(common);
	}
	free(cd);
	return r;
}

/* The repository git finds from DIR, as git looks for it: DIR/.git, or
 * DIR itself, then each parent. A directory the sandbox can write where no
 * repository is yet is one it could make a repository of. */
static char *repo_find(const struct wk_careful_in *in, const char *dir, char **gitdir,
		       char **top)
{
	char *a = xstrdup(dir), *r = NULL;
	for (int depth = 0; depth < 256 && !r; depth++) {
		char *dotgit = path_join(a, ".git"), *why = NULL;
		char *canon = wk_path_place(in->wset, in->cwd, dotgit, &why);
		struct stat st;
		char *head = path_join(a, "HEAD");
		if (canon && view_lstat(in->wset->root, dotgit, &st)) {
			if (replaceable(in->wset, dotgit) || (why && !wk_wset_writable(in->wset, canon)))
				r = xasprintf("git's repository %s can be replaced by the sandbox", dotgit);
			else if (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode))
				*gitdir = xstrdup(canon);
			else
				*gitdir = gitfile_target(in, dotgit, a);
			if (!r && *gitdir)
				r = repo_check(in, *gitdir);
			*top = xstrdup(a);
			free(canon);
			free(why);
			free(dotgit);
			free(head);
			break;
		}
		free(canon);
		free(why);
		free(dotgit);
		if (wk_wset_writable(in->wset, a))
			r = xasprintf("git looks for its repository in %s, where the sandbox can make "
				      "one (with hooks and config of its own)", a);
		else if (view_lstat(in->wset->root, head, &st)) {
			*gitdir = xstrdup(a);
			r = repo_check(in, a);
			free(head);
			break;
		}
		free(head);
		if (r || strcmp(a, "/") == 0)
			break;
		char *up = path_dirname(a);
		free(a);
		a = up;
		if (depth + 1 == 256)
			r = xstrdup("git's repository cannot be found (too deep)");
	}
	free(a);
	return r;
}

/* The repository at the far end of a push or fetch, when it is a local
 * path: its hooks (pre-receive, update, post-receive) and config run. */
static char *target_check(const struct wk_careful_in *in, const char *dir, const char *url)
{
	if (starts(url, "ext::") || strstr(url, "::"))
		return xasprintf("git would reach %s through a transport that runs a command", url);
	const char *path = url;
	if (starts(url, "file://"))
		path = url + 7;
	else if (strstr(url, "://"))
		return NULL; /* another host: its hooks are not ours to run */
	else {
		size_t colon = strcspn(url, ":"), slash = strcspn(url, "/");
		if (url[colon] && colon < slash)
			return NULL; /* host:path, over ssh */
	}
	static const char *const parts[] = {"", "hooks", "config", ".git", ".git/hooks",
					    ".git/config", "commondir", ".git/commondir", NULL};
	char *base = path[0] == '/' ? xstrdup(path) : path_join(dir, path);
	char *r = NULL;
	for (size_t i = 0; parts[i] && !r; i++) {
		char *p = parts[i][0] ? path_join(base, parts[i]) : xstrdup(base);
		char *why = NULL;
		free(wk_path_place(in->wset, in->cwd, p, &why));
		if (why)
			r = xasprintf("git would push to or fetch from %s, whose hooks and config "
				      "run: %s %s", url, p, why);
		free(why);
		free(p);
	}
	free(base);
	return r;
}

/* What the repository's config names (the config itself is not the
 * sandbox's, or the command is CAREFUL already): a hooks directory
 * (core.hooksPath, relative to the worktree) or another config file
 * (include.path, relative to the config) the sandbox can write; with
 * REMOTE, every url and pushurl: the remotes a push or fetch without one,
 * or with a remote's name, would use. */
static char *config_check(const struct wk_careful_in *in, const char *dir, const char *gitdir,
			  bool remote)
{
	char *cfg = path_join(gitdir, "config"), *r = NULL;
	FILE *f = view_fopen(in->wset->root, cfg);
	free(cfg);
	if (!f)
		return NULL;
	char *top = path_dirname(gitdir);
	char line[PATH_MAX + 64];
	while (!r && fgets(line, sizeof line, f)) {
		char *p = line + strspn(line, " \t");
		size_t klen = strcspn(p, " \t=");
		char *v = p + klen;
		v += strspn(v, " \t");
		if (*v != '=')
			continue;
		v++;
		v += strspn(v, " \t\"");
		v[strcspn(v, "\"\r\n")] = '\0';
		bool url = (klen == 3 && strncasecmp(p, "url", 3) == 0) ||
			   (klen == 7 && strncasecmp(p, "pushurl", 7) == 0);
		bool path = (klen == 9 && strncasecmp(p, "hookspath", 9) == 0) ||
			    (klen == 4 && strncasecmp(p, "path", 4) == 0);
		if (url && remote)
			r = target_check(in, dir, v);
		else if (path && v[0]) {
			char *exp = v[0] == '~' && in->home ? path_join(in->home, v + 1) : xstrdup(v);
			r = place_reason(in, top, exp, "the repository's config names");
			if (!r)
				r = place_reason(in, gitdir, exp, "the repository's config names");
			free(exp);
		}
	}
	fclose(f);
	free(top);
	return r;
}

/* The sandbox can write somewhere in the tree TOP (a worktree): TOP lies
 * in a writable root, or a writable root lies in TOP. The second half is
 * about a tree, not a path, and not classify's question. */
static bool tree_writable(const struct wk_wset *w, const char *top)
{
	if (wk_wset_writable(w, top))
		return true;
	for (size_t i = 0; i < w->roots.n; i++)
		if (path_is_under(w->roots.v[i], top))
			return true;
	return false;
}

/* Whether git may run git in the worktree's submodules, with their own
 * config. status, diff, add, commit and others do, to see whether a
 * submodule is modified, at every gitlink of the index, wherever a .git
 * is there; fetch and pull fetch them. Whatever the worktree holds then
 * decides: a .git the sandbox made at a gitlink (the index and
 * .gitmodules are the sandbox's to change too, at any time) brings a
 * config of its own, and core.fsmonitor or a filter in it runs. Listed
 * here are the subcommands known not to look at submodules unless told
 * to (an alias is not listed); --ignore-submodules[=all] and
 * --no-recurse-submodules tell git to keep out. Only these command-line
 * forms hold: a submodule's "ignore" in .gitmodules overrides any
 * configured default. */
static bool git_enters_submodules(const char *sub, char *const *argv, size_t from, size_t argc)
{
	/* Not log, show, reflog or format-patch: a patch of a gitlink with
	 * --submodule=diff (or diff.submodule=diff in the person's config)
	 * is git diff run in the submodule. */
	static const char *const keep_out[] = {
		"branch", "tag", "rev-parse", "rev-list", "ls-remote", "remote",
		"cat-file", "ls-tree", "blame", "shortlog", "for-each-ref", "show-ref",
		"symbolic-ref", "name-rev", "merge-base", "version", "help", "push",
		"show-branch", "cherry", "count-objects", "var", NULL};
	bool enters = !name_in(sub, keep_out);
	for (size_t j = from; j < argc; j++) {
		const char *a = argv[j];
		if (strcmp(a, "--") == 0)
			break;
		/* git obeys the last of them: so does this. */
		if (strcmp(a, "--ignore-submodules") == 0 ||
		    strcmp(a, "--ignore-submodules=all") == 0 ||
		    strcmp(a, "--no-recurse-submodules") == 0)
			enters = false;
		else if (git_long_opt(a, "ignore-submodules") ||
			 git_long_opt(a, "recurse-submodules") || git_long_opt(a, "no-recurse-submodules"))
			enters = true; /* any other value, or a prefix (--recu=on-demand) */
	}
	return enters;
}

/* NAME is a remote with a url in the repository's own config (which is
 * not the sandbox's, or the command is CAREFUL already): git takes it as
 * that remote, never as a path, and config_check looks at its url. A
 * section without a url is a path to git, so it does not count. */
static bool remote_with_url(const struct wk_wset *w, const char *gitdir, const char *name)
{
	char *cfg = path_join(gitdir, "config");
	FILE *f = view_fopen(w->root, cfg);
	free(cfg);
	if (!f)
		return false;
	char line[PATH_MAX + 64];
	bool in = false, found = false;
	size_t nlen = strlen(name);
	while (!found && fgets(line, sizeof line, f)) {
		char *p = line + strspn(line, " \t");
		if (*p == '[') {
			in = strncmp(p, "[remote \"", 9) == 0 && strncmp(p + 9, name, nlen) == 0 &&
			     strncmp(p + 9 + nlen, "\"]", 2) == 0;
			continue;
		}
		size_t klen = strcspn(p, " \t=");
		found = in && ((klen == 3 && strncasecmp(p, "url", 3) == 0) ||
			       (klen == 7 && strncasecmp(p, "pushurl", 7) == 0));
	}
	fclose(f);
	return found;
}

/* git [OPTIONS] SUB ARGS..., or git-SUB ARGS...: git reads the name it
 * is run as (argv[0]) first, and git-SUB takes no options of git's own. */
static char *git_check(const struct wk_careful_in *in, char *const *argv, size_t argc)
{
	char *dir = xstrdup(in->cwd), *r = NULL, *found = NULL, *top = NULL, *bare = NULL;
	const char *gitdir = NULL, *worktree = NULL;
	const char *dashed = starts(base_of(argv[0]), "git-") ? base_of(argv[0]) + 4 : NULL;
	size_t k = dashed ? 0 : 1;
	for (; !dashed && k < argc && argv[k][0] == '-' && !r; k++) {
		const char *a = argv[k];
		if (strcmp(a, "-C") == 0 && k + 1 < argc) {
			const char *d = argv[++k];
			char *n = d[0] == '/' ? xstrdup(d) : path_join(dir, d);
			free(dir);
			dir = n;
		} else if (starts(a, "-c") || git_long_opt(a, "config-env") ||
			   git_long_opt(a, "exec-path") || git_long_opt(a, "upload-pack") ||
			   git_long_opt(a, "receive-pack") || starts(a, "--exec-path") ||
			   starts(a, "--config-env")) {
			r = xasprintf("the git option %s sets configuration or a program on the "
				      "command line", a);
		} else if (strcmp(a, "--git-dir") == 0 && k + 1 < argc) {
			gitdir = argv[++k];
		} else if (starts(a, "--git-dir=")) {
			gitdir = a + 10;
		} else if (strcmp(a, "--work-tree") == 0 && k + 1 < argc) {
			worktree = argv[++k];
		} else if (starts(a, "--work-tree=")) {
			worktree = a + 12;
		} else if (strcmp(a, "--namespace") == 0) {
			k++;
		} else if (strcmp(a, "--bare") == 0 && !gitdir) {
			/* the working directory is the repository (GIT_DIR) */
			gitdir = bare = xstrdup(dir);
		}
	}
	/* ARGV[K] is the subcommand: its arguments follow. */
	const char *sub = dashed ? dashed : k < argc ? argv[k] : "";
	if (!r && gitdir) {
		char *g = gitdir[0] == '/' ? xstrdup(gitdir) : path_join(dir, gitdir);
		r = place_reason(in, in->cwd, g, "git's repository");
		if (!r)
			r = repo_check(in, g);
		found = g;
		top = xstrdup(dir);
	} else if (!r) {
		r = repo_find(in, dir, &found, &top);
	}
	if (!r && worktree) {
		free(top);
		top = worktree[0] == '/' ? xstrdup(worktree) : path_join(dir, worktree);
	}
	/* git's own config: the user's and the system's. */
	static const char *const git_config[] = {".gitconfig", ".config/git/config",
						 ".config/git/attributes", "/etc/gitconfig", NULL};
	if (!r)
		r = files_check(in, git_config, "git's config");
	/* With XDG_CONFIG_HOME set, git reads its config there instead of
	 * ~/.config/git. */
	if (!r && in->xdg_config && in->xdg_config[0] == '/') {
		static const char *const xdg_git[] = {"git/config", "git/attributes", NULL};
		for (size_t i = 0; !r && xdg_git[i]; i++) {
			char *p = path_join(in->xdg_config, xdg_git[i]);
			r = place_reason(in, in->cwd, p, "git's config");
			free(p);
		}
	}
	static const char *const remote_subs[] = {"push", "fetch", "pull", "clone", "ls-remote",
						  "remote", "submodule", "archive", "request-pull",
						  NULL};
	bool remote = name_in(sub, remote_subs);
	/* These write a repository's config and hooks (-c, --config, --template). */
	static const char *const create_subs[] = {"clone", "init", "submodule", NULL};
	bool creates = name_in(sub, create_subs);
	for (size_t j = k + 1; !r && j < argc; j++) {
		const char *a = argv[j];
		if (git_long_opt(a, "receive-pack") || git_long_opt(a, "upload-pack") ||
		    git_long_opt(a, "exec") || git_long_opt(a, "template") ||
		    (creates && (git_long_opt(a, "config") || short_opt(a, 'c'))) ||
		    (short_opt(a, 'u') && strcmp(sub, "push") != 0) ||
		    git_long_opt(a, "open-files-in-pager") || (strcmp(sub, "grep") == 0 && short_opt(a, 'O')))
			r = xasprintf("the git option %s names a program for git to run", a);
		else if (git_long_opt(a, "output") || short_opt(a, 'o') || git_long_opt(a, "output-directory"))
			r = xasprintf("the git option %s writes a file outside the sandbox with what "
				      "the sandbox can choose", a);
		else if (remote && a[0] != '-' && !(found && remote_with_url(in->wset, found, a)))
			r = target_check(in, dir, a);
		else if (remote && git_long_opt(a, "repo")) {
			/* --repo=X (or an abbreviation) is the repository too;
			 * --repo X comes as its own argument, checked above. */
			const char *v = strchr(a, '=');
			if (v && !(found && remote_with_url(in->wset, found, v + 1)))
				r = target_check(in, dir, v + 1);
		}
	}
	if (!r && top && sub[0] && git_enters_submodules(sub, argv, k + 1, argc)) {
		char *mods = path_join(top, ".gitmodules");
		struct stat st;
		if (view_lstat(in->wset->root, mods, &st))
			r = xasprintf("the repository in %s has submodules, whose git directories "
				      "and .git files are not checked (--ignore-submodules keeps "
				      "git out of them)", top);
		else if (tree_writable(in->wset, top))
			r = xasprintf("git may run git in a submodule of %s, where the sandbox can "
				      "make a repository with a config of its own (core.fsmonitor, "
				      "filters); --ignore-submodules keeps git out of them", top);
		free(mods);
	}
	if (!r && found)
		r = config_check(in, dir, found, remote);
	free(found);
	free(top);
	free(dir);
	free(bare);
	return r;
}

/* --- the decision --------------------------------------------------------- */

char *wk_program_writable(const struct wk_wset *w, const char *program)
{
	if (!wk_wset_writable(w, program))
		return NULL;
	return xasprintf("the program %s is in a place the sandbox can write", program);
}

static char *check(const struct wk_careful_in *in, const char *program, char *const *argv,
		   size_t argc, int depth)
{
	char *own = wk_program_writable(in->wset, program);
	if (own)
		return own;
	/* The file that runs, and the name it is run as (argv[0]), which a
	 * program of many (busybox, git) reads to know what to be. */
	const char *names[2] = {base_of(program), argc ? base_of(argv[0]) : ""};
	for (int i = 0; i < 2; i++) {
		char *r = NULL;
		enum kind kind = kind_of(names[i]);
		if (i == 1 && kind == K_GIT && kind_of(names[0]) == K_GIT)
			break; /* git_check reads argv[0] itself: once is enough */
		switch (kind) {
		case K_GIT:
			r = git_check(in, argv, argc);
			break;
		case K_XARGS:
			r = xasprintf("%s takes further arguments from its input, which the sandbox "
				      "controls", names[i]);
			break;
		case K_WRAPPER:
			r = wrapper_check(in, names[i], argv, argc, depth);
			break;
		case K_INTERP:
			r = interp_check(in, names[i], argv, argc, depth);
			break;
		case K_OPTS:
			r = opts_check(in, optprog_of(names[i]), argv, argc);
			break;
		case K_SED:
			r = sed_check(in, argv, argc);
			break;
		case K_FIND:
			r = find_check(in, argv, argc, depth);
			break;
		case K_RUNNER:
			r = runner_check(in, names[i], argv, argc);
			break;
		case K_ALWAYS:
			r = xasprintf("%s %s", names[i], always_why(names[i]));
			break;
		case K_OTHER:
			break;
		}
		if (r)
			return r;
	}
	return arg_program_check(in, argv, argc, depth);
}

/* Whatever the program: one that runs another it is given (find -exec,
 * tar -I, zip -TT, setarch, prlimit, su -c, capsh, perf, ssh-agent...)
 * is more than any list. So an argument, or a path inside one (an
 * option's value, "--to-command=./x", "-I/x"), that names a program or
 * a script ("#!") in a place the sandbox can write makes any command
 * CAREFUL; and an interpreter or shell named among the arguments is
 * checked with what follows it, as a command of its own. */
static bool runnable(const struct wk_wset *w, const char *path)
{
	/* Looked at once, then read through what was looked at. */
	int at = view_path(w->root, path, true);
	struct stat st;
	bool reg = at >= 0 && fstat(at, &st) == 0 && S_ISREG(st.st_mode);
	bool exec = reg && (st.st_mode & 0111);
	int fd = reg && !exec ? view_reopen_regular(at) : -1;
	char b[2] = {0};
	bool script = fd >= 0 && read(fd, b, 2) == 2 && b[0] == '#' && b[1] == '!';
	if (fd >= 0)
		close(fd);
	if (at >= 0)
		close(at);
	return exec || script;
}

static char *arg_program_check(const struct wk_careful_in *in, char *const *argv, size_t argc,
			       int depth)
{
	static const char seps[] = " \t\n\"'`;|&()<>=,:{}$";
	for (size_t k = 1; k < argc; k++) {
		const char *a = argv[k];
		if (depth < MAX_DEPTH && k + 1 < argc && a[0] != '-' &&
		    (versioned(base_of(a), interpreters) || name_in(base_of(a), shells))) {
			char *r = interp_check(in, base_of(a), argv + k, argc - k, depth + 1);
			if (r)
				return r;
		}
		/* "-I/x" and "--opt=./x": the path starts at its first "/" or "." */
		for (const char *p = a; *p;) {
			size_t len = strcspn(p, seps);
			const char *tok = p;
			if (len && tok[0] == '-') {
				const char *sl = memchr(tok, '/', len);
				size_t skip = sl ? (size_t)(sl - tok) : len;
				if (sl && skip > 0 && tok[skip - 1] == '.')
					skip -= tok[skip - 2] == '.' && skip >= 2 ? 2 : 1;
				tok += skip;
				len -= skip;
			}
			if (len && memchr(tok, '/', len)) {
				char *t = xasprintf("%.*s", (int)len, tok);
				char *why = NULL;
				char *where = wk_path_place(in->wset, in->cwd, t, &why);
				bool prog = why && where && runnable(in->wset, where);
				free(where);
				if (prog) {
					char *r = xasprintf("its argument %s names a program, which %s", t, why);
					free(why);
					free(t);
					return r;
				}
				free(why);
				free(t);
			}
			p += strcspn(p, seps);
			p += strspn(p, seps);
		}
	}
	return NULL;
}

char *wk_careful(const struct wk_careful_in *in)
{
	if (!in->argc || !in->program)
		return xstrdup("no program to check");
	return check(in, in->program, in->argv, in->argc, 0);
}
