/* From JSON policies (lib/policy.c) to the launcher's resolved policy, and
 * the `wicket policy list|show|check` commands. */
#include "config.h"
#include "base/session.h"
#include "base/user.h"
#include "cli/policycmd.h"
#include "cli/probe.h"
#include "cli/userconfig.h"
#include "plan/layers.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "askproto.h"
#include "path.h"
#include "policy.h"

static char *search_dirs[3];

void policy_ctx_init(struct wk_policy_ctx *ctx, const char *workspace, const char *home)
{
	memset(ctx, 0, sizeof *ctx);
	const char *tmp = getenv("TMPDIR");
	const char *rt = getenv("XDG_RUNTIME_DIR");
	ctx->vars.cwd = workspace;
	ctx->vars.home = home && home[0] == '/' ? home : NULL;
	ctx->vars.tmpdir = tmp && tmp[0] == '/' ? tmp : "/tmp";
	static char rtbuf[64];
	if (rt && rt[0] == '/') {
		ctx->vars.runtime_dir = rt;
	} else {
		snprintf(rtbuf, sizeof rtbuf, "/run/user/%u", (unsigned)getuid());
		ctx->vars.runtime_dir = rtbuf;
	}
	if (!search_dirs[0]) {
		char *conf = wicket_config_dir(ctx->vars.home);
		size_t n = 0;
		if (conf)
			search_dirs[n++] = path_join(conf, "policies");
		free(conf);
		search_dirs[n++] = xstrdup(SYSCONFDIR "/wicket/policies");
		search_dirs[n] = NULL;
	}
	ctx->search = (const char *const *)search_dirs;
	ctx->check_owner = true;
	ctx->follow_files = true;
}

/* What could change the policy of a later session: the user's wicket
 * directory (its policies/, searched before the built-ins, and
 * config.json, which picks the policy per directory), every file along
 * this policy's chain, every file along the chain of each policy a
 * configuration entry names (a session in ~/src could otherwise rewrite
 * the base that ~/src/play's policy extends, and choose the policy of
 * the next session there), and every file along the chain of each
 * policy in a search directory (what a later --policy NAME reads). Each
 * chain is loaded as a session would load it; every file that load
 * opens or tries to counts, found or not, valid or not (a missing one
 * the session made would be read next).
 *
 * Protected like .git/hooks: read-only when they exist inside a writable
 * root, moved aside after the session if it created them. Each file is
 * protected by the path it is read by, so the plan protects what that
 * path leads to (a config.json or a policy linked into a dotfiles tree,
 * GNU stow's way) and refuses to start a session that could re-aim a
 * symbolic link on the way (plan.c, check_protect_symlinks). */
static void protect_file(struct strv *protect, const char *path)
{
	/* A relative one (--policy ./p.json) was opened from here. */
	char *cwd = path[0] == '/' ? NULL : getcwd(NULL, 0);
	char *abs = cwd ? path_join(cwd, path) : NULL;
	char *p = path_normalize(abs ? abs : path);
	free(abs);
	free(cwd);
	if (!p || strv_contains(protect, p))
		free(p);
	else
		strv_push(protect, p);
}

/* REF's chain, loaded as a session would, into OPENED. */
static void load_recording(const struct wk_policy_ctx *pctx, const char *ref, struct strv *opened)
{
	struct wk_policy_ctx ctx = *pctx;
	memset(&ctx.errors, 0, sizeof ctx.errors);
	ctx.opened = opened;
	struct wk_policy wp;
	if (wk_policy_load(&ctx, ref, &wp) == 0)
		wk_policy_free(&wp);
	wk_policy_ctx_free(&ctx);
}

#define SEARCH_DIR_MAX 256 /* policies looked at per search directory */

