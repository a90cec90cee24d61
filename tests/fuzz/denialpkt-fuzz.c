/* libFuzzer target: the denial packet (lib/denialpkt.c, the shim's
 * encoder; lib/denialpkt-json.c, the supervisor's decoder).
 *
 * The input as fields (a first byte for the pid and how it is shown,
 * then kind, object, what and comm separated by NUL bytes) is encoded;
 * the packet must parse as JSON and decode, unless a field is one the
 * decoder refuses (an unknown kind, "what" or "comm" over 64 bytes), and
 * give back strings that are valid UTF-8 without a control character,
 * equal to what was encoded when that was such text already; an unknown
 * kind never decodes. The input
 * as a packet is decoded too: no crash, no leak, and what decodes is
 * within the limits. */
#include "config.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "denialpkt.h"

/* S is valid UTF-8 (jansson checks it) with no control character. */
static bool clean_str(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	json_t *j = json_string(s);
	json_decref(j);
	return j != NULL;
}

/* What came back is what went in, for text that needs no sanitising. */
static void check_same(const char *in, const char *out)
{
	if (!clean_str(out))
		abort();
	if (strlen(in) < WK_DENIAL_TEXT_MAX && clean_str(in) && strcmp(in, out) != 0)
		abort();
}

static void decode_raw(const uint8_t *data, size_t size)
{
	json_t *o = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	struct wk_denial_pkt d;
	if (o && wk_denial_decode(o, &d)) {
		if (!d.kind || !d.object || strlen(d.object) > WK_DENIAL_OBJECT_MAX ||
		    (d.what && strlen(d.what) > WK_DENIAL_WHAT_MAX) ||
		    (d.comm && strlen(d.comm) > WK_DENIAL_COMM_MAX) || d.pid < 1 || d.pid >= 1L << 30)
			abort();
	}
	json_decref(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	decode_raw(data, size);
	if (size < 1 || size > 16384)
		return 0;
	char *copy = malloc(size + 1);
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';
	const char *f[4] = {"", "", NULL, ""};
	char *p = copy, *end = copy + size - 1;
	for (int i = 0; i < 4 && p <= end; i++) {
		f[i] = p;
		p += strlen(p) + 1;
	}
	struct wk_denial_pkt d = {
		.kind = f[0], .object = f[1], .what = f[2] && f[2][0] ? f[2] : NULL, .comm = f[3],
		.pid = 1 + data[0] * 4099L, .show = (enum wk_denial_show)(data[0] % 3),
	};
	static char buf[WK_DENIAL_MAX];
	size_t n = wk_denial_encode(buf, sizeof buf, &d);
	bool known = !strcmp(d.kind, "write") || !strcmp(d.kind, "read") ||
		     !strcmp(d.kind, "network");
	bool fits = (!d.what || strlen(d.what) <= WK_DENIAL_WHAT_MAX) &&
		    strlen(d.comm) <= WK_DENIAL_COMM_MAX;
	if (known && fits) {
		/* The worst case of a valid packet fits the buffer. */
		if (!n || n != strlen(buf))
			abort();
		json_t *o = json_loadb(buf, n, JSON_REJECT_DUPLICATES, NULL);
		struct wk_denial_pkt got;
		if (!o || !wk_denial_decode(o, &got))
			abort();
		if (strcmp(got.kind, d.kind) != 0 || got.pid != d.pid || got.show != d.show ||
		    !got.what != !d.what)
			abort();
		check_same(d.object, got.object);
		check_same(d.comm, got.comm);
		if (d.what)
			check_same(d.what, got.what);
		json_decref(o);
	} else if (n) {
		/* Whatever was encoded is JSON all the same, and a kind the
		 * supervisor does not know never decodes. */
		json_t *o = json_loadb(buf, n, JSON_REJECT_DUPLICATES, NULL);
		struct wk_denial_pkt got;
		if (!o || (!known && wk_denial_decode(o, &got)))
			abort();
		json_decref(o);
	}
	free(copy);
	return 0;
}
