/* The denial packet, decoded with jansson (denialpkt.h). Everything in it
 * was written by code inside the sandbox: every field is checked. */
#include "denialpkt.h"

#include <jansson.h>
#include <string.h>

/* The string field KEY of O, at most MAX bytes, no NUL in it; NULL when
 * absent. *BAD when present but not such a string. */
static const char *str_field(json_t *o, const char *key, size_t max, bool *bad)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		return NULL;
	if (!json_is_string(v) || json_string_length(v) > max ||
	    strlen(json_string_value(v)) != json_string_length(v)) {
		*bad = true;
		return NULL;
	}
	return json_string_value(v);
}

bool wk_denial_decode(json_t *o, struct wk_denial_pkt *d)
{
	static const char *const kinds[] = {"write", "read", "network"};
	bool bad = false;
	memset(d, 0, sizeof *d);
	const char *type = json_string_value(json_object_get(o, "type"));
	if (!json_is_object(o) || !type || strcmp(type, "denial") != 0)
		return false;
	d->kind = str_field(o, "kind", WK_DENIAL_KIND_MAX, &bad);
	d->object = str_field(o, "object", WK_DENIAL_OBJECT_MAX, &bad);
	d->what = str_field(o, "what", WK_DENIAL_WHAT_MAX, &bad);
	d->comm = str_field(o, "comm", WK_DENIAL_COMM_MAX, &bad);
	json_t *pid = json_object_get(o, "pid"), *quiet = json_object_get(o, "quiet"),
	       *shown = json_object_get(o, "shown");
	if (json_is_integer(pid) && json_integer_value(pid) > 0 &&
	    json_integer_value(pid) < 1L << 30)
		d->pid = (long)json_integer_value(pid);
	else
		bad = true;
	if ((quiet && !json_is_boolean(quiet)) || (shown && !json_is_boolean(shown)))
		bad = true;
	/* A JSON number any reader takes whole (ackpage.h's tokens are). */
	json_t *ack = json_object_get(o, "ack");
	if (json_is_integer(ack) && json_integer_value(ack) > 0 &&
	    json_integer_value(ack) < 1LL << 53)
		d->ack = (unsigned long long)json_integer_value(ack);
	else if (ack)
		bad = true;
	d->show = json_is_true(quiet) ? WK_DENIAL_QUIET :
		  json_is_true(shown) ? WK_DENIAL_SHOWN : WK_DENIAL_PRINT;
	bool known = false;
	for (size_t i = 0; d->kind && i < sizeof kinds / sizeof *kinds; i++)
		known |= strcmp(d->kind, kinds[i]) == 0;
	return !bad && known && d->object;
}
