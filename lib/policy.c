/* The policy loader: JSON in, a layered and validated policy out. See
 * policy.h for the layering rules and wicket-policy(5) for the format. */
#include "config.h"
#include "policy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netdomain.h"
#include "path.h"
#include "realpath.h"

#define MAX_FILE_SIZE (1 << 20)
#define MAX_DEPTH 16

/* One file being applied: its label for messages and where it lives. */
struct src {
	const char *label;   /* as shown in messages */
	const char *dir;     /* directory for relative "extends" paths, or NULL */
	const char *as_name; /* the name it was found by, or NULL */
	int search_pos;      /* index of the search dir it was found in, -1 */
	bool builtin;
};

struct loader {
	struct wk_policy_ctx *ctx;
	struct strv stack; /* identities being loaded, for cycles */
	int depth;
	int errors;
	/* Which scalar the policy set, and where, for contradictions. */
	char *sandbox_where;
	bool read_set; /* some policy along the chain set filesystem.read */
};

static void err(struct loader *l, const char *label, const char *ptr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void err(struct loader *l, const char *label, const char *ptr, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (ptr)
		strv_push(&l->ctx->errors, xasprintf("%s: %s: %s", label, ptr[0] ? ptr : "/", msg));
	else
		strv_push(&l->ctx->errors, xasprintf("%s: %s", label, msg));
	free(msg);
	l->errors++;
}

/* JSON pointer of KEY under PARENT (RFC 6901 escaping). */
static char *ptr_key(const char *parent, const char *key)
{
	size_t n = strlen(parent) + 2 + 2 * strlen(key);
	char *p = xmalloc(n), *w = p + strlen(parent);
	strcpy(p, parent);
	*w++ = '/';
	for (const char *k = key; *k; k++) {
		if (*k == '~') {
			*w++ = '~';
			*w++ = '0';
		} else if (*k == '/') {
			*w++ = '~';
			*w++ = '1';
		} else {
			*w++ = *k;
		}
	}
	*w = '\0';
	return p;
}

static char *ptr_idx(const char *parent, size_t i)
{
	return xasprintf("%s/%zu", parent, i);
}

/* A+B+C in one allocation: this runs for every rule of every policy on
 * the start-up path, where printf-style formatting shows up. */
static char *concat3(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *r = xmalloc(la + lb + lc + 1);
	memcpy(r, a, la);
	memcpy(r + la, b, lb);
	memcpy(r + la + lb, c, lc + 1);
	return r;
}

/* PARENT/I into BUF (large enough: parent pointers are short constants). */
static const char *ptr_idx_buf(char *buf, size_t cap, const char *parent, size_t i)
{
	char digits[24];
	size_t nd = 0;
	do
		digits[nd++] = (char)('0' + i % 10);
	while ((i /= 10) && nd < sizeof digits);
	size_t lp = strlen(parent);
	if (lp + 1 + nd + 1 > cap)
		return parent;
	memcpy(buf, parent, lp);
	buf[lp] = '/';
	for (size_t k = 0; k < nd; k++)
		buf[lp + 1 + k] = digits[nd - 1 - k];
	buf[lp + 1 + nd] = '\0';
	return buf;
}

static const char *type_name(const json_t *j)
{
	if (!j)
		return "nothing (the key is missing)";
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "something else";
}

/* --- unknown keys ------------------------------------------------------ */

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t best = diag + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* Every key of OBJ must be one of KNOWN; near misses get a suggestion. */
static void check_keys(struct loader *l, const struct src *s, const char *ptr, json_t *obj,
		       const char *const *known)
{
	const char *key;
	json_t *v;
	json_object_foreach(obj, key, v) {
		bool ok = false;
		for (size_t i = 0; known[i] && !ok; i++)
			ok = strcmp(key, known[i]) == 0;
		if (ok)
			continue;
		const char *best = NULL;
		size_t bd = 3;
		for (size_t i = 0; known[i]; i++) {
			size_t d = edit_distance(key, known[i]);
			if (d < bd && d <= strlen(known[i]) / 2) {
				bd = d;
				best = known[i];
			}
		}
		char *p = ptr_key(ptr, key);
		if (best) {
			err(l, s->label, p, "unknown key \"%s\"; did you mean \"%s\"?", key, best);
		} else {
			char list[256] = "";
			for (size_t i = 0; known[i]; i++) {
				if (i)
					strncat(list, ", ", sizeof list - strlen(list) - 1);
				strncat(list, known[i], sizeof list - strlen(list) - 1);
			}
			err(l, s->label, p, "unknown key \"%s\" (known here: %s)", key, list);
		}
		free(p);
	}
}

/* --- variables --------------------------------------------------------- */

static const char *var_value(const struct wk_vars *v, const char *name, size_t len)
{
	if (len == 3 && strncmp(name, "cwd", 3) == 0)
		return v->cwd;
	if (len == 4 && strncmp(name, "home", 4) == 0)
		return v->home;
	if (len == 6 && strncmp(name, "tmpdir", 6) == 0)
		return v->tmpdir;
	if (len == 11 && strncmp(name, "runtime_dir", 11) == 0)
		return v->runtime_dir;
	return NULL;
}

/* Expand ${var} (and, when TILDE, a leading "~" or "~/"). Returns NULL
 * and a message in *why on an unknown or unterminated variable. */
static char *expand(const struct wk_vars *vars, const char *in, bool tilde, char **why)
{
	size_t cap = strlen(in) + 1, n = 0;
	char *out = xmalloc(cap);
	const char *p = in;
#define PUT(str, len)                                       \
	do {                                                \
		size_t l_ = (len);                          \
		while (n + l_ + 1 > cap)                    \
			out = xrealloc(out, cap *= 2);      \
		memcpy(out + n, (str), l_);                 \
		n += l_;                                    \
	} while (0)
	if (tilde && p[0] == '~') {
		if (p[1] != '\0' && p[1] != '/') {
			*why = xasprintf("\"%s\": ~user is not supported; write ${home}/... or an "
					 "absolute path", in);
			free(out);
			return NULL;
		}
		if (!vars->home) {
			*why = xasprintf("\"%s\": ~ has no value here (no home directory)", in);
			free(out);
			return NULL;
		}
		PUT(vars->home, strlen(vars->home));
		p++;
	}
	while (*p) {
		if (p[0] == '$' && p[1] == '{') {
			const char *end = strchr(p + 2, '}');
			if (!end) {
				*why = xasprintf("unterminated variable in \"%s\"", in);
				free(out);
				return NULL;
			}
			const char *val = var_value(vars, p + 2, (size_t)(end - p - 2));
			if (!val) {
				if (var_value(&(struct wk_vars){"", "", "", ""}, p + 2,
					      (size_t)(end - p - 2)))
					*why = xasprintf("\"%s\": ${%.*s} has no value here", in,
							 (int)(end - p - 2), p + 2);
				else
					*why = xasprintf("unknown variable ${%.*s} in \"%s\" (known: "
							 "${cwd}, ${home}, ${tmpdir}, ${runtime_dir})",
							 (int)(end - p - 2), p + 2, in);
				free(out);
				return NULL;
			}
			PUT(val, strlen(val));
			p = end + 1;
		} else {
			PUT(p, 1);
			p++;
		}
	}
#undef PUT
	out[n] = '\0';
	return out;
}

/* --- appliers ---------------------------------------------------------- */

static void rules_free(struct wk_rules *r);

static bool rules_has(const struct wk_rules *r, const char *path)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].path, path) == 0)
			return true;
	return false;
}

