/* wicket: run a shell or a command inside a kernel-enforced sandbox. */
#include "config.h"
#include "base/session.h"
#include "base/state.h"
#include "base/user.h"
#include "cli/askcmd.h"
#include "cli/policycmd.h"
#include "cli/probe.h"
#include "cli/userconfig.h"
#include "cli/warmcmd.h"
#include "cli/why.h"
#include "plan/autorun.h"
#include "plan/diag.h"
#include "plan/history.h"
#include "plan/layers.h"
#include "plan/plan.h"
#include "plan/shell.h"
#include "supervisor/control.h"
#include "supervisor/events.h"
#include "supervisor/proxy.h"
#include "supervisor/stdio.h"
#include "supervisor/supervisor.h"
#include "supervisor/warm.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/openat2.h>

#include "envscrub.h"
#include "grant.h"
#include "netdomain.h"
#include "path.h"
#include "realpath.h"
#include "utf8.h"
#include "warmproto.h"

extern char **environ;

static void usage_main(FILE *f)
{
	fprintf(f,
		"Usage: wicket [OPTIONS]                  start your shell in the sandbox\n"
		"       wicket shell [OPTIONS]            the same\n"
		"       wicket run [OPTIONS] -- CMD [ARGS...]\n"
		"       wicket doctor [--json]            what this kernel can enforce\n"
		"       wicket policy list|show|check     the policies (see wicket-policy(5))\n"
		"       wicket why [--json] [-n N] [--session N]\n"
		"                                         what the sandbox blocked, and how to allow it\n"
		"       wicket why --list [--json]        the sessions kept, newest first\n"
		"       wicket ask [GRANT...] [--reason TEXT] -- CMD [ARGS...]\n"
		"                                         (inside a session) run CMD once in a\n"
		"                                         sandbox of its own with more rights, if\n"
		"                                         approved (--outside: outside, you only)\n"
		"       wicket session start [OPTIONS] --name NAME\n"
		"                                         prepare a warm sandbox for many commands\n"
		"       wicket exec NAME [--cwd DIR] -- CMD [ARGS...]\n"
		"                                         run CMD in it, as a fork and exec\n"
		"       wicket session stop NAME | list   end it (with every end-of-session\n"
		"                                         check) | the ones running\n"
		"\n"
		"The default policy, workspace-write: the workspace (the current directory)\n"
		"is writable; everything else is read-only, metadata included; /tmp is\n"
		"private to the session; ~/.ssh, ~/.aws and other secret stores are hidden;\n"
		"secret-looking environment variables are removed; the network is off.\n"
		"\n"
		"Options:\n"
		"  -P, --policy NAME|FILE  the policy: read-only, workspace-write (default),\n"
		"                        workspace-write-strict, full-access, or your own;\n"
		"                        without it, the one ~/.config/wicket/config.json picks\n"
		"                        for the workspace (see 'wicket policy show')\n"
		"  -C, --workspace DIR   use DIR as the workspace instead of the current directory\n"
		"  -w, --write PATH      also make PATH writable (repeatable)\n"
		"  -p, --protect PATH    keep PATH read-only inside a writable root (repeatable)\n"
		"      --read PATH       also let PATH be read, under a policy that narrows\n"
		"                        reading (repeatable)\n"
		"      --hide PATH       hide PATH like the secret stores (repeatable)\n"
		"                        (each PATH of these four must exist)\n"
		"  -e, --env NAME[=VALUE] set NAME in the command's environment, or pass the\n"
		"                        caller's NAME on though the policy removes it (repeatable)\n"
		"      --allow-shared-write  accept a shared space (/tmp, /var/tmp, /run, $HOME\n"
		"                        or an ancestor, ~/.config, a PATH directory in the\n"
		"                        home such as ~/.local/bin) as the workspace or a\n"
		"                        writable root\n"
		"  -r, --read-only       no writable root from the policy; private /tmp and\n"
		"                        /dev essentials only\n"
		"  -n, --net MODE        network, replacing the policy's mode: none, full,\n"
		"                        ports (the policy's port lists), ports:80,443 (TCP\n"
		"                        connections to those ports only), or domains (the\n"
		"                        policy's names, through wicket's proxy)\n"
		"      --allow-domain NAME[:PORT]  reach NAME (or *.NAME's subdomains) through\n"
		"                        wicket's proxy, on PORT only if given; implies --net\n"
		"                        domains (repeatable)\n"
		"      --socket PATH     let the command connect to the host's unix socket at\n"
		"                        PATH (e.g. \"$SSH_AUTH_SOCK\"; repeatable)\n"
		"      --allow-address ADDRESS[:PORT]  let the proxy reach this IP address\n"
		"                        ([v6]:PORT with a port), loopback and private ones\n"
		"                        included; implies --net domains (repeatable)\n"
		"      --host NAME=ADDRESS  the proxy reaches NAME at ADDRESS instead of asking\n"
		"                        DNS (the name must be allowed, a loopback or private\n"
		"                        address named); implies --net domains (repeatable)\n"
		"      --best-effort     run even where the kernel cannot enforce everything,\n"
		"                        saying up front what is weaker\n"
		"      --no-diagnostics  do not explain denials (no preload library)\n"
		"      --shell bash|zsh  the shell to start (wicket, wicket shell; default $SHELL)\n"
		"      --approver CMD    the program that answers `wicket ask` requests for a\n"
		"                        grant (exit 0: yes), instead of the policy's approver\n"
		"                        or the terminal\n"
		"      --approver-fd FD  send the approver's JSON requests over FD, a connected\n"
		"                        stream socket, and read its answers there (one a line)\n"
		"      --approver-socket PATH  the same over a unix socket wicket connects to\n"
		"      --events FD|PATH  JSON lines as things happen: the session, each denial\n"
		"                        with its category and fixes, the proxy's decisions,\n"
		"                        requests, the end (see EVENTS in wicket(1)); a\n"
		"                        descriptor (3 or more) or a new file\n"
		"      --session-id-file PATH  write the session's id there before the\n"
		"                        command starts (for wicket why --session ID)\n"
		"      --name NAME       (session start) the warm session's name: letters,\n"
		"                        digits, '.', '_', '-'; then 'wicket exec NAME -- CMD'\n"
		"  -h, --help            show this help\n"
		"  -V, --version         show the version\n"
		"\n"
		"Exit status: the command's own; 128+N if it died of signal N; 125 if wicket\n"
		"failed (bad option, kernel cannot enforce); 126 not executable; 127 not found.\n"
		"See wicket(1).\n");
}

enum { OPT_BEST_EFFORT = 256, OPT_NO_DIAGNOSTICS, OPT_SHELL, OPT_APPROVER, OPT_ALLOW_SHARED,
       OPT_READ, OPT_HIDE, OPT_ALLOW_DOMAIN, OPT_ALLOW_ADDRESS, OPT_GRANT_OF,
       OPT_SOCKET, OPT_APPROVER_FD, OPT_APPROVER_SOCKET, OPT_EVENTS, OPT_SESSION_ID_FILE,
       OPT_NAME, OPT_HOST };

