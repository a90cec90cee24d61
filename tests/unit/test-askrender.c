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
		{"q'\\", "$'q\\'\\\\\\x01'"},		{"azAZ09", "azAZ09"},
		{"`", "'`'"},
		{"[", "'['"},
		{"{", "'{'"},
		{"\x7f", "$'\\x7f'"},
	};
	w[12].in = "q'\\\x01";
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
		char *q = askr_word(w[i].in, strlen(w[i].in));
		is_str(q, w[i].want, "word %zu", i);
		free(q);
	}
}

/* The number of lines of T. */
static size_t lines_of(const char *t)
{
	size_t n = 0;
	for (; *t; t++)
		n += *t == '\n';
	return n;
}

/* The program of the question drawn from Q at WIDTH, read back. */
static bool program_read(const struct askr_question *q, unsigned width, struct askr_arg *path)
{
	char *t = askr_render(q, width, 24);
	struct askr_arg *a;
	size_t n, argc;
	bool r = askr_parse(t, &a, &n, &argc, path) && !askr_check(q, t, width);
	askr_args_free(a, n);
	free(t);
	return r;
}

/* A word is cut exactly when its quoted form is wider than the columns
 * its field has: every byte costs what it is drawn as. */
static void costs(void)
{
	/* The program's field at 40 columns: 2 lines of 27, and 1. */
	const size_t cols = 2 * (40 - ASKR_LABEL - 1) + 1;
	static const char *const kinds[] = {"a", " ", "'", "\x01\n", "\x01\t", "\x01\\", "\x01'",
					    "\x01\x02", ("\x01" "a")};
	char *argv[] = {"x"};
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		bool right = true;
		for (size_t len = 2; len < 70 && right; len++) {
			char s[80];
			memset(s, kinds[k][1] ? kinds[k][1] : kinds[k][0], len);
			s[0] = kinds[k][0];
			s[len] = '\0';
			char *w = askr_word(s, len);
			bool fits = strlen(w) <= cols;
			free(w);
			struct askr_question q = question(argv, 1);
			q.path = s;
			struct askr_arg path;
			right = program_read(&q, 40, &path) && fits == !path.tail;
			if (!right)
				printf("#   kind %zu, %zu bytes: %s\n", k, len, fits ? "cut" : "not cut");
			free(path.head);
			free(path.tail);
		}
		ok(right, "a word cut just when its quoted form is wider than its field (kind %zu)", k);
	}

	/* Cut: as much of the start as fits half the room, of the end the rest. */
	char s[601];
	memset(s, 'a', 300);
	memset(s + 300, 1, 300);
	s[600] = '\0';
	struct askr_question q = question(argv, 1);
	q.path = s;
	struct askr_arg path;
	ok(program_read(&q, 80, &path) && path.tail && path.tail_len > 0 &&
		   path.head_len > 2 * path.tail_len,
	   "cheap bytes at the start, dear ones at the end: more of the start shown (%zu, %zu)",
	   path.head_len, path.tail_len);
	free(path.head);
	free(path.tail);
}

static void wrapping(void)
{
	static const struct {
		const char *in, *want, *what;
		unsigned width;
	} w[] = {
		{"", "", "nothing wrapped is nothing", 80},
		{"aaaaaaaaaaa bbbbbbbbbbbb", "aaaaaaaaaaa bbbbbbbbbbbb\n",
		 "a line as wide as the terminal kept whole", ASKR_MIN_WIDTH},
		{"aaaa bbbb cccc dddd eeeee ffff", "aaaa bbbb cccc dddd\neeeee ffff\n",
		 "broken at the last blank that fits", 10},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaa\nb", "aaaaaaaaaaaaaaaaaaaaaaaa\naaaa\nb\n",
		 "a line without blanks cut at the width", 10},
	};
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
		char *t = askr_wrap(w[i].in, w[i].width);
		is_str(t, w[i].want, "%s", w[i].what);
		free(t);
	}
}