static void apply_paths(struct loader *l, const struct src *s, const char *ptr, json_t *arr,
			struct wk_rules *out)
{
	if (!json_is_array(arr)) {
		err(l, s->label, ptr, "expected an array of paths, got %s", type_name(arr));
		return;
	}
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e) {
		char pbuf[64];
		const char *p = ptr_idx_buf(pbuf, sizeof pbuf, ptr, i);
		const char *text = json_string_value(e);
		char *why = NULL, *x = NULL, *norm = NULL;
		if (!json_is_string(e)) {
			err(l, s->label, p, "expected a path (a string), got %s", type_name(e));
		} else if (text[0] == '\0') {
			err(l, s->label, p, "empty path");
		} else if (strlen(text) >= PATH_MAX) {
			err(l, s->label, p, "path longer than %d bytes", PATH_MAX);
		} else if (!(x = expand(&l->ctx->vars, text, true, &why))) {
			err(l, s->label, p, "%s", why);
		} else if (x[0] != '/') {
			err(l, s->label, p,
			    "relative path \"%s\"; write an absolute path or ${cwd}/%s", text, text);
		} else if (!(norm = path_normalize(x))) {
			err(l, s->label, p, "cannot normalise \"%s\"", text);
		} else if (!rules_has(out, norm)) {
			if (out->n == out->cap) {
				out->cap = out->cap ? out->cap * 2 : 8;
				out->v = xrealloc(out->v, out->cap * sizeof *out->v);
			}
			char *where = concat3(s->label, ": ", p);
			out->v[out->n++] = (struct wk_rule){
				.text = xstrdup(text),
				.path = norm,
				.where = where,
			};
			norm = NULL;
		}
		free(why);
		free(x);
		free(norm);
	}
}

static void apply_ports(struct loader *l, const struct src *s, const char *ptr, json_t *arr,
			struct wk_ports *out)
{
	if (!json_is_array(arr)) {
		err(l, s->label, ptr, "expected an array of port numbers, got %s", type_name(arr));
		return;
	}
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e) {
		char pbuf[64];
		const char *p = ptr_idx_buf(pbuf, sizeof pbuf, ptr, i);
		if (!json_is_integer(e)) {
			err(l, s->label, p, "expected a port number (an integer), got %s",
			    type_name(e));
		} else if (json_integer_value(e) < 1 || json_integer_value(e) > 65535) {
			err(l, s->label, p, "port %" JSON_INTEGER_FORMAT " out of range (1-65535)",
			    json_integer_value(e));
		} else {
			uint16_t port = (uint16_t)json_integer_value(e);
			bool dup = false;
			for (size_t k = 0; k < out->n && !dup; k++)
				dup = out->v[k] == port;
			if (!dup) {
				if (out->n == out->cap) {
					out->cap = out->cap ? out->cap * 2 : 8;
					out->v = xrealloc(out->v, out->cap * sizeof *out->v);
				}
				out->v[out->n++] = port;
			}
		}
	}
}

static bool get_bool(struct loader *l, const struct src *s, const char *ptr, json_t *v, bool *out)
{
	if (!json_is_boolean(v)) {
		err(l, s->label, ptr, "expected true or false, got %s", type_name(v));
		return false;
	}
	*out = json_is_true(v);
	return true;
}

