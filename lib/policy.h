/* Policies: the JSON format of wicket-policy(5), parsed with jansson.
 *
 * Loading a policy reads it (a built-in name, a name found in the search
 * directories, or a file path), follows its "extends" chain base first,
 * validates every key, and expands the variables. The result still holds
 * lexical paths (absolute and normalised, not canonicalised): the
 * launcher canonicalises them against the file system it is about to
 * sandbox. Every error names the file and the JSON pointer (or line and
 * column for syntax errors); all errors are collected, not just the first.
 *
 * Layering along "extends" (base first, then each child):
 *   - path lists (but filesystem.read), env.unset, network.connect/bind,
 *     network.allow/deny/allow_addresses, escalation.allow/deny append
 *     (duplicates dropped);
 *   - filesystem.read is replaced by a child that sets it (reading is
 *     allowed everywhere unless a policy narrows it);
 *   - env.set and network.hosts merge by name, the child winning;
 *   - scalars (description, sandbox, filesystem.tmp_size, network.mode,
 *     network.udp, escalation.mode/approver/timeout) are replaced when
 *     the child sets them. */
#ifndef WICKET_POLICY_H
#define WICKET_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grant.h"

#include "util.h"

#define WK_TMP_SIZE_MAX 16

enum wk_net { WK_NET_NONE, WK_NET_FULL, WK_NET_PORTS, WK_NET_DOMAINS };
enum wk_esc { WK_ESC_PROMPT, WK_ESC_DENY, WK_ESC_APPROVER };

/* One path rule: as written, expanded, and where it came from. */
struct wk_rule {
	char *text;  /* as written in the file */
	char *path;  /* variables expanded, absolute, normalised */
	char *where; /* "FILE: /filesystem/write/1", for messages */
};

struct wk_rules {
	struct wk_rule *v;
	size_t n, cap;
};

struct wk_ports {
	uint16_t *v;
	size_t n, cap;
};

/* A rule of escalation.allow/deny: the whole argv, where "*" stands for
 * any one argument and a last "**" for any further arguments (a leading
 * backslash is dropped: "\\*" is a literal "*"; ask_args_match()), and
 * the working directory it must run in (NULL: any). */
struct wk_cmdrule {
	struct strv argv;
	char *cwd; /* variables expanded, absolute, normalised */
	bool stdin; /* "stdin": true: also when the sandbox writes its standard input */
	struct wk_grant grant; /* allow rules: the most it grants (grant.h); none: nothing */
};

struct wk_argvs {
	struct wk_cmdrule *v;
	size_t n, cap;
};

struct wk_policy {
	char *name;        /* the name or path it was loaded by */
	char *source;      /* the file, or "built-in" */
	char *description;
	struct strv chain; /* sources along "extends", base first */
	bool sandbox;      /* false: full access, no enforcement at all */
	struct wk_rules read, write, protect, hide;
	/* The size limit of the private /tmp and /dev/shm, each: tmpfs's
	 * "size=" value ("25%", "4g", "512m", ...), checked by wk_tmp_size_ok. */
	char tmp_size[WK_TMP_SIZE_MAX];
	enum wk_net net;
	struct wk_ports connect, bind; /* WK_NET_PORTS only */
	bool udp;                      /* WK_NET_PORTS: UDP all or nothing */
	/* WK_NET_DOMAINS: name patterns (netdomain.h), the addresses the
	 * proxy may reach although they are loopback, private or the host's
	 * own (canonical text), and names the proxy resolves to a fixed
	 * address instead of asking DNS ("NAME=ADDRESS", one per name). */
	struct strv domains_allow, domains_deny;
	struct strv allow_addresses;
	struct strv hosts;
	struct strv env_unset;         /* glob patterns */
	struct strv env_set;           /* "NAME=value", one per name */
	enum wk_esc esc_mode;
	char *esc_approver;
	int esc_timeout; /* seconds */
	struct wk_argvs esc_allow, esc_deny;
};

/* The default of filesystem.tmp_size: a quarter of RAM for each of /tmp
 * and /dev/shm (tmpfs's own default is half, without swap unswappable). */
#define WK_TMP_SIZE_DEFAULT "25%"

/* True when S is a tmp_size: a number from 1, in bytes or with a k, m or
 * g suffix (either case), or a percentage of RAM from 1% to 100%. */
bool wk_tmp_size_ok(const char *s);

/* What the variables stand for. */
struct wk_vars {
	const char *cwd, *home, *tmpdir, *runtime_dir;
};

struct wk_policy_ctx {
	struct wk_vars vars;
	/* Directories searched for NAME.json, in order, before the built-ins;
	 * NULL-terminated, may be NULL. */
	const char *const *search;
	bool check_owner;  /* refuse files writable by others or owned by others */
	bool follow_files; /* "extends" may load files (false: built-ins only) */
	/* If set, the path of every file the load opens or tries to, found
	 * or not, valid or not, is added: what its result depends on. */
	struct strv *opened;
	struct strv errors; /* formatted messages, one per error */
};

struct wk_builtin {
	const char *name;
	const char *json;
};
/* NULL-terminated, generated from policies/NAME.json at build time. */
extern const struct wk_builtin wk_builtins[];
const struct wk_builtin *wk_builtin_find(const char *name);

/* True when S names a policy ([A-Za-z0-9._-], no leading '.') rather than
 * a file; a file has a '/' or ends in ".json". */
bool wk_policy_is_name(const char *s);

/* Load NAME_OR_FILE. Returns 0, or -1 with ctx->errors filled in. */
int wk_policy_load(struct wk_policy_ctx *ctx, const char *name_or_file, struct wk_policy *out);
/* Parse DATA (LEN bytes, labelled LABEL in messages) as a policy file. */
int wk_policy_load_buffer(struct wk_policy_ctx *ctx, const char *label, const char *data,
			  size_t len, struct wk_policy *out);
void wk_policy_free(struct wk_policy *p);
void wk_policy_ctx_free(struct wk_policy_ctx *ctx);

const char *wk_net_name(enum wk_net n);
const char *wk_esc_name(enum wk_esc e);

#endif
