/* `wicket ask`: the pure part of the protocol (see askproto.h). */
#include "config.h"
#include "askproto.h"

#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t text_utf8_len(const unsigned char *p, size_t n)
{
	unsigned cp;
	size_t len;
	if (p[0] < 0x80)
		return p[0] >= 0x20 && p[0] != 0x7f ? 1 : 0;
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp <= 0x9f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	    cp == 0x200e || cp == 0x200f || cp == 0x061c)
		return 0;
	return len;
}

/* How many bytes the sequence at P (N left) spans as a lead byte and its
 * continuation bytes, valid or not (at least 1). */
static size_t utf8_span(const unsigned char *p, size_t n)
{
	size_t k = 1;
	if (p[0] >= 0xc0)
		while (k < n && k < 4 && (p[k] & 0xc0) == 0x80)
			k++;
	return k;
}

char *text_clean(const char *s, size_t max)
{
	size_t n = strnlen(s, max), w = 0;
	char *o = xmalloc(n + 1);
	for (size_t i = 0; i < n;) {
		size_t k = text_utf8_len((const unsigned char *)s + i, n - i);
		if (k) {
			memcpy(o + w, s + i, k);
			w += k;
			i += k;
		} else {
			o[w++] = '?';
			i += utf8_span((const unsigned char *)s + i, n - i);
		}
	}
	o[w] = '\0';
	return o;
}

void ask_req_free(struct ask_req *r)
{
	strv_free(&r->argv);
	free(r->reason);
	wk_grant_free(&r->grant);
	memset(r, 0, sizeof *r);
}

static bool plain_string(json_t *v, size_t max)
{
	return json_is_string(v) && json_string_length(v) <= max &&
	       strlen(json_string_value(v)) == json_string_length(v);
}

bool ask_parse(const char *buf, size_t len, struct ask_req *out, const char **err)
{
	memset(out, 0, sizeof *out);
	json_error_t je;
	json_t *o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	const char *key;
	json_t *v;
	*err = NULL;
	if (!json_is_object(o)) {
		*err = "malformed request: not a JSON object";
		goto bad;
	}
	json_object_foreach(o, key, v) {
		if (strcmp(key, "v") != 0 && strcmp(key, "type") != 0 && strcmp(key, "argv") != 0 &&
		    strcmp(key, "reason") != 0 && strcmp(key, "timeout") != 0 &&
		    strcmp(key, "fds") != 0 && strcmp(key, "grant") != 0 &&
		    strcmp(key, "outside") != 0) {
			*err = "unknown field in the request (this supervisor knows: v, type, argv, "
			       "reason, timeout, grant, outside, fds)";
			goto bad;
		}
	}
	v = json_object_get(o, "v");
	if (!json_is_integer(v) || json_integer_value(v) != 1) {
		*err = "unsupported protocol version (\"v\" must be 1)";
		goto bad;
	}
	v = json_object_get(o, "type");
	if (!json_is_string(v) || strcmp(json_string_value(v), "ask") != 0) {
		*err = "not an ask request";
		goto bad;
	}
	json_t *argv = json_object_get(o, "argv");
	if (!json_is_array(argv) || json_array_size(argv) < 1 ||
	    json_array_size(argv) > ASK_ARGC_MAX) {
		*err = "\"argv\" must be an array of 1 to 256 strings";
		goto bad;
	}
	size_t total = 0, i;
	json_array_foreach(argv, i, v) {
		if (!plain_string(v, (size_t)-1)) {
			*err = "\"argv\" must hold strings without NUL bytes";
			goto bad;
		}
		total += json_string_length(v) + 1;
		if (total > ASK_ARGV_BYTES) {
			*err = "\"argv\" is too long (at most 32768 bytes)";
			goto bad;
		}
		strv_add(&out->argv, json_string_value(v));
	}
	if (out->argv.v[0][0] == '\0') {
		*err = "\"argv\"[0] is empty";
		goto bad;
	}
	if ((v = json_object_get(o, "reason"))) {
		if (!plain_string(v, ASK_REASON_MAX)) {
			*err = "\"reason\" must be a string of at most 1024 bytes without NUL";
			goto bad;
		}
		out->reason = xstrdup(json_string_value(v));
	}
	if ((v = json_object_get(o, "timeout"))) {
		if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > ASK_TIMEOUT_MAX) {
			*err = "\"timeout\" must be a whole number of seconds from 1 to 86400";
			goto bad;
		}
		out->timeout = (int)json_integer_value(v);
	}
	if ((v = json_object_get(o, "grant"))) {
		char *why;
		if (!wk_grant_from_json(v, NULL, NULL, &out->grant, &why)) {
			/* A fixed message: the reason names what the sandbox sent. */
			free(why);
			*err = "\"grant\" is not a grant (an object of write, read, net, socket and "
			       "env, each an array of at most 64 strings: absolute paths, "
			       "HOST[:PORT], variable names)";
			goto bad;
		}
	}
	if ((v = json_object_get(o, "outside"))) {
		if (!json_is_boolean(v)) {
			*err = "\"outside\" must be true or false";
			goto bad;
		}
		out->outside = json_is_true(v);
		if (out->outside && !wk_grant_empty(&out->grant)) {
			*err = "a request to run outside carries no grant (outside, everything is "
			       "allowed already)";
			goto bad;
		}
	}
	if ((v = json_object_get(o, "fds"))) {
		json_t *e;
		if (!json_is_array(v) || json_array_size(v) != 4) {
			*err = "\"fds\" must be an array of 4 descriptor numbers";
			goto bad;
		}
		json_array_foreach(v, i, e) {
			if (!json_is_integer(e) || json_integer_value(e) < 0 ||
			    json_integer_value(e) > INT_MAX) {
				*err = "\"fds\" must be an array of 4 descriptor numbers";
				goto bad;
			}
			out->fds[i] = (int)json_integer_value(e);
		}
		out->take = true;
	}
	json_decref(o);
	return true;
