/* The control socket, the supervisor's side (DESIGN §6).
 *
 * One SOCK_SEQPACKET socket pair per session. The child's end is inherited
 * by every sandboxed process at a high descriptor number, named by
 * WICKET_FD=FD:DEV:INO; the supervisor keeps the other end. Each packet is
 * one JSON object with "v": 1 and a "type":
 *
 *   denial  the preload shim reports a sandbox denial: the packet and its
 *           codec are lib/denialpkt.h. When its line is printed it
 *           carries a token ("ack"): once the line is written, the token
 *           goes on the acknowledgement page (lib/ackpage.h, a sealed
 *           memfd that only we write, WICKET_ACK_FD); the refused call
 *           waits for that (preload/diag.c).
 *   why     `wicket why` asks for the session's denials; the packet
 *           carries a reply socket (SCM_RIGHTS), on which one JSON
 *           document is written and the socket closed: {"n": N}.
 *   sync    the shim, before the shell's hooks read WICKET_STATUS_FD:
 *           with a reply socket, answered {"v":1,"type":"sync"} once
 *           every packet sent before it has been taken (packets on the
 *           socket keep their order).
 *
 * Everything that arrives is written by code inside the sandbox: packets
 * are size-limited, parsed by jansson, checked field by field, and dropped
 * when anything is wrong; descriptors that come along uninvited are
 * closed; the sender's pid is taken from SCM_CREDENTIALS, never from the
 * message; no read or write on behalf of the sandbox ever blocks. Lines
 * printed from a denial are rebuilt from its fields and keep only
 * printable text. */
#include "config.h"
#include "base/session.h"
#include "base/state.h"
#include "plan/autorun.h"
#include "plan/plan.h"
#include "supervisor/ask.h"
#include "supervisor/closer.h"
#include "supervisor/control.h"
#include "supervisor/events.h"
#include "supervisor/notifyutil.h"
#include "supervisor/pty.h"
#include "supervisor/watch.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ackpage.h"
#include "askproto.h"
#include "classify.h"
#include "denialpkt.h"
#include "envscrub.h"
#include "netdomain.h"
#include "fdpass.h"
#include "fdspec.h"
#include "grant.h"
#include "grantderive.h"
#include "path.h"
#include "rules.h"
#include "utf8.h"
#include "view.h"

/* Linux 6.5; not in the headers of older systems. */
#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif

#define PACKET_MAX 65536   /* larger packets are dropped */
#define OBJECT_MAX 4096
#define MAX_PRINTED 500    /* lines shown per session; the rest only counted */
#define READS_PER_WAKE 32  /* a flood must not starve the other relays */
#define PENDING_MAX 4      /* replies being written at once */
/* A process's arguments as read for a denial: one byte more than a
 * request to `wicket ask` carries, so that what is cut is seen as more
 * than it carries (grantderive.c offers no command for it). */
#define ARGS_READ (ASK_ARGV_BYTES + 2)

/* --- the denials of this session ---------------------------------------- */

enum { K_WRITE, K_READ, K_NET, N_KINDS };
static const char *const kind_names[N_KINDS] = {"write", "read", "network"};

struct denial_entry {
	int kind;
	char *object, *what, *comm;
	long pid;           /* as the sandbox sees it */
	char *args;         /* its arguments, as struct denial's (NULL: none) */
	size_t args_len;
	unsigned count;     /* reports of it (one per process) */
	time_t first, last;
	unsigned long seq;  /* order of the last report */
	char *rule;         /* which rule blocked it */
	/* What kind of refusal (the event stream's "category", why's too):
	 * decided with the rule, by the same code (explain_*). */
	const char *category;
	char *source;       /* where the rule comes from (NULL: the policy) */
	json_t *fixes;      /* ways to allow it, as data (fix_text: as prose) */
	char *reason;       /* the proxy's refusals: why, on the line */
	const char *probe;  /* a known probe (probe_of): kept, neither shown nor counted */
	int proxy;          /* the proxy's refusal (enum proxy_refusal), its name and address */
	char *proxy_name, *proxy_addr;
	struct wk_grant grant; /* the narrowest grant that allows it (none: empty) */
	struct strv argv;      /* its process's words (unknown: none) */
	unsigned long long exec; /* the warm session's exec it came from (0: none; warm.c) */
};

static struct denial_entry entries[WK_MAX_DENIALS];
static size_t n_entries;
static unsigned long seq;
static unsigned counts[N_KINDS];   /* shown (printed, or by the shim): the summary */
static unsigned recorded[N_KINDS]; /* all, WICKET_DIAG=off too: `wicket why` */
static unsigned printed;
static bool said_more;
static int status_fd = -1;
/* The acknowledgement page (lib/ackpage.h): written here only, never read
 * back; ack_count is the count of acknowledgements it holds. */
static struct ack_page *ack_page;
static uint32_t ack_count;
static bool ack_closed;
/* The newest lines, for the shell's hooks (status_update). */
#define STATUS_LINES 3
static char *recent[STATUS_LINES];
static unsigned n_recent;

static int kind_of(const char *k)
{
	for (int i = 0; i < N_KINDS; i++)
		if (strcmp(k, kind_names[i]) == 0)
			return i;
	return -1;
}

/* --- why it was blocked, and how to allow it ---------------------------- */

static const char *rule_origin(const struct wk_rules *rules, const char *root)
{
	for (size_t i = 0; i < rules->n; i++)
		if (rules->v[i].path && strcmp(rules->v[i].path, root) == 0)
			return rules->v[i].where;
	return NULL;
}

static char *joined(const struct strv *v, const char *extra)
{
	size_t len = 1;
	for (size_t i = 0; i < v->n; i++)
		len += strlen(v->v[i]) + 2;
	if (extra)
		len += strlen(extra) + 2;
	char *o = xmalloc(len);
	o[0] = '\0';
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			strcat(o, ", ");
		strcat(o, v->v[i]);
	}
	if (extra) {
		if (v->n)
			strcat(o, ", ");
		strcat(o, extra);
	}
	return o;
}

/* The directory to allow: PATH when it is one, else its nearest existing
 * ancestor, as the sandbox sees it (view.h): what the advice says must
 * never depend on what exists where the sandbox cannot see. */
static char *dir_to_allow(const struct session *s, const char *path)
{
	char *d = xstrdup(path);
	struct stat st;
	while (strcmp(d, "/") != 0 && (!view_stat(s->view_root, d, &st) || !S_ISDIR(st.st_mode))) {
		char *up = path_dirname(d);
		free(d);
		d = up;
	}
	return d;
}

/* --- the ways to allow a denial, as data ---------------------------------
 * Each fix is one JSON object: "kind" is "option" (a `wicket run` option:
 * "option", "value"), "policy" (a policy file: "policy", the snippet as
 * an object), "ask" (`wicket ask`: "command", an argv), "note" (advice in
 * words) or "not" (an "option" that would not help, and why). Any may have
 * a "note". `wicket why --json` gives them as they are; fix_text() makes
 * the line `wicket why` prints of each: one place for both. */

static void fix_add(struct denial_entry *e, json_t *fix, const char *note)
{
	if (!e->fixes)
		e->fixes = json_array();
	if (note)
		json_object_set_new(fix, "note", json_string(note));
	json_array_append_new(e->fixes, fix);
}

static void fix_option(struct denial_entry *e, const char *opt, const char *value,
		       const char *note)
{
	fix_add(e, json_pack("{s:s, s:s, s:s}", "kind", "option", "option", opt, "value", value),
		note);
}

static void fix_policy(struct denial_entry *e, json_t *snippet, const char *note)
{
	fix_add(e, json_pack("{s:s, s:o}", "kind", "policy", "policy", snippet), note);
}

static void fix_note(struct denial_entry *e, const char *text)
{
	fix_add(e, json_pack("{s:s}", "kind", "note"), text);
}

/* The narrowest grant that allows E and its process's words
 * (grantderive.h), from what the explanation decided: KIND, PLACE (the
 * directory or store a grant may give; NULL: none may) and LIFTABLE.
 * Before fix_ask, which offers them. */
static void derive(struct denial_entry *e, enum wk_refused kind, const char *place, bool liftable)
{
	struct wk_refusal r = {.kind = kind, .object = e->object, .place = place,
			       .liftable = liftable, .args = e->args, .args_len = e->args_len};
	wk_grant_derive(&r, &e->grant, &e->argv);
}

static json_t *words_json(const struct strv *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->n; i++)
		json_array_append_new(a, wk_json_text(v->v[i]));
	return a;
}

/* Every word of V is text as it is (words_json would change none). */
static bool words_exact(const struct strv *v)
{
	bool lossy = false;
	for (size_t i = 0; i < v->n && !lossy; i++)
		free(wk_utf8_lossy(v->v[i], strlen(v->v[i]), &lossy));
	return !lossy;
}

/* `wicket ask` with the grant derived for E (derive) and its process's
 * own words, never its name; with no grant, outside, which only the
 * person at the terminal can approve. */
static void fix_ask(struct denial_entry *e)
{
	struct strv cmd = {0};
	if (!words_exact(&e->argv)) {
		/* A command that is not text: as JSON it would be another. */
		if (!wk_grant_empty(&e->grant))
			fix_add(e, json_pack("{s:s, s:o}", "kind", "ask", "grant",
					     wk_grant_to_json(&e->grant)),
				"its arguments are not text: name the command yourself");
		else
			fix_note(e, "no grant allows it: only you, at the terminal, can run it outside "
				    "the sandbox (wicket ask --outside -- COMMAND)");
	} else if (wk_grant_command_argv(&e->grant, &e->argv, &cmd)) {
		fix_add(e, json_pack("{s:s, s:o, s:o}", "kind", "ask", "command", words_json(&cmd),
				     "grant", wk_grant_to_json(&e->grant)),
			"once, if approved");
	} else if (!wk_grant_empty(&e->grant)) {
		fix_add(e, json_pack("{s:s, s:o}", "kind", "ask", "grant", wk_grant_to_json(&e->grant)),
			"its arguments could not be read: name the command yourself");
	} else if (e->argv.n) {
		strv_add(&cmd, "wicket");
		strv_add(&cmd, "ask");
		strv_add(&cmd, "--outside");
		strv_add(&cmd, "--");
		for (size_t i = 0; i < e->argv.n; i++)
			strv_add(&cmd, e->argv.v[i]);
		fix_add(e, json_pack("{s:s, s:o, s:b}", "kind", "ask", "command", words_json(&cmd),
				     "outside", 1),
			"no grant allows it: only you, at the terminal, can run it outside the "
			"sandbox");
	} else {
		fix_note(e, "no grant allows it: only you, at the terminal, can run it outside the "
			    "sandbox (wicket ask --outside -- COMMAND)");
	}
	strv_free(&cmd);
}