void policy_protect_sources(const struct wk_policy *wp, const struct userconfig *ucfg,
			    const struct wk_policy_ctx *pctx, struct strv *protect)
{
	if (search_dirs[0]) {
		/* The directory itself canonical: a symlinked ~/.config is
		 * fine, and a link in it is protected with it. */
		char *dir = path_dirname(search_dirs[0]); /* .../wicket */
		char *real = realpath(dir, NULL);
		strv_push(protect, real ? real : xstrdup(dir));
		free(dir);
	}
	if (ucfg->file)
		protect_file(protect, ucfg->file);
	for (size_t i = 0; i < wp->chain.n; i++)
		if (strncmp(wp->chain.v[i], "built-in ", 9) != 0)
			protect_file(protect, wp->chain.v[i]);
	struct strv opened = {0};
	for (size_t i = 0; i < ucfg->n; i++) {
		if (!wk_policy_is_name(ucfg->entries[i].policy))
			strv_add(&opened, ucfg->entries[i].policy);
		load_recording(pctx, ucfg->entries[i].policy, &opened);
	}
	for (size_t d = 0; search_dirs[d]; d++) {
		DIR *dir = opendir(search_dirs[d]);
		struct dirent *e;
		for (size_t n = 0; dir && n < SEARCH_DIR_MAX && (e = readdir(dir)); ) {
			size_t len = strlen(e->d_name);
			if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0)
				continue;
			n++;
			char *f = path_join(search_dirs[d], e->d_name);
			strv_add(&opened, f);
			load_recording(pctx, f, &opened);
			free(f);
			char *name = xstrdup(e->d_name);
			name[len - 5] = '\0';
			if (wk_policy_is_name(name))
				load_recording(pctx, name, &opened);
			free(name);
		}
		if (dir)
			closedir(dir);
	}
	for (size_t i = 0; i < opened.n; i++)
		protect_file(protect, opened.v[i]);
	strv_free(&opened);
}

static void print_errors(const struct wk_policy_ctx *ctx)
{
	for (size_t i = 0; i < ctx->errors.n; i++)
		fprintf(stderr, "%s: %s\n", wicket_progname, ctx->errors.v[i]);
}

void policy_load_or_die(struct wk_policy_ctx *ctx, const char *name, struct wk_policy *wp)
{
	if (wk_policy_load(ctx, name, wp) < 0) {
		print_errors(ctx);
		die("policy %s: %zu error%s; nothing started", name, ctx->errors.n,
		    ctx->errors.n == 1 ? "" : "s");
	}
}

/* Canonical path of an existing object, or NULL and a note. */
static char *canon_or_note(const struct wk_rule *r, const char *kind, struct strv *notes)
{
	char *real = realpath(r->path, NULL);
	if (!real && notes)
		strv_push(notes, xasprintf("%s %s skipped: %s (%s)", kind, r->path,
					   errno == ENOENT ? "does not exist" : strerror(errno),
					   r->where));
	return real;
}

/* Network mode "domains": the sandbox connects to the proxy's two
 * ports and nothing else, binds nothing, and has no UDP. */
void policy_proxy_ports(struct policy *pol)
{
	free(pol->connect.v);
	free(pol->bind.v);
	pol->connect.v = xcalloc(3, sizeof *pol->connect.v);
	pol->connect.v[0] = PROXY_HTTP_PORT;
	pol->connect.v[1] = PROXY_SOCKS_PORT;
	pol->connect.n = 2;
	pol->bind.v = xcalloc(1, sizeof *pol->bind.v);
	pol->bind.n = 0;
	pol->udp = false;
}