static void apply_filesystem(struct loader *l, const struct src *s, json_t *fs,
			     struct wk_policy *out)
{
	static const char *const known[] = {"read", "write", "protect", "hide", "tmp_size", NULL};
	if (!json_is_object(fs)) {
		err(l, s->label, "/filesystem", "expected an object, got %s", type_name(fs));
		return;
	}
	check_keys(l, s, "/filesystem", fs, known);
	json_t *v;
	if ((v = json_object_get(fs, "read"))) {
		/* The one list that replaces: everything is readable unless a
		 * policy narrows it, and a narrower list appended to an
		 * inherited "/" would narrow nothing. */
		rules_free(&out->read);
		l->read_set = true;
		apply_paths(l, s, "/filesystem/read", v, &out->read);
	}
	if ((v = json_object_get(fs, "write")))
		apply_paths(l, s, "/filesystem/write", v, &out->write);
	if ((v = json_object_get(fs, "protect")))
		apply_paths(l, s, "/filesystem/protect", v, &out->protect);
	if ((v = json_object_get(fs, "hide")))
		apply_paths(l, s, "/filesystem/hide", v, &out->hide);
	if ((v = json_object_get(fs, "tmp_size"))) {
		if (!json_is_string(v) || !wk_tmp_size_ok(json_string_value(v)))
			err(l, s->label, "/filesystem/tmp_size",
			    "expected a size such as \"4g\", \"512m\" or \"25%%\" (of RAM), "
			    "at least 1 byte and at most 100%%");
		else
			snprintf(out->tmp_size, sizeof out->tmp_size, "%s", json_string_value(v));
	}
}

bool wk_tmp_size_ok(const char *s)
{
	size_t n = strspn(s, "0123456789");
	if (n == 0 || n > 12 || s[0] == '0')
		return false;
	const char *suf = s + n;
	if (*suf == '\0')
		return true;
	if (suf[1] != '\0' || !strchr("kKmMgG%", *suf))
		return false;
	return *suf != '%' || strtoul(s, NULL, 10) <= 100;
}

/* KV ("NAME=value", taken) into OUT, replacing an entry of the same NAME:
 * the later policy wins. */
static void set_by_name(struct strv *out, char *kv)
{
	size_t nl = strcspn(kv, "=") + 1;
	for (size_t k = 0; k < out->n; k++)
		if (strncmp(out->v[k], kv, nl) == 0) {
			free(out->v[k]);
			out->v[k] = kv;
			return;
		}
	strv_push(out, kv);
}


/* A string of network.allow or deny: NULL (OUT the pattern), or why not. */
static char *check_pattern(const char *v, char *out, size_t outsz)
{
	const char *why;
	if (wk_addr_canonical(v, 0, out, outsz))
		return xasprintf("\"%s\" is an address: addresses go in \"allow_addresses\"", v);
	if ((why = wk_pattern_check(v)))
		return xasprintf("\"%s\" is not a name or \"*.\" and a name: %s", v, why);
	snprintf(out, outsz, "%s", v);
	return NULL;
}

/* A string of network.allow: a pattern, or one and ":PORT" (reached on
 * that port only); NULL (OUT the pattern, and ":PORT" as a number), or why
 * not. */
static char *check_allow(const char *v, char *out, size_t outsz)
{
	const char *colon = strrchr(v, ':');
	if (!colon || wk_addr_canonical(v, 0, out, outsz))
		return check_pattern(v, out, outsz);
	char *end;
	errno = 0;
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || colon[1] < '1' || colon[1] > '9' || port > 65535)
		return xasprintf("\"%s\": the port after ':' is not a number from 1 to 65535", v);
	char *name = xasprintf("%.*s", (int)(colon - v), v);
	char *why = check_pattern(name, out, outsz);
	free(name);
	if (!why && strlen(out) + 8 < outsz)
		snprintf(out + strlen(out), outsz - strlen(out), ":%lu", port);
	return why;
}

/* A string of network.allow_addresses: NULL (OUT canonical), or why not. */
static char *check_address(const char *v, char *out, size_t outsz)
{
	if (wk_addr_canonical(v, 0, out, outsz))
		return NULL;
	return xasprintf("\"%s\" is not an IPv4 or IPv6 address (one address each, no ranges)", v);
}

/* An array of strings at PTR, each one CHECKed (WHAT: the kind, for
 * messages), into OUT as CHECK gave it, duplicates dropped. */
static void apply_strings(struct loader *l, const struct src *s, const char *ptr, json_t *arr,
			  const char *what, char *(*check)(const char *, char *, size_t),
			  struct strv *out)
{
	if (!json_is_array(arr)) {
		err(l, s->label, ptr, "expected an array of %ss, got %s", what, type_name(arr));
		return;
	}
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e) {
		char pbuf[64], val[WK_NAME_MAX + 8];
		const char *p = ptr_idx_buf(pbuf, sizeof pbuf, ptr, i);
		const char *v = json_string_value(e);
		char *why = v ? check(v, val, sizeof val) : NULL;
		if (!v)
			err(l, s->label, p, "expected a %s (a string), got %s", what, type_name(e));
		else if (why)
			err(l, s->label, p, "%s", why);
		else if (!strv_contains(out, val))
			strv_add(out, val);
		free(why);
	}
}

static void apply_hosts(struct loader *l, const struct src *s, json_t *obj, struct strv *out)
{
	if (!json_is_object(obj)) {
		err(l, s->label, "/network/hosts",
		    "expected an object of NAME: ADDRESS, got %s", type_name(obj));
		return;
	}
	const char *name;
	json_t *e;
	json_object_foreach(obj, name, e) {
		char *p = ptr_key("/network/hosts", name);
		const char *a = json_string_value(e);
		char kv[WK_NAME_MAX + 2 + 64];
		bool addr_bad = false;
		const char *why = wk_name_check(name, strlen(name));
		if (!why && a)
			why = wk_hosts_entry(name, strlen(name), a, kv, sizeof kv, &addr_bad);
		if (why && !addr_bad)
			err(l, s->label, p, "\"%s\" is not a name: %s", name, why);
		else if (!a)
			err(l, s->label, p, "expected an IP address (a string), got %s", type_name(e));
		else if (why)
			err(l, s->label, p, "\"%s\" is not an IPv4 or IPv6 address", a);
		else
			set_by_name(out, xstrdup(kv));
		free(p);
	}
}

