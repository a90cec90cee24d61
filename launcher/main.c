/* wicket: run a shell or a command inside a kernel-enforced sandbox. */
#include "config.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "envscrub.h"
#include "path.h"

extern char **environ;

static void usage_main(FILE *f)
{
	fprintf(f,
		"Usage: wicket [OPTIONS]                  start your shell in the sandbox\n"
		"       wicket shell [OPTIONS]            the same\n"
		"       wicket run [OPTIONS] -- CMD [ARGS...]\n"
		"       wicket doctor [--json]            what this kernel can enforce\n"
		"\n"
		"The default sandbox: the workspace (the current directory) is writable;\n"
		"everything else is read-only, metadata included; /tmp is private to the\n"
		"session; ~/.ssh, ~/.aws and other secret stores are hidden; secret-looking\n"
		"environment variables are removed; the network is off.\n"
		"\n"
		"Options:\n"
		"  -C, --workspace DIR   use DIR as the workspace instead of the current directory\n"
		"  -w, --write PATH      also make PATH writable (repeatable)\n"
		"  -p, --protect PATH    keep PATH read-only inside a writable root (repeatable)\n"
		"  -r, --read-only       nothing writable but private /tmp and /dev essentials\n"
		"  -n, --net MODE        network: none (default) or full\n"
		"      --best-effort     run even where the kernel cannot enforce everything,\n"
		"                        saying up front what is weaker\n"
		"  -h, --help            show this help\n"
		"  -V, --version         show the version\n"
		"\n"
		"Exit status: the command's own; 128+N if it died of signal N; 125 if wicket\n"
		"failed (bad option, kernel cannot enforce); 126 not executable; 127 not found.\n"
		"See wicket(1).\n");
}

enum { OPT_BEST_EFFORT = 256 };

static const struct option run_opts[] = {
	{"workspace", required_argument, NULL, 'C'},
	{"write", required_argument, NULL, 'w'},
	{"protect", required_argument, NULL, 'p'},
	{"read-only", no_argument, NULL, 'r'},
	{"net", required_argument, NULL, 'n'},
	{"best-effort", no_argument, NULL, OPT_BEST_EFFORT},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

struct cli {
	const char *workspace;
	struct strv write, protect;
	bool read_only, best_effort;
	enum net_mode net;
};

static char *absolute(const char *p, const char *cwd, const char *home)
{
	char *e = path_expand_home(p, home ? home : "/");
	char *abs = e[0] == '/' ? xstrdup(e) : path_join(cwd, e);
	free(e);
	char *n = path_normalize(abs);
	free(abs);
	return n;
}

/* Returns 0 and the path, or 126/127 like a shell would. */
static int resolve_command(const char *name, char **out)
{
	if (strchr(name, '/')) {
		struct stat st;
		if (stat(name, &st) < 0)
			return EXIT_NOTFOUND;
		if (S_ISDIR(st.st_mode) || access(name, X_OK) < 0)
			return EXIT_NOEXEC;
		*out = xstrdup(name);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int found_noexec = 0;
	const char *p = path;
	for (;;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		char *cand = len ? xasprintf("%.*s/%s", (int)len, p, name) : xasprintf("./%s", name);
		struct stat st;
		if (stat(cand, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(cand, X_OK) == 0) {
				*out = cand;
				return 0;
			}
			found_noexec = 1;
		}
		free(cand);
		if (!colon)
			break;
		p = colon + 1;
	}
	return found_noexec ? EXIT_NOEXEC : EXIT_NOTFOUND;
}

static char **build_env(const struct session *s, const char *session_id)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + 8, sizeof *env);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		/* Our own variables are set below, never inherited. */
		if (strncmp(environ[i], "TMPDIR=", 7) == 0 || strncmp(environ[i], "WICKET=", 7) == 0 ||
		    strncmp(environ[i], "WICKET_POLICY=", 14) == 0 ||
		    strncmp(environ[i], "WICKET_SESSION=", 15) == 0)
			continue;
		env[w++] = environ[i];
	}
	env[w] = NULL;
	if (s->pol.env_unset.n)
		w -= (size_t)envscrub_filter(env, (const char *const *)s->pol.env_unset.v);
	env[w++] = xasprintf("TMPDIR=%s", s->layers.mntns ? "/tmp" : s->fallback_tmp);
	env[w++] = xstrdup("WICKET=1");
	env[w++] = xasprintf("WICKET_POLICY=%s", s->pol.name);
	env[w++] = xasprintf("WICKET_SESSION=%s", session_id);
	env[w] = NULL;
	return env;
}