static void fix_not(struct denial_entry *e, const char *opt, const char *why)
{
	fix_add(e, json_pack("{s:s, s:s}", "kind", "not", "option", opt), why);
}

/* {"extends": POLICY, SECTION: {KEY: VALUE}} (VALUE taken). */
static json_t *snippet(const char *pname, const char *section, json_t *body)
{
	return json_pack("{s:s, s:o}", "extends", pname, section, body);
}

/* A word as a shell would need it: quoted unless plainly safe. */
static char *shell_word(const char *w)
{
	bool plain = w[0] != '\0';
	for (const char *c = w; *c; c++)
		plain &= strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:,=+@%",
				*c) != NULL;
	if (plain)
		return xstrdup(w);
	size_t n = 3;
	for (const char *c = w; *c; c++)
		n += *c == '\'' ? 4 : 1;
	char *o = xmalloc(n), *q = o;
	*q++ = '\'';
	for (const char *c = w; *c; c++) {
		if (*c == '\'') {
			memcpy(q, "'\\''", 4);
			q += 4;
		} else {
			*q++ = *c;
		}
	}
	*q++ = '\'';
	*q = '\0';
	return o;
}

/* The line `wicket why` prints for FIX. */
static char *fix_text(json_t *fix)
{
	const char *kind = json_string_value(json_object_get(fix, "kind"));
	const char *note = json_string_value(json_object_get(fix, "note"));
	const char *opt = json_string_value(json_object_get(fix, "option"));
	char *body;
	if (!kind)
		return xstrdup("?");
	if (strcmp(kind, "option") == 0) {
		char *v = shell_word(json_string_value(json_object_get(fix, "value")) ?: "");
		body = xasprintf("wicket run %s %s ...", opt ? opt : "?", v);
		free(v);
	} else if (strcmp(kind, "policy") == 0) {
		char *j = json_dumps(json_object_get(fix, "policy"), JSON_PRESERVE_ORDER);
		body = xasprintf("a policy: %s", j ? j : "{}");
		free(j);
	} else if (strcmp(kind, "ask") == 0) {
		/* The words as a shell reads them (ask_quote: what is shown is
		 * what runs), or the grant and a place for the command. */
		json_t *words = json_object_get(fix, "command");
		struct strv w = {0};
		struct wk_grant g = {0};
		char *why = NULL;
		size_t i;
		json_t *a;
		json_array_foreach(words, i, a)
			strv_add(&w, json_string_value(a) ?: "?");
		if (w.n) {
			body = ask_quote_argv(NULL, w.v, w.n);
		} else {
			wk_grant_from_json(json_object_get(fix, "grant"), NULL, NULL, &g, &why);
			char *t = wk_grant_text(&g);
			body = xasprintf("wicket ask %s -- COMMAND", t);
			free(t);
		}
		free(why);
		wk_grant_free(&g);
		strv_free(&w);
	} else if (strcmp(kind, "not") == 0) {
		return xasprintf("not %s: %s", opt ? opt : "?", note ? note : "");
	} else {
		return xstrdup(note ? note : "");
	}
	if (!note)
		return body;
	char *t = xasprintf("%s   (%s)", body, note);
	free(body);
	return t;
}

/* PATH is wicket's state directory (main.c hides and protects it). */
static bool is_state_dir(const char *path)
{
	char *state = wicket_state_dir();
	/* host: the user's state directory */
	char *rstate = state ? realpath(state, NULL) : NULL;
	bool is_state = rstate && strcmp(rstate, path) == 0;
	free(state);
	free(rstate);
	return is_state;
}

static const char state_origin[] = "wicket's own record of sessions and the audit log, hidden in "
				   "every session";

/* Where a protect rule that no policy file wrote comes from. */
static char *protect_origin(const struct session *s, const char *prot)
{
	if (is_state_dir(prot))
		return xstrdup(state_origin);
	if (strv_contains(&s->cli_protect, prot))
		return xstrdup("--protect on the command line");
	/* From the lists made before the command ran: walked now, the git
	 * directories and config files of the writable roots would be the
	 * sandbox's to point anywhere (a config.worktree linked into a
	 * hidden store), read with the supervisor's rights. */
	const char *why = strv_contains(&s->autorun_git_start, prot) ?
		"where git reads hooks or settings that run code, read-only in every writable root" :
		strv_contains(&s->autorun_start, prot) ?
		"a file shells or desktops run, read-only in every writable root" :
		"the session's policy files, read-only in every session";
	return xstrdup(why);
}

/* Why `--write DIR` would not allow writing OBJ, or NULL when it would:
 * the same places the plan keeps read-only in any writable root
 * (autorun.c), a shared space the plan refuses, a git directory. Advice
 * never lifts a protection. *CATEGORY: "runs-later" or "protected" when
 * OBJ stays read-only in any root, else left. */
static char *write_would_not_help(const struct session *s, const char *dir, const char *obj,
				  const char **category)
{
	struct strv kept = {0};
	/* No walk of DIR here: this runs with the supervisor's rights while
	 * the sandbox runs, and what it found (a repository's hooks, a
	 * config's hooksPath) would be told to the sandbox, also where its
	 * own rights cannot look (another user's 0700 directory in a root
	 * session). The places known before the command ran, in the roots
	 * beneath DIR, and the lexical cases below are what it goes on. */
	for (size_t i = 0; i < s->pol.write.n; i++)
		if (path_is_under(s->pol.write.v[i], dir))
			for (size_t j = 0; j < s->autorun_start.n; j++)
				if (path_is_under(s->autorun_start.v[j], s->pol.write.v[i]))
					strv_add(&kept, s->autorun_start.v[j]);
	/* The rules as they would be with DIR writable: what classify would
	 * then say of OBJ, and which of the two lists the protection is in. */
	struct wk_fsrule *tab = xcalloc(1 + kept.n + s->pol.protect.n, sizeof *tab);
	size_t n = 0;
	tab[n++] = (struct wk_fsrule){.kind = RULE_WRITE, .path = dir};
	for (size_t i = 0; i < kept.n; i++)
		tab[n++] = (struct wk_fsrule){.kind = RULE_PROTECT, .path = kept.v[i]};
	for (size_t i = 0; i < s->pol.protect.n; i++)
		tab[n++] = (struct wk_fsrule){.kind = RULE_PROTECT, .path = s->pol.protect.v[i]};
	struct wk_fstable t = {.v = tab, .n = n};
	struct wk_fsmatch m;
	const char *k = NULL, *prot = NULL;
	if (wk_classify(&t, obj, &m) == WK_FS_PROTECTED)
		*(strv_contains(&kept, m.rule) ? &k : &prot) = m.rule;
	free(tab);
	char *why = NULL, *later = NULL;
	if (k) {
		why = xasprintf("%s stays read-only in every writable root (git hooks and settings "
				"that run code, shell and desktop startup files)", k);
		*category = "runs-later";
	} else if (prot) {
		*category = "protected";
		char *origin = protect_origin(s, prot);
		const char *from = rule_origin(&s->wpol.protect, prot);
		why = xasprintf("%s stays read-only in a writable root (%s)", prot,
				from ? from : origin);
		free(origin);
	} else if ((later = autorun_write_runs_later(s->homes, dir, obj))) {
		why = xasprintf("%s runs code later, outside the sandbox (a shell's, a desktop's "
				"or a tool's startup file or config): wicket keeps it read-only in "
				"every writable root", later);
		*category = "runs-later";
	} else if ((k = plan_shared_in(&s->shared, dir))) {
		why = xasprintf("%s %s %s; wicket refuses it as a writable root", dir,
				strcmp(k, dir) == 0 ? "is" : "holds",
				strv_contains(&s->shared_path, k) ?
				"a directory on PATH, whose programs run outside when their names "
				"are typed" : "a space other programs share");
	} else {
		const char *g = strstr(dir, "/.git");
		if (g && (g[5] == '/' || !g[5])) {
			char *top = xasprintf("%.*s", (int)(g - dir) ? (int)(g - dir) : 1, dir);
			why = xasprintf("%.*s is a git directory: run wicket from the repository's top "
					"instead (cd %s && wicket ...), where git works and its hooks and "
					"config stay protected", (int)(g - dir) + 5, dir, top);
			free(top);
		}
	}
	free(later);
	strv_free(&kept);
	return why;
}

/* OBJ is a shell's or a tool's startup file, or beneath one, that a
 * sandbox with DIR writable would keep read-only (autorun.c's list,
 * lexical: nothing of DIR is walked), and that ask.c refuses to grant:
 * a grant of DIR would not allow the write. */
static bool startup_file_in(const struct session *s, const char *dir, const char *obj)
{
	struct strv roots = {0}, places = {0};
	strv_add(&roots, dir);
	autorun_startup_places(&roots, s->homes, &places);
	bool in = false;
	for (size_t i = 0; i < places.n && !in; i++)
		in = path_is_under(obj, places.v[i]);
	strv_free(&roots);
	strv_free(&places);
	return in;
}

