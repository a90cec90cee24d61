/* libFuzzer target: the `wicket ask` request and signal parsers
 * (lib/askproto.c), its grant (lib/grant.c), and the text a person is
 * shown for what they parse: no crash, no leak, no undefined behaviour; a
 * request that parses is within its limits, and its quoted form holds no
 * control character. The rule matcher on what parsed: a grant covers
 * itself and each of its parts, the empty grant nothing but the empty
 * one; an argv taken as a rule matches itself. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "askproto.h"
#include "grant.h"

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
	struct wk_grant empty = {0};
	char *more = wk_grant_covers(&r.grant, &r.grant);
	if (more)
		abort();
	more = wk_grant_covers(&empty, &r.grant);
	if ((more == NULL) != wk_grant_empty(&r.grant))
		abort();
	free(more);
	for (int k = 0; k < WK_GRANT_KINDS; k++)
		for (size_t i = 0; i < r.grant.v[k].n; i++) {
			struct wk_grant one = {0};
			/* Canonical already: adding it again keeps it as it is. */
			char *why = wk_grant_add(&one, (enum wk_grant_kind)k, r.grant.v[k].v[i]);
			if (why || strcmp(one.v[k].v[0], r.grant.v[k].v[i]) != 0 ||
			    (more = wk_grant_covers(&r.grant, &one)))
				abort();
			wk_grant_free(&one);
		}
	char *t = wk_grant_text(&r.grant);
	for (const unsigned char *p = (const unsigned char *)t; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			abort();
	free(t);
	bool literal = true;
	for (size_t i = 0; i < r.argv.n && literal; i++)
		literal = strcmp(r.argv.v[i], "*") != 0 && strcmp(r.argv.v[i], "**") != 0 &&
			  r.argv.v[i][0] != '\\';
	if (literal && !ask_args_match(&r.argv, r.argv.v, r.argv.n))
		abort();
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
