/* Grants (see grant.h). */
#include "config.h"
#include "grant.h"

#include <netinet/in.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "askproto.h"
#include "netdomain.h"
#include "path.h"

static const char *const kind_names[WK_GRANT_KINDS] = {"write", "read", "net", "socket", "env"};

const char *wk_grant_kind_name(enum wk_grant_kind k)
{
	return (unsigned)k < WK_GRANT_KINDS ? kind_names[k] : "?";
}

int wk_grant_kind_of(const char *name)
{
	for (int k = 0; k < WK_GRANT_KINDS; k++)
		if (strcmp(name, kind_names[k]) == 0)
			return k;
	return -1;
}

bool wk_grant_empty(const struct wk_grant *g)
{
	for (int k = 0; k < WK_GRANT_KINDS; k++)
		if (g->v[k].n)
			return false;
	return true;
}

void wk_grant_free(struct wk_grant *g)
{
	for (int k = 0; k < WK_GRANT_KINDS; k++)
		strv_free(&g->v[k]);
}


static bool port_of(const char *s, int *port)
{
	long v = 0;
	if (!*s || strlen(s) > 5)
		return false;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (*p - '0');
	}
	if (s[0] == '0' || v < 1 || v > 65535)
		return false;
	*port = (int)v;
	return true;
}