static void explain_fs(const struct session *s, struct denial_entry *e)
{
	const char *pname = s->pol.name ? s->pol.name : DEFAULT_POLICY;
	const char *obj = e->object;
	/* The decision the shim made (lib/classify.c), over the same rules:
	 * the matched rule points into the session, which outlives it. */
	struct wk_fstable rules;
	struct wk_fsmatch m;
	plan_fstable(s, &rules);
	enum wk_fs_verdict v = wk_classify(&rules, obj, &m);
	plan_fstable_free(&rules);
	const char *hid = v == WK_FS_HIDDEN ? m.rule : NULL;
	const char *prot = e->kind == K_WRITE && v == WK_FS_PROTECTED ? m.rule : NULL;
	if (hid) {
		const char *from = rule_origin(&s->wpol.hide, hid);
		bool state = !from && is_state_dir(hid);
		if (state)
			from = state_origin;
		else if (!from && strv_contains(&s->cli_hide, hid))
			from = "--hide on the command line";
		e->rule = xasprintf("%s is hidden by the rule \"%s\"%s%s%s", obj, hid,
				    from ? " (" : "", from ? from : "", from ? ")" : "");
		e->category = "hidden";
		e->source = from ? xstrdup(from) : NULL;
		/* A grant reads a hidden store whole, writes none, and never
		 * wicket's own record. */
		derive(e, e->kind == K_READ ? WK_REFUSED_READ : WK_REFUSED_WRITE,
		       e->kind == K_READ && !state ? hid : NULL, false);
		fix_ask(e);
		if (!state) {
			char *t = xasprintf("a policy of your own that does not hide %s (a policy that "
					    "extends %s keeps its hide rules)", hid, pname);
			fix_note(e, t);
			free(t);
		}
		return;
	}
	if (prot) {
		const char *from = rule_origin(&s->wpol.protect, prot);
		char *why = NULL;
		if (!from)
			why = protect_origin(s, prot);
		e->rule = xasprintf("%s is protected (read-only inside a writable root) by the rule "
				    "\"%s\" (%s)", obj, prot, from ? from : why);
		/* The places that run code later: no policy names them. */
		e->category = !from && (strv_contains(&s->autorun_git_start, prot) ||
					strv_contains(&s->autorun_start, prot)) ? "runs-later"
										: "protected";
		e->source = xstrdup(from ? from : why);
		free(why);
		derive(e, WK_REFUSED_WRITE, NULL, false);
		fix_ask(e);
		if (from) {
			char *t = xasprintf("a policy of your own without this rule (a policy that "
					    "extends %s keeps it)", pname);
			fix_note(e, t);
			free(t);
		}
		return;
	}
	if (e->kind == K_READ) {
		char *roots = joined(&s->pol.read, NULL);
		e->rule = xasprintf("%s is not under a readable root (policy %s reads: %s)", obj,
				    pname, roots);
		e->category = "outside-readable";
		free(roots);
		char *dir = dir_to_allow(s, obj);
		fix_option(e, "--read", dir, NULL);
		/* A child's read list replaces its parent's: all of it. */
		json_t *read = json_array();
		for (size_t i = 0; i < s->pol.read.n; i++)
			json_array_append_new(read, json_string(s->pol.read.v[i]));
		json_array_append_new(read, json_string(dir));
		fix_policy(e, snippet(pname, "filesystem", json_pack("{s:o}", "read", read)), NULL);
		derive(e, WK_REFUSED_READ, dir, false);
		free(dir);
		fix_ask(e);
		return;
	}
	if (v != WK_FS_WRITABLE) {
		char *roots = joined(&s->pol.write, s->layers.mntns && s->pol.private_tmp ?
					"/tmp (private)" : NULL);
		e->rule = xasprintf("%s is not under a writable root (policy %s; writable: %s)", obj,
				    pname, roots[0] ? roots : "nothing");
		e->category = "outside-writable";
		free(roots);
		/* The narrowest root that allows it: the file itself when it
		 * exists (it is written in place), else the nearest existing
		 * directory, where it would be created. */
		struct stat st;
		bool file = view_stat(s->view_root, obj, &st) && S_ISREG(st.st_mode);
		char *dir = file ? xstrdup(obj) : dir_to_allow(s, obj);
		const char *not_cat = NULL;
		char *not = write_would_not_help(s, dir, obj, &not_cat);
		/* A grant's --write: the same root, by the same rule, or none;
		 * none either for a startup file, which no grant makes
		 * writable. */
		derive(e, WK_REFUSED_WRITE, not || startup_file_in(s, dir, obj) ? NULL : dir, false);
		if (not) {
			if (not_cat)
				e->category = not_cat;
			fix_ask(e);
			fix_not(e, "--write", not);
			free(not);
			free(dir);
			return;
		}
		fix_option(e, "--write", dir, file ? "this file only; a program that replaces it "
			   "by renaming a new one needs its directory" : NULL);
		fix_policy(e, snippet(pname, "filesystem", json_pack("{s:[s]}", "write", dir)), NULL);
		free(dir);
		fix_ask(e);
		return;
	}
	e->rule = xasprintf("%s is read-only in this session (policy %s%s)", obj, pname,
			    s->read_only ? ", --read-only" : "");
	e->category = "read-only";
	derive(e, WK_REFUSED_WRITE, NULL, false);
	fix_ask(e);
}

/* "connect 127.0.0.1:8080/tcp" -> 8080; 0 when there is no port. */
static unsigned port_of(const char *obj)
{
	const char *colon = strrchr(obj, ':'), *slash = strrchr(obj, '/');
	if (!colon || !slash || slash < colon)
		return 0;
	unsigned v = 0;
	for (const char *p = colon + 1; p < slash; p++) {
		if (*p < '0' || *p > '9' || v > 65535)
			return 0;
		v = v * 10 + (unsigned)(*p - '0');
	}
	return v <= 65535 ? v : 0;
}

/* What the URLs among the arguments of process PID (as the supervisor
 * sees it) would connect to: the TCP ports (an explicit :PORT, else the
 * scheme's), up to MAX, and the host names (not addresses), up to
 * MAXHOSTS into HOSTS (malloc'd; *NHOSTS of them). Advice only (the
 * process could change its arguments): what a program that was refused
 * its name lookup would connect to next. */
static size_t url_targets(const struct denial_entry *e, unsigned *ports, size_t max, char **hosts,
			  size_t maxhosts, size_t *nhosts)
{
	struct wk_url_target t[16];
	size_t nt = wk_url_targets(e->args, e->args_len, t, sizeof t / sizeof t[0]), n = 0;
	*nhosts = 0;
	for (size_t k = 0; k < nt && n < max; k++) {
		/* A name, as --allow-domain takes it (an address is none). */
		const char *name = t[k].host[0] != '[' ? t[k].host : NULL;
		bool seen = !name || wk_name_check(name, strlen(name)) != NULL;
		for (size_t i = 0; i < *nhosts && !seen; i++)
			seen = strcasecmp(hosts[i], name) == 0;
		if (!seen && *nhosts < maxhosts)
			hosts[(*nhosts)++] = xstrdup(name);
		bool dup = t[k].port == 0;
		for (size_t i = 0; i < n; i++)
			dup |= ports[i] == t[k].port;
		if (!dup)
			ports[n++] = t[k].port;
	}
	return n;
}

/* A refusal of the proxy of network mode "domains" (proxy.c). */
static void explain_proxy(const struct session *s, struct denial_entry *e)
{
	const char *pname = s->pol.name ? s->pol.name : DEFAULT_POLICY;
	const char *name = e->proxy_name ? e->proxy_name : "";
	static const char *const category[] = {
		[PROXY_UNLISTED] = "name-not-allowed", [PROXY_DENIED] = "name-denied",
		[PROXY_ADDRESS] = "address-not-allowed", [PROXY_RAW_IP] = "address-not-allowed",
		[PROXY_SNI] = "sni-mismatch", [PROXY_UNRESOLVED] = "unresolved",
	};
	e->category = e->proxy > 0 && (size_t)e->proxy < sizeof category / sizeof category[0] &&
		      category[e->proxy] ? category[e->proxy] : "malformed";
	switch (e->proxy) {
	case PROXY_UNLISTED:
		e->rule = xasprintf("%s is not in the allowed domains (policy %s, network mode domains)",
				    name, pname);
		fix_option(e, "--allow-domain", name, NULL);
		fix_policy(e, snippet(pname, "network",
				      json_pack("{s:s, s:[s]}", "mode", "domains", "allow", name)),
			   NULL);
		break;
	case PROXY_DENIED:
		e->rule = xasprintf("%s is on the deny list of policy %s (%s), which wins over the "
				    "allow list", name, pname, e->reason ? e->reason : "network.deny");
		fix_note(e, "a policy whose network.deny does not name it; --allow-domain cannot lift "
			    "a deny");
		break;
	case PROXY_ADDRESS:
		e->rule = xasprintf("%s resolves to %s, %s: the proxy does not reach the host, its "
				    "loopback or its networks unless the policy names the address "
				    "(policy %s)",
				    name, e->proxy_addr ? e->proxy_addr : "?",
				    e->reason ? e->reason : "a local address", pname);
		if (e->proxy_addr)
			fix_policy(e, snippet(pname, "network",
					      json_pack("{s:s, s:[s]}", "mode", "domains",
							"allow_addresses", e->proxy_addr)),
				   "only if that address is meant to be reachable from the sandbox");
		break;
	case PROXY_RAW_IP:
		e->rule = xasprintf("%s is an address: network mode domains reaches names, and "
				    "addresses only when the policy names them (policy %s)", name, pname);
		fix_note(e, "the name instead of the address, with --allow-domain NAME");
		fix_policy(e, snippet(pname, "network",
				      json_pack("{s:s, s:[s]}", "mode", "domains", "allow_addresses",
						name)),
			   "only if that address is meant to be reachable from the sandbox");
		break;
	case PROXY_SNI:
		e->rule = xasprintf("a TLS connection through a tunnel to another name asked for server "
				    "%s (SNI): one allowed name's address does not serve others "
				    "(policy %s)", name, pname);
		fix_option(e, "--allow-domain", name, "only if that name is meant to be reachable");
		break;
	case PROXY_UNRESOLVED:
		e->rule = xasprintf("%s has no address (%s): the name does not resolve, which is the "
				    "network's answer, not a refusal of the sandbox's", name,
				    e->reason ? e->reason : "lookup failed");
		break;
	default:
		e->rule = xasprintf("the proxy refused a malformed request: %s",
				    e->reason ? e->reason : "?");
		break;
	}
	/* What a grant lifts: a name not allowed (or the other one a TLS
	 * hello asked for), an address not named (asked for, or the one an
	 * allowed name resolved to); never a deny list, a malformed request
	 * or a name that does not resolve. */
	const char *place = e->proxy == PROXY_SNI ? e->proxy_name
			    : e->proxy == PROXY_ADDRESS ? e->proxy_addr : NULL;
	bool lift = e->proxy == PROXY_UNLISTED || e->proxy == PROXY_RAW_IP ||
		    ((e->proxy == PROXY_SNI || e->proxy == PROXY_ADDRESS) && place);
	derive(e, WK_REFUSED_PROXY, place, lift);
	if (!wk_grant_empty(&e->grant))
		fix_ask(e);
}

