/* Bytes as text that a JSON encoder takes whole (utf8.c): what the
 * sandbox names (paths, a process's arguments) is any bytes, and a
 * string jansson refuses would be dropped from the document silently. */
#ifndef WICKET_UTF8_H
#define WICKET_UTF8_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The N bytes at S as UTF-8, each byte that does not start a valid
 * sequence (overlong, a surrogate, past U+10FFFF, cut short) replaced
 * by U+FFFD; a NUL byte too (a C string ends there). Valid text is
 * kept byte for byte, control characters included (JSON escapes
 * them). *LOSSY (when given): something was replaced. Malloc'd. */
char *wk_utf8_lossy(const char *s, size_t n, bool *lossy);
/* The length of the valid UTF-8 sequence at P (N bytes left), or 0. */
size_t wk_utf8_seq(const unsigned char *p, size_t n);

/* A JSON string of S (NUL-terminated) or of N bytes, by wk_utf8_lossy:
 * never NULL for a string jansson would refuse. */
json_t *wk_json_text(const char *s);
json_t *wk_json_bytes(const char *s, size_t n);

#endif
