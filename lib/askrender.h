/* The question `wicket ask` puts on the real terminal (DESIGN §6), as
 * text: pure, no system calls, so the unit tests and a fuzzer
 * (tests/fuzz/askrender-fuzz.c) hold it to its promises:
 *
 *  - it is printable ASCII and newlines only: no control character, no
 *    escape sequence, nothing a terminal draws wider, narrower, reordered
 *    or as a look-alike (UTF-8 is shown as \xHH escapes), so what the
 *    sandbox chose as an argument cannot move or hide anything;
 *  - every line fits WIDTH columns; a line continued on the next ends in
 *    '\' (the next starts with blanks where a label would be);
 *  - each argument is one shell word on a line of its own, labelled with
 *    its index ("[2]"), quoted so that the text gives back exactly its
 *    bytes (askr_parse), or cut in the middle with its length said
 *    ("<M of N bytes not shown>"), or, when there are more arguments than
 *    the terminal has lines, left out with their number said. */
#ifndef WICKET_ASKRENDER_H
#define WICKET_ASKRENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

#define ASKR_MIN_WIDTH 24     /* narrower terminals get lines this long */
#define ASKR_MAX_WIDTH 512
#define ASKR_LABEL 12         /* the label column: "  asked by: " */

struct askr_question {
	const char *comm;     /* the requester's name */
	long pid;             /* the requester, as the sandbox sees it */
	const char *cwd;      /* where the command would run */
	const char *path;     /* the program that would run */
	char *const *argv;    /* what it would get */
	size_t argc;
	const char *reason;   /* NULL: none given */
	const char *careful;  /* NULL, or why the person should look twice */
	const char *input;    /* NULL, or what its standard input is when the
			       * sandbox writes it (it could type into the command) */
	bool outside;         /* to run outside any sandbox: every word shown whole */
	const char *grant;    /* else the rights its own sandbox adds ("" none) */
};

/* The question, lines ending in '\n', for a terminal of WIDTH columns
 * and ROWS lines (0: unknown, taken as 80 by 24). A question to run
 * outside shows every word whole, or is not made: NULL when the terminal
 * is too small for that (the person must see all of what would run). */
char *askr_render(const struct askr_question *q, unsigned width, unsigned rows);

/* A question about the network (mode "domains"): a program asks to
 * reach a host that is not in the allowed domains. */
struct askr_netq {
	const char *comm;     /* the requester's name */
	long pid;             /* as the sandbox sees it */
	const char *host;     /* the name asked for */
	const char *request;  /* the request: "CONNECT host:443", "GET host:80" */
};
char *askr_render_net(const struct askr_netq *q, unsigned width);

/* TEXT (printable ASCII, '\n' between paragraphs) wrapped at blanks to
 * lines of at most WIDTH columns, each ending in '\n'. */
char *askr_wrap(const char *text, unsigned width);

/* The N bytes at S as one shell word in printable ASCII: bare when they
 * are only safe characters, in single quotes when printable ASCII, else
 * as $'...' with \n, \t, \\, \' and \xHH. */
char *askr_word(const char *s, size_t n);

/* One argument read back from a rendered question. */
struct askr_arg {
	size_t index;
	char *head;           /* the argument, or the part shown before the cut */
	size_t head_len;
	char *tail;           /* NULL unless cut: the part shown after it */
	size_t tail_len;
	size_t len;           /* its whole length (the cut says it) */
};

/* The arguments shown in TEXT (as askr_render made it), in order; *N of
 * them, *ARGC the count the question announces, *PATH the program (its
 * index 0; free its head and tail). false when TEXT is not a question of
 * that form. */
bool askr_parse(const char *text, struct askr_arg **out, size_t *n, size_t *argc,
		struct askr_arg *path);
void askr_args_free(struct askr_arg *a, size_t n);

/* NULL when TEXT, rendered from Q for WIDTH columns, keeps the promises
 * above (printable, fits, reads back as Q's program and arguments or
 * says what it left out), else what it breaks. For the tests. */
const char *askr_check(const struct askr_question *q, const char *text, unsigned width);

#endif
