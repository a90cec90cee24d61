/* The approver a harness holds (approverlink.c): `--approver-fd FD` or
 * `--approver-socket PATH`, a connected stream socket over which the
 * supervisor sends the same JSON requests an approver program gets on its
 * standard input, one a line with an "id", and reads answers, one a line:
 * {"id": N, "approve": true|false, "grant": {...}?, "message": "..."?}. */
#ifndef WICKET_APPROVERLINK_H
#define WICKET_APPROVERLINK_H

#include <stdbool.h>

#include <jansson.h>

struct session;

/* What runs for each answer line: ID and the line's object (borrowed),
 * or, when the link is gone, ID 0 and ANSWER NULL with WHY (every
 * request still waiting is then refused by the caller). */
typedef void (*alink_answer_fn)(struct session *s, unsigned long id, json_t *answer,
				const char *why);

/* The link is s->approver_fd (>= 0) and still open. */
bool alink_usable(const struct session *s);

/* Send REQ (not consumed) with "id": ID added, never waiting; ANSWER runs
 * for what comes back. false: the link is gone or the harness has not
 * read what was sent before (a bound on what waits), WHY says which. */
bool alink_send(struct session *s, unsigned long id, json_t *req, alink_answer_fn answer,
		const char **why);

/* The session is over: stop watching and close the link. */
void alink_close(struct session *s);

#endif