static void fields(void)
{
	char *one[] = {"ls"};
	struct askr_question q = question(one, 1);
	char *t = drawn(&q, 80, 24, "one word");
	ok(strstr(t, "1 word, one a line, as a shell would take it:") != NULL, "one word: \"it\"");
	free(t);
	char c[80];
	memset(c, 'c', sizeof c);
	c[4 * (30 - ASKR_LABEL - 1) + 1] = '\0';
	q.careful = c;
	t = drawn(&q, 30, 24, "a CAREFUL text that just fits");
	char *j = joined(t);
	ok(!strstr(j, " ... "), "a CAREFUL text as long as its field: whole");
	free(j);
	free(t);
	c[4 * (30 - ASKR_LABEL - 1) + 1] = 'c';
	c[4 * (30 - ASKR_LABEL - 1) + 2] = '\0';
	t = drawn(&q, 30, 24, "a CAREFUL text a byte longer");
	j = joined(t);
	ok(strstr(j, " ... ") != NULL, "a byte longer: cut in the middle");
	free(j);
	free(t);
	q.careful = NULL;
	char *w[] = {"\\\x01'", "a", "a"};
	q = question(w, 3);
	free(drawn(&q, 80, 24, "a backslash and a quote in a $'...' word"));
}

/* The words get the lines the terminal has left: all of them, or all
 * but a middle said to be left out. */
static void rows(void)
{
	char bytes[255][2], *each[255];
	for (int c = 1; c < 256; c++) {
		bytes[c - 1][0] = (char)('a' + c % 26);
		bytes[c - 1][1] = '\0';
		each[c - 1] = bytes[c - 1];
	}
	struct askr_question q = question(each, 255);
	char *t = askr_render(&q, 80, 24), *u = askr_render(&q, 80, 0);
	ok(lines_of(t) == 21, "24 rows: 21 lines, room for the answer (%zu)", lines_of(t));
	is_str(u, t, "rows unknown: 24");
	free(t);
	free(u);
	t = askr_render(&q, 80, 40);
	ok(lines_of(t) == 37, "40 rows: 37 lines (%zu)", lines_of(t));
	free(t);
	/* As many words as there are lines for them: all shown. */
	q.argc = 1;
	t = askr_render(&q, 80, 24);
	size_t head = lines_of(t) - 1;
	free(t);
	q.argc = 10;
	t = drawn(&q, 80, (unsigned)(head + 3 + 10), "as many words as lines left");
	ok(lines_of(t) == head + 10 && !strstr(t, "not shown"), "all 10 words, one a line");
	free(t);
}

/* Reading a question back (askr_parse): what is no question of its form. */
static bool parses(const char *t)
{
	struct askr_arg *a, path;
	size_t n, argc;
	bool r = askr_parse(t, &a, &n, &argc, &path);
	askr_args_free(a, n);
	free(path.head);
	free(path.tail);
	return r;
}

/* A question of one word, ARG as it is drawn, read back. */
static bool reads(const char *arg)
{
	char *t = xasprintf("  program:  /bin/x\n  argv:     1 word\n  [0]       %s\n", arg);
	bool r = parses(t);
	free(t);
	return r;
}

