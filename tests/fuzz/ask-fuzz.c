/* libFuzzer target: the `wicket ask` request and signal parsers
 * (lib/askproto.c), and the text a person is shown for what they parse:
 * no crash, no leak, no undefined behaviour; a request that parses is
 * within its limits, and its quoted form holds no control character. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "askproto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ask_req r;
	const char *err;
	(void)ask_parse_signal((const char *)data, size);
	if (!ask_parse((const char *)data, size, &r, &err)) {
		if (!err)
			abort();
		return 0;
	}
	if (r.argv.n < 1 || r.argv.n > ASK_ARGC_MAX || r.timeout < 0 || r.timeout > ASK_TIMEOUT_MAX)
		abort();
	char *q = ask_quote_argv(NULL, r.argv.v, r.argv.n);
	for (const unsigned char *p = (const unsigned char *)q; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			abort();
	free(q);
	if (r.reason) {
		char *c = text_clean(r.reason, ASK_REASON_MAX);
		for (const unsigned char *p = (const unsigned char *)c; *p; p++)
			if (*p < 0x20 || *p == 0x7f)
				abort();
		free(c);
	}
	ask_req_free(&r);
	return 0;
}