static void explain_net(const struct session *s, struct denial_entry *e)
{
	const char *pname = s->pol.name ? s->pol.name : DEFAULT_POLICY;
	unsigned port = port_of(e->object);
	bool fastopen = strncmp(e->object, "sendto ", 7) == 0 || strncmp(e->object, "sendmsg ", 8) == 0;
	bool bind = strncmp(e->object, "bind ", 5) == 0 || strncmp(e->object, "listen", 6) == 0;
	bool udp = strstr(e->object, "/udp") != NULL;
	const char *un = strstr(e->object, " unix:");
	/* A unix socket by its path; an address only where the grant's
	 * sandbox gets a proxy the program did not have (no network): one
	 * that went around the proxy goes around it again, and a grant
	 * reaches no host in mode ports (ask.c refuses it). */
	derive(e, WK_REFUSED_CONNECT, NULL, s->pol.net == NET_NONE);
	e->category = un ? "unix-socket" : s->pol.net == NET_PORTS ? "port-not-allowed" :
		      s->pol.net == NET_DOMAINS ? "proxy-bypassed" : "network-off";
	if (un && un[6] == '@') {
		e->rule = xasprintf("abstract unix sockets outside the sandbox are out of reach, and "
				    "without a network namespace of its own the sandbox's cannot be "
				    "told from the host's (policy %s)", pname);
		fix_note(e, "a pathname socket in the workspace or /tmp instead");
		fix_ask(e);
		return;
	}
	if (un) {
		char *dir = path_dirname(un + 6);
		struct wk_fstable t;
		struct wk_fsmatch m;
		plan_fstable(s, &t);
		wk_classify(&t, un + 6, &m);
		plan_fstable_free(&t);
		if (m.kind == RULE_KEEP)
			e->rule = xasprintf("unix socket %s is in %s, the host's directory kept "
					    "read-only in the session's /tmp (policy %s): host "
					    "services are out of reach", un + 6, m.rule, pname);
		else
			e->rule = xasprintf("unix socket %s is outside the writable roots and the "
					    "session's own /tmp and /dev/shm (policy %s): host "
					    "services are out of reach", un + 6, pname);
		/* Running the client outside first: reaching a host service
		 * lends the sandbox what the service does for its callers (a
		 * container runtime, systemd --user, an agent: code run
		 * outside), which is more than a write to one directory. */
		fix_ask(e);
		fix_policy(e, snippet(pname, "filesystem", json_pack("{s:[s]}", "write", dir)),
			   "only for a service you would let the sandbox drive: the socket's "
			   "directory becomes writable too, and the service then acts for the "
			   "sandbox outside it (a container runtime or systemd --user runs what "
			   "it is asked to)");
		free(dir);
		return;
	}
	if (s->pol.net == NET_PORTS && fastopen) {
		e->rule = xasprintf("TCP Fast Open is refused on every port: it connects without "
				    "passing Landlock's port check (policy %s, network mode ports)", pname);
		fix_note(e, "connect() first, then send: the program's option to turn Fast Open off");
		port = 0;
	} else if (s->pol.net == NET_PORTS) {
		if (port && !udp)
			e->rule = xasprintf("TCP port %u is not in the policy's network.%s list (policy "
					    "%s, network mode ports)", port, bind ? "bind" : "connect",
					    pname);
		else if (udp)
			e->rule = xasprintf("UDP is off in policy %s (network mode ports, \"udp\": false)",
					    pname);
		else
			e->rule = xasprintf("network mode ports allows TCP (and UDP when \"udp\" is true) "
					    "only (policy %s)", pname);
	} else if (s->pol.net == NET_DOMAINS) {
		/* A connection around the proxy: the program did not use the
		 * variables, or is told to go straight to an address. */
		e->rule = xasprintf("network mode domains: connections go through wicket's proxy, "
				    "named by HTTP_PROXY, HTTPS_PROXY and ALL_PROXY "
				    "(http://127.0.0.1:%d, socks5h://127.0.0.1:%d); this one did not "
				    "(policy %s)", PROXY_HTTP_PORT, PROXY_SOCKS_PORT, pname);
		fix_note(e, "make the program use the proxy (most honour HTTPS_PROXY; git, curl, "
			    "pip, npm and cargo do)");
		fix_option(e, "--net", "full", "all of the host's network");
		fix_ask(e);
		return;
	} else {
		e->rule = xasprintf("the network is off (policy %s, network mode none)", pname);
	}
	/* The TCP ports it needs: the one refused, else those of the URLs
	 * it was given (a name lookup over UDP fails before any connect). */
	unsigned tcp[8];
	size_t nt = 0, nh = 0;
	char *hosts[4];
	if (port && !udp)
		tcp[nt++] = port;
	else if (!fastopen)
		nt = url_targets(e, tcp, sizeof tcp / sizeof tcp[0], hosts,
				 sizeof hosts / sizeof hosts[0], &nh);
	/* A name it was given, refused its lookup: the narrowest way is
	 * that name alone, through the proxy (network mode domains). */
	for (size_t i = 0; i < nh; i++) {
		fix_option(e, "--allow-domain", hosts[i], i ? NULL :
			   "the name from its arguments, through wicket's proxy (network mode "
			   "domains): nothing else becomes reachable");
		free(hosts[i]);
	}
	json_t *ports = json_array();
	for (size_t i = 0; i < nt; i++)
		json_array_append_new(ports, json_integer(tcp[i]));
	if (nt && !udp && !bind) {
		/* --net ports:LIST replaces the policy's connect list: keep it. */
		size_t len = 0;
		char list[512] = "";
		for (size_t i = 0; i < s->pol.connect.n && s->pol.net == NET_PORTS && len < 400; i++)
			len += (size_t)snprintf(list + len, sizeof list - len, "%u,",
						(unsigned)s->pol.connect.v[i]);
		for (size_t i = 0; i < nt && len < 400; i++)
			len += (size_t)snprintf(list + len, sizeof list - len, "%u,", tcp[i]);
		list[len ? len - 1 : 0] = '\0';
		char *v = xasprintf("ports:%s", list);
		fix_option(e, "--net", v, NULL);
		free(v);
	}
	if (udp) {
		json_t *net = json_pack("{s:s, s:b}", "mode", "ports", "udp", 1);
		if (nt)
			json_object_set(net, "connect", ports);
		fix_policy(e, snippet(pname, "network", net),
			   nt ? "its name lookups (UDP) and the TCP ports of its URLs" :
				"and the TCP ports it connects to, in \"connect\" (443 for https)");
	} else if (nt) {
		fix_policy(e, snippet(pname, "network",
				      json_pack("{s:s, s:O}", "mode", "ports",
						bind ? "bind" : "connect", ports)), NULL);
	}
	json_decref(ports);
	fix_option(e, "--net", "full", "all of the host's network");
	fix_ask(e);
}

static void entry_free(struct denial_entry *e)
{
	free(e->object);
	free(e->what);
	free(e->comm);
	free(e->rule);
	free(e->source);
	free(e->reason);
	free(e->args);
	free(e->proxy_name);
	free(e->proxy_addr);
	wk_grant_free(&e->grant);
	strv_free(&e->argv);
	json_decref(e->fixes);
	memset(e, 0, sizeof *e);
}

static char *line_of(const struct denial_entry *e)
{
	if (e->kind == K_NET && e->reason)
		return xasprintf("sandbox: network blocked: %s (%s[%ld]): %s\n", e->object, e->comm,
				 e->pid, e->reason);
	if (e->kind == K_NET)
		return xasprintf("sandbox: network blocked: %s (%s[%ld])\n", e->object, e->comm, e->pid);
	if (e->what)
		return xasprintf("sandbox: %s blocked: %s (%s by %s[%ld])\n", kind_names[e->kind],
				 e->object, e->what, e->comm, e->pid);
	return xasprintf("sandbox: %s blocked: %s (%s[%ld])\n", kind_names[e->kind], e->object,
			 e->comm, e->pid);
}

/* The shell's hooks read, before each prompt, how many denials there
 * have been and the newest lines, from a memory file the supervisor
 * rewrites: "COUNT\nLINE\n..." (WICKET_STATUS_FD). */
/* SAID: its line is on the terminal already, where the hooks' block goes
 * too; the block says it again only if not ("+" before such a line). */
static void status_update(const struct denial_entry *e, bool said)
{
	if (status_fd < 0)
		return;
	if (n_recent == STATUS_LINES) {
		free(recent[0]);
		memmove(recent, recent + 1, (STATUS_LINES - 1) * sizeof recent[0]);
		n_recent--;
	}
	char *line = line_of(e);
	recent[n_recent++] = said ? xasprintf("+%s", line) : line;
	if (said)
		free(line);
	char head[32];
	int hl = snprintf(head, sizeof head, "%u\n", counts[0] + counts[1] + counts[2]);
	struct iovec iov[1 + STATUS_LINES];
	iov[0] = (struct iovec){head, (size_t)hl};
	size_t len = (size_t)hl;
	for (unsigned i = 0; i < n_recent; i++) {
		iov[1 + i] = (struct iovec){recent[i], strlen(recent[i])};
		len += iov[1 + i].iov_len;
	}
	if (pwritev(status_fd, iov, 1 + (int)n_recent, 0) == (ssize_t)len)
		(void)!ftruncate(status_fd, (off_t)len);
}