void policy_resolve(const struct wk_policy *wp, struct policy *pol, struct strv *notes)
{
	memset(pol, 0, sizeof *pol);
	pol->name = wp->name;
	pol->sandbox = wp->sandbox;
	for (size_t i = 0; i < wp->read.n; i++) {
		char *r = canon_or_note(&wp->read.v[i], "read", notes);
		if (r && !strv_contains(&pol->read, r))
			strv_push(&pol->read, r);
		else
			free(r);
	}
	for (size_t i = 0; i < wp->write.n; i++) {
		char *r = canon_or_note(&wp->write.v[i], "write", notes);
		if (r && !strv_contains(&pol->write, r))
			strv_push(&pol->write, r);
		else
			free(r);
	}
	/* Protected and hidden paths stay lexical here: the plan resolves
	 * them (and watches the ones that do not exist yet). */
	for (size_t i = 0; i < wp->protect.n; i++)
		strv_add(&pol->protect, wp->protect.v[i].path);
	for (size_t i = 0; i < wp->hide.n; i++)
		strv_add(&pol->hide, wp->hide.v[i].path);
	pol->net = wp->net == WK_NET_FULL      ? NET_FULL
		   : wp->net == WK_NET_PORTS   ? NET_PORTS
		   : wp->net == WK_NET_DOMAINS ? NET_DOMAINS
					       : NET_NONE;
	pol->connect.n = wp->connect.n;
	pol->connect.v = xcalloc(wp->connect.n + 1, sizeof *pol->connect.v);
	for (size_t i = 0; i < wp->connect.n; i++)
		pol->connect.v[i] = wp->connect.v[i];
	pol->bind.n = wp->bind.n;
	pol->bind.v = xcalloc(wp->bind.n + 1, sizeof *pol->bind.v);
	for (size_t i = 0; i < wp->bind.n; i++)
		pol->bind.v[i] = wp->bind.v[i];
	pol->udp = wp->udp;
	for (size_t i = 0; i < wp->domains_allow.n; i++)
		strv_add(&pol->domains_allow, wp->domains_allow.v[i]);
	for (size_t i = 0; i < wp->domains_deny.n; i++)
		strv_add(&pol->domains_deny, wp->domains_deny.v[i]);
	for (size_t i = 0; i < wp->allow_addresses.n; i++)
		strv_add(&pol->allow_addresses, wp->allow_addresses.v[i]);
	for (size_t i = 0; i < wp->hosts.n; i++)
		strv_add(&pol->hosts, wp->hosts.v[i]);
	if (pol->net == NET_DOMAINS)
		policy_proxy_ports(pol);
	/* A policy that makes the host's /tmp itself writable shares it. */
	pol->private_tmp = !strv_contains(&pol->write, "/tmp");
	memcpy(pol->tmp_size, wp->tmp_size, sizeof pol->tmp_size);
	for (size_t i = 0; i < wp->env_unset.n; i++)
		strv_add(&pol->env_unset, wp->env_unset.v[i]);
	for (size_t i = 0; i < wp->env_set.n; i++)
		strv_add(&pol->env_set, wp->env_set.v[i]);
}

/* --- wicket policy ----------------------------------------------------- */

static void usage_policy(FILE *f)
{
	fprintf(f, "Usage: wicket policy list\n"
		   "       wicket policy show [NAME|FILE] [--json]\n"
		   "       wicket policy check FILE...\n"
		   "\n"
		   "A NAME is looked up as NAME.json in the search directories, then among\n"
		   "the built-ins; anything with a '/' or ending in .json is a file.\n"
		   "See wicket-policy(5).\n");
}

static char *workspace_dir(void)
{
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		die("cannot find the current directory (%s): was it deleted?", strerror(errno));
	char *r = realpath(cwd, NULL);
	free(cwd);
	if (!r)
		die_errno("realpath");
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One line of `policy list`. */
static void list_one(const char *name, const char *shown_source, const char *load_as,
		     bool builtin_only, bool shadowed, const char *ws)
{
	struct wk_policy wp;
	struct wk_policy_ctx ctx;
	policy_ctx_init(&ctx, ws, user_home());
	ctx.follow_files = !builtin_only;
	bool ok = wk_policy_load(&ctx, load_as, &wp) == 0;
	printf("%-24s %-48s %s%s%s\n", name, shown_source, shadowed ? "(shadowed) " : "",
	       ok ? "" : "INVALID: ",
	       ok ? (wp.description ? wp.description : "") : (ctx.errors.n ? ctx.errors.v[0] : ""));
	if (ok)
		wk_policy_free(&wp);
	wk_policy_ctx_free(&ctx);
}

static int policy_list(void)
{
	char *ws = workspace_dir();
	struct wk_policy_ctx ctx;
	policy_ctx_init(&ctx, ws, user_home());
	struct strv seen = {0};
	printf("%-24s %-48s %s\n", "NAME", "SOURCE", "DESCRIPTION");
	for (size_t d = 0; ctx.search[d]; d++) {
		DIR *dir = opendir(ctx.search[d]);
		if (!dir)
			continue;
		struct strv names = {0};
		struct dirent *e;
		while ((e = readdir(dir))) {
			size_t n = strlen(e->d_name);
			if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0) {
				char *name = xasprintf("%.*s", (int)(n - 5), e->d_name);
				if (wk_policy_is_name(name))
					strv_push(&names, name);
				else
					free(name);
			}
		}
		closedir(dir);
		if (names.n)
			qsort(names.v, names.n, sizeof *names.v, cmp_str);
		for (size_t i = 0; i < names.n; i++) {
			char *file = xasprintf("%s/%s.json", ctx.search[d], names.v[i]);
			list_one(names.v[i], file, file, false, strv_contains(&seen, names.v[i]), ws);
			strv_add(&seen, names.v[i]);
			free(file);
		}
		strv_free(&names);
	}
	for (size_t i = 0; wk_builtins[i].name; i++)
		list_one(wk_builtins[i].name, "(built-in)", wk_builtins[i].name, true,
			 strv_contains(&seen, wk_builtins[i].name), ws);
	strv_free(&seen);
	wk_policy_ctx_free(&ctx);
	free(ws);
	return 0;
}

