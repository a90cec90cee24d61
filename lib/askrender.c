/* The question of `wicket ask` as text (askrender.h). Everything the
 * sandbox chose (the arguments, the requester's name and directory, its
 * reason) is shown as a shell word in printable ASCII: a terminal draws
 * each byte of it as one column, so widths are byte counts, and nothing
 * in it is an escape sequence, a zero-width or right-to-left character,
 * or a look-alike of another letter. */
#include "config.h"

#include "askrender.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARG_LINES 3     /* lines one argument may take before it is cut */
#define FIELD_LINES 2   /* likewise the name, directory, program, reason */
#define CAREFUL_LINES 4

/* A growing string. */
struct sb {
	char *b;
	size_t len, cap;
};

static void sb_add(struct sb *s, const char *p, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		s->cap = (s->len + n + 1) * 2;
		s->b = xrealloc(s->b, s->cap);
	}
	memcpy(s->b + s->len, p, n);
	s->len += n;
	s->b[s->len] = '\0';
}

static void sb_str(struct sb *s, const char *p)
{
	sb_add(s, p, strlen(p));
}

static void sb_char(struct sb *s, char c)
{
	sb_add(s, &c, 1);
}

static char *sb_take(struct sb *s)
{
	if (!s->b)
		sb_add(s, "", 0);
	return s->b;
}

static bool safe_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("_@%+=:,./-", c));
}

static bool printable(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}

/* --- words ----------------------------------------------------------------- */

enum form { BARE, SINGLE, ANSI };

static enum form form_of(const unsigned char *s, size_t n)
{
	enum form f = n ? BARE : SINGLE;
	for (size_t i = 0; i < n; i++) {
		if (!printable(s[i]))
			return ANSI;
		if (!safe_char(s[i]))
			f = SINGLE;
	}
	return f;
}

/* How many columns byte C takes in form F. */
static size_t cost(enum form f, unsigned char c)
{
	if (f == SINGLE)
		return c == '\'' ? 4 : 1;
	if (f == ANSI) {
		if (c == '\'' || c == '\\' || c == '\n' || c == '\t')
			return 2;
		return printable(c) ? 1 : 4;
	}
	return 1;
}

static void word_add(struct sb *o, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	enum form f = form_of(u, n);
	if (f == BARE) {
		sb_add(o, s, n);
		return;
	}
	sb_str(o, f == ANSI ? "$'" : "'");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = u[i];
		if (f == SINGLE) {
			if (c == '\'')
				sb_str(o, "'\\''");
			else
				sb_char(o, (char)c);
		} else if (c == '\'' || c == '\\') {
			sb_char(o, '\\');
			sb_char(o, (char)c);
		} else if (c == '\n') {
			sb_str(o, "\\n");
		} else if (c == '\t') {
			sb_str(o, "\\t");
		} else if (printable(c)) {
			sb_char(o, (char)c);
		} else {
			char x[5];
			snprintf(x, sizeof x, "\\x%02x", c);
			sb_str(o, x);
		}
	}
	sb_char(o, '\'');
}

char *askr_word(const char *s, size_t n)
{
	struct sb o = {0};
	word_add(&o, s, n);
	return sb_take(&o);
}

/* Columns of the word of S[0..N). */
static size_t word_cols(const unsigned char *s, size_t n)
{
	enum form f = form_of(s, n);
	size_t c = f == BARE ? 0 : f == ANSI ? 3 : 2;
	for (size_t i = 0; i < n; i++)
		c += cost(f, s[i]);
	return c;
}

/* The longest start (or, TAIL, end) of S[0..N) whose word fits COLS. */
static size_t fit(const unsigned char *s, size_t n, size_t cols, bool tail)
{
	size_t k = n;
	while (k) {
		size_t c = word_cols(tail ? s + n - k : s, k);
		if (c <= cols)
			break;
		size_t over = (c - cols + 3) / 4; /* a byte costs at most 4 */
		k = over < k ? k - over : 0;
	}
	return k;
}

/* S[0..N) as a word in at most COLS columns: whole, or its start and end
 * with "<M of N bytes not shown>" between. */
