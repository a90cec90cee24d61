/* Bytes as valid UTF-8 (lib/utf8.c): the same verdict as jansson's on
 * every short byte string (what jansson takes is what the event stream
 * and `wicket why --json` can carry), invalid bytes replaced one by one,
 * valid text kept as it is. */
#include "config.h"
#include "tap.h"
#include "utf8.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Every sequence at P valid (and no NUL), by wk_utf8_seq. */
static bool ours(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = wk_utf8_seq(p + i, n - i);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

static bool theirs(const unsigned char *p, size_t n)
{
	if (memchr(p, 0, n))
		return false; /* jansson takes a NUL; a C string cannot */
	json_t *j = json_stringn((const char *)p, n);
	json_decref(j);
	return j != NULL;
}

static void lossy(const char *in, size_t n, const char *want, bool want_lost, const char *what)
{
	bool lost = !want_lost;
	char *o = wk_utf8_lossy(in, n, &lost);
	is_str(o, want, "%s", what);
	ok(lost == want_lost, "%s: %s", what, want_lost ? "said lossy" : "said exact");
	json_t *j = json_string(o);
	ok(j != NULL, "%s: jansson takes it", what);
	json_decref(j);
	free(o);
}

int main(void)
{
	unsigned char b[4];
	size_t bad = 0;
	for (unsigned x = 0; x < 65536; x++) {
		b[0] = (unsigned char)(x >> 8);
		b[1] = (unsigned char)x;
		bad += ours(b, 1) != theirs(b, 1);
		bad += ours(b, 2) != theirs(b, 2);
	}
	ok(bad == 0, "every 1 and 2 byte string: jansson's verdict (%zu differ)", bad);
	static const unsigned char tail[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0,
					     0xbf, 0xc0, 0xff};
	size_t nt = sizeof tail;
	bad = 0;
	for (unsigned x = 0; x < 65536; x++) {
		b[0] = (unsigned char)(x >> 8);
		b[1] = (unsigned char)x;
		for (size_t i = 0; i < nt; i++) {
			b[2] = tail[i];
			bad += ours(b, 3) != theirs(b, 3);
			for (size_t k = 0; k < nt; k++) {
				b[3] = tail[k];
				bad += ours(b, 4) != theirs(b, 4);
			}
		}
	}
	ok(bad == 0, "3 and 4 byte strings, every first two bytes: jansson's verdict (%zu differ)",
	   bad);
	ok(wk_utf8_seq((const unsigned char *)"\xe2\x82\xac", 2) == 0, "a sequence cut short");
	ok(wk_utf8_seq((const unsigned char *)"\xe2\x82\xac", 3) == 3, "a whole one");
	ok(wk_utf8_seq((const unsigned char *)"", 1) == 0, "NUL is not text");
	ok(wk_utf8_seq((const unsigned char *)"a", 0) == 0, "nothing is not a sequence");

	lossy("plain /x y", 10, "plain /x y", false, "ASCII kept");
	lossy("tab\there\x1b[2J", 12, "tab\there\x1b[2J", false, "control characters kept");
	lossy("caf\xc3\xa9 \xf0\x9f\x92\xa9", 10, "caf\xc3\xa9 \xf0\x9f\x92\xa9", false,
	      "2 and 4 byte characters kept");
	lossy("a\xff" "b", 3, "a\xef\xbf\xbd" "b", true, "a stray byte replaced");
	lossy("\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd", true, "an overlong '/': each byte");
	lossy("\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", true, "a surrogate");
	lossy("x\xe2\x82", 3, "x\xef\xbf\xbd\xef\xbf\xbd", true, "cut short at the end");
	lossy("a\0b", 3, "a\xef\xbf\xbd" "b", true, "a NUL replaced");
	lossy("", 0, "", false, "empty");
	return done_testing();
}