static const struct option run_opts[] = {
	{"policy", required_argument, NULL, 'P'},
	{"workspace", required_argument, NULL, 'C'},
	{"write", required_argument, NULL, 'w'},
	{"protect", required_argument, NULL, 'p'},
	{"read", required_argument, NULL, OPT_READ},
	{"hide", required_argument, NULL, OPT_HIDE},
	{"env", required_argument, NULL, 'e'},
	{"read-only", no_argument, NULL, 'r'},
	{"net", required_argument, NULL, 'n'},
	{"allow-domain", required_argument, NULL, OPT_ALLOW_DOMAIN},
	{"best-effort", no_argument, NULL, OPT_BEST_EFFORT},
	{"no-diagnostics", no_argument, NULL, OPT_NO_DIAGNOSTICS},
	{"shell", required_argument, NULL, OPT_SHELL},
	{"approver", required_argument, NULL, OPT_APPROVER},
	{"approver-fd", required_argument, NULL, OPT_APPROVER_FD},
	{"approver-socket", required_argument, NULL, OPT_APPROVER_SOCKET},
	{"allow-shared-write", no_argument, NULL, OPT_ALLOW_SHARED},
	{"allow-address", required_argument, NULL, OPT_ALLOW_ADDRESS},
	{"grant-of", required_argument, NULL, OPT_GRANT_OF},
	{"socket", required_argument, NULL, OPT_SOCKET},
	{"events", required_argument, NULL, OPT_EVENTS},
	{"session-id-file", required_argument, NULL, OPT_SESSION_ID_FILE},
	{"name", required_argument, NULL, OPT_NAME},
	{"host", required_argument, NULL, OPT_HOST},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

struct cli {
	const char *policy;
	const char *workspace;
	struct strv write, protect, read, hide, sockets;
	struct strv env;       /* --env NAME=VALUE, the caller's value looked up */
	struct port_list net_ports; /* --net ports:LIST */
	struct strv domains;        /* --allow-domain NAME */
	struct strv addresses;      /* --allow-address ADDRESS, canonical */
	struct strv hosts;          /* --host NAME=ADDRESS, canonical (wk_hosts_entry) */
	const char *grant_of;       /* --grant-of SESSION (ask.c starts it) */
	bool read_only, best_effort, no_diagnostics, allow_shared;
	const char *shell;   /* --shell bash|zsh (wicket shell only) */
	const char *approver; /* --approver CMD */
	int approver_fd;      /* --approver-fd FD, --approver-socket PATH (connected), or -1 */
	const char *events;   /* --events FD|PATH */
	const char *session_id_file; /* --session-id-file PATH */
	bool net_set;
	enum net_mode net;
	const char *warm_name; /* session start --name */
	int warm_dirfd, warm_ready; /* warmcmd.c's warm_detach */
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

/* A grant's path comes as the object the supervisor checked,
 * /proc/self/fd/N (ask.c, grant_run_plan): the name it resolves to now
 * (R) must still lead to that object with no symbolic link on the way,
 * else the grant is refused. The mounts then take R without following
 * links either (mounts.c). Other paths: nothing to do. */
static void held_verify(const char *a, const char *r, const char *opt)
{
	long fd;
	if (strncmp(a, "/proc/self/fd/", 14) != 0 || !parse_long(a + 14, 3, INT_MAX, &fd))
		return;
	struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS};
	int now = (int)syscall(SYS_openat2, AT_FDCWD, r, &how, sizeof how);
	struct stat h, n;
	bool same = now >= 0 && fstat((int)fd, &h) == 0 && fstat(now, &n) == 0 &&
		    h.st_dev == n.st_dev && h.st_ino == n.st_ino;
	if (now >= 0)
		close(now);
	if (!same)
		die("%s %s: the place granted was moved or replaced while its sandbox started; "
		    "not run", opt, r);
	fcntl((int)fd, F_SETFD, FD_CLOEXEC);
}

/* The paths of a command-line option (--write, --read, --protect,
 * --hide) added to TO: expanded (~, relative to CWD), canonical when
 * CANON; each must exist, or the option would silently do nothing.
 * ALSO: where they are recorded for `wicket why`. */
static void cli_paths(const struct strv *in, const char *opt, const char *cwd, const char *home,
		      bool canon, struct strv *to, struct strv *also)
{
	for (size_t i = 0; i < in->n; i++) {
		char *a = absolute(in->v[i], cwd, home);
		struct stat st;
		if (lstat(a, &st) < 0)
			die("%s %s: %s%s", opt, in->v[i], strerror(errno),
			    errno == ENOENT ? " (it must exist when the session starts)" : "");
		char *r = canon ? wk_realpath(a) : xstrdup(a);
		if (!r)
			die("%s %s: %s", opt, in->v[i], strerror(errno));
		held_verify(a, r, opt);
		free(a);
		if (also && !strv_contains(also, r))
			strv_add(also, r);
		if (!strv_contains(to, r))
			strv_push(to, r);
		else
			free(r);
	}
}

/* --allow-domain NAME[:PORT] (ADDRESS false) or --allow-address
 * ADDRESS[:PORT] ("[v6]:PORT"), canonical (grant.h's net items), into TO. */
static void cli_net_item(struct strv *to, const char *arg, bool address)
{
	struct wk_grant g = {0};
	char *why = wk_grant_add(&g, WK_GRANT_NET, arg);
	if (why)
		die("--allow-%s %s", address ? "address" : "domain", why + strlen("--net "));
	char host[WK_GRANT_HOST_MAX];
	int port;
	bool addr;
	wk_grant_net_split(g.v[WK_GRANT_NET].v[0], host, &port, &addr);
	if (addr != address)
		die(address ? "--allow-address %s: not an IPv4 or IPv6 address (a name is reached "
			      "with --allow-domain)"
			    : "--allow-domain %s: an address, not a name (use --allow-address, or "
			      "\"allow_addresses\" in a policy's network section)",
		    arg);
	strv_add(to, g.v[WK_GRANT_NET].v[0]);
	wk_grant_free(&g);
}

/* --host NAME=ADDRESS, canonical, into TO; a later one for the same
 * name wins, as in a policy's "hosts". */
static void cli_host(struct strv *to, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char kv[WK_NAME_MAX + 2 + 64];
	bool addr_bad = false;
	const char *why = !eq || eq == arg ? "not NAME=ADDRESS"
			  : wk_hosts_entry(arg, (size_t)(eq - arg), eq + 1, kv, sizeof kv, &addr_bad);
	if (why)
		die("--host %s: %s%s", arg, addr_bad ? "the address is " : "", why);
	size_t nl = strcspn(kv, "=") + 1;
	for (size_t i = 0; i < to->n; i++)
		if (strncmp(to->v[i], kv, nl) == 0) {
			free(to->v[i]);
			to->v[i] = xstrdup(kv);
			return;
		}
	strv_add(to, kv);
}

/* The names and addresses of --allow-domain and --allow-address (ITEMS)
 * into LIST, each "HOST:PORT" also into the session's port limits; a host
 * that is also allowed on any port (ANY: the policy's) has none. */
static void net_items_apply(struct policy *pol, const struct strv *items, struct strv *list)
{
	struct strv any = {0};
	for (size_t i = 0; i < list->n; i++)
		strv_add(&any, list->v[i]);
	for (size_t i = 0; i < items->n; i++) {
		char host[WK_GRANT_HOST_MAX];
		int port;
		bool addr;
		wk_grant_net_split(items->v[i], host, &port, &addr);
		if (!strv_contains(list, host))
			strv_add(list, host);
		if (!port)
			strv_add(&any, host);
		else if (!strv_contains(&pol->port_limits, items->v[i]))
			strv_add(&pol->port_limits, items->v[i]);
	}
	size_t k = 0;
	for (size_t i = 0; i < pol->port_limits.n; i++) {
		char host[WK_GRANT_HOST_MAX];
		int port;
		bool addr;
		wk_grant_net_split(pol->port_limits.v[i], host, &port, &addr);
		if (strv_contains(&any, host))
			free(pol->port_limits.v[i]);
		else
			pol->port_limits.v[k++] = pol->port_limits.v[i];
	}
	pol->port_limits.n = k;
	if (pol->port_limits.v)
		pol->port_limits.v[k] = NULL;
	strv_free(&any);
}

/* The files (absolute) and built-ins a policy was loaded from, base
 * first, one a line: what a grant's sandbox must load again. */
static void policy_chain(const struct wk_policy *wp, const char *cwd, char **out)
{
	size_t len = 1;
	struct strv ids = {0};
	for (size_t i = 0; i < wp->chain.n; i++) {
		const char *c = wp->chain.v[i];
		char *id = strncmp(c, "built-in ", 9) == 0 ? xstrdup(c) : NULL;
		if (!id) {
			char *abs = c[0] == '/' ? xstrdup(c) : path_join(cwd, c);
			id = wk_realpath(abs);
			if (!id)
				id = abs;
			else
				free(abs);
		}
		len += strlen(id) + 1;
		strv_push(&ids, id);
	}
	char *o = xmalloc(len);
	o[0] = '\0';
	for (size_t i = 0; i < ids.n; i++) {
		strcat(o, ids.v[i]);
		strcat(o, "\n");
	}
	strv_free(&ids);
	free(*out);
	*out = o;
}

/* What plans this session again from the host (s->rerun: the sandbox of
 * a grant, ask.c): the command line's options, each path absolute as it
 * was meant here; the value of each --env in s->rerun_env. */
static void rerun_plan(struct session *s, const struct cli *cli, const struct wk_policy *wp,
		       const char *cwd, const char *home)
{
	struct strv *r = &s->rerun;
	strv_add(r, "run");
	/* The policy the session has, not a name looked up again (from the
	 * asker's cwd, a search directory or a user configuration the
	 * sandbox could have filled since): its file, or the built-in's
	 * name; the grant's wicket then checks that it loaded the same chain
	 * (WICKET_GRANT_CHAIN, policy_chain). */
	strv_add(r, "--policy");
	if (wp->source && strncmp(wp->source, "built-in", 8) != 0)
		strv_push(r, absolute(wp->source, cwd, home));
	else
		strv_add(r, wp->name);
	policy_chain(wp, cwd, &s->rerun_chain);
	strv_add(r, "--workspace");
	strv_add(r, s->workspace);
	const struct {
		const struct strv *v;
		const char *opt;
	} paths[] = {{&cli->write, "--write"}, {&cli->read, "--read"},
		     {&cli->protect, "--protect"}, {&cli->hide, "--hide"},
		     {&cli->sockets, "--socket"}};
	for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++)
		for (size_t i = 0; i < paths[k].v->n; i++) {
			strv_add(r, paths[k].opt);
			strv_push(r, absolute(paths[k].v->v[i], cwd, home));
		}
	for (size_t i = 0; i < cli->env.n; i++) {
		strv_add(r, "--env");
		strv_push(r, xasprintf("%.*s", (int)strcspn(cli->env.v[i], "="), cli->env.v[i]));
		strv_add(&s->rerun_env, cli->env.v[i]);
	}
	if (cli->net_set) {
		strv_add(r, "--net");
		if (cli->net == NET_PORTS && cli->net_ports.n) {
			char list[8 * 64 + 8] = "ports:";
			size_t n = strlen(list);
			for (size_t i = 0; i < cli->net_ports.n && n + 8 < sizeof list; i++)
				n += (size_t)snprintf(list + n, sizeof list - n, "%s%u", i ? "," : "",
						      (unsigned)cli->net_ports.v[i]);
			if (cli->net_ports.n > 64)
				die("--net ports: more than 64 ports");
			strv_add(r, list);
		} else {
			strv_add(r, cli->net == NET_FULL ? "full" : cli->net == NET_PORTS ? "ports"
				 : cli->net == NET_DOMAINS ? "domains" : "none");
		}
	}
	for (size_t i = 0; i < cli->domains.n; i++) {
		strv_add(r, "--allow-domain");
		strv_add(r, cli->domains.v[i]);
	}
	for (size_t i = 0; i < cli->addresses.n; i++) {
		strv_add(r, "--allow-address");
		strv_add(r, cli->addresses.v[i]);
	}
	for (size_t i = 0; i < cli->hosts.n; i++) {
		strv_add(r, "--host");
		strv_add(r, cli->hosts.v[i]);
	}
	const struct {
		bool on;
		const char *opt;
	} flags[] = {{cli->read_only, "--read-only"}, {cli->best_effort, "--best-effort"},
		     {cli->no_diagnostics, "--no-diagnostics"},
		     {cli->allow_shared, "--allow-shared-write"}};
	for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
		if (flags[k].on)
			strv_add(r, flags[k].opt);
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
	char **env = xcalloc(n + s->pol.env_set.n + s->shell_env.n + 40, sizeof *env);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		/* Our own variables are set below, never inherited; without a
		 * sandbox the caller's TMPDIR is the right one. */
		if ((s->pol.sandbox && strncmp(environ[i], "TMPDIR=", 7) == 0) ||
		    strncmp(environ[i], "WICKET=", 7) == 0 ||
		    strncmp(environ[i], "WICKET_EXE=", 11) == 0 ||
		    strncmp(environ[i], "WICKET_POLICY=", 14) == 0 ||
		    strncmp(environ[i], "WICKET_SESSION=", 15) == 0)
			continue;
		env[w++] = environ[i];
	}
	env[w] = NULL;
	if (s->pol.env_unset.n)
		w -= (size_t)envscrub_filter(env, (const char *const *)s->pol.env_unset.v);
	/* The policy's env.set comes after env.unset: what it sets, it means. */
	for (size_t i = 0; i < s->pol.env_set.n; i++) {
		w = env_unset(env, s->pol.env_set.v[i]);
		env[w++] = s->pol.env_set.v[i];
		env[w] = NULL;
	}
	/* The proxy of mode "domains" is the only way out: its variables
	 * replace whatever the caller had (a proxy of the host's is not
	 * reachable from the sandbox's namespace). */
	for (const char *const *v = proxy_env_vars(); s->pol.net == NET_DOMAINS && *v; v++) {
		w = env_unset(env, *v);
		env[w++] = (char *)*v;
		env[w] = NULL;
	}
	if (s->pol.net == NET_DOMAINS) {
		char *np = proxy_no_proxy(&s->pol);
		for (size_t i = 0; i < 2; i++) {
			const char *name = i ? "no_proxy" : "NO_PROXY";
			w = env_unset(env, name);
			if (np)
				env[w++] = xasprintf("%s=%s", name, np);
			env[w] = NULL;
		}
		free(np);
	}
	bool tmpdir_set = false;
	for (size_t i = 0; i < s->pol.env_set.n; i++)
		tmpdir_set |= strncmp(s->pol.env_set.v[i], "TMPDIR=", 7) == 0;
	if (!tmpdir_set && s->pol.sandbox)
		env[w++] = xasprintf("TMPDIR=%s", s->layers.mntns ? "/tmp" : s->fallback_tmp);
	/* env_unset walks to the NULL: none may be left behind it of what
	 * envscrub_filter removed. */
	env[w] = NULL;
	/* The session's own wicket first in PATH (after env.set, which may
	 * set PATH too): `wicket why` and `wicket ask` work in every session,
	 * and run this same wicket, installed or not. */
	const char *path = NULL;
	for (size_t i = 0; i < w; i++)
		if (strncmp(env[i], "PATH=", 5) == 0)
			path = env[i] + 5;
	char *newpath = xasprintf("PATH=%s%s%s", s->bin_dir, path && !*path ? "" : ":",
				  path ? path : "/usr/local/bin:/usr/bin:/bin");
	w = env_unset(env, "PATH=");
	env[w++] = newpath;
	/* Ours, whatever env.set or --env said. */
	static const char *const own[] = {"WICKET", "WICKET_EXE", "WICKET_POLICY", "WICKET_SESSION"};
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		w = env_unset(env, own[i]);
	env[w++] = xasprintf("WICKET_EXE=%s/wicket", s->bin_dir);
	env[w++] = xstrdup("WICKET=1");
	env[w++] = xasprintf("WICKET_POLICY=%s", s->pol.name);
	env[w++] = xasprintf("WICKET_SESSION=%s", session_id);
	env[w] = NULL;
	/* What the shell's hooks need (ZDOTDIR for zsh), replacing the
	 * caller's values. */
	for (size_t i = 0; i < s->shell_env.n; i++) {
		w = env_unset(env, s->shell_env.v[i]);
		env[w++] = s->shell_env.v[i];
		env[w] = NULL;
	}
	w = diag_env(s, env, w);
	control_env(s, env, w);
	return env;
}