static void word_cut(struct sb *o, const char *s, size_t n, size_t cols)
{
	const unsigned char *u = (const unsigned char *)s;
	if (word_cols(u, n) <= cols) {
		word_add(o, s, n);
		return;
	}
	char mark[80];
	int ml = snprintf(mark, sizeof mark, " <%zu of %zu bytes not shown> ", n, n);
	size_t room = cols > (size_t)ml + 6 ? cols - (size_t)ml : 6;
	size_t h = fit(u, n, room / 2, false);
	size_t t = fit(u, n - h, room - room / 2, true);
	word_add(o, s, h);
	snprintf(mark, sizeof mark, " <%zu of %zu bytes not shown> ", n - h - t, n);
	sb_str(o, mark);
	word_add(o, s + n - t, t);
}

/* --- lines ------------------------------------------------------------------ */

/* LABEL (at most ASKR_LABEL columns, padded) and VALUE, broken into lines
 * of WIDTH columns: a broken line ends in '\', the next starts blank. */
static void field(struct sb *o, const char *label, const char *value, unsigned width)
{
	size_t room = width - ASKR_LABEL - 1, n = strlen(value);
	char pad[ASKR_LABEL + 1];
	snprintf(pad, sizeof pad, "%-*s", ASKR_LABEL, label);
	sb_str(o, pad);
	for (size_t i = 0;;) {
		size_t k = n - i;
		if (k <= room + 1) {
			sb_add(o, value + i, k);
			sb_char(o, '\n');
			return;
		}
		sb_add(o, value + i, room);
		sb_str(o, "\\\n");
		i += room;
		snprintf(pad, sizeof pad, "%*s", ASKR_LABEL, "");
		sb_str(o, pad);
	}
}

/* Columns a value may take on LINES lines. */
static size_t cols_for(unsigned width, unsigned lines)
{
	return (size_t)(width - ASKR_LABEL - 1) * lines + 1;
}

static void word_field(struct sb *o, const char *label, const char *s, unsigned width,
		       unsigned lines, const char *suffix)
{
	struct sb v = {0};
	size_t cols = cols_for(width, lines), sl = suffix ? strlen(suffix) : 0;
	word_cut(&v, s ? s : "?", s ? strlen(s) : 1, cols > sl + 8 ? cols - sl : 8);
	if (suffix)
		sb_str(&v, suffix);
	field(o, label, sb_take(&v), width);
	free(v.b);
}

/* Text that is not a word (the CAREFUL reason): printable ASCII kept,
 * '\\' and every other byte as \\ and \xHH, cut in the middle. */
static void text_field(struct sb *o, const char *label, const char *s, unsigned width,
		       unsigned lines)
{
	struct sb v = {0};
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\') {
			sb_str(&v, "\\\\");
		} else if (printable(*p)) {
			sb_char(&v, (char)*p);
		} else {
			char x[5];
			snprintf(x, sizeof x, "\\x%02x", *p);
			sb_str(&v, x);
		}
	}
	size_t cols = cols_for(width, lines);
	char *t = sb_take(&v);
	if (v.len > cols) {
		static const char dots[] = " ... ";
		size_t keep = (cols - (sizeof dots - 1)) / 2;
		char *c = xasprintf("%.*s%s%s", (int)keep, t, dots, t + v.len - keep);
		field(o, label, c, width);
		free(c);
	} else {
		field(o, label, t, width);
	}
	free(t);
}

char *askr_wrap(const char *text, unsigned width)
{
	struct sb o = {0};
	if (width < ASKR_MIN_WIDTH)
		width = ASKR_MIN_WIDTH;
	for (const char *p = text; *p;) {
		size_t line = strcspn(p, "\n");
		while (line > width) {
			size_t b = width;
			while (b > 0 && p[b] != ' ')
				b--;
			size_t take = b ? b : width;
			sb_add(&o, p, take);
			sb_char(&o, '\n');
			p += take + (b ? 1 : 0);
			line -= take + (b ? 1 : 0);
		}
		sb_add(&o, p, line);
		sb_char(&o, '\n');
		p += line;
		if (*p == '\n')
			p++;
	}
	return sb_take(&o);
}

