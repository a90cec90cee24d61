/* The question of `wicket ask` as drawn on the terminal (lib/askrender.c):
 * each argument visible and exact, nothing a terminal would interpret,
 * never wider than the terminal, long words cut with their length. */
#include "config.h"
#include "askrender.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static struct askr_question question(char **argv, size_t argc)
{
	return (struct askr_question){.comm = "bash", .pid = 12, .cwd = "/work/ws",
				      .path = "/usr/bin/git", .argv = argv, .argc = argc};
}

/* Render for WIDTH x ROWS and check the promises; returns the text. */
static char *drawn(const struct askr_question *q, unsigned width, unsigned rows, const char *what)
{
	char *t = askr_render(q, width, rows);
	const char *why = askr_check(q, t, width);
	ok(!why, "%s (%ux%u): %s", what, width, rows, why ? why : "reads back exactly");
	if (why)
		printf("# %s\n", t);
	return t;
}

/* T with broken lines joined again. */
static char *joined(const char *t)
{
	char *o = malloc(strlen(t) + 1), *w = o;
	while (*t) {
		if (t[0] == '\\' && t[1] == '\n' && strspn(t + 2, " ") >= ASKR_LABEL) {
			t += 2 + ASKR_LABEL;
			continue;
		}
		*w++ = *t++;
	}
	*w = '\0';
	return o;
}

static void words(void)
{
	struct {
		const char *in, *want;
	} w[] = {
		{"git", "git"},
		{"--receive-pack=x", "--receive-pack=x"},
		{"", "''"},
		{"a b", "'a b'"},
		{"it's", "'it'\\''s'"},
		{"~root", "'~root'"},
		{"a\nb", "$'a\\nb'"},
		{"\033[2J", "$'\\x1b[2J'"},
		{"caf\xc3\xa9", "$'caf\\xc3\\xa9'"},                 /* UTF-8: no look-alikes */
		{"a\xe2\x80\xae" "b", "$'a\\xe2\\x80\\xaeb'"},      /* RIGHT-TO-LEFT OVERRIDE */
		{"zero\xe2\x80\x8bwidth", "$'zero\\xe2\\x80\\x8bwidth'"},
		{"\xff\xfe", "$'\\xff\\xfe'"},                      /* invalid UTF-8 */
		{"q'\\", "$'q\\'\\\\\\x01'"},
	};
	w[12].in = "q'\\\x01";
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
		char *q = askr_word(w[i].in, strlen(w[i].in));
		is_str(q, w[i].want, "word %zu", i);
		free(q);
	}
}

int main(void)
{
	words();

	char *plain[] = {"git", "push", "origin", "main"};
	struct askr_question q = question(plain, 4);
	char *t = drawn(&q, 80, 24, "a plain command");
	ok(strstr(t, "\n  [0]       git\n  [1]       push\n  [2]       origin\n  [3]       main\n") != NULL,
	   "one word a line, labelled with its index");
	ok(strstr(t, "\n  program:  /usr/bin/git\n") && strstr(t, "4 words"), "the program and the count");
	ok(!strstr(t, "CAREFUL"), "no CAREFUL line when there is no reason for one");
	free(t);

	q.careful = "the program is in a writable place: /work/x/tool";
	q.reason = "need it\n  [0]        git status";
	t = drawn(&q, 80, 24, "careful, and a reason that draws a fake argument");
	ok(strstr(t, "\nCAREFUL:    the program is in a writable place: /work/x/tool\n") != NULL,
	   "CAREFUL starts its line");
	ok(strstr(t, "\n  reason:   $'need it\\n  [0]        git status'\n") != NULL,
	   "the reason is one quoted word: its newline does not start a line");
	free(t);
	q.careful = NULL;

	q.input = "a pipe the sandbox writes: it can type into the command";
	t = drawn(&q, 80, 24, "standard input from the sandbox");
	ok(strstr(t, "\n  input:    a pipe the sandbox writes: it can type into the command\n") != NULL,
	   "the input line, when the sandbox writes the command's standard input");
	ok(strstr(t, "\n  input:") < strstr(t, "\n  program:"), "before the program");
	free(t);
	q.input = NULL;
	q.reason = NULL;

	/* The attack of issue 12: a command that looks short, made long. */
	char big[70001];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	memcpy(big + 60000, "; touch /tmp/pwned", 18);
	char *hidden[] = {"sh", "-c", big};
	q = question(hidden, 3);
	for (unsigned w = 1; w <= 200; w += 19) {
		t = drawn(&q, w, 24, "a 70000-byte argument");
		char *j = joined(t);
		ok(strstr(j, " <") && strstr(j, "of 70000 bytes not shown>"), "cut in the middle, length said (%u)", w);
		free(j);
		free(t);
	}
	t = drawn(&q, 40, 24, "40 columns");
	ok(strstr(t, "\\\n            ") != NULL, "a broken line ends in '\\', the next is indented");
	free(t);

	/* Every byte value, alone and among others, in many widths. */
	char bytes[255][2], *each[255];
	for (int c = 1; c < 256; c++) {
		bytes[c - 1][0] = (char)c;
		bytes[c - 1][1] = '\0';
		each[c - 1] = bytes[c - 1];
	}
	q = question(each, 255);
	for (unsigned rows = 0; rows <= 300; rows += 60) {
		t = drawn(&q, 30, rows, "255 one-byte words");
		free(t);
	}
	t = drawn(&q, 80, 24, "255 words on 24 lines");
	ok(strstr(t, "\n  ...       words ") != NULL, "the middle words are left out, and it says so");
	free(t);

	/* A check that can fail: a drawn argument that differs is caught. */
	char *two[] = {"rm", "-rf"};
	q = question(two, 2);
	t = askr_render(&q, 80, 24);
	char *p = strstr(t, "-rf");
	p[1] = 'f';
	p[2] = 'r';
	ok(askr_check(&q, t, 80) != NULL, "askr_check notices a word that differs");
	free(t);
	t = askr_render(&q, 80, 24);
	ok(askr_check(&q, t, 30) != NULL, "askr_check notices a line wider than the terminal");
	free(t);

	/* The network question: the host and the request, each a word;
	 * printable and within the width whatever the requester's name. */
	struct askr_netq nq = {.comm = "cu\033]0;x\arl", .pid = 42, .host = "evil.example",
			       .request = "CONNECT evil.example:443"};
	for (unsigned w = ASKR_MIN_WIDTH; w <= 100; w += 38) {
		t = askr_render_net(&nq, w);
		bool fits = true, printable = true;
		for (const char *l = t; *l;) {
			size_t n = strcspn(l, "\n");
			fits &= n <= w;
			for (size_t k = 0; k < n; k++)
				printable &= l[k] >= 0x20 && l[k] < 0x7f;
			l += n + (l[n] == '\n');
		}
		ok(fits && printable, "network question at %u columns: printable, fits", w);
		ok(strstr(t, "evil.example") &&
			   (w < 60 || strstr(t, "'CONNECT evil.example:443'")),
		   "network question at %u columns: host, request and requester", w);
		free(t);
	}
	return done_testing();
}