/* A line whose refused call waits for it (the shim's acknowledged
 * reports, seccomp's notifications: control_lines_out) goes at once,
 * before the program can say anything more. Others (the proxy's, a
 * report whose sender stopped waiting), without a terminal of the
 * session's own, are printed a few milliseconds after they arrive: the
 * program that was refused usually says so itself right away, into the
 * same file, and a line of ours written into the middle of its message
 * would split both. A burst goes out in one write. On the session's pty
 * they go at once: the shell's next prompt (and the hooks' block before
 * it) must come after them. */
#define PRINT_DELAY_NS 5000000L
#define PRINT_BUF_MAX 65536
/* When the lines go to a file the supervisor copies the command's stderr
 * into (stdio.c), the delay is not trusted: on a busy machine a program
 * can stall halfway through its message for longer. There a line waits
 * while the copy stands in the middle of one of the command's lines, for
 * its end, LINES_HOLD_MS at most; past that it goes on a line of its own. */
#define LINES_HOLD_MS 1000
#define LINES_RECHECK_NS 20000000L
static char *out_buf;
static size_t out_len, out_cap;
static int print_timer = -1;
static bool timer_armed, print_now;
static bool acking; /* a report waits for its line: no timer, out at once */
static bool relay_midline;   /* the copied stderr's last byte was not a newline */
static long long held_since; /* when a flush first waited for it, or 0 */
static void (*relay_catch_up)(void);

void control_relay_catch_up(void (*catch_up)(void))
{
	relay_catch_up = catch_up;
}

/* What the command wrote before our next line, copied in first: into
 * its terminal (pty.c), into the copied stderr (stdio.c). */
static void catch_up(void)
{
	pty_catch_up();
	if (relay_catch_up)
		relay_catch_up();
}

/* Our next byte starts a line, in the copied stderr too, and on the
 * terminal once the session's pty has given it back. */
static void line_break(void)
{
	bool pty = pty_midline();
	if (relay_midline || pty)
		(void)write_all(control_out_fd, "\n", 1);
	relay_midline = false;
	if (pty)
		pty_line_ended();
}

/* Before any message of ours (warnmsg), from the relay loop's thread. */
static pthread_t relay_thread;
static void message_break(void)
{
	if (pthread_equal(pthread_self(), relay_thread)) {
		if (relay_catch_up)
			relay_catch_up();
		line_break();
	}
}

/* The queued lines out, what the command wrote before them caught up
 * with already. */
static void write_lines(void)
{
	if (out_len)
		line_break();
	(void)write_all(control_out_fd, out_buf, out_len);
	out_len = 0;
	timer_armed = false;
	held_since = 0;
}

static void flush_lines(void)
{
	catch_up();
	write_lines();
}

static void arm(long ns)
{
	struct itimerspec its = {.it_value = {0, ns}};
	if (timerfd_settime(print_timer, 0, &its, NULL) == 0)
		timer_armed = true;
	else
		flush_lines();
}

/* The lines now, unless the copied stderr is in the middle of a line
 * (then at its end, or when they have waited long enough). */
static void flush_or_hold(void)
{
	catch_up();
	if (relay_midline && out_len && print_timer >= 0) {
		long long now = now_ms();
		if (!held_since)
			held_since = now;
		if (now - held_since < LINES_HOLD_MS) {
			arm(LINES_RECHECK_NS);
			return;
		}
	}
	write_lines();
}

void control_relay_wrote(bool at_line_start)
{
	relay_midline = !at_line_start;
	if (at_line_start && held_since && out_len)
		flush_lines();
}

void control_lines_now(void)
{
	if (out_len)
		flush_or_hold();
}

void control_lines_out(void)
{
	if (out_len)
		flush_lines();
}

static void timer_ready(struct session *s, struct watch *w, short revents)
{
	(void)s, (void)w, (void)revents;
	uint64_t n;
	if (read(print_timer, &n, sizeof n) < 0 && errno == EAGAIN)
		return;
	timer_armed = false;
	flush_or_hold();
}

static void queue_line(char *line);

/* isatty(control_out_fd), asked once: not a system call per denial. */
static bool out_is_tty(void)
{
	static int asked = -1;
	static bool tty;
	if (asked != control_out_fd) {
		asked = control_out_fd;
		tty = isatty(asked);
	}
	return tty;
}

/* False when the line was not printed (past MAX_PRINTED). */
static bool print_line(const struct denial_entry *e)
{
	if (printed >= MAX_PRINTED) {
		/* Queued as the lines are: it waits, as they do, for the end
		 * of the command's line (red team 17, F4). */
		if (!said_more)
			queue_line(xasprintf("%s: more denials than shown; they are counted (run "
					     "`wicket why`)\n", wicket_progname));
		said_more = true;
		return false;
	}
	printed++;
	queue_line(line_of(e));
	return true;
}

/* LINE (taken) to the diagnostics stream, after the lines before it. */
static void queue_line(char *line)
{
	size_t n = strlen(line);
	if (out_len + n > out_cap)
		out_buf = xrealloc(out_buf, out_cap = out_len + n + 4096);
	memcpy(out_buf + out_len, line, n);
	out_len += n;
	free(line);
	if (print_timer < 0 || print_now || acking || out_len >= PRINT_BUF_MAX)
		flush_lines();
	else if (!timer_armed)
		arm(PRINT_DELAY_NS);
}

/* The arguments (NUL-separated) of process PID into BUF, through its
 * /proc directory checked against PIDFD (proc_dir_of; WK_PIDFD_NONE where
 * the caller holds the number, a pending notification): their length, or
 * 0. For the advice, which reads them later (url_targets). */
static size_t args_of(pid_t pid, int pidfd, char *buf, size_t size)
{
	int dir = proc_dir_of(pid, pidfd);
	ssize_t n = -1;
	if (dir >= 0) { /* host: its /proc directory, checked */
		n = read_text_at(dir, "cmdline", buf, size);
		close(dir);
	}
	return n > 0 ? (size_t)n : 0;
}

/* A refusal that a program makes on purpose, to learn what it may do,
 * and then goes on without: one line for it after every `pip install`
 * teaches people to skip the lines. What a known probe looks like, and
 * its name in `wicket why`; NULL for anything else. The list is in
 * wicket(1), DIAGNOSTICS. */
static const char *probe_of(const char *obj)
{
	/* An IPv6 stream socket made only to learn whether the system has
	 * IPv6 (urllib3's, and so pip's and requests'): refused with the
	 * rest in network mode none. */
	if (strcmp(obj, "socket ipv6/tcp") == 0)
		return "IPv6 availability";
	/* A bind to port 0 of a loopback address: the same question, or a
	 * free port looked for; the connection that matters comes after. */
	static const char *const zero[] = {"bind [::1]:0/", "bind 127.0.0.1:0/"};
	for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++)
		if (strncmp(obj, zero[i], strlen(zero[i])) == 0)
			return "a loopback bind to port 0";
	return NULL;
}

/* Which exec of a warm session a process (its host pid) belongs to,
 * where warm.c says (control_exec_hook): so that a denial names the tool
 * call it came from, for a stream of that call's own. */
static unsigned long long (*exec_of)(pid_t host_pid);

void control_exec_hook(unsigned long long (*hook)(pid_t host_pid))
{
	exec_of = hook;
}

static bool (*exec_wants)(unsigned long long exec);
static void (*exec_line)(unsigned long long exec, const char *text);

void control_exec_events(bool (*wants)(unsigned long long exec),
			 void (*line)(unsigned long long exec, const char *text))
{
	exec_wants = wants;
	exec_line = line;
}

static bool exec_stream(const struct denial_entry *e)
{
	return e->exec && exec_wants && exec_wants(e->exec);
}

static void explain_entry(const struct session *s, struct denial_entry *e);

/* E's process's arguments as it claimed them (its /proc/PID/cmdline,
 * read when it was refused), each word as text (utf8.h); *CUT: more
 * than was read. */
static json_t *args_json(const struct denial_entry *e, bool *cut)
{
	json_t *a = json_array();
	*cut = e->args_len >= ARGS_READ;
	for (size_t i = 0; i < e->args_len;) {
		const char *w = e->args + i;
		const char *end = memchr(w, '\0', e->args_len - i);
		size_t n = end ? (size_t)(end - w) : e->args_len - i;
		json_array_append_new(a, wk_json_bytes(w, n));
		i += n + 1;
	}
	return a;
}

/* The "denial" line of the event stream (events.h), explained now: the
 * same rule, category and fixes `wicket why` gives. */
static void denial_event(const struct session *s, struct denial_entry *e, bool shown)
{
	explain_entry(s, e);
	const char *pname = s->pol.name ? s->pol.name : DEFAULT_POLICY;
	const char *category = e->category ? e->category : "other";
	events_count(category);
	char *src = e->source ? NULL : xasprintf("policy %s", pname);
	bool cut = false;
	json_t *o = json_object();
	json_object_set_new(o, "session", json_string(s->session_id ? s->session_id : ""));
	json_object_set_new(o, "kind", json_string(kind_names[e->kind]));
	json_object_set_new(o, "category", json_string(category));
	json_object_set_new(o, "object", wk_json_text(e->object));
	if (e->what)
		json_object_set_new(o, "operation", wk_json_text(e->what));
	else
		json_object_set_new(o, "operation", wk_json_bytes(e->object,
								  strcspn(e->object, " ")));
	json_object_set_new(o, "pid", json_integer(e->pid));
	json_object_set_new(o, "comm", wk_json_text(e->comm));
	json_object_set_new(o, "argv", args_json(e, &cut));
	if (cut)
		json_object_set_new(o, "argv_truncated", json_true());
	json_object_set_new(o, "rule", wk_json_text(e->rule ? e->rule : ""));
	json_object_set_new(o, "source", wk_json_text(e->source ? e->source : src));
	json_object_set_new(o, "fixes", json_deep_copy(e->fixes));
	if (!wk_grant_empty(&e->grant))
		json_object_set_new(o, "grant", wk_grant_to_json(&e->grant));
	if (e->reason)
		json_object_set_new(o, "reason", wk_json_text(e->reason));
	if (e->probe)
		json_object_set_new(o, "probe", json_string(e->probe));
	json_object_set_new(o, "shown", json_boolean(shown));
	/* A warm session's exec it came from (warm.c): a harness's tool call. */
	if (e->exec)
		json_object_set_new(o, "exec", json_integer((json_int_t)e->exec));
	free(src);
	if (exec_stream(e)) {
		/* The same line, to the exec's own stream (its client's). */
		json_t *doc = json_pack("{s:i, s:s}", "v", 1, "event", "denial");
		json_object_update(doc, o);
		char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(doc);
		if (text)
			exec_line(e->exec, text);
		free(text);
	}
	events_emit("denial", o);
}