static struct passwd *cached_pw;
static bool pw_looked_up;

static struct passwd *session_passwd(uid_t uid)
{
	if (!pw_looked_up) {
		cached_pw = passwd_of(uid);
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
	if (pw && pw->pw_dir && pw->pw_dir[0] == '/' && home && home[0] == '/' &&
	    strcmp(pw->pw_dir, home) != 0 && s->wpol.hide.n) {
		/* HOME was moved: the real home's secrets stay hidden too. */
		struct wk_policy_ctx ctx;
		policy_ctx_init(&ctx, s->workspace, pw->pw_dir);
		struct wk_policy again;
		if (wk_policy_load(&ctx, s->wpol.name, &again) == 0) {
			for (size_t i = 0; i < again.hide.n; i++)
				if (!strv_contains(&s->pol.hide, again.hide.v[i].path))
					strv_add(&s->pol.hide, again.hide.v[i].path);
			wk_policy_free(&again);
		}
		wk_policy_ctx_free(&ctx);
	}
	/* What git, shells and desktops would run later from a writable
	 * root: protected like the policy's own protect rules. */
	bool complete = autorun_git_places(&s->pol.write, s->homes, &s->autorun_git_start);
	/* And those of every repository nested deeper that is there now (a
	 * session without a sandbox checks nothing at its end either). */
	if (s->pol.sandbox)
		complete &= autorun_nested_git_places(&s->pol.write, s->homes,
						      &s->autorun_git_start);
	for (size_t i = 0; i < s->autorun_git_start.n; i++)
		strv_add(&s->autorun_start, s->autorun_git_start.v[i]);
	if (!autorun_startup_places_start(&s->pol.write, s->homes, &s->autorun_start) || !complete)
		warnmsg("WARNING: a writable root holds too many git directories (modules, "
			"worktrees) or git config includes to protect them all; the hooks and "
			"config of some stay writable, and the end of the session moves aside "
			"what it cannot check");
	for (size_t i = 0; i < s->autorun_start.n; i++)
		if (!strv_contains(&s->pol.protect, s->autorun_start.v[i]))
			strv_add(&s->pol.protect, s->autorun_start.v[i]);
	plan_build_late(s);
	stdio_check_late(s);
	shell_scrub_env(s);
	s->envp = build_env(s, s->session_id);
}

/* Where the session finds its `wicket` (s->bin_dir): the bind of this
 * executable on the session's /run; without one, a directory made for
 * the session outside every writable root (under the shared /tmp, which
 * the sandbox cannot write without a mount namespace either), holding a
 * link to this executable. */
static void session_bin(struct session *s)
{
	if (s->layers.mntns && s->plan.self_bin) {
		s->bin_dir = xstrdup(WK_SESSION_BIN);
		return;
	}
	char exe[PATH_MAX];
	if (!self_exe(exe, sizeof exe))
		die("cannot find wicket's own executable (/proc/self/exe): %s", strerror(errno));
	char tmpl[] = "/tmp/wicket-bin-XXXXXX";
	if (!mkdtemp(tmpl))
		die_errno("mkdtemp");
	s->bin_made = xstrdup(tmpl);
	s->bin_dir = xstrdup(tmpl);
	char *link = path_join(tmpl, "wicket");
	if (symlink(exe, link) < 0 || chmod(tmpl, 0755) < 0)
		die("%s: %s", link, strerror(errno));
	free(link);
}

/* The session's id in PATH, before the command starts, for the caller
 * to name it later (wicket why --session ID). */
static void session_id_write(const char *path, const char *sid)
{
	/* host: a file the caller names */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		die("--session-id-file %s: %s", path, strerror(errno));
	bool ok = write_all(fd, sid, strlen(sid)) && write_all(fd, "\n", 1);
	if (close(fd) < 0 || !ok)
		die("--session-id-file %s: %s", path, strerror(errno));
}

static json_t *strv_json(const struct strv *v)
{
	json_t *a = json_array();
	for (size_t i = 0; v && i < v->n; i++)
		json_array_append_new(a, wk_json_text(v->v[i]));
	return a;
}

/* The stream's first line (events.h): what this session is. */
static void events_session(const struct session *s)
{
	static const char *const net[] = {"none", "full", "ports", "domains"};
	struct strv argv = {0};
	for (size_t i = 0; s->argv && s->argv[i]; i++)
		strv_add(&argv, s->argv[i]);
	json_t *o = json_object();
	json_object_set_new(o, "session", json_string(s->session_id));
	json_object_set_new(o, "policy", wk_json_text(s->pol.name ? s->pol.name : DEFAULT_POLICY));
	json_object_set_new(o, "policy_source", wk_json_text(s->wpol.source ? s->wpol.source : ""));
	json_object_set_new(o, "policy_chain", strv_json(&s->wpol.chain));
	json_object_set_new(o, "sandbox", json_boolean(s->pol.sandbox));
	json_object_set_new(o, "workspace", wk_json_text(s->workspace));
	json_object_set_new(o, "writable", strv_json(&s->pol.write));
	json_object_set_new(o, "private_tmp", json_boolean(s->layers.mntns && s->pol.private_tmp));
	json_object_set_new(o, "net", json_string(net[s->pol.net]));
	json_object_set_new(o, "argv", strv_json(&argv));
	json_object_set_new(o, "pid", json_integer(getpid()));
	strv_free(&argv);
	events_emit("session", o);
}

static int run_sandboxed(struct cli *cli, char **argv, bool shell)
{
	struct session s;
	memset(&s, 0, sizeof s);
	/* First: the descriptor it names is closed here, before anything
	 * could hand it on to the sandbox. */
	const char *bad = cli->events ? events_open(cli->events) : NULL;
	if (bad)
		die("--events %s: %s", cli->events, bad);
	s.best_effort = cli->best_effort;
	s.warm_name = cli->warm_name;
	s.warm_dirfd = cli->warm_name ? cli->warm_dirfd : -1;
	s.warm_ready = cli->warm_name ? cli->warm_ready : -1;
	s.warm_child = -1;
	s.diagnostics = !cli->no_diagnostics;
	s.ctl_child = -1;
	s.status_fd = -1;
	s.ack_fd = -1;
	s.view_root = s.view_ns = -1;
	s.read_only = cli->read_only;
	s.uid = getuid();
	s.gid = getgid();
	s.late_pipe[0] = s.late_pipe[1] = -1;
	s.approver = cli->approver;
	s.approver_fd = cli->approver_fd;
	s.allow_shared = cli->allow_shared;

	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		die("cannot find the current directory (%s): was it deleted? cd somewhere that exists",
		    strerror(errno));
	const char *home = getenv("HOME");
	if (!home || home[0] != '/') {
		struct passwd *pw = session_passwd(s.uid);
		home = pw ? pw->pw_dir : NULL;
	}
	struct passwd *spw = session_passwd(s.uid);
	size_t nh = 0;
	if (home && home[0] == '/')
		s.homes[nh++] = home;
	if (spw && spw->pw_dir && spw->pw_dir[0] == '/' && (!nh || strcmp(spw->pw_dir, home) != 0))
		s.homes[nh++] = spw->pw_dir;
	s.homes[nh] = NULL;

	const char *ws = cli->workspace ? cli->workspace : cwd;
	s.workspace = wk_realpath(ws);
	if (!s.workspace)
		die("workspace %s: %s", ws, strerror(errno));
	struct stat st;
	if (stat(s.workspace, &st) < 0 || !S_ISDIR(st.st_mode))
		die("workspace %s: not a directory", ws);

	/* The policy, loaded and checked before anything else happens. */
	struct wk_policy_ctx pctx;
	policy_ctx_init(&pctx, s.workspace, home);
	plan_shared_spaces(s.homes, pctx.vars.runtime_dir, getenv("PATH"), &s.shared,
			   &s.shared_path);
	struct wk_policy wp;
	/* --read-only alone is the read-only built-in; with --policy it drops
	 * that policy's writable roots. */
	/* The command line's policy, else the user configuration's for this
	 * workspace (a bad configuration stops everything: 125). */
	struct userconfig ucfg;
	userconfig_load_or_die(&ucfg, home);
	const struct userconfig_entry *pick = userconfig_pick(&ucfg, s.workspace);
	policy_load_or_die(&pctx, cli->policy ? cli->policy : pick ? pick->policy
				: cli->read_only ? "read-only" : DEFAULT_POLICY, &wp);
	if (cli->warm_name && !wp.sandbox)
		die("session start: policy %s runs without a sandbox; a warm session is one sandbox "
		    "for many commands (pick a sandboxing policy)", wp.name);
	rerun_plan(&s, cli, &wp, cwd, home);
	s.grant_of = cli->grant_of;
	if (cli->grant_of) {
		/* The same policy as the session's, file for file: a file made
		 * meanwhile where a name is looked up (a search directory, the
		 * user configuration) would otherwise choose the grant's. */
		const char *want = getenv("WICKET_GRANT_CHAIN");
		if (!want || strcmp(want, s.rerun_chain) != 0)
			die("the session's policy is no longer what it was loaded from (a policy file "
			    "was made or moved meanwhile); the grant is not run");
		unsetenv("WICKET_GRANT_CHAIN");
	}
	s.start_dir = cli->grant_of ? cwd : s.workspace;
	if (!wp.sandbox && (cli->write.n || cli->protect.n || cli->read.n || cli->hide.n ||
			    cli->read_only || cli->domains.n || cli->addresses.n || cli->hosts.n ||
			    (cli->net_set && cli->net != NET_FULL)))
		die("policy %s runs without a sandbox; --write, --protect, --read, --hide, "
		    "--read-only, --net, --allow-domain, --allow-address and --host cannot narrow it (pick "
		    "a sandboxing policy)", wp.name);
	if (cli->net_set && cli->net == NET_PORTS && !cli->net_ports.n && wp.net != WK_NET_PORTS)
		die("--net ports: policy %s lists no ports (write a policy with \"network\": "
		    "{\"mode\": \"ports\", \"connect\": [...]}; see wicket-policy(5))", wp.name);
	/* A grant's names widen a session without network. */
	if ((cli->domains.n || cli->addresses.n || cli->hosts.n) && cli->net_set &&
	    cli->net != NET_DOMAINS && !(cli->grant_of && cli->net == NET_NONE))
		die("--%s needs network mode domains, not --net %s",
		    cli->domains.n ? "allow-domain" : cli->addresses.n ? "allow-address" : "host",
		    cli->net == NET_FULL ? "full" : cli->net == NET_PORTS ? "ports" : "none");
	policy_resolve(&wp, &s.pol, NULL);
	if (cli->net_set)
		s.pol.net = cli->net;
	if (cli->domains.n || cli->addresses.n || cli->hosts.n)
		s.pol.net = NET_DOMAINS;
	if (s.pol.net == NET_DOMAINS) {
		/* The names of the command line join the policy's when it is
		 * in mode domains already, else they are all there is. */
		if (wp.net != WK_NET_DOMAINS) {
			strv_free(&s.pol.domains_allow);
			strv_free(&s.pol.domains_deny);
			strv_free(&s.pol.allow_addresses);
			strv_free(&s.pol.hosts);
		}
		/* The policy's "NAME:PORT" entries, as --allow-domain's. */
		struct strv ported = {0};
		size_t kept = 0;
		for (size_t i = 0; i < s.pol.domains_allow.n; i++) {
			if (strchr(s.pol.domains_allow.v[i], ':'))
				strv_push(&ported, s.pol.domains_allow.v[i]);
			else
				s.pol.domains_allow.v[kept++] = s.pol.domains_allow.v[i];
		}
		s.pol.domains_allow.n = kept;
		if (s.pol.domains_allow.v)
			s.pol.domains_allow.v[kept] = NULL;
		/* One call for both: what a call adds to the list is not
		 * "allowed on any port" to the next. */
		for (size_t i = 0; i < cli->domains.n; i++)
			strv_add(&ported, cli->domains.v[i]);
		net_items_apply(&s.pol, &ported, &s.pol.domains_allow);
		strv_free(&ported);
		net_items_apply(&s.pol, &cli->addresses, &s.pol.allow_addresses);
		/* The command line's names fixed to an address replace the
		 * policy's for the same name. */
		for (size_t i = 0; i < cli->hosts.n; i++)
			cli_host(&s.pol.hosts, cli->hosts.v[i]);
		policy_proxy_ports(&s.pol);
	}
	if (cli->net_ports.n) {
		/* The connect list replaced; the policy's bind list and UDP
		 * only when it was in ports mode already. */
		free(s.pol.connect.v);
		s.pol.connect = cli->net_ports;
		if (wp.net != WK_NET_PORTS) {
			s.pol.bind.n = 0;
			s.pol.udp = false;
		}
	}
	for (size_t i = 0; i < cli->env.n; i++) {
		size_t k = 0;
		for (size_t j = 0; j < s.pol.env_set.n; j++)
			if (strncmp(s.pol.env_set.v[j], cli->env.v[i],
				    strcspn(cli->env.v[i], "=") + 1) != 0)
				s.pol.env_set.v[k++] = s.pol.env_set.v[j];
			else
				free(s.pol.env_set.v[j]);
		s.pol.env_set.n = k;
		strv_add(&s.pol.env_set, cli->env.v[i]);
	}
	if (cli->read_only) {
		strv_free(&s.pol.write);
		s.pol.private_tmp = true;
	}
	/* Kept for the home check after the clone (see late_prepare). */
	s.wpol = wp;

	/* What the kernel can do, decided first: as root the network
	 * namespace can then be created while the rest is prepared. */
	probe_kernel(&s.kinfo);
	layers_decide(&s);
	control_plan(&s);
	if (s.warm_name)
		warm_plan(&s);
	net_early_start(&s);

	cli_paths(&cli->write, "--write", cwd, home, true, &s.pol.write, NULL);
	cli_paths(&cli->read, "--read", cwd, home, true, &s.pol.read, NULL);
	for (size_t i = 0; i < cli->read.n; i++) {
		char *a = absolute(cli->read.v[i], cwd, home);
		char *r = wk_realpath(a);
		free(a);
		for (size_t j = 0; r && j < s.pol.hide.n; j++) {
			char *h = wk_realpath(s.pol.hide.v[j]);
			/* A grant's --read of the store itself; stores beneath
			 * a wider path stay hidden. */
			bool lifted = cli->grant_of && (strcmp(s.pol.hide.v[j], r) == 0 ||
							(h && strcmp(h, r) == 0));
			free(h);
			if (lifted) {
				/* A grant's --read: the hidden store, read. */
				free(s.pol.hide.v[j]);
				memmove(&s.pol.hide.v[j], &s.pol.hide.v[j + 1],
					(s.pol.hide.n - j) * sizeof *s.pol.hide.v);
				s.pol.hide.n--;
				j--;
				continue;
			}
			h = wk_realpath(s.pol.hide.v[j]);
			if (path_is_under(r, s.pol.hide.v[j]) || (h && path_is_under(r, h)))
				die("--read %s: it is hidden by the policy's rule \"%s\"; %s", cli->read.v[i],
				    s.pol.hide.v[j], cli->grant_of ? "a grant reads the whole of it or "
				    "nothing (ask for --read of that path)" : "the command line does not "
				    "lift it (write a policy that does not hide it; see wicket-policy(5))");
			free(h);
		}
		free(r);
	}
	cli_paths(&cli->sockets, "--socket", cwd, home, true, &s.pol.sockets, NULL);
	for (size_t i = 0; i < s.pol.sockets.n; i++) {
		const char *k = s.pol.sockets.v[i];
		if (stat(k, &st) < 0 || !S_ISSOCK(st.st_mode))
			die("--socket %s: not a unix socket", k);
		if (s.layers.landlock_abi >= 9)
			die("--socket %s: this kernel's Landlock decides unix sockets, and wicket does "
			    "not yet name one socket to it", k);
		for (size_t j = 0; j < s.pol.hide.n; j++)
			if (path_is_under(k, s.pol.hide.v[j]))
				die("--socket %s: inside the hidden %s", k, s.pol.hide.v[j]);
		/* In view: where the sandbox has a /tmp of its own, kept there. */
		if (!strv_contains(&s.pol.read, k))
			strv_add(&s.pol.read, k);
	}
	/* The objects of a grant's paths (held_verify) are taken: closed, so
	 * that nothing of the supervisor's reaches the sandbox's init. */
	const struct strv *held[] = {&cli->write, &cli->read, &cli->sockets};
	for (size_t k = 0; k < 3 && cli->grant_of; k++)
		for (size_t i = 0; i < held[k]->n; i++) {
			long fd;
			if (strncmp(held[k]->v[i], "/proc/self/fd/", 14) == 0 &&
			    parse_long(held[k]->v[i] + 14, 3, INT_MAX, &fd))
				close((int)fd);
		}
	/* Protected and hidden paths stay lexical, like the policy's: the
	 * plan resolves them. */
	cli_paths(&cli->protect, "--protect", cwd, home, false, &s.pol.protect, &s.cli_protect);
	cli_paths(&cli->hide, "--hide", cwd, home, false, &s.pol.hide, &s.cli_hide);
	/* A session must not be able to choose the policy of the next one. */
	if (s.pol.sandbox) {
		policy_protect_sources(&wp, &ucfg, &pctx, &s.pol.protect);
		for (size_t i = 0; i < ucfg.n; i++)
			strv_add(&s.pol.keep_name, ucfg.entries[i].path);
	}
	/* Nor rewrite its own record (last-session.json, the audit log), nor
	 * read it: the audit log holds the supervisor's host pid and every
	 * command asked for, of this session and others. */
	char *state = s.pol.sandbox ? wicket_state_dir() : NULL;
	char *rstate = state && wicket_state_dir_make(state) ? wk_realpath(state) : NULL;
	if (rstate && !strv_contains(&s.pol.hide, rstate))
		strv_add(&s.pol.hide, rstate);
	if (rstate && !strv_contains(&s.pol.protect, rstate))
		strv_push(&s.pol.protect, rstate);
	else
		free(rstate);
	free(state);
	s.pol.private_tmp = !strv_contains(&s.pol.write, "/tmp");

	s.hist_dirfd = -1;
	if (shell)
		history_plan(&s, cli->shell, session_passwd(s.uid));
	plan_build_base(&s);
	if (shell)
		shell_plan(&s, cli->shell, session_passwd(s.uid));
	else
		s.argv = argv;
	char warm_fd[16];
	char *warm_argv[] = {"wicket", "session", "serve", warm_fd, NULL};
	if (s.warm_name) {
		/* The command is the session's server (warmcmd.c), this same
		 * wicket as the session sees it (session_bin, below). */
		snprintf(warm_fd, sizeof warm_fd, "%d", s.warm_child);
		s.argv = warm_argv;
	}
	int rc = s.warm_name ? 0 : resolve_command(s.argv[0], &s.exec_path);
	if (rc == EXIT_NOTFOUND)
		die_code(rc, "%s: command not found", s.argv[0]);
	if (rc == EXIT_NOEXEC)
		die_code(rc, "%s: permission denied (not an executable file)", s.argv[0]);

	diag_plan(&s);
	control_status_plan(&s);
	stdio_plan(&s);
	if (!s.layers.mntns && s.pol.sandbox) {
		char tmpl[] = "/tmp/wicket-XXXXXX";
		if (!mkdtemp(tmpl))
			die_errno("mkdtemp");
		s.fallback_tmp = xstrdup(tmpl);
	}
	session_bin(&s);
	if (s.warm_name)
		s.exec_path = xasprintf("%s/wicket", s.bin_dir);
	char sid[20] = "";
	random_hex(sid, sizeof sid);
	s.session_id = sid;
	if (cli->session_id_file)
		session_id_write(cli->session_id_file, sid);
	events_session(&s);
	if (s.layers.mntns) {
		if (pipe2(s.late_pipe, O_CLOEXEC) < 0)
			die_errno("pipe");
		s.late_prepare = late_prepare;
		/* Only a warning, from the user's files: made while init
		 * finishes the view, off the path to the command. */
		s.late_notes = shell_scrub_note;
	} else {
		late_prepare(&s);
		shell_scrub_note(&s);
	}

	/* Before the command can make anything: what is newer than this
	 * was made during the session (autorun_check_nested). */
	clock_gettime(CLOCK_REALTIME, &s.started);
	rc = session_run(&s);
	if (s.pol.sandbox) {
		autorun_check_new(&s, s.homes);
		autorun_check_nested(&s);
	}
	plan_check_absent(&s.pol, &s.plan, sid);
	events_end(json_pack("{s:s, s:i}", "session", sid, "status", rc));
	if (s.fallback_tmp)
		rm_tree(s.fallback_tmp);
	history_merge(&s);
	if (s.hist_dir)
		rm_tree(s.hist_dir);
	if (s.bin_made)
		rm_tree(s.bin_made);
	return rc;
}

/* --env NAME=VALUE, or NAME: the caller's value (an error when it has
 * none: the option would do nothing). */
static void cli_env(struct strv *env, const char *arg)
{
	size_t nl = strcspn(arg, "=");
	bool ok = nl > 0 && (arg[0] < '0' || arg[0] > '9');
	for (size_t i = 0; i < nl; i++)
		ok &= arg[i] == '_' || (arg[i] >= 'A' && arg[i] <= 'Z') ||
		      (arg[i] >= 'a' && arg[i] <= 'z') || (arg[i] >= '0' && arg[i] <= '9');
	if (!ok)
		die("--env %s: not a variable name (letters, digits and _, not starting with a "
		    "digit), or NAME=VALUE", arg);
	if (arg[nl] == '=') {
		strv_add(env, arg);
		return;
	}
	const char *v = getenv(arg);
	if (!v)
		die("--env %s: %s is not set here; give its value: --env %s=VALUE", arg, arg, arg);
	strv_push(env, xasprintf("%s=%s", arg, v));
}

/* --net ports:80,443: TCP ports, each once, 1 to 65535. */
static void cli_ports(struct port_list *pl, const char *list)
{
	free(pl->v);
	pl->n = 0;
	pl->v = xcalloc(strlen(list) / 2 + 2, sizeof *pl->v);
	const char *p = list;
	for (;;) {
		size_t len = strcspn(p, ",");
		char num[8];
		long port;
		if (len == 0 || len >= sizeof num)
			die("--net ports:%s: a list of TCP ports, like ports:80,443", list);
		memcpy(num, p, len);
		num[len] = '\0';
		if (!parse_long(num, 1, 65535, &port))
			die("--net ports:%s: '%s' is not a port (1 to 65535)", list, num);
		bool dup = false;
		for (size_t i = 0; i < pl->n; i++)
			dup |= pl->v[i] == port;
		if (!dup)
			pl->v[pl->n++] = (unsigned short)port;
		if (!p[len])
			break;
		p += len + 1;
	}
}

/* --approver-fd FD: a connected stream socket the harness gave wicket
 * (never standard input, output or error: those are the command's). It
 * is made close-on-exec, so that nothing wicket starts inherits it. */
static int approver_fd_of(const char *arg)
{
	char *end;
	errno = 0;
	long fd = strtol(arg, &end, 10);
	if (errno || end == arg || *end || fd < 3 || fd > INT_MAX)
		die("--approver-fd %s: not a descriptor number above 2", arg);
	struct stat st;
	int type = 0;
	socklen_t len = sizeof type;
	if (fstat((int)fd, &st) < 0)
		die("--approver-fd %ld: %s", fd, strerror(errno));
	if (!S_ISSOCK(st.st_mode) ||
	    getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM)
		die("--approver-fd %ld: not a stream socket (a socketpair or a connected unix "
		    "socket)", fd);
	if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0)
		die("--approver-fd %ld: %s", fd, strerror(errno));
	return (int)fd;
}