/* The width used for a terminal of WIDTH columns (0: unknown). */
static unsigned width_of(unsigned width)
{
	return !width ? 80 : width < ASKR_MIN_WIDTH ? ASKR_MIN_WIDTH :
	       width > ASKR_MAX_WIDTH ? ASKR_MAX_WIDTH : width;
}

/* Every question's start: what is asked (HEAD), and who asks. */
static void asked_by(struct sb *o, const char *head, const char *comm, long pid, unsigned width)
{
	char *h = askr_wrap(head, width);
	sb_str(o, h);
	free(h);
	char suffix[64];
	snprintf(suffix, sizeof suffix, " (pid %ld in the sandbox)", pid);
	word_field(o, "  asked by:", comm, width, 1, suffix);
}

char *askr_render(const struct askr_question *q, unsigned width, unsigned rows)
{
	width = width_of(width);
	if (!rows)
		rows = 24;
	struct sb o = {0};
	if (q->outside)
		asked_by(&o, "wicket: a program in the sandbox asks to run a command OUTSIDE the "
			     "sandbox, with your own rights and environment, on its input and output.",
			 q->comm, q->pid, width);
	else
		asked_by(&o, "wicket: a program in the sandbox asks to run a command in a sandbox of "
			     "its own: this session's policy, with these rights added.",
			 q->comm, q->pid, width);
	if (!q->outside)
		text_field(&o, "  grant:", q->grant && *q->grant ? q->grant : "(nothing more)", width,
			   CAREFUL_LINES);
	word_field(&o, "  in:", q->cwd, width, FIELD_LINES, NULL);
	if (q->reason)
		word_field(&o, "  reason:", q->reason, width, FIELD_LINES, NULL);
	else
		field(&o, "  reason:", "(none given)", width);
	if (q->careful)
		text_field(&o, "CAREFUL:", q->careful, width, CAREFUL_LINES);
	if (q->outside)
		text_field(&o, "  instead:", "a grant runs it in a sandbox of its own with only the "
			   "rights it needs: answer no, and ask again without --outside, with "
			   "--write, --read, --net, --socket or --env", width, CAREFUL_LINES);
	if (q->input)
		text_field(&o, "  input:", q->input, width, CAREFUL_LINES);
	word_field(&o, "  program:", q->path, width, FIELD_LINES, NULL);
	char count[64];
	snprintf(count, sizeof count, "%zu word%s, one a line, as a shell would take %s:", q->argc,
		 q->argc == 1 ? "" : "s", q->argc == 1 ? "it" : "them");
	field(&o, "  argv:", count, width);

	/* The arguments get the lines the terminal has left (less the answer
	 * line and a little of what was above): each up to ARG_LINES, at
	 * least one; the middle ones are left out when even that is too many. */
	size_t lines_used = 0;
	for (size_t i = 0; i < o.len; i++)
		lines_used += o.b[i] == '\n';
	size_t avail = rows > lines_used + 3 ? rows - lines_used - 3 : 0;
	if (q->outside) {
		/* Each word on as many lines as it takes, or no question. */
		size_t need = 0;
		for (size_t i = 0; i < q->argc; i++) {
			size_t cols = word_cols((const unsigned char *)q->argv[i], strlen(q->argv[i]));
			size_t per_line = (size_t)(width - ASKR_LABEL - 1);
			need += cols <= 1 ? 1 : (cols - 1 + per_line - 1) / per_line;
		}
		if (need > avail) {
			free(o.b);
			return NULL;
		}
		for (size_t i = 0; i < q->argc; i++) {
			char label[32];
			snprintf(label, sizeof label, "  [%zu]", i);
			size_t cols = word_cols((const unsigned char *)q->argv[i], strlen(q->argv[i]));
			word_field(&o, label, q->argv[i], width, (unsigned)(cols + 1), NULL);
		}
		return sb_take(&o);
	}
	if (avail < 6)
		avail = 6;
	size_t per = q->argc ? avail / q->argc : 1;
	per = per < 1 ? 1 : per > ARG_LINES ? ARG_LINES : per;
	size_t first = q->argc, last = q->argc; /* shown: [0, first) and [last, argc) */
	if (q->argc > avail) {
		first = (avail - 1) / 2;
		last = q->argc - (avail - 1 - first);
	}
	for (size_t i = 0; i < q->argc; i++) {
		if (i == first && first < last) {
			char gap[96];
			snprintf(gap, sizeof gap, "words %zu to %zu not shown (%zu words)", first,
				 last - 1, last - first);
			field(&o, "  ...", gap, width);
			i = last - 1;
			continue;
		}
		char label[32];
		snprintf(label, sizeof label, "  [%zu]", i);
		word_field(&o, label, q->argv[i], width, (unsigned)per, NULL);
	}
	return sb_take(&o);
}