/* A report's line waits for its acknowledgement: its event after it. */
static struct denial_entry *event_due;
static bool event_shown;

static void event_out(const struct session *s)
{
	if (event_due)
		denial_event(s, event_due, event_shown);
	event_due = NULL;
}

void control_denial(struct session *s, const struct denial *d, enum denial_show show)
{
	int k = kind_of(d->kind);
	if (k < 0 || !d->object || !d->object[0])
		return;
	/* A history or state file in the home (.bash_history, .cache/ ...):
	 * still refused, still in `wicket why`, but no line and no block
	 * after every command that touched it. */
	if (k == K_WRITE && show != DENIAL_QUIET && path_is_home_state(d->object, s->homes))
		show = DENIAL_QUIET;
	/* Known probes, and names that do not resolve (the network's
	 * answer, not a refusal): in `wicket why` only. */
	const char *probe = k == K_NET && !d->proxy ? probe_of(d->object) : NULL;
	if (probe || (k == K_NET && d->proxy == PROXY_UNRESOLVED))
		show = DENIAL_QUIET;
	recorded[k]++;
	if (show != DENIAL_QUIET)
		counts[k]++;
	char *object = text_clean(d->object, OBJECT_MAX);
	struct denial_entry *e = NULL;
	for (size_t i = 0; i < n_entries; i++)
		if (entries[i].kind == k && strcmp(entries[i].object, object) == 0) {
			e = &entries[i];
			break;
		}
	time_t now = time(NULL);
	if (e) {
		free(object);
		free(e->what);
		free(e->comm);
		/* Explained again when asked: its grant's command is the
		 * newest process's. */
		free(e->rule);
		e->rule = NULL;
		free(e->source);
		e->source = NULL;
		json_decref(e->fixes);
		e->fixes = NULL;
		wk_grant_free(&e->grant);
		strv_free(&e->argv);
	} else {
		if (n_entries == WK_MAX_DENIALS) {
			/* Full: the least recently reported one goes. */
			size_t old = 0;
			for (size_t i = 1; i < n_entries; i++)
				if (entries[i].seq < entries[old].seq)
					old = i;
			entry_free(&entries[old]);
			e = &entries[old];
		} else {
			e = &entries[n_entries++];
		}
		e->kind = k;
		e->object = object;
		e->first = now;
	}
	e->what = d->what && d->what[0] ? text_clean(d->what, 64) : NULL;
	e->comm = text_clean(d->comm && d->comm[0] ? d->comm : "?", 64);
	e->pid = d->pid;
	free(e->args);
	e->args = NULL;
	e->args_len = 0;
	char held[ARGS_READ];
	const char *args = d->args;
	size_t args_len = args ? d->args_len : 0;
	/* Its number is its own while the caller holds it (a pending
	 * seccomp notification): read now, for the advice later. */
	if (!args && k == K_NET && d->host_pid > 0) {
		args_len = args_of((pid_t)d->host_pid, WK_PIDFD_NONE, held, sizeof held);
		args = held;
	}
	if (args_len) {
		e->args = xmalloc(args_len);
		e->args_len = args_len;
		memcpy(e->args, args, args_len);
	}
	e->probe = probe;
	pid_t who = d->sender > 0 ? d->sender : (pid_t)d->host_pid;
	e->exec = exec_of && who > 0 ? exec_of(who) : 0;
	e->count++;
	e->last = now;
	e->seq = ++seq;
	if (d->reason && !e->reason)
		e->reason = text_clean(d->reason, 160);
	if (d->proxy && !e->proxy) {
		e->proxy = d->proxy;
		e->proxy_name = d->proxy_name ? text_clean(d->proxy_name, 256) : NULL;
		e->proxy_addr = d->proxy_addr ? text_clean(d->proxy_addr, 64) : NULL;
	}
	/* Which rule and how to allow it: worked out when `wicket why` or
	 * the record asks (explain_entry), not here, where the program
	 * waits for its line (the shim's acknowledgement). */
	/* Said where the user looks: by the shim on the command's stderr,
	 * or here on wicket's when that is the terminal (a pipe to it, when
	 * the command's stderr is the session's pty: pty.c). */
	bool said = show == DENIAL_SHOWN;
	if (show == DENIAL_PRINT) {
		print_now = false;
		for (int fd = 0; fd < 3; fd++)
			print_now |= s->stdio[fd].kind == STDIO_PTY;
		said = print_line(e) && (s->stdio[2].kind == STDIO_PTY || out_is_tty());
	}
	/* A way around the proxy of mode "domains": once a session, what
	 * the program should have used. */
	static bool hinted;
	if (k == K_NET && !d->proxy && s->pol.net == NET_DOMAINS && show != DENIAL_QUIET &&
	    !hinted && printed < MAX_PRINTED) {
		hinted = true;
		queue_line(xasprintf("sandbox: hint: in network mode domains the network is reached "
				     "through wicket's proxy only: HTTP_PROXY, HTTPS_PROXY and "
				     "ALL_PROXY name it (http://127.0.0.1:%d, socks5h://127.0.0.1:%d)\n",
				     PROXY_HTTP_PORT, PROXY_SOCKS_PORT));
	}
	if (show != DENIAL_QUIET)
		status_update(e, said);
	if (events_on() || exec_stream(e)) {
		event_due = e;
		event_shown = show != DENIAL_QUIET;
		if (!acking)
			event_out(s);
	}
}

/* --- the socket ---------------------------------------------------------- */

static int ctl_sup = -1;
/* The supervisor's end passes SCM_PIDFD with each packet (control_plan). */
static bool pidfds;

struct pending {
	int fd;
	char *buf;
	size_t len, off;
	struct watch *w;
};
static struct pending pending[PENDING_MAX];

/* The rule that refused E and the ways to allow it, once: from the
 * session's rules and the sandbox's view (view.h) as they are when it is
 * first asked for, and E's own record (its process's arguments). */
static void explain_entry(const struct session *s, struct denial_entry *e)
{
	if (e->rule)
		return;
	if (e->kind == K_NET && e->proxy)
		explain_proxy(s, e);
	else if (e->kind == K_NET)
		explain_net(s, e);
	else
		explain_fs(s, e);
	if (!e->fixes)
		e->fixes = json_array();
}

static json_t *entry_json(const struct denial_entry *e)
{
	json_t *allow = json_array();
	size_t i;
	json_t *fix;
	json_array_foreach(e->fixes, i, fix) {
		char *t = fix_text(fix);
		json_array_append_new(allow, json_string(t));
		free(t);
	}
	json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:s, s:o, s:O}", "kind",
			      kind_names[e->kind], "object", e->object, "comm", e->comm, "pid",
			      (json_int_t)e->pid, "count", (json_int_t)e->count, "first",
			      (json_int_t)e->first, "last", (json_int_t)e->last, "rule",
			      e->rule ? e->rule : "", "allow", allow, "fixes", e->fixes);
	if (o && e->what)
		json_object_set_new(o, "what", json_string(e->what));
	if (o && e->category)
		json_object_set_new(o, "category", json_string(e->category));
	if (o && e->probe)
		json_object_set_new(o, "probe", json_string(e->probe));
	/* The narrowest grant that allows it, its process's words, and the
	 * two as the command that asks for it (grantderive.h). */
	if (o && !wk_grant_empty(&e->grant))
		json_object_set_new(o, "grant", wk_grant_to_json(&e->grant));
	if (o && e->argv.n)
		json_object_set_new(o, "argv", words_json(&e->argv));
	if (o && e->exec)
		json_object_set_new(o, "exec", json_integer((json_int_t)e->exec));
	char *cmd = o ? wk_grant_command(&e->grant, &e->argv) : NULL;
	if (cmd)
		json_object_set_new(o, "command", json_string(cmd));
	free(cmd);
	return o;
}

static int by_seq_desc(const void *a, const void *b)
{
	const struct denial_entry *const *x = a, *const *y = b;
	return (*x)->seq < (*y)->seq ? 1 : (*x)->seq > (*y)->seq ? -1 : 0;
}

/* The session's denials, most recent first, at most N of them. */
static json_t *denials_json(const struct session *s, size_t n, bool ended)
{
	struct denial_entry *order[WK_MAX_DENIALS];
	for (size_t i = 0; i < n_entries; i++)
		order[i] = &entries[i];
	qsort(order, n_entries, sizeof order[0], by_seq_desc);
	json_t *list = json_array();
	for (size_t i = 0; i < n_entries && i < n; i++) {
		explain_entry(s, order[i]);
		json_array_append_new(list, entry_json(order[i]));
	}
	json_t *cnt = json_object();
	for (int k = 0; k < N_KINDS; k++)
		json_object_set_new(cnt, kind_names[k], json_integer(recorded[k]));
	json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:b, s:I, s:o, s:I, s:o}", "v", 1, "session",
			      s->session_id ? s->session_id : "", "policy",
			      s->pol.name ? s->pol.name : "", "workspace",
			      s->workspace ? s->workspace : "", "ended", ended, "time",
			      (json_int_t)time(NULL), "counts", cnt, "distinct", (json_int_t)n_entries,
			      "denials", list);
	if (o && s->argv && s->argv[0]) {
		json_object_set_new(o, "command", wk_json_text(s->argv[0]));
		/* The whole command: calls of one program tell apart by it. */
		json_t *argv = json_array();
		for (size_t i = 0; s->argv[i]; i++)
			json_array_append_new(argv, wk_json_text(s->argv[i]));
		json_object_set_new(o, "argv", argv);
	}
	return o;
}