static void make_session_id(char *buf, size_t len)
{
	unsigned char r[8] = {0};
	if (getrandom(r, sizeof r, GRND_NONBLOCK) < 0)
		memset(r, 0, sizeof r);
	for (size_t i = 0; i < sizeof r && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", r[i]);
}

/* Our passwd entry: /etc/passwd read directly first (NSS start-up costs
 * more than the whole rest of the supervisor's preparation), NSS for
 * users that live elsewhere (LDAP, sssd). */
static struct passwd *lookup_passwd(uid_t uid)
{
	FILE *f = fopen("/etc/passwd", "re");
	if (f) {
		struct passwd *pw;
		while ((pw = fgetpwent(f)))
			if (pw->pw_uid == uid)
				break;
		fclose(f);
		if (pw)
			return pw;
	}
#ifdef WICKET_STATIC
	return NULL;
#else
	return getpwuid(uid);
#endif
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(p);
	return 0;
}

static struct passwd *cached_pw;
static bool pw_looked_up;

static struct passwd *session_passwd(uid_t uid)
{
	if (!pw_looked_up) {
		cached_pw = lookup_passwd(uid);
		pw_looked_up = true;
	}
	return cached_pw;
}

/* Run by the supervisor after the clone, while init builds the base of the
 * mount view (see supervisor.c): the hidden and protected paths and the
 * command's environment. Whatever it refuses still ends the session
 * before the command starts. */
static void late_prepare(struct session *s)
{
	struct passwd *pw = session_passwd(s->uid);
	const char *home = getenv("HOME");
	if (pw && pw->pw_dir && home && home[0] == '/' && strcmp(pw->pw_dir, home) != 0) {
		/* HOME was moved: the real home's secrets stay hidden too. */
		struct policy extra;
		policy_default(&extra, s->workspace, pw->pw_dir, true);
		for (size_t i = 0; i < extra.hide.n; i++)
			strv_add(&s->pol.hide, extra.hide.v[i]);
	}
	plan_build_late(s);
	s->envp = build_env(s, s->session_id);
}

static int run_sandboxed(struct cli *cli, char **argv, bool shell)
{
	struct session s;
	memset(&s, 0, sizeof s);
	s.best_effort = cli->best_effort;
	s.read_only = cli->read_only;
	s.uid = getuid();
	s.gid = getgid();
	s.late_pipe[0] = s.late_pipe[1] = -1;

	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		die("cannot find the current directory (%s): was it deleted? cd somewhere that exists",
		    strerror(errno));
	const char *home = getenv("HOME");
	if (!home || home[0] != '/') {
		struct passwd *pw = session_passwd(s.uid);
		home = pw ? pw->pw_dir : NULL;
	}

	const char *ws = cli->workspace ? cli->workspace : cwd;
	s.workspace = realpath(ws, NULL);
	if (!s.workspace)
		die("workspace %s: %s", ws, strerror(errno));
	struct stat st;
	if (stat(s.workspace, &st) < 0 || !S_ISDIR(st.st_mode))
		die("workspace %s: not a directory", ws);

	/* What the kernel can do, decided first: as root the network
	 * namespace can then be created while the rest is prepared. */
	s.pol.net = cli->net;
	probe_kernel(&s.kinfo);
	layers_decide(&s);
	net_early_start(&s);

	policy_default(&s.pol, s.workspace, home, cli->read_only);
	/* A worktree's .git is a file naming the real git directory: if the
	 * sandbox could rewrite it, git outside would follow it anywhere. */
	char *gitfile = path_join(s.workspace, ".git");
	if (lstat(gitfile, &st) == 0 && S_ISREG(st.st_mode))
		strv_push(&s.pol.protect, gitfile);
	else
		free(gitfile);
	s.pol.net = cli->net;
	for (size_t i = 0; i < cli->write.n; i++) {
		char *a = absolute(cli->write.v[i], cwd, home);
		char *r = realpath(a, NULL);
		if (!r)
			die("--write %s: %s", cli->write.v[i], strerror(errno));
		strv_push(&s.pol.write, r);
		free(a);
	}
	for (size_t i = 0; i < cli->protect.n; i++)
		strv_push(&s.pol.protect, absolute(cli->protect.v[i], cwd, home));

	if (shell) {
		const char *sh = getenv("SHELL");
		struct stat shst;
		if (!sh || sh[0] != '/' || stat(sh, &shst) < 0 || !S_ISREG(shst.st_mode) ||
		    access(sh, X_OK) < 0) {
			struct passwd *pw = session_passwd(s.uid);
			sh = pw && pw->pw_shell && pw->pw_shell[0] == '/' ? pw->pw_shell : "/bin/sh";
		}
		s.argv = xcalloc(2, sizeof *s.argv);
		s.argv[0] = xstrdup(sh);
	} else {
		s.argv = argv;
	}
	int rc = resolve_command(s.argv[0], &s.exec_path);
	if (rc == EXIT_NOTFOUND)
		die_code(rc, "%s: command not found", s.argv[0]);
	if (rc == EXIT_NOEXEC)
		die_code(rc, "%s: permission denied (not an executable file)", s.argv[0]);

	plan_build_base(&s);
	stdio_plan(&s);
	if (!s.layers.mntns) {
		char tmpl[] = "/tmp/wicket-XXXXXX";
		if (!mkdtemp(tmpl))
			die_errno("mkdtemp");
		s.fallback_tmp = xstrdup(tmpl);
	}
	char sid[20] = "";
	make_session_id(sid, sizeof sid);
	s.session_id = sid;
	if (s.layers.mntns) {
		if (pipe2(s.late_pipe, O_CLOEXEC) < 0)
			die_errno("pipe");
		s.late_prepare = late_prepare;
	} else {
		late_prepare(&s);
	}

	rc = session_run(&s);
	plan_check_absent(&s.plan, sid);
	if (s.fallback_tmp)
		nftw(s.fallback_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}

static int cmd_run(int argc, char **argv, bool shell)
{
	struct cli cli;
	memset(&cli, 0, sizeof cli);
	cli.net = NET_NONE;
	int c;
	optind = 1;
	opterr = 0;
	/* Leading ':' so a missing argument is told apart from an unknown option. */
	while ((c = getopt_long(argc, argv, "+:C:w:p:rn:hV", run_opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			cli.workspace = optarg;
			break;
		case 'w':
			strv_add(&cli.write, optarg);
			break;
		case 'p':
			strv_add(&cli.protect, optarg);
			break;
		case 'r':
			cli.read_only = true;
			break;
		case 'n':
			if (strcmp(optarg, "none") == 0)
				cli.net = NET_NONE;
			else if (strcmp(optarg, "full") == 0)
				cli.net = NET_FULL;
			else
				die("--net: unknown mode '%s' (none or full)", optarg);
			break;
		case OPT_BEST_EFFORT:
			cli.best_effort = true;
			break;
		case 'h':
			usage_main(stdout);
			return 0;
		case 'V':
			printf("wicket %s\n", PACKAGE_VERSION);
			return 0;
		case '?':
			if (optopt)
				die("unknown option '-%c' (see 'wicket --help')", optopt);
			die("unknown option '%s' (see 'wicket --help')", argv[optind - 1]);
		case ':':
		default:
			die("option '%s' needs an argument (see 'wicket --help')", argv[optind - 1]);
		}
	}
	if (shell) {
		if (optind < argc && (strcmp(argv[optind], "run") == 0 ||
				      strcmp(argv[optind], "shell") == 0 ||
				      strcmp(argv[optind], "doctor") == 0))
			die("options go after the command: 'wicket %s [OPTIONS] ...'", argv[optind]);
		if (optind < argc)
			die("shell takes no command; use 'wicket run -- %s'", argv[optind]);
		return run_sandboxed(&cli, NULL, true);
	}
	if (optind >= argc)
		die("run: missing command (usage: wicket run [OPTIONS] -- CMD [ARGS...])");
	return run_sandboxed(&cli, argv + optind, false);
}

int main(int argc, char **argv)
{
	if (argc < 1)
		die("no arguments at all");
	if (argc == 1)
		return cmd_run(argc, argv, true);
	const char *sub = argv[1];
	if (strcmp(sub, "run") == 0)
		return cmd_run(argc - 1, argv + 1, false);
	if (strcmp(sub, "shell") == 0)
		return cmd_run(argc - 1, argv + 1, true);
	if (strcmp(sub, "doctor") == 0)
		return cmd_doctor(argc - 1, argv + 1);
	if (strcmp(sub, "help") == 0 || strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
		usage_main(stdout);
		return 0;
	}
	if (strcmp(sub, "version") == 0 || strcmp(sub, "--version") == 0 || strcmp(sub, "-V") == 0) {
		printf("wicket %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (sub[0] == '-')
		return cmd_run(argc, argv, true);
	die("unknown command '%s' (did you mean 'wicket run -- %s'? see 'wicket --help')", sub, sub);
}