static void apply_network(struct loader *l, const struct src *s, json_t *net,
			  struct wk_policy *out)
{
	static const char *const known[] = {"mode",  "connect", "bind",  "udp", "allow",
					    "deny",  "allow_addresses", "hosts", NULL};
	if (!json_is_object(net)) {
		err(l, s->label, "/network", "expected an object, got %s", type_name(net));
		return;
	}
	check_keys(l, s, "/network", net, known);
	json_t *v;
	if ((v = json_object_get(net, "mode"))) {
		const char *m = json_string_value(v);
		if (!m)
			err(l, s->label, "/network/mode",
			    "expected \"none\", \"full\", \"ports\" or \"domains\", got %s",
			    type_name(v));
		else if (strcmp(m, "none") == 0)
			out->net = WK_NET_NONE;
		else if (strcmp(m, "full") == 0)
			out->net = WK_NET_FULL;
		else if (strcmp(m, "ports") == 0)
			out->net = WK_NET_PORTS;
		else if (strcmp(m, "domains") == 0)
			out->net = WK_NET_DOMAINS;
		else
			err(l, s->label, "/network/mode",
			    "unknown mode \"%s\"; expected \"none\", \"full\", \"ports\" or "
			    "\"domains\"",
			    m);
	}
	if ((v = json_object_get(net, "connect")))
		apply_ports(l, s, "/network/connect", v, &out->connect);
	if ((v = json_object_get(net, "bind")))
		apply_ports(l, s, "/network/bind", v, &out->bind);
	if ((v = json_object_get(net, "udp")))
		get_bool(l, s, "/network/udp", v, &out->udp);
	if ((v = json_object_get(net, "allow")))
		apply_strings(l, s, "/network/allow", v, "name", check_allow, &out->domains_allow);
	if ((v = json_object_get(net, "deny")))
		apply_strings(l, s, "/network/deny", v, "name", check_pattern, &out->domains_deny);
	if ((v = json_object_get(net, "allow_addresses")))
		apply_strings(l, s, "/network/allow_addresses", v, "IP address", check_address,
			      &out->allow_addresses);
	if ((v = json_object_get(net, "hosts")))
		apply_hosts(l, s, v, &out->hosts);
}

static bool valid_env_name(const char *n)
{
	if (!((*n >= 'A' && *n <= 'Z') || (*n >= 'a' && *n <= 'z') || *n == '_'))
		return false;
	for (n++; *n; n++)
		if (!((*n >= 'A' && *n <= 'Z') || (*n >= 'a' && *n <= 'z') ||
		      (*n >= '0' && *n <= '9') || *n == '_'))
			return false;
	return true;
}

static bool valid_env_pattern(const char *p)
{
	if (!*p)
		return false;
	for (; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '*' || *p == '?'))
			return false;
	return true;
}

static void apply_env(struct loader *l, const struct src *s, json_t *env, struct wk_policy *out)
{
	static const char *const known[] = {"unset", "set", NULL};
	if (!json_is_object(env)) {
		err(l, s->label, "/env", "expected an object, got %s", type_name(env));
		return;
	}
	check_keys(l, s, "/env", env, known);
	json_t *v;
	if ((v = json_object_get(env, "unset"))) {
		if (!json_is_array(v)) {
			err(l, s->label, "/env/unset", "expected an array of name patterns, got %s",
			    type_name(v));
		} else {
			size_t i;
			json_t *e;
			json_array_foreach(v, i, e) {
				char pbuf[64];
				const char *p = ptr_idx_buf(pbuf, sizeof pbuf, "/env/unset", i);
				const char *pat = json_string_value(e);
				if (!pat)
					err(l, s->label, p, "expected a name pattern (a string), got %s",
					    type_name(e));
				else if (!valid_env_pattern(pat))
					err(l, s->label, p,
					    "\"%s\" is not a variable name pattern (letters, digits, _, * and ?)",
					    pat);
				else if (!strv_contains(&out->env_unset, pat))
					strv_add(&out->env_unset, pat);
			}
		}
	}
	if ((v = json_object_get(env, "set"))) {
		if (!json_is_object(v)) {
			err(l, s->label, "/env/set", "expected an object of NAME: value, got %s",
			    type_name(v));
			return;
		}
		const char *name;
		json_t *e;
		json_object_foreach(v, name, e) {
			char *p = ptr_key("/env/set", name);
			const char *val = json_string_value(e);
			char *why = NULL, *x = NULL;
			if (!valid_env_name(name))
				err(l, s->label, p, "\"%s\" is not a valid variable name", name);
			else if (strncmp(name, "WICKET", 6) == 0)
				err(l, s->label, p, "%s is set by wicket itself", name);
			else if (!val)
				err(l, s->label, p, "expected a string value, got %s", type_name(e));
			else if (!(x = expand(&l->ctx->vars, val, false, &why)))
				err(l, s->label, p, "%s", why);
			else
				set_by_name(&out->env_set, xasprintf("%s=%s", name, x));
			free(x);
			free(why);
			free(p);
		}
	}
}

/* A string of a rule's grant, its variables expanded (paths, and "~"). */
static char *grant_expand(void *ctx, const char *in, char **why)
{
	const struct wk_policy_ctx *c = ctx;
	return expand(&c->vars, in, true, why);
}

/* One rule's argv: strings, the first naming a program (no wildcard), a
 * "**" only last. */