/* VALUE as a canonical net item in OUT, or why not. */
static char *net_canonical(const char *value, char *out, size_t outsz)
{
	char host[WK_GRANT_HOST_MAX], addr[INET6_ADDRSTRLEN];
	const char *portp = NULL;
	int port = 0;
	size_t colons = 0;
	for (const char *p = value; *p; p++)
		colons += *p == ':';
	if (value[0] == '[') {
		const char *end = strchr(value, ']');
		if (!end || (size_t)(end - value - 1) >= sizeof host)
			return xasprintf("%s: an IPv6 address goes in brackets, \"[::1]:8080\"", value);
		memcpy(host, value + 1, (size_t)(end - value - 1));
		host[end - value - 1] = '\0';
		if (end[1] && (end[1] != ':' || !(portp = end + 2)))
			return xasprintf("%s: after \"]\" only \":PORT\"", value);
		if (!wk_addr_canonical(host, AF_INET6, addr, sizeof addr))
			return xasprintf("%s: not an IPv6 address in the brackets", value);
		if (portp && !port_of(portp, &port))
			return xasprintf("%s: the port is a number from 1 to 65535", value);
		if (port)
			snprintf(out, outsz, "[%s]:%d", addr, port);
		else
			snprintf(out, outsz, "[%s]", addr);
		return NULL;
	}
	if (colons > 1) {
		if (!wk_addr_canonical(value, AF_INET6, addr, sizeof addr))
			return xasprintf("%s: not a name, an address or HOST:PORT (an IPv6 "
					 "address with a port is \"[ADDRESS]:PORT\")", value);
		snprintf(out, outsz, "[%s]", addr);
		return NULL;
	}
	size_t hl = colons ? (size_t)(strchr(value, ':') - value) : strlen(value);
	if (hl == 0 || hl >= sizeof host)
		return xasprintf("%s: no host, or a host longer than %d bytes", value,
				 WK_NAME_MAX);
	memcpy(host, value, hl);
	host[hl] = '\0';
	if (colons && !port_of(value + hl + 1, &port))
		return xasprintf("%s: the port is a number from 1 to 65535", value);
	if (wk_addr_canonical(host, AF_INET, addr, sizeof addr)) {
		snprintf(host, sizeof host, "%s", addr);
	} else {
		for (char *c = host; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		/* Canonical without the trailing dot a name may have; a second
		 * one would be an empty label, which the check refuses. */
		if (hl > 1 && host[hl - 1] == '.' && host[hl - 2] != '.')
			host[hl - 1] = '\0';
		const char *why = wk_pattern_check(host);
		if (why)
			return xasprintf("%s: not a name, \"*.\" and a name, or an address: %s",
					 value, why);
	}
	if (port)
		snprintf(out, outsz, "%s:%d", host, port);
	else
		snprintf(out, outsz, "%s", host);
	return NULL;
}

void wk_grant_net_split(const char *item, char *host, int *port, bool *address)
{
	const char *colon;
	*port = 0;
	*address = item[0] == '[';
	if (item[0] == '[') {
		const char *end = strchr(item, ']');
		size_t n = end ? (size_t)(end - item - 1) : 0;
		if (n >= WK_GRANT_HOST_MAX)
			n = 0;
		memcpy(host, item + 1, n);
		host[n] = '\0';
		colon = end && end[1] == ':' ? end + 1 : NULL;
	} else {
		colon = strchr(item, ':');
		size_t n = colon ? (size_t)(colon - item) : strlen(item);
		if (n >= WK_GRANT_HOST_MAX)
			n = 0;
		memcpy(host, item, n);
		host[n] = '\0';
		char a[INET6_ADDRSTRLEN];
		*address = wk_addr_canonical(host, AF_INET, a, sizeof a);
	}
	if (colon && !port_of(colon + 1, port))
		*port = 0;
}

bool wk_grant_port_ok(char *const *limits, size_t n, const char *host_rule, unsigned port)
{
	bool limited = false;
	for (size_t i = 0; i < n; i++) {
		char h[WK_GRANT_HOST_MAX];
		int p;
		bool addr;
		wk_grant_net_split(limits[i], h, &p, &addr);
		if (!p || strcasecmp(h, host_rule) != 0)
			continue;
		if ((unsigned)p == port)
			return true;
		limited = true;
	}
	return !limited;
}

static bool env_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

char *wk_grant_add(struct wk_grant *g, enum wk_grant_kind k, const char *value)
{
	char net[WK_GRANT_HOST_MAX + 16];
	char *canon = NULL, *why;
	if ((unsigned)k >= WK_GRANT_KINDS)
		return xstrdup("no such kind of grant");
	if (g->v[k].n >= GRANT_ITEMS_MAX)
		return xasprintf("more than %d items of --%s in one grant", GRANT_ITEMS_MAX,
				 kind_names[k]);
	switch (k) {
	case WK_GRANT_WRITE:
	case WK_GRANT_READ:
	case WK_GRANT_SOCKET:
		if (value[0] != '/')
			return xasprintf("--%s %s: not an absolute path", kind_names[k], value);
		if (strlen(value) >= PATH_MAX)
			return xasprintf("--%s: a path longer than %d bytes", kind_names[k], PATH_MAX);
		canon = path_normalize(value);
		if (!canon)
			return xasprintf("--%s %s: cannot be normalised", kind_names[k], value);
		if (k != WK_GRANT_READ && strcmp(canon, "/") == 0) {
			free(canon);
			return xasprintf("--%s /: the whole file system is not a grant", kind_names[k]);
		}
		break;
	case WK_GRANT_NET:
		if ((why = net_canonical(value, net, sizeof net))) {
			char *m = xasprintf("--net %s", why);
			free(why);
			return m;
		}
		canon = xstrdup(net);
		break;
	case WK_GRANT_ENV:
		if (!env_name(value))
			return xasprintf("--env %s: not a variable name (letters, digits and _, not "
					 "starting with a digit)", value);
		canon = xstrdup(value);
		break;
	default:
		break;
	}
	if (strv_contains(&g->v[k], canon))
		free(canon);
	else
		strv_push(&g->v[k], canon);
	return NULL;
}

/* Pattern or name ASKED within pattern GIVEN ("*.a.org" within "*.org"). */
static bool host_within(const char *given, const char *asked)
{
	if (strcasecmp(given, asked) == 0)
		return true;
	if (strncmp(asked, "*.", 2) == 0)
		return strncmp(given, "*.", 2) == 0 &&
		       (strcasecmp(given + 2, asked + 2) == 0 || wk_pattern_match(given, asked + 2));
	return wk_pattern_match(given, asked);
}

static bool net_within(const char *given, const char *asked)
{
	char gh[WK_GRANT_HOST_MAX], ah[WK_GRANT_HOST_MAX];
	int gp, ap;
	bool ga, aa;
	wk_grant_net_split(given, gh, &gp, &ga);
	wk_grant_net_split(asked, ah, &ap, &aa);
	if (gp && gp != ap)
		return false;
	if (ga || aa)
		return ga && aa && strcmp(gh, ah) == 0;
	return host_within(gh, ah);
}

static bool item_within(enum wk_grant_kind k, const char *given, const char *asked)
{
	switch (k) {
	case WK_GRANT_WRITE:
	case WK_GRANT_READ:
		return path_is_under(asked, given);
	case WK_GRANT_NET:
		return net_within(given, asked);
	default:
		return strcmp(given, asked) == 0;
	}
}

char *wk_grant_covers(const struct wk_grant *given, const struct wk_grant *asked)
{
	for (int k = 0; k < WK_GRANT_KINDS; k++) {
		for (size_t i = 0; i < asked->v[k].n; i++) {
			const char *a = asked->v[k].v[i];
			bool ok = false;
			for (size_t j = 0; !ok && j < given->v[k].n; j++)
				ok = item_within(k, given->v[k].v[j], a);
			/* What may be written may be read. */
			for (size_t j = 0; !ok && k == WK_GRANT_READ && j < given->v[WK_GRANT_WRITE].n;
			     j++)
				ok = item_within(WK_GRANT_WRITE, given->v[WK_GRANT_WRITE].v[j], a);
			if (!ok) {
				char *q = ask_quote(a);
				char *m = xasprintf("--%s %s", kind_names[k], q);
				free(q);
				return m;
			}
		}
	}
	return NULL;
}

char *wk_grant_text(const struct wk_grant *g)
{
	size_t cap = 1;
	for (int k = 0; k < WK_GRANT_KINDS; k++)
		for (size_t i = 0; i < g->v[k].n; i++)
			cap += strlen(g->v[k].v[i]) * 4 + 16;
	char *o = xmalloc(cap);
	size_t n = 0;
	o[0] = '\0';
	for (int k = 0; k < WK_GRANT_KINDS; k++) {
		for (size_t i = 0; i < g->v[k].n; i++) {
			char *q = ask_quote(g->v[k].v[i]);
			n += (size_t)snprintf(o + n, cap - n, "%s--%s %s", n ? " " : "", kind_names[k], q);
			free(q);
		}
	}
	return o;
}

bool wk_grant_from_json(json_t *o, char *(*expand)(void *ctx, const char *in, char **why),
			void *ctx, struct wk_grant *g, char **why)
{
	const char *key;
	json_t *arr;
	*why = NULL;
	if (!json_is_object(o)) {
		*why = xstrdup("a grant is an object: {\"write\": [PATH...], \"read\": [...], "
			       "\"net\": [...], \"socket\": [...], \"env\": [...]}");
		return false;
	}
	json_object_foreach(o, key, arr) {
		int k = wk_grant_kind_of(key);
		if (k < 0) {
			*why = xasprintf("unknown kind of grant \"%.64s\" (known: write, read, net, "
					 "socket, env)", key);
			return false;
		}
		if (!json_is_array(arr) || json_array_size(arr) > GRANT_ITEMS_MAX) {
			*why = xasprintf("\"%s\" is an array of at most %d strings", key,
					 GRANT_ITEMS_MAX);
			return false;
		}
		size_t i;
		json_t *e;
		json_array_foreach(arr, i, e) {
			const char *s = json_string_value(e);
			if (!s || strlen(s) != json_string_length(e) || !*s) {
				*why = xasprintf("\"%s\"[%zu] is not a non-empty string without NUL",
						 key, i);
				return false;
			}
			char *x = expand ? expand(ctx, s, why) : NULL;
			if (expand && !x)
				return false;
			*why = wk_grant_add(g, (enum wk_grant_kind)k, x ? x : s);
			free(x);
			if (*why)
				return false;
		}
	}
	return true;
}

json_t *wk_grant_to_json(const struct wk_grant *g)
{
	json_t *o = json_object();
	for (int k = 0; k < WK_GRANT_KINDS; k++) {
		if (!g->v[k].n)
			continue;
		json_t *a = json_array();
		for (size_t i = 0; i < g->v[k].n; i++)
			json_array_append_new(a, json_string(g->v[k].v[i]));
		json_object_set_new(o, kind_names[k], a);
	}
	return o;
}
