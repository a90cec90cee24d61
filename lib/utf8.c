/* Bytes as valid UTF-8 (utf8.h): pure, unit- and mutation-tested. */
#include "config.h"
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

size_t wk_utf8_seq(const unsigned char *p, size_t n)
{
	if (n == 0 || p[0] == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	size_t len;
	unsigned lo = 0x80, hi = 0xbf; /* the second byte's range (RFC 3629) */
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		if (p[0] == 0xe0)
			lo = 0xa0; /* overlong */
		else if (p[0] == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		if (p[0] == 0xf0)
			lo = 0x90; /* overlong */
		else if (p[0] == 0xf4)
			hi = 0x8f; /* past U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

char *wk_utf8_lossy(const char *s, size_t n, bool *lossy)
{
	static const char rep[] = "\xef\xbf\xbd";
	/* At most three bytes out for each one in. */
	char *o = xmalloc(3 * n + 1);
	size_t w = 0;
	bool lost = false;
	for (size_t i = 0; i < n;) {
		size_t k = wk_utf8_seq((const unsigned char *)s + i, n - i);
		if (k) {
			memcpy(o + w, s + i, k);
			w += k;
			i += k;
		} else {
			memcpy(o + w, rep, 3);
			w += 3;
			i++;
			lost = true;
		}
	}
	o[w] = '\0';
	if (lossy)
		*lossy = lost;
	return o;
}

json_t *wk_json_bytes(const char *s, size_t n)
{
	char *t = wk_utf8_lossy(s, n, NULL);
	json_t *j = json_string(t);
	free(t);
	return j;
}

json_t *wk_json_text(const char *s)
{
	return wk_json_bytes(s, strlen(s));
}