static bool rule_argv(struct loader *l, const struct src *s, const char *p, json_t *e,
		      struct strv *argv)
{
	if (!json_is_array(e) || json_array_size(e) == 0) {
		err(l, s->label, p,
		    "expected a command: a non-empty array of strings like [\"git\", \"status\"], "
		    "or an object {\"argv\": [...], \"cwd\": \"${cwd}\"}, got %s",
		    json_is_array(e) ? "an empty array" : type_name(e));
		return false;
	}
	size_t j, n = json_array_size(e);
	json_t *a;
	bool bad = false;
	json_array_foreach(e, j, a) {
		char *pj = ptr_idx(p, j);
		const char *v = json_string_value(a);
		if (!v) {
			err(l, s->label, pj, "expected an argument (a string), got %s", type_name(a));
			bad = true;
		} else if (j == 0 && (strcmp(v, "*") == 0 || strcmp(v, "**") == 0)) {
			err(l, s->label, pj, "the first element names the program; it cannot be a "
			    "wildcard");
			bad = true;
		} else if (strcmp(v, "**") == 0 && j + 1 != n) {
			err(l, s->label, pj, "\"**\" (any further arguments) can only be the last "
			    "element; write \"\\\\**\" for a literal **");
			bad = true;
		} else {
			strv_add(argv, v);
		}
		free(pj);
	}
	if (bad)
		strv_free(argv);
	return !bad;
}

static void apply_argvs(struct loader *l, const struct src *s, const char *ptr, json_t *arr,
			bool allow, struct wk_argvs *out)
{
	if (!json_is_array(arr)) {
		err(l, s->label, ptr, "expected an array of commands, got %s", type_name(arr));
		return;
	}
	static const char *const known[] = {"argv", "cwd", "stdin", "grant", NULL};
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e) {
		char *p = ptr_idx(ptr, i);
		struct wk_cmdrule r = {0};
		bool ok;
		if (json_is_object(e)) {
			check_keys(l, s, p, e, known);
			char *pa = xasprintf("%s/argv", p), *pc = xasprintf("%s/cwd", p);
			json_t *argv = json_object_get(e, "argv"), *cwd = json_object_get(e, "cwd");
			ok = rule_argv(l, s, pa, argv, &r.argv);
			if (cwd) {
				const char *text = json_string_value(cwd);
				char *why = NULL, *x = NULL;
				if (!text)
					err(l, s->label, pc, "expected a directory (a string), got %s",
					    type_name(cwd));
				else if (!(x = expand(&l->ctx->vars, text, true, &why)))
					err(l, s->label, pc, "%s", why);
				else if (!(r.cwd = path_normalize(x)))
					err(l, s->label, pc, "relative path \"%s\"; write an absolute "
					    "path or ${cwd}/%s", text, text);
				ok = ok && r.cwd;
				free(x);
				free(why);
			}
			json_t *in = json_object_get(e, "stdin");
			if (in) {
				/* Only an allow rule widens with it; a deny rule
				 * refuses whatever the input. */
				char *pi = xasprintf("%s/stdin", p);
				if (!allow) {
					err(l, s->label, pi, "\"stdin\" belongs in an allow rule "
					    "(a deny rule refuses the command whatever its input)");
					ok = false;
				} else {
					ok = get_bool(l, s, pi, in, &r.stdin) && ok;
				}
				free(pi);
			}
			json_t *gr = json_object_get(e, "grant");
			if (gr) {
				char *pg = xasprintf("%s/grant", p), *why = NULL;
				if (!allow) {
					err(l, s->label, pg, "\"grant\" belongs in an allow rule (a deny "
					    "rule refuses the command whatever it would be granted)");
					ok = false;
				} else if (!wk_grant_from_json(gr, grant_expand, l->ctx, &r.grant, &why)) {
					err(l, s->label, pg, "%s", why);
					ok = false;
				}
				free(why);
				free(pg);
			}
			free(pa);
			free(pc);
		} else {
			ok = rule_argv(l, s, p, e, &r.argv);
		}
		if (ok) {
			if (out->n == out->cap) {
				out->cap = out->cap ? out->cap * 2 : 4;
				out->v = xrealloc(out->v, out->cap * sizeof *out->v);
			}
			out->v[out->n++] = r;
		} else {
			strv_free(&r.argv);
			free(r.cwd);
			wk_grant_free(&r.grant);
		}
		free(p);
	}
}

static void apply_escalation(struct loader *l, const struct src *s, json_t *esc,
			     struct wk_policy *out)
{
	static const char *const known[] = {"mode", "approver", "allow", "deny", "timeout", NULL};
	if (!json_is_object(esc)) {
		err(l, s->label, "/escalation", "expected an object, got %s", type_name(esc));
		return;
	}
	check_keys(l, s, "/escalation", esc, known);
	json_t *v;
	if ((v = json_object_get(esc, "mode"))) {
		const char *m = json_string_value(v);
		if (!m)
			err(l, s->label, "/escalation/mode",
			    "expected \"prompt\", \"deny\" or \"approver\", got %s", type_name(v));
		else if (strcmp(m, "prompt") == 0)
			out->esc_mode = WK_ESC_PROMPT;
		else if (strcmp(m, "deny") == 0)
			out->esc_mode = WK_ESC_DENY;
		else if (strcmp(m, "approver") == 0)
			out->esc_mode = WK_ESC_APPROVER;
		else
			err(l, s->label, "/escalation/mode",
			    "unknown mode \"%s\"; expected \"prompt\", \"deny\" or \"approver\"", m);
	}
	if ((v = json_object_get(esc, "approver"))) {
		const char *a = json_string_value(v);
		char *why = NULL, *x = NULL;
		if (!a)
			err(l, s->label, "/escalation/approver",
			    "expected the path of a program (a string), got %s", type_name(v));
		else if (!(x = expand(&l->ctx->vars, a, true, &why)))
			err(l, s->label, "/escalation/approver", "%s", why);
		else if (x[0] != '/')
			err(l, s->label, "/escalation/approver",
			    "relative path \"%s\"; the approver must be an absolute path", a);
		else {
			free(out->esc_approver);
			out->esc_approver = x;
			x = NULL;
		}
		free(x);
		free(why);
	}
	if ((v = json_object_get(esc, "timeout"))) {
		if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > 86400)
			err(l, s->label, "/escalation/timeout",
			    "expected a number of seconds from 1 to 86400");
		else
			out->esc_timeout = (int)json_integer_value(v);
	}
	if ((v = json_object_get(esc, "allow")))
		apply_argvs(l, s, "/escalation/allow", v, true, &out->esc_allow);
	if ((v = json_object_get(esc, "deny")))
		apply_argvs(l, s, "/escalation/deny", v, false, &out->esc_deny);
}

