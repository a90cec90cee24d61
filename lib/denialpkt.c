/* The denial packet, encoded on the stack (denialpkt.h). */
#include "denialpkt.h"
#include "netfmt.h"

#include <string.h>

struct out {
	char *b;
	size_t size, n;
	bool over;
};

static void put(struct out *o, const char *s, size_t len)
{
	if (o->over || len >= o->size - o->n) {
		o->over = true;
		return;
	}
	memcpy(o->b + o->n, s, len);
	o->n += len;
}

static void put_s(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* The length of the valid UTF-8 sequence at P, else 0. Overlong forms
 * and surrogates count as invalid: jansson refuses them. */
static size_t utf8_len(const unsigned char *p)
{
	size_t len = (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if (len == 2 && *p < 0xc2)
		return 0;
	if (len == 3 && ((*p == 0xe0 && p[1] < 0xa0) || (*p == 0xed && p[1] >= 0xa0)))
		return 0;
	if (len == 4 && ((*p == 0xf0 && p[1] < 0x90) || *p > 0xf4 || (*p == 0xf4 && p[1] >= 0x90)))
		return 0;
	return len;
}

/* S as a JSON string (see wk_denial_encode). */
static void put_str(struct out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0;
	put(o, "\"", 1);
	while (*p && !o->over) {
		if (used >= WK_DENIAL_TEXT_MAX) {
			put(o, "...", 3);
			break;
		}
		size_t len = 1;
		if (*p >= 0x80) {
			len = utf8_len(p);
			if (!len) {
				put(o, "?", 1);
				p++, used++;
				continue;
			}
			put(o, (const char *)p, len);
		} else if (*p < 0x20 || *p == 0x7f) {
			put(o, "?", 1);
		} else {
			if (*p == '"' || *p == '\\')
				put(o, "\\", 1);
			put(o, (const char *)p, 1);
		}
		p += len, used += len;
	}
	put(o, "\"", 1);
}

size_t wk_denial_encode(char *buf, size_t size, const struct wk_denial_pkt *d)
{
	struct out o = {.b = buf, .size = size};
	char num[24];
	if (size == 0)
		return 0;
	put_s(&o, "{\"v\":1,\"type\":\"denial\",\"kind\":");
	put_str(&o, d->kind);
	put_s(&o, ",\"object\":");
	put_str(&o, d->object);
	if (d->what) {
		put_s(&o, ",\"what\":");
		put_str(&o, d->what);
	}
	put_s(&o, ",\"comm\":");
	put_str(&o, d->comm);
	put_s(&o, ",\"pid\":");
	netfmt_uint(num, d->pid > 0 ? (unsigned long long)d->pid : 0);
	put_s(&o, num);
	put_s(&o, d->show == WK_DENIAL_QUIET ? ",\"quiet\":true" :
		  d->show == WK_DENIAL_SHOWN ? ",\"shown\":true" : "");
	if (d->ack) {
		put_s(&o, ",\"ack\":");
		netfmt_uint(num, d->ack);
		put_s(&o, num);
	}
	put_s(&o, "}");
	if (o.over)
		return 0;
	buf[o.n] = '\0';
	return o.n;
}