static void pending_close(struct session *s, struct pending *p)
{
	(void)s;
	if (p->w)
		session_unwatch(p->w);
	closer_close(p->fd);
	free(p->buf);
	*p = (struct pending){.fd = -1};
}

static void pending_write(struct session *s, struct pending *p)
{
	while (p->off < p->len) {
		ssize_t w = send(p->fd, p->buf + p->off, p->len - p->off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w > 0) {
			p->off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return; /* the loop calls again when there is room */
		break;
	}
	pending_close(s, p);
}

static void pending_ready(struct session *s, struct watch *w, short revents)
{
	(void)revents;
	pending_write(s, w->data);
}

/* Write the reply on FD without ever waiting for the reader: what does
 * not fit now is written when the socket has room. */
static void reply(struct session *s, int fd, json_t *doc)
{
	char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	json_decref(doc);
	struct pending *p = NULL;
	for (size_t i = 0; i < PENDING_MAX; i++)
		if (pending[i].fd < 0 && !pending[i].buf) {
			p = &pending[i];
			break;
		}
	if (!text || !p) {
		free(text);
		closer_close(fd);
		return;
	}
	*p = (struct pending){.fd = fd, .buf = text, .len = strlen(text)};
	p->buf[p->len++] = '\n'; /* json_dumps leaves room: replace the NUL */
	pending_write(s, p);
	if (p->fd >= 0) {
		p->w = session_watch(s, fd, POLLOUT, pending_ready, p);
		if (!p->w)
			pending_close(s, p);
	}
}

static void reply_error(struct session *s, int fd, const char *msg)
{
	reply(s, fd, json_pack("{s:i, s:s, s:s}", "v", 1, "type", "error", "error", msg));
}

/* A descriptor that came with a request: a unix stream or packet socket,
 * else it is refused. */
static bool reply_socket_ok(int fd)
{
	struct stat st;
	int type = 0;
	socklen_t len = sizeof type;
	return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
	       (type == SOCK_STREAM || type == SOCK_SEQPACKET);
}

/* Where denial lines go: the supervisor's stderr (a test hook). */
int control_out_fd = STDERR_FILENO;

/* The descriptor to answer on: the only one of a "denial", "why" or "sync"
 * packet, the fourth of an "ask"; every other one is closed. */
static int answer_fd(const int *fds, int nfds)
{
	int keep = nfds == 1 ? 0 : nfds == 4 ? 3 : -1;
	int fd = keep >= 0 && reply_socket_ok(fds[keep]) ? fds[keep] : -1;
	for (int i = 0; i < nfds; i++)
		if (fds[i] != fd)
			closer_close(fds[i]);
	return fd;
}

void control_handle(struct session *s, const char *buf, size_t len, pid_t sender,
		    int sender_pidfd, const int *fds, int nfds)
{
	json_error_t err;
	json_t *o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	json_t *v = o ? json_object_get(o, "v") : NULL;
	const char *type = o ? json_string_value(json_object_get(o, "type")) : NULL;
	if (json_is_object(o) && json_is_integer(v) && json_integer_value(v) == 1 && type &&
	    strcmp(type, "ask") == 0) {
		/* ask.c takes the packet and every descriptor with it. */
		json_decref(o);
		ask_request(s, buf, len, sender, sender_pidfd, fds, nfds);
		return;
	}
	int fd = answer_fd(fds, nfds);
	if (!json_is_object(o) || !json_is_integer(v) || json_integer_value(v) != 1 || !type) {
		if (fd >= 0)
			reply_error(s, fd, "malformed request: a JSON object with \"v\": 1 and a "
					   "\"type\" is expected");
		json_decref(o);
		return;
	}
	if (strcmp(type, "denial") == 0) {
		struct wk_denial_pkt p;
		if (wk_denial_decode(o, &p)) {
			struct denial d = {
				.kind = p.kind,
				.object = p.object,
				.what = p.what,
				.comm = p.comm,
				.pid = p.pid,
				.sender = sender,
			};
			/* A sender may be gone and its number another's by the
			 * time the advice reads its arguments: read them now,
			 * through its /proc directory checked against its pidfd,
			 * or not at all. Every kind: the command a grant is asked
			 * for is the refused process's own. */
			char args[ARGS_READ];
			if (sender_pidfd >= 0) {
				d.args = args;
				d.args_len = args_of(sender, sender_pidfd, args, sizeof args);
			}
			acking = p.ack && ack_page;
			control_denial(s, &d, p.show == WK_DENIAL_QUIET ? DENIAL_QUIET :
					      p.show == WK_DENIAL_SHOWN ? DENIAL_SHOWN : DENIAL_PRINT);
			acking = false;
		}
		/* The shim waits with the failing call for the line (diag.c's
		 * send_report): out now, after what the command wrote before
		 * it and on a line of its own, then its token on the page says
		 * so. A malformed packet's sender is let go all the same. */
		if (p.ack && ack_page) {
			control_lines_out();
			ack_publish(ack_page, &ack_count, p.ack);
		}
		event_out(s);
		/* Past the last line and the message that says so, nothing
		 * is printed: no report need wait any more (the shim asks for
		 * none once it reads this). */
		if (ack_page && said_more && !ack_closed) {
			ack_close(ack_page);
			ack_closed = true;
		}
		if (fd >= 0)
			closer_close(fd);
	} else if (strcmp(type, "why") == 0) {
		json_t *n = json_object_get(o, "n");
		json_int_t want = n && json_is_integer(n) ? json_integer_value(n) : 20;
		if (fd < 0)
			; /* nowhere to answer */
		else if (want < 1 || (n && !json_is_integer(n)))
			reply_error(s, fd, "\"n\" must be a positive integer");
		else
			reply(s, fd, denials_json(s, want > WK_MAX_DENIALS ? WK_MAX_DENIALS :
						  (size_t)want, false));
	} else if (strcmp(type, "sync") == 0) {
		/* Every packet before this one has been taken: the shell's
		 * hooks read the status next (diag_status_sync). */
		if (fd >= 0)
			reply(s, fd, json_pack("{s:i, s:s}", "v", 1, "type", "sync"));
	} else if (fd >= 0) {
		char msg[128];
		snprintf(msg, sizeof msg, "unknown request type (this supervisor knows: denial, why, sync, ask)");
		reply_error(s, fd, msg);
	}
	json_decref(o);
}

void control_too_large(struct session *s, const int *fds, int nfds)
{
	int fd = answer_fd(fds, nfds);
	if (fd >= 0)
		reply_error(s, fd, "request too large");
}

/* Take what is waiting on the socket now (non-blocking, bounded). False
 * when it read an empty packet (the end, when every sender is gone). */
static bool draining;
static bool control_drain_now(struct session *s, char *buf);

static bool control_drain(struct session *s)
{
	static char buf[PACKET_MAX + 1];
	if (draining)
		return true;
	draining = true;
	bool r = control_drain_now(s, buf);
	draining = false;
	return r;
}

void control_catch_up(struct session *s)
{
	(void)control_drain(s);
}

static bool control_drain_now(struct session *s, char *buf)
{
	/* No more from the sandbox while the closer is behind (closer.h). */
	for (int reads = 0; ctl_sup >= 0 && reads < READS_PER_WAKE && !closer_busy(); reads++) {
		struct fdpass_in in;
		ssize_t n = closer_recv(ctl_sup, buf, PACKET_MAX, FDPASS_MAX,
					FDPASS_CREDS | FDPASS_PIDFD | FDPASS_ALL, MSG_DONTWAIT, &in);
		if (n < 0)
			return true;
		pid_t sender = in.pid;
		const int *fds = in.fds;
		int nfds = (int)in.nfds;
		int pidfd = in.pidfd >= 0 ? in.pidfd : pidfds ? WK_PIDFD_GONE : WK_PIDFD_NONE;
		/* A truncated packet is not read: its descriptors are closed, but
		 * for the reply socket, which is told why. */
		bool end = false;
		if (in.flags & (MSG_TRUNC | MSG_CTRUNC)) {
			control_too_large(s, fds, nfds);
		} else if (n == 0) {
			for (int i = 0; i < nfds; i++)
				closer_close(fds[i]);
			end = true;
		} else {
			control_handle(s, buf, (size_t)n, sender, pidfd, fds, nfds);
		}
		if (pidfd >= 0)
			close(pidfd);
		if (end)
			return false;
	}
	return true;
}

static void control_ready(struct session *s, struct watch *w, short revents)
{
	/* An empty read with POLLHUP: every process holding the other end is
	 * gone (an empty packet alone is just dropped). */
	bool more = !(revents & POLLIN) || control_drain(s);
	if ((revents & (POLLHUP | POLLERR)) && (!more || !(revents & POLLIN)))
		session_unwatch(w);
}

/* A descriptor number programs are unlikely to pick for themselves: high,
 * but within the usual limit of 1024 (a larger table costs memory). */
static int high_fd(int fd)
{
	struct rlimit rl;
	int lo = 3;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rlim_t top = rl.rlim_cur < 1024 ? rl.rlim_cur : 1024;
		if (top > 64)
			lo = (int)top - 24;
	}
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, lo);
	if (hi < 0)
		hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (hi < 0)
		return fd;
	close(fd);
	return hi;
}

/* Before anything shares this process's descriptor table (the network
 * namespace helper of supervisor.c does): moving a descriptor up to the
 * high numbers grows the table, and growing a shared one waits for an RCU
 * grace period (milliseconds). */
