/* `wicket ask`: the pure part of the protocol (DESIGN §6). Parsing the
 * request the sandbox sends, the signal messages on the reply socket,
 * the escalation rules' argv-prefix match, and the text shown to a
 * person (shell quoting, control characters made visible). No system
 * calls: the fuzzer and the unit tests run all of it. */
#ifndef WICKET_ASKPROTO_H
#define WICKET_ASKPROTO_H

#include <stdbool.h>
#include <stddef.h>

#include "grant.h"
#include "util.h"

#define ASK_ARGC_MAX 256        /* arguments of the command asked for */
#define ASK_ARGV_BYTES 32768    /* their total length */
#define ASK_REASON_MAX 1024     /* bytes of "reason" */
#define ASK_TIMEOUT_MAX 86400   /* seconds */

/* {"v":1,"type":"ask","argv":[...],"reason":"...","timeout":N,
 *  "grant":{...},"outside":true,"fds":[IN,OUT,ERR,REPLY]}: "grant" the
 * rights asked for (grant.h), "outside" to run it outside any sandbox
 * (only a person at the terminal may approve that; never with a grant); "fds", where the supervisor said it takes
 * them (WICKET_ASK_TAKE), names the sender's own descriptors instead of
 * passing them with SCM_RIGHTS (see ask.c). */
struct ask_req {
	struct strv argv;  /* at least one argument, none with a NUL */
	char *reason;      /* NULL: none given */
	int timeout;       /* seconds, 0: none given */
	struct wk_grant grant; /* what the command's own sandbox adds to the session's */
	bool outside;      /* run outside, not in a sandbox of its own */
	bool take;         /* "fds" given */
	int fds[4];        /* its numbers, each 0 to INT_MAX */
};

/* Parse one request packet. Every field is checked; a field this
 * version does not know is refused (a newer client must not have a
 * field it relies on silently ignored). Returns true, or false with
 * *ERR set to a fixed message. */
bool ask_parse(const char *buf, size_t len, struct ask_req *out, const char **err);
void ask_req_free(struct ask_req *r);

/* {"v":1,"type":"signal","signal":N} from `wicket ask`: N when it is
 * SIGHUP, SIGINT, SIGQUIT or SIGTERM, else -1. */
int ask_parse_signal(const char *buf, size_t len);

/* RULE (an escalation.allow/deny argv) matches ARGV argument by
 * argument, the whole of it: RULE[i] "*" is any one argument, a last
 * "**" any number of further arguments (none included), and any other
 * element equals ARGV[i] once a leading backslash is dropped ("\\*" is
 * a literal "*", "\\\\x" a literal "\\x"). The first element is compared
 * by the caller, who knows which file each names. */
bool ask_args_match(const struct strv *rule, char *const *argv, size_t argc);
/* RULE ends in "**": it accepts arguments no one has read. */
bool ask_rule_open(const struct strv *rule);

/* S, quoted for a POSIX shell so that what is shown is what runs: bare
 * when it is only safe characters, in single quotes when it is printable
 * text, as $'...' with \xHH escapes when it holds control characters,
 * invalid UTF-8 or bidirectional overrides. */
char *ask_quote(const char *s);
/* The quoted words of ARGV, space-separated, FIRST shown for ARGV[0]. */
char *ask_quote_argv(const char *first, char *const *argv, size_t argc);

/* Length of the UTF-8 sequence at P (N bytes left) when a terminal shows
 * it as text, else 0 (controls, invalid or overlong sequences, bidi
 * overrides and isolates). */
size_t text_utf8_len(const unsigned char *p, size_t n);
/* A copy of S (at most MAX bytes) with each control character or invalid
 * sequence replaced by '?'. */
char *text_clean(const char *s, size_t max);

#endif
