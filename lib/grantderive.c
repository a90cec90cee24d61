/* A refusal's grant and the command that asks for it (see grantderive.h). */
#include "config.h"
#include "grantderive.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "askproto.h"

/* ITEM added to G as kind K; a refusal grant.c makes of it (not a path,
 * no port, a malformed host) leaves G as it was: no grant, rather than
 * one that would not allow the refused call. */
static void add(struct wk_grant *g, enum wk_grant_kind k, const char *item)
{
	free(wk_grant_add(g, k, item));
}

size_t wk_url_targets(const char *args, size_t len, struct wk_url_target *out, size_t max)
{
	static const struct {
		const char *scheme;
		unsigned port;
	} known[] = {{"http", 80}, {"https", 443}, {"ws", 80}, {"wss", 443}, {"ftp", 21},
		     {"ssh", 22}, {"git", 9418}, {"git+ssh", 22}, {"ssh+git", 22}};
	size_t n = 0;
	for (size_t i = 0; args && i < len && n < max;) {
		const char *a = args + i, *nul = memchr(a, '\0', len - i);
		size_t wl = nul ? (size_t)(nul - a) : len - i;
		i += wl + 1;
		const char *sep = memmem(a, wl, "://", 3);
		if (!sep)
			continue;
		const char *host = sep + 3, *end = host;
		while (end < a + wl && *end != '/' && *end != '?' && *end != '#')
			end++;
		const char *at = memchr(host, '@', (size_t)(end - host));
		if (at)
			host = at + 1;
		/* An IPv6 address's colons are in its brackets. */
		const char *colon = host < end && host[0] == '[' ?
			memchr(host, ']', (size_t)(end - host)) : host;
		colon = colon ? memchr(colon, ':', (size_t)(end - colon)) : NULL;
		struct wk_url_target *t = &out[n++];
		size_t hl = (size_t)((colon ? colon : end) - host);
		if (hl >= sizeof t->host)
			hl = 0;
		memcpy(t->host, host, hl);
		t->host[hl] = '\0';
		t->port = 0;
		if (colon && colon + 1 < end) {
			unsigned p = 0;
			for (const char *c = colon + 1; c < end && p <= 65535; c++)
				p = *c >= '0' && *c <= '9' ? p * 10 + (unsigned)(*c - '0') : 70000;
			t->port = p <= 65535 ? p : 0;
		} else {
			for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
				if (strlen(known[k].scheme) == (size_t)(sep - a) &&
				    strncasecmp(a, known[k].scheme, (size_t)(sep - a)) == 0)
					t->port = known[k].port;
		}
	}
	return n;
}