void control_plan(struct session *s)
{
	/* What the sandbox sends is closed off the relay loop (closer.h). */
	fdpass_set_closer(closer_close);
	relay_thread = pthread_self();
	wk_before_message = message_break;
	s->ctl_child = -1;
	s->status_fd = -1;
	s->ack_fd = -1;
	for (size_t i = 0; i < PENDING_MAX; i++)
		pending[i] = (struct pending){.fd = -1};
	for (size_t i = 0; i < WK_MAX_WATCH; i++)
		session_unwatch(&s->watch[i]);
	if (!s->pol.sandbox)
		return;
	int sv[2];
	if (fdpass_pair(sv) < 0)
		die_errno("control socket");
	int one = 1;
	/* And a pidfd of the sender with each packet, where the kernel can
	 * (6.5): `wicket ask` then knows its requester's /proc entry is not
	 * that of a process which got the number after the requester died. */
	pidfds = setsockopt(sv[0], SOL_SOCKET, SO_PASSPIDFD, &one, sizeof one) == 0;
	if (sv[0] <= 2)
		sv[0] = high_fd(sv[0]);
	ctl_sup = sv[0];
	/* Room for bursts of reports (what does not fit is dropped: the
	 * sandbox never waits); the kernel caps it at net.core.wmem_max. */
	int room = 1 << 20;
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &room, sizeof room);
	s->ctl_child = high_fd(sv[1]);
	struct watch *w = session_watch(s, ctl_sup, POLLIN, control_ready, NULL);
	if (!w)
		die("internal error: no room to watch the control socket");
	w->takes_fds = true;
	/* Without it the shim waits for nothing: the line's place is left
	 * to chance, as it was before the acknowledgement. */
	s->ack_fd = ack_page_make(&ack_page);
	if (s->ack_fd >= 0)
		s->ack_fd = high_fd(s->ack_fd);
	print_timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (print_timer >= 0 && !session_watch(s, print_timer, POLLIN, timer_ready, NULL)) {
		close(print_timer);
		print_timer = -1;
	}
}

/* The count the shell's hooks read, when shell.c decided there are some
 * (after control_plan). */
void control_status_plan(struct session *s)
{
	s->status_fd = -1;
	if (s->shell_hooks && ctl_sup >= 0) {
		int m = (int)memfd_create("wicket-status", MFD_CLOEXEC);
		if (m >= 0 && write(m, "0\n", 2) == 2) {
			status_fd = s->status_fd = high_fd(m);
		} else if (m >= 0) {
			close(m);
		}
	}
}

/* "NAME=FD:DEV:INO": the descriptor and the identity of what it holds, so
 * the sandbox's side can tell it from a number reused since; NULL when
 * FD cannot be looked at. */
static char *fd_var(const char *name, int fd)
{
	struct stat st;
	char v[FDSPEC_LEN];
	if (fstat(fd, &st) < 0)
		return NULL;
	fdspec_format(v, fd, &st);
	return xasprintf("%s=%s", name, v);
}

size_t control_env(const struct session *s, char **env, size_t w)
{
	env[w] = NULL;
	/* Each returns how many are left. */
	env_unset(env, "WICKET_FD");
	env_unset(env, "WICKET_STATUS_FD");
	env_unset(env, "WICKET_ACK_FD");
	w = env_unset(env, "WICKET_ASK_TAKE");
	char *v = s->status_fd >= 0 ? fd_var("WICKET_STATUS_FD", s->status_fd) : NULL;
	if (v)
		env[w++] = v;
	if (s->ctl_child >= 0) {
		v = fd_var("WICKET_FD", s->ctl_child);
		env[w++] = v ? v : xasprintf("WICKET_FD=%d", s->ctl_child);
		v = s->ack_fd >= 0 ? fd_var("WICKET_ACK_FD", s->ack_fd) : NULL;
		if (v)
			env[w++] = v;
		/* Where every sendmsg() of the sandbox's is a seccomp
		 * notification (unixnotify.c), `wicket ask` names its
		 * descriptors and sends with send(), which is not one; the
		 * supervisor takes them with the pidfd that comes with the
		 * packet (ask.c, take_fds), only from a process in the
		 * sandbox's pid namespace. A sandbox that sets this itself
		 * only changes how its own requests are sent. */
		if (pidfds && netnotify_unix(s) && s->layers.pidns)
			env[w++] = xstrdup("WICKET_ASK_TAKE=1");
	}
	env[w] = NULL;
	return w;
}

/* --- state kept after the session --------------------------------------- */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The oldest records go, those past WK_KEEP_BYTES counted from the
 * newest. */
#define PRUNE_EVERY 16
#define PRUNE_LARGE (64u << 10)
static void prune_records(int sfd)
{
	DIR *dir = opendir_dup(sfd);
	if (!dir)
		return;
	struct strv names = {0};
	struct dirent *de;
	while ((de = readdir(dir)) && names.n < WK_KEEP_NAMES)
		if (session_record_name(de->d_name))
			strv_add(&names, de->d_name);
	closedir(dir);
	qsort(names.v, names.n, sizeof *names.v, cmp_name);
	unsigned long long total = 0;
	for (size_t i = names.n; i-- > 0;) {
		struct stat st;
		/* host: a record in the state directory's sessions */
		if (fstatat(sfd, names.v[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			total += (unsigned long long)st.st_size;
		if (total > WK_KEEP_BYTES && i + 1 < names.n)
			unlinkat(sfd, names.v[i], 0);
	}
	strv_free(&names);
}

/* The session's denials, for `wicket why` after it: a fresh file in
 * sessions/ (the newest, WK_KEEP_BYTES of them, are kept, for `wicket why
 * --list` and `--session N`), and last-session.json a second name of it;
 * never written through a link. */
static void save_state(const struct session *s)
{
	char *dir = wicket_state_dir();
	if (!dir || !wicket_state_dir_make(dir)) {
		free(dir);
		return;
	}
	/* host: the user's state directory */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(dir);
	if (dfd < 0)
		return;
	if (mkdirat(dfd, "sessions", 0700) < 0 && errno != EEXIST) {
		close(dfd);
		return;
	}
	/* host: the state directory's sessions */
	int sfd = openat(dfd, "sessions", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0) {
		close(dfd);
		return;
	}
	json_t *doc = denials_json(s, WK_MAX_DENIALS, true);
	char *text = doc ? json_dumps(doc, JSON_INDENT(1)) : NULL;
	json_decref(doc);
	char tmp[64], name[64];
	snprintf(tmp, sizeof tmp, ".session.%ld.tmp", (long)getpid());
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(name, sizeof name, "%010lld.%09ld-%.16s.json", (long long)now.tv_sec, now.tv_nsec,
		 s->session_id ? s->session_id : "0");
	/* host: a record of our own, made anew */
	int fd = text ? openat(sfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0600) : -1;
	if (fd >= 0) {
		bool ok = write_all(fd, text, strlen(text)) && write_all(fd, "\n", 1);
		/* A new name, not renamed over an old file: ext4 would then
		 * write it out at once (auto_da_alloc), a fsync's worth of time
		 * on every session's way out. A reader in between finds no
		 * last-session.json. */
		if (close(fd) == 0 && ok && renameat(sfd, tmp, sfd, name) == 0) {
			unlinkat(dfd, "last-session.json", 0);
			/* Without hard links (or should it fail) `wicket why` reads
			 * the newest record instead. */
			if (linkat(sfd, name, dfd, "last-session.json", 0) < 0)
				unlinkat(dfd, "last-session.json", 0);
			/* Pruning looks at every record kept, tens of thousands
			 * of small ones: every PRUNE_EVERY-th session by its
			 * random id, and after any large record, so that the
			 * bound is passed by PRUNE_EVERY records of at most
			 * PRUNE_LARGE bytes, not by any amount. */
			unsigned long long sid = s->session_id ? strtoull(s->session_id, NULL, 16) : 0;
			if (sid % PRUNE_EVERY == 0 || strlen(text) > PRUNE_LARGE)
				prune_records(sfd);
		} else {
			unlinkat(sfd, tmp, 0);
		}
	}
	free(text);
	close(sfd);
	close(dfd);
}

void control_init_close(struct session *s)
{
	if (ctl_sup >= 0)
		close(ctl_sup);
	if (s->ctl_child >= 0)
		close(s->ctl_child);
	if (status_fd >= 0)
		close(status_fd);
	if (print_timer >= 0)
		close(print_timer);
	if (s->ack_fd >= 0)
		close(s->ack_fd);
	/* init is inside the sandbox: the page's one writable mapping
	 * stays the supervisor's. */
	if (ack_page)
		munmap(ack_page, ACK_PAGE_SIZE);
	ack_page = NULL;
	ctl_sup = status_fd = print_timer = -1;
	s->ctl_child = s->status_fd = s->ack_fd = -1;
}

void control_finish(struct session *s)
{
	if (ctl_sup < 0)
		return;
	control_drain(s);
	ask_finish(s);
	for (size_t i = 0; i < PENDING_MAX; i++)
		if (pending[i].fd >= 0)
			pending_close(s, &pending[i]);
	/* What the sandbox left unread in it goes with it, closed by the
	 * closer: a lingering socket among it would wait here (red team
	 * 17, F1). */
	closer_close(ctl_sup);
	ctl_sup = -1;
	flush_lines();
	/* Nothing more is read: a report sent since waits for nothing. */
	if (ack_page && !ack_closed)
		ack_close(ack_page);
	ack_closed = true;
	if (print_timer >= 0)
		close(print_timer);
	print_timer = -1;
	save_state(s);
	unsigned total = counts[0] + counts[1] + counts[2];
	if (!total)
		return;
	line_break();
	char msg[256];
	size_t n = 0;
	static const char *const what[N_KINDS] = {"write", "read", "network use"};
	for (int k = 0; k < N_KINDS; k++) {
		if (!counts[k])
			continue;
		n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%u %s%s", n ? ", " : "", counts[k],
				      what[k], counts[k] == 1 ? "" : "s");
	}
	if (s->grant_of)
		/* The session that asked explains its own refusals, not these. */
		warnmsg("the grant's sandbox blocked %s; outside the sandbox, `wicket why --session "
			"%s` has the details", msg, s->session_id ? s->session_id : "?");
	else
		warnmsg("the sandbox blocked %s; run `wicket why` for details", msg);
}