/* --- files and names --------------------------------------------------- */

bool wk_policy_is_name(const char *s)
{
	if (!s[0] || s[0] == '.' || strlen(s) > 64)
		return false;
	size_t n = strlen(s);
	if (n > 5 && strcmp(s + n - 5, ".json") == 0)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			return false;
	return true;
}

const struct wk_builtin *wk_builtin_find(const char *name)
{
	for (size_t i = 0; wk_builtins[i].name; i++)
		if (strcmp(wk_builtins[i].name, name) == 0)
			return &wk_builtins[i];
	return NULL;
}

static char *find_from(const struct wk_policy_ctx *ctx, const char *name, int from, int *pos)
{
	for (int i = from; ctx->search && ctx->search[i]; i++) {
		char *f = xasprintf("%s/%s.json", ctx->search[i], name);
		struct stat st;
		/* host: a policy file of the user's, never the sandbox's */
		if (stat(f, &st) == 0) {
			*pos = i;
			return f;
		}
		free(f);
	}
	*pos = -1;
	return NULL;
}

static int load_file(struct loader *l, const char *path, const char *as_name, int pos,
		     const char *via, struct wk_policy *out);
static int load_builtin(struct loader *l, const struct wk_builtin *b, struct wk_policy *out);

/* Load whatever NAME_OR_FILE names, as seen from the file FROM (for
 * relative paths and self-shadowing names). VIA labels the reference. */
static int load_ref(struct loader *l, const struct src *from, const char *ref, const char *via,
		    struct wk_policy *out)
{
	if (wk_policy_is_name(ref)) {
		bool self = from && from->as_name && strcmp(from->as_name, ref) == 0;
		/* A file NAME.json that extends NAME means the next one along
		 * the search order (typically the built-in it refines). A
		 * built-in extends built-ins only: a user's file does not
		 * silently change what another built-in means. */
		int start = self && from->search_pos >= 0 ? from->search_pos + 1 : 0;
		int pos = -1;
		char *f = NULL;
		if (l->ctx->follow_files && !(from && from->builtin))
			f = find_from(l->ctx, ref, start, &pos);
		if (f) {
			int r = load_file(l, f, ref, pos, via, out);
			free(f);
			return r;
		}
		const struct wk_builtin *b = wk_builtin_find(ref);
		if (b)
			return load_builtin(l, b, out);
		char list[512] = "";
		for (int i = 0; l->ctx->search && l->ctx->search[i]; i++) {
			strncat(list, l->ctx->search[i], sizeof list - strlen(list) - 1);
			strncat(list, ", ", sizeof list - strlen(list) - 1);
		}
		char *names = xstrdup("");
		for (size_t i = 0; wk_builtins[i].name; i++) {
			char *t = xasprintf("%s%s%s", names, i ? ", " : "", wk_builtins[i].name);
			free(names);
			names = t;
		}
		if (via)
			err(l, from ? from->label : via, "/extends",
			    "no policy named \"%s\" (searched %sthe built-ins: %s)", ref, list, names);
		else
			err(l, ref, NULL, "no policy named \"%s\" (searched %sthe built-ins: %s)", ref,
			    list, names);
		free(names);
		return -1;
	}
	if (!l->ctx->follow_files) {
		err(l, from ? from->label : ref, from ? "/extends" : NULL,
		    "\"%s\": only built-in policies can be extended here", ref);
		return -1;
	}
	char *path;
	if (ref[0] == '/' || !from || !from->dir) {
		path = xstrdup(ref);
	} else {
		char *joined = path_join(from->dir, ref);
		path = path_normalize(joined);
		free(joined);
	}
	int r = load_file(l, path, NULL, -1, via, out);
	free(path);
	return r;
}

static int apply_doc(struct loader *l, const struct src *s, json_t *doc, struct wk_policy *out)
{
	static const char *const known[] = {"extends", "description", "sandbox", "filesystem",
					     "network", "env", "escalation", NULL};
	if (!json_is_object(doc)) {
		err(l, s->label, "", "expected an object, got %s", type_name(doc));
		return -1;
	}
	check_keys(l, s, "", doc, known);
	json_t *v;
	if ((v = json_object_get(doc, "extends"))) {
		const char *ref = json_string_value(v);
		if (!ref)
			err(l, s->label, "/extends", "expected a policy name or file (a string), got %s",
			    type_name(v));
		else if (!ref[0])
			err(l, s->label, "/extends", "empty policy name");
		else
			load_ref(l, s, ref, s->label, out);
	}
	if ((v = json_object_get(doc, "description"))) {
		if (!json_is_string(v)) {
			err(l, s->label, "/description", "expected a string, got %s", type_name(v));
		} else {
			free(out->description);
			out->description = xstrdup(json_string_value(v));
		}
	}
	if ((v = json_object_get(doc, "sandbox")) && get_bool(l, s, "/sandbox", v, &out->sandbox)) {
		free(l->sandbox_where);
		l->sandbox_where = out->sandbox ? NULL : xasprintf("%s: /sandbox", s->label);
	}
	if ((v = json_object_get(doc, "filesystem")))
		apply_filesystem(l, s, v, out);
	if ((v = json_object_get(doc, "network")))
		apply_network(l, s, v, out);
	if ((v = json_object_get(doc, "env")))
		apply_env(l, s, v, out);
	if ((v = json_object_get(doc, "escalation")))
		apply_escalation(l, s, v, out);
	return 0;
}

