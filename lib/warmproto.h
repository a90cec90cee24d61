/* Warm sessions: the pure part of the protocol `wicket exec` uses (its
 * client and the supervisor, and the supervisor and the server that runs
 * inside the sandbox). One packet is one message on a SOCK_SEQPACKET
 * socket: a verb and its fields, each NUL-terminated,
 *
 *   "exec\0" "i42\0" "c/home/u/src\0" "fpp\0" "als\0" "a-l\0"
 *
 * a field being one key letter and its value. Descriptors travel beside
 * it (SCM_RIGHTS). No system calls: the fuzzer and the unit tests run all
 * of it; every peer is untrusted (the server is the sandbox's, a client
 * any process of the user's), so anything malformed is refused whole. */
#ifndef WICKET_WARMPROTO_H
#define WICKET_WARMPROTO_H

#include <stdbool.h>
#include <stddef.h>

#define WARM_MSG_MAX 65536     /* one packet, fields and all */
#define WARM_ARGC_MAX 4096     /* arguments of a command */
#define WARM_TEXT_MAX 4096     /* a cwd, an error message */
#define WARM_NAME_MAX 64       /* a session's name */
#define WARM_ID_MAX 9007199254740991ULL /* 2^53 - 1: an exec's number */

enum warm_verb {
	WARM_NONE = 0,
	WARM_EXEC,    /* client -> supervisor -> server: run argv (f, c, a; i to the server) */
	WARM_STOP,    /* client -> supervisor -> server: end the session */
	WARM_SIGNAL,  /* client -> supervisor -> server: signal s to the exec (i) */
	WARM_READY,   /* server -> supervisor: it serves */
	WARM_STARTED, /* server's child -> supervisor: exec i runs (its pid: the packet's credentials) */
	WARM_EXIT,    /* server -> supervisor -> client: exec i ended with status x */
	WARM_ERROR,   /* supervisor -> client: refused, m says why, x the status */
	WARM_EVENT,   /* supervisor -> client: a line of exec i's event stream (j) */
};

/* A message. Strings point into the decoded buffer (or the caller's, to
 * encode); argv is allocated by warm_decode (warm_msg_free). */
struct warm_msg {
	enum warm_verb verb;
	unsigned long long id; /* 0: none */
	const char *cwd;       /* NULL: none (the session's own) */
	const char *fds;       /* "ppn": for fds 0, 1, 2, passed (p) or /dev/null (n) */
	const char *text;      /* WARM_ERROR's message */
	const char *json;      /* WARM_EVENT's line (one JSON object, no newline) */
	bool events;           /* WARM_EXEC: the client takes its exec's event lines (e1) */
	int sig;               /* WARM_SIGNAL: 1 to 64 */
	int status;            /* WARM_EXIT, WARM_ERROR: 0 to 255, -1 none */
	const char **argv;     /* NULL-terminated; NULL when argc is 0 */
	size_t argc;
};

/* BUF (LEN bytes) into M. True, or false with *ERR a fixed message (M
 * then holds nothing to free). */
bool warm_decode(const char *buf, size_t len, struct warm_msg *m, const char **err);
void warm_msg_free(struct warm_msg *m);
/* M as one packet (allocated, *LEN bytes), or NULL when it would not be
 * one that warm_decode takes (too large, a field out of its bounds). */
char *warm_encode(const struct warm_msg *m, size_t *len);
/* A session's name: 1 to WARM_NAME_MAX of letters, digits, '.', '_',
 * '-', not starting with '.' or '-' (a file name in the state
 * directory, an argument never taken for an option). */
bool warm_name_ok(const char *name);

#endif