bad:
	json_decref(o);
	ask_req_free(out);
	return false;
}

int ask_parse_signal(const char *buf, size_t len)
{
	json_error_t je;
	json_t *o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	json_t *v = json_object_get(o, "v"), *t = json_object_get(o, "type"),
	       *n = json_object_get(o, "signal");
	int sig = -1;
	if (json_is_object(o) && json_object_size(o) == 3 && json_is_integer(v) &&
	    json_integer_value(v) == 1 && json_is_string(t) &&
	    strcmp(json_string_value(t), "signal") == 0 && json_is_integer(n)) {
		json_int_t k = json_integer_value(n);
		if (k == SIGHUP || k == SIGINT || k == SIGQUIT || k == SIGTERM)
			sig = (int)k;
	}
	json_decref(o);
	return sig;
}

bool ask_rule_open(const struct strv *rule)
{
	return rule->n > 1 && strcmp(rule->v[rule->n - 1], "**") == 0;
}

bool ask_args_match(const struct strv *rule, char *const *argv, size_t argc)
{
	bool open = ask_rule_open(rule);
	size_t n = open ? rule->n - 1 : rule->n;
	if (n < 1 || (open ? argc < n : argc != n))
		return false;
	for (size_t i = 1; i < n; i++) {
		const char *r = rule->v[i];
		if (strcmp(r, "*") == 0)
			continue;
		if (strcmp(r[0] == '\\' ? r + 1 : r, argv[i]) != 0)
			return false;
	}
	return true;
}

static bool safe_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_@%+=:,./-", c) != NULL;
}

char *ask_quote(const char *s)
{
	size_t n = strlen(s);
	bool bare = n > 0, text = true;
	for (size_t i = 0; i < n;) {
		size_t k = text_utf8_len((const unsigned char *)s + i, n - i);
		if (!k)
			text = false;
		if (k != 1 || !safe_char((unsigned char)s[i]))
			bare = false;
		i += k ? k : 1;
	}
	if (bare)
		return xstrdup(s);
	char *o = xmalloc(4 * n + 4), *w = o;
	if (text) {
		*w++ = '\'';
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '\'') {
				memcpy(w, "'\\''", 4);
				w += 4;
			} else {
				*w++ = s[i];
			}
		}
		*w++ = '\'';
		*w = '\0';
		return o;
	}
	*w++ = '$';
	*w++ = '\'';
	for (size_t i = 0; i < n;) {
		size_t k = text_utf8_len((const unsigned char *)s + i, n - i);
		if (k == 1 && (s[i] == '\'' || s[i] == '\\')) {
			*w++ = '\\';
			*w++ = s[i++];
		} else if (k) {
			memcpy(w, s + i, k);
			w += k;
			i += k;
		} else {
			w += sprintf(w, "\\x%02x", (unsigned char)s[i++]);
		}
	}
	*w++ = '\'';
	*w = '\0';
	return o;
}

char *ask_quote_argv(const char *first, char *const *argv, size_t argc)
{
	size_t cap = 1, len = 0;
	char **q = xcalloc(argc ? argc : 1, sizeof *q);
	for (size_t i = 0; i < argc; i++) {
		q[i] = ask_quote(i == 0 && first ? first : argv[i]);
		cap += strlen(q[i]) + 1;
	}
	char *o = xmalloc(cap);
	o[0] = '\0';
	for (size_t i = 0; i < argc; i++) {
		if (i)
			o[len++] = ' ';
		size_t l = strlen(q[i]);
		memcpy(o + len, q[i], l + 1);
		len += l;
		free(q[i]);
	}
	free(q);
	return o;
}