static int load_data(struct loader *l, const struct src *s, const char *ident, const char *data,
		     size_t len, struct wk_policy *out)
{
	for (size_t i = 0; i < l->stack.n; i++) {
		if (strcmp(l->stack.v[i], ident) == 0) {
			char *cycle = xstrdup("");
			for (size_t k = i; k < l->stack.n; k++) {
				char *t = xasprintf("%s%s -> ", cycle, l->stack.v[k]);
				free(cycle);
				cycle = t;
			}
			err(l, s->label, "/extends", "\"extends\" cycle: %s%s", cycle, ident);
			free(cycle);
			return -1;
		}
	}
	if (l->depth >= MAX_DEPTH) {
		err(l, s->label, "/extends", "\"extends\" chain deeper than %d", MAX_DEPTH);
		return -1;
	}
	json_error_t je;
	json_t *doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		/* FILE:LINE:COLUMN, as compilers say it, so editors can jump there. */
		char *where = xasprintf("%s:%d:%d", s->label, je.line, je.column);
		err(l, where, NULL, "syntax error: %s", je.text);
		free(where);
		return -1;
	}
	strv_add(&l->stack, ident);
	l->depth++;
	int r = apply_doc(l, s, doc, out);
	l->depth--;
	free(l->stack.v[--l->stack.n]);
	l->stack.v[l->stack.n] = NULL;
	json_decref(doc);
	strv_add(&out->chain, s->label);
	return r;
}

static int load_builtin(struct loader *l, const struct wk_builtin *b, struct wk_policy *out)
{
	char *label = xasprintf("built-in %s", b->name);
	char *ident = xasprintf("builtin:%s", b->name);
	struct src s = {
		.label = label, .dir = NULL, .as_name = b->name, .search_pos = -1, .builtin = true,
	};
	int r = load_data(l, &s, ident, b->json, strlen(b->json), out);
	free(ident);
	free(label);
	return r;
}

static int load_file(struct loader *l, const char *path, const char *as_name, int pos,
		     const char *via, struct wk_policy *out)
{
	(void)via;
	if (l->ctx->opened && !strv_contains(l->ctx->opened, path))
		strv_add(l->ctx->opened, path);
	/* host: a policy file named by the user or the config */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err(l, path, NULL, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err(l, path, NULL, "not a regular file");
		close(fd);
		return -1;
	}
	if (l->ctx->check_owner) {
		/* As doas does with its configuration: a policy someone else
		 * could have written is no policy of yours. */
		if (st.st_uid != getuid() && st.st_uid != 0) {
			err(l, path, NULL, "owned by uid %u, not by you or root; refusing it",
			    (unsigned)st.st_uid);
			close(fd);
			return -1;
		}
		if (st.st_mode & (S_IWGRP | S_IWOTH)) {
			err(l, path, NULL,
			    "writable by %s (mode %04o); refusing it (fix: chmod go-w %s)",
			    (st.st_mode & S_IWOTH) ? "everyone" : "its group",
			    (unsigned)(st.st_mode & 07777), path);
			close(fd);
			return -1;
		}
	}
	if (st.st_size > MAX_FILE_SIZE) {
		err(l, path, NULL, "larger than %d bytes", MAX_FILE_SIZE);
		close(fd);
		return -1;
	}
	size_t cap = (size_t)st.st_size + 1, len = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err(l, path, NULL, "cannot read: %s", strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == cap) {
			if (cap > MAX_FILE_SIZE) {
				err(l, path, NULL, "larger than %d bytes", MAX_FILE_SIZE);
				free(buf);
				close(fd);
				return -1;
			}
			buf = xrealloc(buf, cap *= 2);
		}
	}
	close(fd);
	/* host: a policy file's own path */
	char *real = wk_realpath(path);
	char *ident = real ? real : xstrdup(path);
	char *norm = real ? xstrdup(real) : NULL;
	char *dir = norm ? path_dirname(norm) : NULL;
	/* A file named by its path that lives in a search directory as
	 * NAME.json is that NAME (so extending NAME refines the next one). */
	char *found_name = NULL;
	if (!as_name && dir && l->ctx->search) {
		const char *base = norm + strlen(dir) + (strcmp(dir, "/") ? 1 : 0);
		size_t bl = strlen(base);
		for (int i = 0; l->ctx->search[i] && !found_name; i++) {
			/* host: the policy search path */
			char *sd = wk_realpath(l->ctx->search[i]);
			if (sd && strcmp(sd, dir) == 0 && bl > 5 && strcmp(base + bl - 5, ".json") == 0) {
				found_name = xasprintf("%.*s", (int)(bl - 5), base);
				pos = i;
			}
			free(sd);
		}
		if (found_name && !wk_policy_is_name(found_name)) {
			free(found_name);
			found_name = NULL;
			pos = -1;
		}
		as_name = found_name;
	}
	struct src s = {.label = path, .dir = dir, .as_name = as_name, .search_pos = pos};
	int r = load_data(l, &s, ident, buf, len, out);
	free(found_name);
	free(dir);
	free(norm);
	free(ident);
	free(buf);
	return r;
}

/* --- whole policies ---------------------------------------------------- */

static void defaults(struct wk_policy *p)
{
	memset(p, 0, sizeof *p);
	p->sandbox = true;
	p->net = WK_NET_NONE;
	p->esc_mode = WK_ESC_PROMPT;
	p->esc_timeout = 120;
	snprintf(p->tmp_size, sizeof p->tmp_size, "%s", WK_TMP_SIZE_DEFAULT);
}

