/* See netfmt.h. No library calls: the preload shim links this too. */
#include "netfmt.h"

#include <stdbool.h>

static const char hexd[] = "0123456789abcdef";

size_t netfmt_uint(char *o, unsigned long long v)
{
	char t[NETFMT_UINT_MAX];
	size_t n = 0, i = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < sizeof t);
	while (n)
		o[i++] = t[--n];
	o[i] = '\0';
	return i;
}

size_t netfmt_ipv4(char *o, const unsigned char *a)
{
	size_t n = 0;
	for (int i = 0; i < 4; i++) {
		if (i)
			o[n++] = '.';
		unsigned v = a[i];
		if (v >= 100)
			o[n++] = (char)('0' + v / 100);
		if (v >= 10)
			o[n++] = (char)('0' + v / 10 % 10);
		o[n++] = (char)('0' + v % 10);
	}
	o[n] = '\0';
	return n;
}

size_t netfmt_ipv6(char *o, const unsigned char *a)
{
	unsigned g[8];
	for (int i = 0; i < 8; i++)
		g[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
	int best = -1, blen = 0;
	for (int i = 0; i < 8;) {
		if (g[i]) {
			i++;
			continue;
		}
		int j = i;
		while (j < 8 && !g[j])
			j++;
		if (j - i > blen && j - i >= 2)
			best = i, blen = j - i;
		i = j;
	}
	size_t n = 0;
	bool mapped = best == 0 && blen == 5 && g[5] == 0xffff;
	for (int i = 0; i < (mapped ? 6 : 8); i++) {
		if (i == best) {
			o[n++] = ':';
			if (i == 0)
				o[n++] = ':';
			i += blen - 1;
			continue;
		}
		bool lead = true;
		for (int s = 12; s >= 0; s -= 4) {
			unsigned d = g[i] >> s & 0xf;
			if (d || !lead || s == 0) {
				o[n++] = hexd[d];
				lead = false;
			}
		}
		if (i < 7)
			o[n++] = ':';
	}
	if (mapped)
		return n + netfmt_ipv4(o + n, a + 12);
	o[n] = '\0';
	return n;
}