/* The hosts and ports of the URLs among R's arguments: --net items. */
static void from_urls(const struct wk_refusal *r, struct wk_grant *g)
{
	struct wk_url_target t[8];
	size_t n = wk_url_targets(r->args, r->args_len, t, sizeof t / sizeof t[0]);
	for (size_t i = 0; i < n; i++) {
		/* No port (0) grant.c refuses. */
		if (!t[i].host[0])
			continue;
		char *item = xasprintf("%s:%u", t[i].host, t[i].port);
		add(g, WK_GRANT_NET, item);
		free(item);
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* "connect ADDR:PORT/tcp" (or "[V6]:PORT"): a --net item for the
 * address and port; "OP unix:/PATH": a --socket item; a refusal before
 * any address: the URLs' (from_urls). */
static void from_connect(const struct wk_refusal *r, struct wk_grant *g)
{
	static const char *const ops[] = {"connect unix:", "sendto unix:", "sendmsg unix:"};
	const char *o = r->object;
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		size_t n = strlen(ops[i]);
		/* An abstract socket ("unix:@name") has no path to grant. */
		if (strncmp(o, ops[i], n) == 0) {
			if (o[n] == '/')
				add(g, WK_GRANT_SOCKET, o + n);
			return;
		}
	}
	size_t len = strlen(o);
	if (!r->liftable)
		return;
	/* A name lookup, or the socket itself: where to, its URLs say. */
	if (strncmp(o, "socket ", 7) == 0 || ends_with(o, "/udp")) {
		from_urls(r, g);
		return;
	}
	/* At least "connect /tcp": the two cannot overlap, the space is
	 * no slash. */
	if (strncmp(o, "connect ", 8) != 0 || !ends_with(o, "/tcp"))
		return;
	/* The address and the port, as grant.c takes them: "1.2.3.4:443",
	 * "[::1]:22"; port 0 and anything else it refuses. */
	char *item = xasprintf("%.*s", (int)(len - 8 - 4), o + 8);
	if (strchr(item, ':'))
		add(g, WK_GRANT_NET, item);
	free(item);
}

/* "METHOD HOST:PORT": a --net item for HOST (or R's place) on PORT. */
static void from_proxy(const struct wk_refusal *r, struct wk_grant *g)
{
	const char *target = strchr(r->object, ' ');
	const char *colon = target ? strrchr(target, ':') : NULL;
	if (!r->liftable || !colon || (target[1] == '[' && colon[-1] != ']'))
		return;
	const char *port = colon + 1;
	char *item;
	if (!r->place)
		item = xasprintf("%s", target + 1);
	else if (strchr(r->place, ':') && r->place[0] != '[')
		item = xasprintf("[%s]:%s", r->place, port); /* an IPv6 address */
	else
		item = xasprintf("%s:%s", r->place, port);
	add(g, WK_GRANT_NET, item);
	free(item);
}

/* R's arguments as words: all of them, each text, within what a request
 * carries; else none. */
static void words(const struct wk_refusal *r, struct strv *argv)
{
	const char *a = r->args;
	size_t n = r->args_len;
	if (!a || n == 0 || a[n - 1] != '\0' || n > ASK_ARGV_BYTES)
		return;
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		count += a[i] == '\0';
	if (count > ASK_ARGC_MAX)
		return;
	for (size_t i = 0; i < n; i += strlen(a + i) + 1) {
		/* A request is JSON: a word that is not UTF-8 cannot go in
		 * one, and no part of the command is offered without it. */
		json_t *w = json_string(a + i);
		if (!w)
			return;
		json_decref(w);
	}
	for (size_t i = 0; i < n; i += strlen(a + i) + 1)
		strv_add(argv, a + i);
}

void wk_grant_derive(const struct wk_refusal *r, struct wk_grant *g, struct strv *argv)
{
	switch (r->kind) {
	case WK_REFUSED_WRITE:
		if (r->place)
			add(g, WK_GRANT_WRITE, r->place);
		break;
	case WK_REFUSED_READ:
		if (r->place)
			add(g, WK_GRANT_READ, r->place);
		break;
	case WK_REFUSED_CONNECT:
		from_connect(r, g);
		break;
	case WK_REFUSED_PROXY:
		from_proxy(r, g);
		break;
	}
	words(r, argv);
}

bool wk_grant_command_argv(const struct wk_grant *g, const struct strv *argv, struct strv *out)
{
	if (wk_grant_empty(g) || argv->n == 0)
		return false;
	strv_add(out, "wicket");
	strv_add(out, "ask");
	for (int k = 0; k < WK_GRANT_KINDS; k++)
		for (size_t i = 0; i < g->v[k].n; i++) {
			char *opt = xasprintf("--%s", wk_grant_kind_name((enum wk_grant_kind)k));
			strv_push(out, opt);
			strv_add(out, g->v[k].v[i]);
		}
	strv_add(out, "--");
	for (size_t i = 0; i < argv->n; i++)
		strv_add(out, argv->v[i]);
	return true;
}

char *wk_grant_command(const struct wk_grant *g, const struct strv *argv)
{
	struct strv words = {0};
	if (!wk_grant_command_argv(g, argv, &words))
		return NULL;
	char *text = ask_quote_argv(NULL, words.v, words.n);
	strv_free(&words);
	return text;
}