/* An allow rule ending in "**" runs arguments no one has read: options
 * like git's --receive-pack, -c or --exec name programs of their own. A
 * deny rule without it refuses one exact argv only (rules used to match
 * prefixes: ["curl"] refused every curl). */
static void warn_rules(const char *file, const struct wk_policy *wp)
{
	for (size_t i = 0; i < wp->esc_allow.n; i++) {
		if (!ask_rule_open(&wp->esc_allow.v[i].argv))
			continue;
		char *t = ask_quote_argv(NULL, wp->esc_allow.v[i].argv.v, wp->esc_allow.v[i].argv.n);
		printf("%s: warning: escalation.allow %s accepts any further arguments, unread: an "
		       "option among them can name a program to run (git push --receive-pack=..., "
		       "-c ...); list the arguments, with \"*\" for one that may vary\n", file, t);
		free(t);
	}
	for (size_t i = 0; i < wp->esc_deny.n; i++) {
		const struct strv *r = &wp->esc_deny.v[i].argv;
		if (ask_rule_open(r))
			continue;
		char *t = ask_quote_argv(NULL, r->v, r->n);
		printf("%s: warning: escalation.deny %s refuses only exactly this command; add \"**\" "
		       "to refuse it with any further arguments\n", file, t);
		free(t);
	}
}

static int policy_check(int argc, char **argv)
{
	if (argc < 1)
		die("policy check: which file? (usage: wicket policy check FILE...)");
	char *ws = workspace_dir();
	int bad = 0;
	for (int i = 0; i < argc; i++) {
		struct wk_policy_ctx ctx;
		policy_ctx_init(&ctx, ws, user_home());
		struct wk_policy wp;
		if (wk_policy_load(&ctx, argv[i], &wp) < 0) {
			print_errors(&ctx);
			bad++;
		} else {
			printf("%s: ok (%s", argv[i], wp.chain.v[0]);
			for (size_t k = 1; k < wp.chain.n; k++)
				printf(" -> %s", wp.chain.v[k]);
			printf(")\n");
			warn_rules(argv[i], &wp);
			wk_policy_free(&wp);
		}
		wk_policy_ctx_free(&ctx);
	}
	free(ws);
	return bad ? EXIT_WICKET : 0;
}

/* What the kernel here gives each kind of rule (the same layer decision
 * a session makes; nothing is started). */
struct enforce {
	struct kernel_info k;
	bool ns_ok;
	struct strv gaps;
};

static const char *enf_read(const struct enforce *e, bool all)
{
	if (e->k.landlock_abi)
		return all ? "readable (mounts read-only)" : "readable (Landlock read rule)";
	return all ? "readable (mounts read-only)" : "NOT ENFORCED: needs Landlock";
}

static char *enf_write(const struct enforce *e)
{
	if (e->ns_ok && e->k.landlock_abi)
		return xasprintf("read-write mount + Landlock write rule (ABI %d)", e->k.landlock_abi);
	if (e->ns_ok)
		return xstrdup("read-write mount (no Landlock here)");
	if (e->k.landlock_abi)
		return xasprintf("Landlock write rule (ABI %d; no mount namespace here)",
				 e->k.landlock_abi);
	return xstrdup("NOT ENFORCED: no mount namespace, no Landlock");
}

/* LABEL, then the words of V, or NONE when there are none; a line. */
static void print_words(const char *label, const struct strv *v, const char *none)
{
	printf("%s", label);
	for (size_t i = 0; i < v->n; i++)
		printf(" %s", v->v[i]);
	printf("%s\n", v->n ? "" : none);
}