char *askr_render_net(const struct askr_netq *q, unsigned width)
{
	width = width_of(width);
	struct sb o = {0};
	asked_by(&o, "wicket: a program in the sandbox asks to connect to a host that is not in the "
		     "allowed domains.",
		 q->comm, q->pid, width);
	word_field(&o, "  host:", q->host, width, FIELD_LINES, NULL);
	word_field(&o, "  request:", q->request, width, FIELD_LINES, NULL);
	return sb_take(&o);
}

/* --- reading it back (the tests' and the fuzzer's side) ------------------------ */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* One shell word at *P, in the forms word_add writes; false when there
 * is none. */
static bool word_read(const char **p, struct sb *out)
{
	const char *s = *p;
	bool any = false;
	out->len = 0;
	sb_add(out, "", 0);
	for (;;) {
		if (s[0] == '$' && s[1] == '\'') {
			s += 2;
			while (*s != '\'') {
				if (!*s)
					return false;
				if (*s != '\\') {
					sb_char(out, *s++);
					continue;
				}
				s++;
				if (*s == 'n' || *s == 't') {
					sb_char(out, *s == 'n' ? '\n' : '\t');
					s++;
				} else if (*s == '\\' || *s == '\'') {
					sb_char(out, *s++);
				} else if (*s == 'x' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
					sb_char(out, (char)(hexval(s[1]) * 16 + hexval(s[2])));
					s += 3;
				} else {
					return false;
				}
			}
			s++;
		} else if (*s == '\'') {
			const char *e = strchr(s + 1, '\'');
			if (!e)
				return false;
			sb_add(out, s + 1, (size_t)(e - s - 1));
			s = e + 1;
		} else if (s[0] == '\\' && s[1] == '\'') {
			sb_char(out, '\'');
			s += 2;
		} else if (safe_char((unsigned char)*s)) {
			sb_char(out, *s++);
		} else {
			break;
		}
		any = true;
	}
	*p = s;
	return any;
}

/* The value of the field starting at line L (lines joined where one
 * ends in '\'), or NULL; *NEXT the line after it. */
static char *value_at(char **lines, size_t nl, size_t l, size_t *next)
{
	struct sb v = {0};
	for (;;) {
		const char *t = lines[l];
		if (strlen(t) < ASKR_LABEL) {
			free(v.b);
			return NULL;
		}
		t += ASKR_LABEL;
		size_t k = strlen(t);
		bool more = l + 1 < nl && k && t[k - 1] == '\\' &&
			    strspn(lines[l + 1], " ") >= ASKR_LABEL;
		sb_add(&v, t, more ? k - 1 : k);
		l++;
		if (!more)
			break;
	}
	*next = l;
	return sb_take(&v);
}

/* LINE starts with LABEL padded to the label column. */
static bool label_is(const char *line, const char *label)
{
	char pad[ASKR_LABEL + 1];
	snprintf(pad, sizeof pad, "%-*s", ASKR_LABEL, label);
	return strncmp(line, pad, ASKR_LABEL) == 0;
}

