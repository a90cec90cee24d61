/* The event stream of `wicket run --events FD|PATH` (events.c): one JSON
 * object a line, written as things happen, each with "v": 1 and an
 * "event" name; the schema is wicket(1), EVENTS. Written by the
 * supervisor only (control.c the denials, proxy.c its decisions, ask.c
 * the requests, main.c the session and its end), from any of its
 * threads; never waited on: a reader that does not read loses lines,
 * counted, never the session. */
#ifndef WICKET_EVENTS_H
#define WICKET_EVENTS_H

#include <jansson.h>
#include <stdbool.h>

/* SPEC: a descriptor number (3 or more, inherited), else a path, made
 * anew (O_CREAT|O_EXCL|O_NOFOLLOW, 0600). Before the sandbox exists;
 * NULL, or what is wrong. */
const char *events_open(const char *spec);
/* A stream was asked for. */
bool events_on(void);
/* One line: "v", "event": NAME, then the members of O (taken). */
void events_emit(const char *name, json_t *o);
/* A denial of CATEGORY, counted for the "end" line. */
void events_count(const char *category);
/* The "end" line (O: its members, taken; "counts", "refused" and
 * "lost" are added), then what is left written while the reader takes
 * it (EVENTS_DRAIN_MS without a byte taken: the rest is lost), and
 * the stream closed. */
void events_end(json_t *o);
#define EVENTS_BUFFER (1u << 20) /* lines waiting for the reader, in bytes */
#define EVENTS_DRAIN_MS 1000

#endif