static char *enf_net(const struct enforce *e, const struct wk_policy *wp)
{
	switch (wp->net) {
	case WK_NET_FULL:
		return xstrdup("host network");
	case WK_NET_PORTS:
		if (e->k.landlock_abi < 4)
			return xasprintf("NOT ENFORCEABLE: ports need Landlock ABI 4 (Linux 6.7); "
					 "this kernel has %d: a session is refused",
					 e->k.landlock_abi);
		return xasprintf("host network; Landlock TCP rules (ABI %d): connect and bind "
				 "only to the listed ports; seccomp: TCP%s and unix sockets only",
				 e->k.landlock_abi, wp->udp ? ", UDP (any port)" : "");
	case WK_NET_DOMAINS:
		if (!e->ns_ok)
			return xstrdup("NOT ENFORCEABLE: domains need a network namespace: a session "
				       "is refused");
		return xasprintf("own network namespace (loopback only); wicket's proxy on "
				 "127.0.0.1:%d (HTTP) and :%d (SOCKS5) resolves and connects "
				 "outside%s; seccomp: TCP and unix sockets only",
				 PROXY_HTTP_PORT, PROXY_SOCKS_PORT,
				 e->k.landlock_abi >= 4 ? "; Landlock: TCP connect to the proxy only" : "");
	case WK_NET_NONE:
	default:
		return xasprintf("%s; seccomp: unix sockets only%s",
				 e->ns_ok ? "own empty network namespace" : "NO network namespace",
				 e->k.landlock_abi >= 4 ? "; Landlock: no TCP bind or connect" : "");
	}
}

static void enforce_probe(struct enforce *e, const struct wk_policy *wp)
{
	memset(e, 0, sizeof *e);
	probe_kernel(&e->k);
	e->ns_ok = e->k.mount_api && (e->k.root_admin || e->k.userns);
	struct policy pol;
	policy_resolve(wp, &pol, NULL);
	if (wp->sandbox)
		layers_gaps_policy(&e->k, e->ns_ok, &pol, &e->gaps);
}

static json_t *jstrv(const struct strv *sv)
{
	json_t *a = json_array();
	for (size_t i = 0; i < sv->n; i++)
		json_array_append_new(a, json_string(sv->v[i]));
	return a;
}

static json_t *jports(const struct wk_ports *p)
{
	json_t *a = json_array();
	for (size_t i = 0; i < p->n; i++)
		json_array_append_new(a, json_integer(p->v[i]));
	return a;
}