/* --approver-socket PATH: connected here, before the sandbox exists. */
static int approver_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (!path[0] || strlen(path) >= sizeof sa.sun_path)
		die("--approver-socket: the path is empty or longer than %zu bytes",
		    sizeof sa.sun_path - 1);
	memcpy(sa.sun_path, path, strlen(path));
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		die("--approver-socket %s: %s", path, strerror(errno));
	return fd;
}

static int cmd_run(int argc, char **argv, bool shell, bool warm)
{
	struct cli cli;
	memset(&cli, 0, sizeof cli);
	cli.net = NET_NONE;
	cli.approver_fd = -1;
	int c;
	optind = 1;
	opterr = 0;
	/* Leading ':' so a missing argument is told apart from an unknown option. */
	while ((c = getopt_long(argc, argv, "+:P:C:w:p:e:rn:hV", run_opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			if (!optarg[0])
				die("--policy: empty name");
			cli.policy = optarg;
			break;
		case 'C':
			cli.workspace = optarg;
			break;
		case 'w':
			strv_add(&cli.write, optarg);
			break;
		case 'p':
			strv_add(&cli.protect, optarg);
			break;
		case OPT_READ:
			strv_add(&cli.read, optarg);
			break;
		case OPT_HIDE:
			strv_add(&cli.hide, optarg);
			break;
		case 'e':
			cli_env(&cli.env, optarg);
			break;
		case 'r':
			cli.read_only = true;
			break;
		case 'n':
			cli.net_set = true;
			if (strcmp(optarg, "none") == 0)
				cli.net = NET_NONE;
			else if (strcmp(optarg, "full") == 0)
				cli.net = NET_FULL;
			else if (strcmp(optarg, "ports") == 0)
				cli.net = NET_PORTS;
			else if (strncmp(optarg, "ports:", 6) == 0)
				cli_ports(&cli.net_ports, optarg + 6), cli.net = NET_PORTS;
			else if (strcmp(optarg, "domains") == 0)
				cli.net = NET_DOMAINS;
			else
				die("--net: unknown mode '%s' (none, full, ports, ports:PORT,... or "
				    "domains)",
				    optarg);
			break;
		case OPT_ALLOW_DOMAIN:
		case OPT_ALLOW_ADDRESS:
			cli_net_item(c == OPT_ALLOW_ADDRESS ? &cli.addresses : &cli.domains, optarg,
				     c == OPT_ALLOW_ADDRESS);
			break;
		case OPT_SOCKET:
			strv_add(&cli.sockets, optarg);
			break;
		case OPT_EVENTS:
			if (!optarg[0])
				die("--events: a descriptor number or a path");
			cli.events = optarg;
			break;
		case OPT_SESSION_ID_FILE:
			if (!optarg[0])
				die("--session-id-file: empty path");
			cli.session_id_file = optarg;
			break;
		case OPT_NAME:
			if (!warm)
				die("--name is for 'wicket session start' (see 'wicket --help')");
			cli.warm_name = optarg;
			break;
		case OPT_HOST:
			cli_host(&cli.hosts, optarg);
			break;
		case OPT_GRANT_OF:
			if (!optarg[0] || strspn(optarg, "0123456789abcdef") != strlen(optarg))
				die("--grant-of: not a session id");
			cli.grant_of = optarg;
			break;
		case OPT_BEST_EFFORT:
			cli.best_effort = true;
			break;
		case OPT_SHELL:
			cli.shell = optarg;
			break;
		case OPT_APPROVER:
			if (!optarg[0])
				die("--approver: empty command");
			cli.approver = optarg;
			break;
		case OPT_APPROVER_FD:
			if (cli.approver_fd >= 0)
				die("--approver-fd/--approver-socket: given twice");
			cli.approver_fd = approver_fd_of(optarg);
			break;
		case OPT_APPROVER_SOCKET:
			if (cli.approver_fd >= 0)
				die("--approver-fd/--approver-socket: given twice");
			cli.approver_fd = approver_connect(optarg);
			break;
		case OPT_NO_DIAGNOSTICS:
			cli.no_diagnostics = true;
			break;
		case OPT_ALLOW_SHARED:
			cli.allow_shared = true;
			break;
		case 'h':
			usage_main(stdout);
			free(cli.net_ports.v);
			return 0;
		case 'V':
			printf("wicket %s\n", PACKAGE_VERSION);
			free(cli.net_ports.v);
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
	if (cli.approver && cli.approver_fd >= 0)
		die("--approver and --approver-fd/--approver-socket: one approver, not two");
	refuse_inside_session(warm ? "session start" : shell ? "shell" : "run");
	if (warm) {
		if (!cli.warm_name)
			die("session start: --name NAME is needed (see 'wicket --help')");
		if (optind < argc)
			die("session start takes no command: its commands come with 'wicket exec %s "
			    "-- CMD'", cli.warm_name);
		if (!warm_name_ok(cli.warm_name))
			die("--name %s: 1 to %d letters, digits, '.', '_' or '-', not starting with "
			    "'.' or '-'", cli.warm_name, WARM_NAME_MAX);
		if (cli.shell)
			die("--shell is for the interactive shell");
		/* What the session takes of this process's descriptors stays
		 * open in the one that outlives it. */
		int keep[2] = {cli.approver_fd, -1};
		long efd;
		if (cli.events && parse_long(cli.events, 3, INT_MAX, &efd))
			keep[1] = (int)efd;
		warm_detach(cli.warm_name, keep, 2, &cli.warm_dirfd, &cli.warm_ready);
		return run_sandboxed(&cli, NULL, false);
	}
	if (shell) {
		if (optind < argc && (strcmp(argv[optind], "run") == 0 ||
				      strcmp(argv[optind], "shell") == 0 ||
				      strcmp(argv[optind], "doctor") == 0 ||
				      strcmp(argv[optind], "policy") == 0 ||
				      strcmp(argv[optind], "why") == 0 ||
				      strcmp(argv[optind], "ask") == 0))
			die("options go after the command: 'wicket %s [OPTIONS] ...'", argv[optind]);
		if (optind < argc)
			die("shell takes no command; use 'wicket run -- %s'", argv[optind]);
		return run_sandboxed(&cli, NULL, true);
	}
	if (cli.shell)
		die("--shell is for the interactive shell (wicket shell --shell %s); run takes the "
		    "command itself", cli.shell);
	if (optind >= argc)
		die("run: missing command (usage: wicket run [OPTIONS] -- CMD [ARGS...])");
	return run_sandboxed(&cli, argv + optind, false);
}

int main(int argc, char **argv)
{
	if (argc < 1)
		die("no arguments at all");
	if (argc == 1)
		return cmd_run(argc, argv, true, false);
	const char *sub = argv[1];
	if (strcmp(sub, "run") == 0)
		return cmd_run(argc - 1, argv + 1, false, false);
	if (strcmp(sub, "shell") == 0)
		return cmd_run(argc - 1, argv + 1, true, false);
	if (strcmp(sub, "exec") == 0) {
		refuse_inside_session("exec");
		return cmd_exec(argc - 1, argv + 1);
	}
	if (strcmp(sub, "session") == 0) {
		const char *what = argc > 2 ? argv[2] : "";
		if (strcmp(what, "start") == 0)
			return cmd_run(argc - 2, argv + 2, false, true);
		if (strcmp(what, "serve") == 0)
			return warm_serve(argc - 2, argv + 2);
		refuse_inside_session("session");
		if (strcmp(what, "stop") == 0)
			return warm_stop_cmd(argc - 2, argv + 2);
		if (strcmp(what, "list") == 0)
			return warm_list_cmd(argc - 2, argv + 2);
		if (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0) {
			usage_main(stdout);
			return 0;
		}
		die("session: start, stop, list (see 'wicket --help')");
	}
	if (strcmp(sub, "doctor") == 0)
		return cmd_doctor(argc - 1, argv + 1);
	if (strcmp(sub, "policy") == 0)
		return cmd_policy(argc - 1, argv + 1);
	if (strcmp(sub, "why") == 0)
		return cmd_why(argc - 1, argv + 1);
	if (strcmp(sub, "ask") == 0)
		return cmd_ask(argc - 1, argv + 1);
	if (strcmp(sub, "help") == 0 || strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
		usage_main(stdout);
		return 0;
	}
	if (strcmp(sub, "version") == 0 || strcmp(sub, "--version") == 0 || strcmp(sub, "-V") == 0) {
		printf("wicket %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (sub[0] == '-')
		return cmd_run(argc, argv, true, false);
	die("unknown command '%s' (did you mean 'wicket run -- %s'? see 'wicket --help')", sub, sub);
}