static void reading(void)
{
	ok(reads("abc") && reads("$'a\\\\b\\'\\x41'") && reads("'it'\\''s'") &&
		   reads("ab <1 of 4 bytes not shown> d"),
	   "words read back");
	ok(!reads("") && !reads("!") && !reads("$'abc") && !reads("'abc") && !reads("$'\\q'") &&
		   !reads("$'\\xg0'") && !reads("$'\\xgg'") && !reads("$'\\q0a'") && !reads("a\\b") &&
		   !reads("abc xyz") && !reads("abc <1 of 4 bytes not shown> ") &&
		   !reads("abc <1 of 9 bytes not shown> d") && !reads("abc\\"),
	   "what is no word, or no cut one");
	ok(parses("  program:  /bin/x\\\n            \n  argv:     0 words\n"),
	   "a broken line continued by nothing");
	ok(!parses("  program:  /bin/x\n") && !parses("  argv:     0 words\n") &&
		   !parses("  program:  /bin/x\n  argv:     0 words\n  argv:     0 words\n") &&
		   !parses("  program:  /bin/x\n  argv:     no words\n"),
	   "a program and one count of words, or no question");

	/* A question changed after it was drawn: the check notices. */
	char *w[] = {"a", "a"};
	struct askr_question q = question(w, 2);
	char *t = askr_render(&q, 80, 24), *p = strstr(t, "  [1]");
	p[3] = '0';
	ok(askr_check(&q, t, 80) != NULL, "two words of one index");
	p[3] = '2';
	ok(askr_check(&q, t, 80) != NULL, "an index past the words");
	free(t);
	char *six[] = {"abcdef"};
	q = question(six, 1);
	t = askr_render(&q, 80, 24);
	p = strstr(t, "abcdef");
	char *f = xasprintf("%.*sabcd <%zu of 6 bytes not shown> cdef\n", (int)(p - t), t,
			    (size_t)-2);
	ok(askr_check(&q, f, 80) != NULL, "a start and an end that overlap");
	free(f);
	f = xasprintf("%.*sab <3 of 7 bytes not shown> ef\n", (int)(p - t), t);
	ok(askr_check(&q, f, 80) != NULL, "a length that is not the word's");
	free(f);
	free(t);
}

/* A question to run outside shows every word whole, or is not asked; a
 * grant's says what it grants. */
static void outside(void)
{
	char *argv[160];
	char num[160][8];
	argv[0] = "rm";
	for (size_t i = 1; i < 144; i++) {
		snprintf(num[i], sizeof num[i], "f%zu", i);
		argv[i] = num[i];
	}
	struct askr_question q = question(argv, 144);
	q.outside = true;
	char *t = askr_render(&q, 80, 24);
	ok(t == NULL, "144 words outside on 24 lines: not asked");
	free(t);
	t = drawn(&q, 80, 200, "144 words outside on 200 lines");
	ok(t && strstr(t, "  [143]     f143\n") && !strstr(t, "not shown"), "every word, none left out");
	ok(t && strstr(t, "OUTSIDE") && strstr(t, "instead:"), "said to be outside, a grant offered");
	free(t);
	char prog[6000];
	memset(prog, 'x', sizeof prog - 1);
	prog[sizeof prog - 1] = '\0';
	char *awk[] = {"awk", prog, "f"};
	q = question(awk, 3);
	q.outside = true;
	t = askr_render(&q, 80, 24);
	ok(t == NULL, "a 6000-byte program outside on 80x24: not asked");
	free(t);
	t = drawn(&q, 80, 200, "a 6000-byte program outside on 80x200");
	ok(t && !strstr(t, "bytes not shown"), "shown whole");
	free(t);
	/* One-letter words take a line each; the question uses every line
	 * it may (all but three) before it gives up. */
	char *letters[20];
	for (size_t i = 0; i < 20; i++)
		letters[i] = "a";
	q = question(letters, 20);
	q.outside = true;
	unsigned r = 0;
	for (unsigned rows = 10; rows < 80 && !r; rows++) {
		t = askr_render(&q, 80, rows);
		if (t)
			r = rows;
		if (t)
			ok(lines_of(t) == rows - 3, "the fewest rows that show 20 words (%u): all but "
			   "three lines used (%zu)", rows, lines_of(t));
		free(t);
	}
	ok(r > 20, "20 one-letter words need more than 20 rows (%u)", r);
	q = question(awk, 3);
	q.outside = false;
	q.grant = "--write /srv/r.git";
	t = drawn(&q, 80, 24, "a grant's question");
	ok(t && strstr(t, "  grant:    --write /srv/r.git\n") && strstr(t, "bytes not shown"),
	   "the grant shown, a long word cut");
	free(t);
}

int main(void)
{
	words();
	costs();
	wrapping();
	fields();
	rows();
	reading();

	outside();

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