static json_t *jargvs(const struct wk_argvs *a)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < a->n; i++) {
		json_t *argv = jstrv(&a->v[i].argv);
		if (!a->v[i].cwd && !a->v[i].stdin && wk_grant_empty(&a->v[i].grant)) {
			json_array_append_new(arr, argv);
			continue;
		}
		json_t *o = json_pack("{s:o}", "argv", argv);
		if (a->v[i].cwd)
			json_object_set_new(o, "cwd", json_string(a->v[i].cwd));
		if (a->v[i].stdin)
			json_object_set_new(o, "stdin", json_true());
		if (!wk_grant_empty(&a->v[i].grant))
			json_object_set_new(o, "grant", wk_grant_to_json(&a->v[i].grant));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* One filesystem rule: as written, canonical, and what the kernel gives it. */
static json_t *jrule(const struct wk_rule *r, const char *canon, const char *enforced)
{
	json_t *o = json_object();
	json_object_set_new(o, "path", canon ? json_string(canon) : json_null());
	json_object_set_new(o, "rule", json_string(r->text));
	json_object_set_new(o, "from", json_string(r->where));
	json_object_set_new(o, "enforced", json_string(enforced));
	return o;
}

/* Protected or hidden rules: shown canonical where they exist, as written
 * where they do not, with what a mount does for them here. */
static void show_covers(const char *kind, const struct wk_rules *r, const struct enforce *e,
			const char *present, const char *absent, json_t *jarr)
{
	for (size_t i = 0; i < r->n; i++) {
		struct stat st;
		bool exists = lstat(r->v[i].path, &st) == 0;
		const char *enf = !e->ns_ok ? "NOT ENFORCED: needs a mount namespace"
				  : exists  ? present
					    : absent;
		char *c = exists ? realpath(r->v[i].path, NULL) : NULL;
		const char *shown = c ? c : r->v[i].path;
		if (jarr)
			json_array_append_new(jarr, jrule(&r->v[i], shown, enf));
		else
			printf("  %-8s %-40s %s\n", kind, shown, enf);
		free(c);
	}
}

static void print_argvs(const char *label, const struct wk_argvs *a)
{
	for (size_t i = 0; i < a->n; i++) {
		char *t = ask_quote_argv(NULL, a->v[i].argv.v, a->v[i].argv.n);
		char *g = wk_grant_text(&a->v[i].grant);
		printf("  %-8s %s%s%s%s%s%s\n", label, t, a->v[i].cwd ? "   in " : "",
		       a->v[i].cwd ? a->v[i].cwd : "",
		       a->v[i].stdin ? "   (any standard input)" : "", *g ? "   granting " : "", g);
		free(g);
		free(t);
	}
}

static int policy_show(int argc, char **argv)
{
	bool json = false;
	const char *name = NULL;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (argv[i][0] == '-' && argv[i][1])
			die("policy show: unknown option '%s'", argv[i]);
		else if (name)
			die("policy show: one policy at a time ('%s' and '%s')", name, argv[i]);
		else
			name = argv[i];
	}
	char *ws = workspace_dir();
	/* Which policy a session here would get, and why. */
	struct userconfig ucfg;
	userconfig_load_or_die(&ucfg, user_home());
	const struct userconfig_entry *pick = userconfig_pick(&ucfg, ws);
	char *chosen;
	json_t *jchosen;
	if (name) {
		chosen = xstrdup("named here");
		jchosen = json_pack("{s:s}", "by", "name");
	} else if (pick) {
		name = pick->policy;
		chosen = xasprintf("%s (the directory %s)", pick->where, pick->path);
		jchosen = json_pack("{s:s, s:s, s:s, s:I}", "by", "config", "file", ucfg.file,
				    "path", pick->path, "entry", (json_int_t)pick->index);
	} else {
		name = DEFAULT_POLICY;
		chosen = ucfg.found ? xasprintf("the default (no entry of %s holds this directory)",
						ucfg.file)
				    : xasprintf("the default (no %s)", ucfg.file ? ucfg.file
							: "user configuration");
		jchosen = json_pack("{s:s}", "by", "default");
		if (ucfg.file)
			json_object_set_new(jchosen, "file", json_string(ucfg.file));
	}
	struct wk_policy_ctx ctx;
	policy_ctx_init(&ctx, ws, user_home());
	struct wk_policy wp;
	policy_load_or_die(&ctx, name, &wp);
	struct enforce e;
	enforce_probe(&e, &wp);
	/* Listing /tmp itself in write shares the host's (see policy_resolve). */
	bool shared_tmp = false;
	for (size_t i = 0; i < wp.write.n; i++)
		shared_tmp |= strcmp(wp.write.v[i].path, "/tmp") == 0;
	struct strv notes = {0};

	json_t *o = json_object(), *fs = json_object();
	json_t *jr = json_array(), *jw = json_array(), *jp = json_array(), *jh = json_array();
	if (!json) {
		printf("policy:      %s\n", wp.name);
		printf("chosen by:   %s\n", chosen);
		printf("source:      %s\n", wp.source);
		printf("extends:     ");
		for (size_t i = 0; i < wp.chain.n; i++)
			printf("%s%s", i ? " -> " : "", wp.chain.v[i]);
		printf("\n");
		if (wp.description)
			printf("description: %s\n", wp.description);
		printf("workspace:   %s\n", ws);
	}
	if (!wp.sandbox) {
		if (!json)
			printf("\nNO SANDBOX: the command runs with all your rights and the network;\n"
			       "nothing is hidden, scrubbed or denied.\n");
	} else {
		if (!json)
			printf("\nfilesystem (canonical paths; what this kernel enforces):\n");
		for (size_t i = 0; i < wp.read.n; i++) {
			char *c = canon_or_note(&wp.read.v[i], "read", &notes);
			const char *enf = c ? enf_read(&e, strcmp(c, "/") == 0) : "skipped: does not exist";
			if (json)
				json_array_append_new(jr, jrule(&wp.read.v[i], c, enf));
			else if (c)
				printf("  read     %-40s %s\n", c, enf);
			free(c);
		}
		for (size_t i = 0; i < wp.write.n; i++) {
			char *c = canon_or_note(&wp.write.v[i], "write", &notes);
			char *enf = c ? enf_write(&e) : xstrdup("skipped: does not exist");
			if (json)
				json_array_append_new(jw, jrule(&wp.write.v[i], c, enf));
			else if (c)
				printf("  write    %-40s %s\n", c, enf);
			free(enf);
			free(c);
		}
		if (!json)
			printf("  write    %-40s %s\n", "/tmp",
			       shared_tmp ? "the host's /tmp, shared (listed in write)"
					  : e.ns_ok ? "private to the session (empty tmpfs)"
						    : "NOT private here: a per-session directory in $TMPDIR");
		if (!json && !shared_tmp && e.ns_ok)
			printf("  %-8s %-40s at most %s each (tmp_size; when full: ENOSPC)\n", "size",
			       "/tmp, /dev/shm", wp.tmp_size);
		show_covers("protect", &wp.protect, &e, "read-only bind over itself, ancestors pinned",
			    "does not exist: if the session creates it, it is moved aside after",
			    json ? jp : NULL);
		show_covers("hide", &wp.hide, &e, "covered by an empty, unreadable stand-in",
			    "does not exist: nothing to hide now", json ? jh : NULL);
		if (!json && !wp.write.n)
			printf("  (nothing else is writable)\n");
	}
	char *net = wp.sandbox ? enf_net(&e, &wp) : xstrdup("host network (no sandbox)");
	if (!json) {
		printf("\nnetwork:     %s\n", wk_net_name(wp.net));
		if (wp.net == WK_NET_PORTS) {
			printf("  connect  TCP");
			for (size_t i = 0; i < wp.connect.n; i++)
				printf(" %u", wp.connect.v[i]);
			printf("%s\n  bind     TCP", wp.connect.n ? "" : " (none)");
			for (size_t i = 0; i < wp.bind.n; i++)
				printf(" %u", wp.bind.v[i]);
			printf("%s\n  udp      %s\n", wp.bind.n ? "" : " (none)",
			       wp.udp ? "yes, any port (UDP cannot be limited by port)"
				      : "no (DNS through a server does not work; /etc/hosts does)");
		}
		if (wp.net == WK_NET_DOMAINS) {
			print_words("  allow   ", &wp.domains_allow, " (none: every name is refused)");
			print_words("  deny    ", &wp.domains_deny, " (none)");
			print_words("  addresses", &wp.allow_addresses,
				    " (none: loopback, private and this host's addresses are refused)");
			for (size_t i = 0; i < wp.hosts.n; i++)
				printf("  host     %s\n", wp.hosts.v[i]);
		}
		printf("  enforced %s\n", net);
		printf("\nenvironment:\n");
		if (wp.env_unset.n) {
			printf("  unset   ");
			for (size_t i = 0; i < wp.env_unset.n; i++)
				printf(" %s", wp.env_unset.v[i]);
			printf("\n");
		}
		for (size_t i = 0; i < wp.env_set.n; i++)
			printf("  set      %s\n", wp.env_set.v[i]);
		if (!wp.env_unset.n && !wp.env_set.n)
			printf("  (passed through unchanged)\n");
		printf("\nescalation:  %s, timeout %d s%s%s\n", wk_esc_name(wp.esc_mode), wp.esc_timeout,
		       wp.esc_approver ? ", approver " : "", wp.esc_approver ? wp.esc_approver : "");
		print_argvs("allow", &wp.esc_allow);
		print_argvs("deny", &wp.esc_deny);
		if (e.gaps.n) {
			printf("\nNOT ENFORCEABLE on this machine (a session is refused unless "
			       "--best-effort):\n");
			for (size_t i = 0; i < e.gaps.n; i++)
				printf("  - %s\n", e.gaps.v[i]);
		}
		if (notes.n) {
			printf("\nnotes:\n");
			for (size_t i = 0; i < notes.n; i++)
				printf("  - %s\n", notes.v[i]);
		}
		json_decref(jr);
		json_decref(jw);
		json_decref(jp);
		json_decref(jh);
		json_decref(fs);
		json_decref(o);
		json_decref(jchosen);
	} else {
		json_object_set_new(o, "name", json_string(wp.name));
		json_object_set_new(o, "chosen_by", jchosen);
		json_object_set_new(o, "source", json_string(wp.source));
		json_object_set_new(o, "chain", jstrv(&wp.chain));
		json_object_set_new(o, "description",
				    wp.description ? json_string(wp.description) : json_null());
		json_object_set_new(o, "workspace", json_string(ws));
		json_object_set_new(o, "sandbox", json_boolean(wp.sandbox));
		json_object_set_new(fs, "read", jr);
		json_object_set_new(fs, "write", jw);
		json_object_set_new(fs, "protect", jp);
		json_object_set_new(fs, "hide", jh);
		json_object_set_new(fs, "private_tmp", json_boolean(wp.sandbox && !shared_tmp));
		json_object_set_new(fs, "tmp_size", json_string(wp.tmp_size));
		json_object_set_new(o, "filesystem", fs);
		json_t *n = json_object();
		json_object_set_new(n, "mode", json_string(wk_net_name(wp.net)));
		json_object_set_new(n, "connect", jports(&wp.connect));
		json_object_set_new(n, "bind", jports(&wp.bind));
		json_object_set_new(n, "udp", json_boolean(wp.udp));
		if (wp.net == WK_NET_DOMAINS) {
			json_t *hosts = json_object();
			for (size_t i = 0; i < wp.hosts.n; i++) {
				char *eq = strchr(wp.hosts.v[i], '=');
				char *k = xasprintf("%.*s", (int)(eq - wp.hosts.v[i]), wp.hosts.v[i]);
				json_object_set_new(hosts, k, json_string(eq + 1));
				free(k);
			}
			json_object_set_new(n, "allow", jstrv(&wp.domains_allow));
			json_object_set_new(n, "deny", jstrv(&wp.domains_deny));
			json_object_set_new(n, "allow_addresses", jstrv(&wp.allow_addresses));
			json_object_set_new(n, "hosts", hosts);
		}
		json_object_set_new(n, "enforced", json_string(net));
		json_object_set_new(o, "network", n);
		json_t *env = json_object(), *set = json_object();
		json_object_set_new(env, "unset", jstrv(&wp.env_unset));
		for (size_t i = 0; i < wp.env_set.n; i++) {
			char *eq = strchr(wp.env_set.v[i], '=');
			char *k = xasprintf("%.*s", (int)(eq - wp.env_set.v[i]), wp.env_set.v[i]);
			json_object_set_new(set, k, json_string(eq + 1));
			free(k);
		}
		json_object_set_new(env, "set", set);
		json_object_set_new(o, "env", env);
		json_t *esc = json_object();
		json_object_set_new(esc, "mode", json_string(wk_esc_name(wp.esc_mode)));
		json_object_set_new(esc, "approver",
				    wp.esc_approver ? json_string(wp.esc_approver) : json_null());
		json_object_set_new(esc, "timeout", json_integer(wp.esc_timeout));
		json_object_set_new(esc, "allow", jargvs(&wp.esc_allow));
		json_object_set_new(esc, "deny", jargvs(&wp.esc_deny));
		json_object_set_new(o, "escalation", esc);
		json_object_set_new(o, "not_enforceable", jstrv(&e.gaps));
		json_object_set_new(o, "notes", jstrv(&notes));
		char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		puts(s);
		free(s);
		json_decref(o);
	}
	free(net);
	strv_free(&notes);
	strv_free(&e.gaps);
	wk_policy_free(&wp);
	wk_policy_ctx_free(&ctx);
	userconfig_free(&ucfg);
	free(chosen);
	free(ws);
	return 0;
}

int cmd_policy(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage_policy(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_WICKET : 0;
	}
	if (strcmp(argv[1], "list") == 0) {
		if (argc > 2)
			die("policy list: unexpected argument '%s'", argv[2]);
		return policy_list();
	}
	if (strcmp(argv[1], "show") == 0)
		return policy_show(argc - 2, argv + 2);
	if (strcmp(argv[1], "check") == 0)
		return policy_check(argc - 2, argv + 2);
	die("policy: unknown command '%s' (list, show or check; see 'wicket policy --help')",
	    argv[1]);
}