/* Rules that only make sense together, checked on the layered result. */
static void check_whole(struct loader *l, const char *label, struct wk_policy *p)
{
	for (size_t i = 0; i < p->write.n; i++)
		for (size_t j = 0; j < p->hide.n; j++)
			if (path_is_under(p->write.v[i].path, p->hide.v[j].path))
				err(l, p->write.v[i].where, NULL,
				    "\"%s\" is writable, but %s hides %s; a path cannot be both",
				    p->write.v[i].path, p->hide.v[j].where,
				    strcmp(p->write.v[i].path, p->hide.v[j].path) ? "a parent of it" : "it");
	for (size_t i = 0; i < p->read.n; i++)
		for (size_t j = 0; j < p->hide.n; j++)
			if (strcmp(p->read.v[i].path, p->hide.v[j].path) == 0)
				err(l, p->read.v[i].where, NULL,
				    "\"%s\" is readable but also hidden (%s); a path cannot be both",
				    p->read.v[i].path, p->hide.v[j].where);
	if (p->net != WK_NET_PORTS && (p->connect.n || p->bind.n))
		err(l, label, NULL,
		    "network ports are listed but the network mode is \"%s\"; ports need "
		    "\"mode\": \"ports\"",
		    wk_net_name(p->net));
	if (p->net != WK_NET_DOMAINS &&
	    (p->domains_allow.n || p->domains_deny.n || p->allow_addresses.n || p->hosts.n))
		err(l, label, NULL,
		    "names or addresses for the proxy are listed but the network mode is \"%s\"; "
		    "they need \"mode\": \"domains\"",
		    wk_net_name(p->net));
	if (p->net != WK_NET_PORTS && p->udp)
		err(l, label, NULL,
		    "\"udp\": true needs \"mode\": \"ports\" (\"full\" allows UDP anyway, \"none\" "
		    "allows no network)");
	if (p->esc_mode == WK_ESC_APPROVER && !p->esc_approver)
		err(l, label, NULL, "escalation mode \"approver\" needs \"approver\": the path of "
				    "the program that decides");
	if (!p->sandbox && (p->read.n || p->write.n || p->protect.n || p->hide.n ||
			    p->net != WK_NET_FULL))
		err(l, l->sandbox_where ? l->sandbox_where : label, NULL,
		    "\"sandbox\": false means no sandbox at all; it cannot be combined with "
		    "filesystem rules or a network mode other than \"full\"");
}

static int finish(struct loader *l, const char *label, struct wk_policy *out, int r)
{
	if (r == 0)
		check_whole(l, label, out);
	/* Reading is allowed everywhere unless some policy narrows it. */
	if (!l->read_set && out->sandbox && !l->errors) {
		out->read.v = xcalloc(1, sizeof *out->read.v);
		out->read.cap = out->read.n = 1;
		out->read.v[0] = (struct wk_rule){
			.text = xstrdup("/"),
			.path = xstrdup("/"),
			.where = xstrdup("(default: no policy sets filesystem.read)"),
		};
	}
	free(l->sandbox_where);
	strv_free(&l->stack);
	if (l->errors) {
		wk_policy_free(out);
		return -1;
	}
	return 0;
}

int wk_policy_load(struct wk_policy_ctx *ctx, const char *name_or_file, struct wk_policy *out)
{
	struct loader l = {.ctx = ctx};
	defaults(out);
	int r = load_ref(&l, NULL, name_or_file, NULL, out);
	out->name = xstrdup(name_or_file);
	out->source = xstrdup(out->chain.n ? out->chain.v[out->chain.n - 1] : name_or_file);
	return finish(&l, name_or_file, out, r);
}

int wk_policy_load_buffer(struct wk_policy_ctx *ctx, const char *label, const char *data,
			  size_t len, struct wk_policy *out)
{
	struct loader l = {.ctx = ctx};
	defaults(out);
	struct src s = {.label = label, .dir = NULL, .as_name = NULL, .search_pos = -1};
	char *ident = xasprintf("buffer:%s", label);
	int r = load_data(&l, &s, ident, data, len, out);
	free(ident);
	out->name = xstrdup(label);
	out->source = xstrdup(label);
	return finish(&l, label, out, r);
}

static void rules_free(struct wk_rules *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].text);
		free(r->v[i].path);
		free(r->v[i].where);
	}
	free(r->v);
	memset(r, 0, sizeof *r);
}

static void argvs_free(struct wk_argvs *a)
{
	for (size_t i = 0; i < a->n; i++) {
		strv_free(&a->v[i].argv);
		free(a->v[i].cwd);
		wk_grant_free(&a->v[i].grant);
	}
	free(a->v);
	memset(a, 0, sizeof *a);
}

void wk_policy_free(struct wk_policy *p)
{
	free(p->name);
	free(p->source);
	free(p->description);
	strv_free(&p->chain);
	rules_free(&p->read);
	rules_free(&p->write);
	rules_free(&p->protect);
	rules_free(&p->hide);
	free(p->connect.v);
	free(p->bind.v);
	strv_free(&p->domains_allow);
	strv_free(&p->domains_deny);
	strv_free(&p->allow_addresses);
	strv_free(&p->hosts);
	strv_free(&p->env_unset);
	strv_free(&p->env_set);
	free(p->esc_approver);
	argvs_free(&p->esc_allow);
	argvs_free(&p->esc_deny);
	memset(p, 0, sizeof *p);
}

void wk_policy_ctx_free(struct wk_policy_ctx *ctx)
{
	strv_free(&ctx->errors);
}

const char *wk_net_name(enum wk_net n)
{
	switch (n) {
	case WK_NET_FULL: return "full";
	case WK_NET_PORTS: return "ports";
	case WK_NET_DOMAINS: return "domains";
	case WK_NET_NONE: break;
	}
	return "none";
}

const char *wk_esc_name(enum wk_esc e)
{
	return e == WK_ESC_DENY ? "deny" : e == WK_ESC_APPROVER ? "approver" : "prompt";
}