static bool arg_read(const char *v, struct askr_arg *a)
{
	struct sb w = {0};
	const char *p = v;
	if (!word_read(&p, &w)) {
		free(w.b);
		return false;
	}
	a->head = sb_take(&w);
	a->head_len = w.len;
	a->len = w.len;
	if (!*p)
		return true;
	size_t m, n;
	int used = 0;
	if (sscanf(p, " <%zu of %zu bytes not shown> %n", &m, &n, &used) != 2 || !used)
		return false;
	p += used;
	struct sb t = {0};
	if (!word_read(&p, &t)) {
		free(t.b);
		return false;
	}
	a->tail = sb_take(&t);
	a->tail_len = t.len;
	a->len = n;
	return !*p && a->head_len + a->tail_len + m == n;
}

bool askr_parse(const char *text, struct askr_arg **out, size_t *n, size_t *argc,
		struct askr_arg *path)
{
	*out = NULL;
	*n = *argc = 0;
	*path = (struct askr_arg){0};
	bool have_path = false;
	struct strv lines = {0};
	for (const char *p = text; *p;) {
		size_t k = strcspn(p, "\n");
		char *l = xmalloc(k + 1);
		memcpy(l, p, k);
		l[k] = '\0';
		strv_push(&lines, l);
		p += k + (p[k] == '\n');
	}
	bool ok = true, in_argv = false;
	size_t cap = 0;
	for (size_t l = 0; ok && l < lines.n;) {
		const char *t = lines.v[l];
		size_t next = l + 1;
		if (label_is(t, "  program:")) {
			char *v = value_at(lines.v, lines.n, l, &next);
			ok = v && !have_path && arg_read(v, path);
			have_path = true;
			free(v);
		} else if (label_is(t, "  argv:")) {
			ok = sscanf(t + ASKR_LABEL, "%zu word", argc) == 1 && !in_argv;
			in_argv = true;
			free(value_at(lines.v, lines.n, l, &next));
		} else if (in_argv && !strncmp(t, "  [", 3)) {
			size_t idx;
			char *v = value_at(lines.v, lines.n, l, &next);
			ok = v && sscanf(t + 3, "%zu]", &idx) == 1;
			if (ok) {
				if (*n == cap)
					*out = xrealloc(*out, (cap = cap ? 2 * cap : 8) * sizeof **out);
				struct askr_arg *a = &(*out)[(*n)++];
				*a = (struct askr_arg){.index = idx};
				ok = arg_read(v, a);
			}
			free(v);
		}
		l = next;
	}
	strv_free(&lines);
	return ok && in_argv && have_path;
}

void askr_args_free(struct askr_arg *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].head);
		free(a[i].tail);
	}
	free(a);
}

/* NULL when A, read back, is S (whole, or its start and end with its
 * length), else how it differs. */
static const char *arg_differs(const struct askr_arg *a, const char *s)
{
	size_t len = strlen(s);
	if (a->len != len || a->head_len > len || a->tail_len > len - a->head_len)
		return "a word read back has the wrong length";
	if (memcmp(a->head, s, a->head_len) != 0 ||
	    (a->tail && memcmp(a->tail, s + len - a->tail_len, a->tail_len) != 0))
		return "a word read back differs";
	if (!a->tail && a->head_len != len)
		return "a word is shorter and not marked cut";
	return NULL;
}

const char *askr_check(const struct askr_question *q, const char *text, unsigned width)
{
	width = width_of(width);
	size_t col = 0;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '\n') {
			col = 0;
			continue;
		}
		if (!printable(*p))
			return "a byte that is not printable ASCII";
		if (++col > width)
			return "a line wider than the terminal";
	}
	struct askr_arg *a, path;
	size_t n, argc;
	const char *why = NULL;
	if (!askr_parse(text, &a, &n, &argc, &path))
		why = "the question cannot be read back";
	else if (arg_differs(&path, q->path ? q->path : "?"))
		why = "the program read back differs";
	else if (argc != q->argc)
		why = "the number of words read back differs";
	else if (n < argc && !strstr(text, "\n  ...       words "))
		why = "words are left out without saying so";
	for (size_t i = 0; !why && i < n; i++) {
		if (a[i].index >= q->argc || (i && a[i].index <= a[i - 1].index)) {
			why = "a word read back has the wrong index";
			break;
		}
		why = arg_differs(&a[i], q->argv[a[i].index]);
	}
	askr_args_free(a, n);
	free(path.head);
	free(path.tail);
	return why;
}
