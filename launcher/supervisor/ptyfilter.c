/* What of the command's output reaches the real terminal (ptyfilter.h):
 * an allow-list of what a full-screen program draws with, read as the
 * terminal reads it.
 *
 * Everything else is dropped, because the terminal is the person's, not
 * the sandbox's: a title, the palette, the font, the clipboard, the
 * window's size and place, the scrollback, user-defined keys, a
 * multiplexer's passthrough, notifications, the next tab's directory,
 * and whatever a terminal adds next; none can be read back to be put
 * right at the end. What passes is undone by the end-of-session reset
 * (pty.c: finish_reset), mode by mode.
 *
 * The reports allowed (CSI 5 n, CSI 6 n, primary and secondary device
 * attributes) make the terminal type its answer, which goes where the
 * person's keys go: so they pass only where the supervisor reads the
 * terminal and relays what it reads to the sandbox's own pty (or, while
 * a question is up, to the question, which takes an escape sequence as
 * No); answers still on their way at the end are waited for and
 * dropped (pty.c: answers_drop), not left to the calling shell. The
 * answers are of a fixed form (a status, a position, the terminal's
 * type), none with bytes of the sandbox's choosing. */
#include "config.h"
#include "supervisor/ptyfilter.h"

#include <string.h>

/* FS_SKIP: a CSI dropped, read to its final byte. FS_DROP: a string
 * dropped to BEL or ST (an OSC); FS_DROP_ST: one that only ST ends (DCS,
 * APC, PM, SOS, ESC k: tmux reads APC past a BEL). */
enum { FS_GROUND, FS_ESC, FS_ESC_INT, FS_CSI, FS_SKIP, FS_DROP, FS_DROP_ST, FS_DROP_ESC };

/* The C0 controls passed on: BEL, BS, HT, LF, VT, FF, CR, and SO and SI
 * (G1 and G0: ncurses draws lines with them on screen and tmux; both
 * sets are put back at the end). Not NUL, ENQ (xterm's answerback), CAN
 * and SUB in text, the others nothing draws with; DEL neither. */
static bool c0_passed(unsigned char c)
{
	return c >= 0x07 && c <= 0x0f;
}

/* The DEC private modes (CSI ? Pm h, l) passed on: cursor keys (1),
 * autowrap (7), a blinking cursor (12), the cursor shown (25), the
 * alternate screen (47, 1047, 1048: the cursor saved, 1049), the keypad
 * (66), mouse reports (1000, 1002, 1003 and their encodings 1005, 1006,
 * 1015), focus reports (1004), bracketed paste (2004). Each is reset
 * at the end. */
static bool dec_mode(unsigned m)
{
	static const unsigned modes[] = {1,    7,    12,   25,   47,   66,   1000, 1002, 1003,
					 1004, 1005, 1006, 1015, 1047, 1048, 1049, 2004};
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
		if (modes[i] == m)
			return true;
	return false;
}

/* Every parameter of the CSI is one IS accepts. */
static bool all_params(const struct pty_filter *f, bool (*is)(unsigned))
{
	if (f->np == 0)
		return false;
	for (unsigned i = 0; i < f->np; i++)
		if (!is(f->par[i]))
			return false;
	return true;
}

static bool insert_mode(unsigned m)
{
	return m == 4;
}

/* The CSI just ended by FIN is one a screen is drawn with. Values are
 * read as the terminal reads them, and one too large for any list
 * matches none (a terminal that wraps it cannot make it 3 J). */
static bool csi_allowed(const struct pty_filter *f, unsigned char fin)
{
	if (f->bad)
		return false;
	/* Sub-parameters (38:2::R:G:B) are SGR's alone. */
	if (f->colon)
		return fin == 'm' && !f->mark && !f->inter;
	/* The cursor's shape (DECSCUSR, 0 to 6); a soft reset (DECSTR). */
	if (f->inter == ' ')
		return fin == 'q' && !f->mark && f->np <= 1 && f->par[0] <= 6;
	if (f->inter == '!')
		return fin == 'p' && !f->mark && f->np == 0;
	if (f->inter)
		return false;
	if (f->mark == '?')
		return (fin == 'h' || fin == 'l') && all_params(f, dec_mode);
	/* The secondary device attributes (vim asks them). */
	if (f->mark == '>')
		return fin == 'c' && f->reports && f->np <= 1 && f->par[0] == 0;
	if (f->mark)
		return false;
	/* Cursor movement, insert and delete, erase characters, scroll,
	 * the scroll region, repeat, tabs forward and back: any count. */
	if (strchr("@ABCDEFGHILMPSTXZ`abdefr", fin))
		return f->np <= 2;
	switch (fin) {
	case 'm':
		return true;
	case 'J': /* not 3: the scrollback is the person's */
	case 'K':
		return f->np <= 1 && f->par[0] <= 2;
	case 'g': /* a tab stop cleared, or all of them */
		return f->np <= 1 && (f->par[0] == 0 || f->par[0] == 3);
	case 'h':
	case 'l':
		return all_params(f, insert_mode);
	case 'n':
		return f->reports && f->np == 1 && (f->par[0] == 5 || f->par[0] == 6);
	case 'c':
		return f->reports && f->np <= 1 && f->par[0] == 0;
	case 's': /* the cursor saved and restored (with parameters: margins) */
	case 'u':
		return f->np == 0;
	}
	return false;
}

/* The escape ESC INTER FIN (INTER 0: none) passed on: the cursor saved
 * and restored (7, 8), index, reverse index and next line (D, M, E), a
 * tab stop set (H), the keypad (=, >), and G0 or G1 as ASCII or line
 * drawing. Not RIS (ESC c: it clears the scrollback of many terminals),
 * nor other character sets, nor single shifts. */
static bool esc_allowed(unsigned char inter, unsigned char fin)
{
	if (inter == '(' || inter == ')')
		return fin == 'B' || fin == '0';
	return !inter && fin && strchr("78DEHM=>", fin);
}

bool pty_can_change(const char *b, size_t n)
{
	/* Text and the other C0 controls move the cursor and ring bells;
	 * modes, attributes, screens and strings all start with ESC, and
	 * SO and SI switch the character set. (8-bit C1 controls are not
	 * controls to a UTF-8 terminal: they are parts of characters.) */
	return memchr(b, 0x1b, n) || memchr(b, 0x0e, n) || memchr(b, 0x0f, n);
}

/* A sequence dropped from here on (ST the state to drop it in): what
 * it holds goes, and a CAN goes out in its place, which ends on the
 * terminal whatever might be begun there and does nothing on its own.
 * OUT has room for it: what was held is not written. */
static size_t drop_as(struct pty_filter *f, int st, char *out)
{
	f->nheld = 0;
	f->st = (unsigned char)st;
	out[0] = 0x18;
	return 1;
}

size_t pty_filter_flush(struct pty_filter *f, char *out)
{
	/* A lead byte alone at the end (pty_filter_feed) is not passed on. */
	f->lead = false;
	if (f->nheld)
		return drop_as(f, FS_GROUND, out);
	return 0;
}

/* The held sequence and FIN, passed on whole. */
static size_t pass_held(struct pty_filter *f, unsigned char fin, char *out)
{
	memcpy(out, f->held, f->nheld);
	size_t w = f->nheld;
	out[w++] = (char)fin;
	f->nheld = 0;
	f->st = FS_GROUND;
	return w;
}

/* One byte C through the filter's states into OUT; the bytes written. */
static size_t filter_byte(struct pty_filter *f, unsigned char c, char *out)
{
	size_t w = 0;
	if (f->st == FS_GROUND) {
		if (c == 0x1b) {
			f->held[0] = c;
			f->nheld = 1;
			f->st = FS_ESC;
		} else if ((c >= 0x20 && c != 0x7f) || c0_passed(c)) {
			out[w++] = (char)c;
		}
		return w;
	}
	if (f->st >= FS_DROP) {
		/* A string dropped, to its end (BEL, ST) or until CAN or SUB
		 * cancels it. An ESC that is not ST starts a sequence. */
		if (f->st == FS_DROP_ESC && c == '\\') {
			f->st = FS_GROUND;
			return 0;
		}
		if (f->st == FS_DROP_ESC) {
			f->held[0] = 0x1b;
			f->nheld = 1;
			f->st = FS_ESC;
		} else {
			if (c == 0x1b)
				f->st = FS_DROP_ESC;
			else if (c == 0x18 || c == 0x1a || (c == 0x07 && f->st == FS_DROP))
				f->st = FS_GROUND;
			return 0;
		}
	}
	/* In an escape or a CSI: CAN and SUB cancel it, ESC starts another
	 * (what was held is dropped), other C0 controls and DEL are carried
	 * out by the terminal there and the sequence goes on, and bytes from
	 * 0x80 up are ignored, as tmux does. */
	if (c == 0x18 || c == 0x1a || c == 0x1b) {
		if (f->nheld)
			w += drop_as(f, FS_GROUND, out);
		f->st = FS_GROUND;
		if (c == 0x1b)
			w += filter_byte(f, c, out + w);
		return w;
	}
	if (c < 0x20 || c == 0x7f) {
		if (c0_passed(c))
			out[w++] = (char)c;
		return w;
	}
	if (c >= 0x80)
		return 0;
	switch (f->st) {
	case FS_ESC:
		if (c == '[') {
			f->held[f->nheld++] = c;
			f->mark = f->inter = 0;
			f->colon = f->bad = false;
			f->np = 0;
			memset(f->par, 0, sizeof f->par);
			f->st = FS_CSI;
		} else if (c == ']') {
			w += drop_as(f, FS_DROP, out);
		} else if (c == 'P' || c == '_' || c == '^' || c == 'X' || c == 'k') {
			/* DCS, APC (tmux: the pane's title), PM, SOS, and
			 * screen's and tmux's window name. */
			w += drop_as(f, FS_DROP_ST, out);
		} else if (c < 0x30) {
			f->held[f->nheld++] = c;
			f->inter = c;
			f->bad = false;
			f->st = FS_ESC_INT;
		} else if (esc_allowed(0, c)) {
			w += pass_held(f, c, out);
		} else {
			w += drop_as(f, FS_GROUND, out);
		}
		break;
	case FS_ESC_INT:
		if (c < 0x30)
			f->bad = true;
		else if (!f->bad && esc_allowed(f->inter, c))
			w += pass_held(f, c, out);
		else
			w += drop_as(f, FS_GROUND, out);
		break;
	case FS_CSI:
		/* Too long to hold: dropped, and read to its end. */
		if (f->nheld == PTY_FILTER_HOLD) {
			w += drop_as(f, FS_SKIP, out);
			return w + filter_byte(f, c, out + w);
		}
		if (c >= 0x40) {
			if (csi_allowed(f, c)) {
				f->asked = f->asked || c == 'n' || c == 'c';
				w += pass_held(f, c, out);
			} else {
				w += drop_as(f, FS_GROUND, out);
			}
			break;
		}
		f->held[f->nheld++] = c;
		if (c < 0x30) {
			f->bad = f->bad || f->inter;
			f->inter = c;
		} else if (f->inter) {
			/* A parameter after an intermediate: the terminal
			 * ignores the whole sequence. */
			f->bad = true;
		} else if (c >= 0x3c) {
			if (f->nheld == 3)
				f->mark = c;
			else
				f->bad = true;
		} else if (c == ';' || c == ':') {
			f->colon = f->colon || c == ':';
			f->np = f->np ? f->np + 1 : 2;
			f->bad = f->bad || f->np > PTY_FILTER_PARAMS;
		} else if (c <= '9') {
			if (!f->np)
				f->np = 1;
			if (f->np <= PTY_FILTER_PARAMS) {
				unsigned *p = &f->par[f->np - 1];
				*p = *p > 99999 ? *p : *p * 10 + (c - '0');
			}
		}
		break;
	case FS_SKIP:
		if (c >= 0x40)
			f->st = FS_GROUND;
		break;
	}
	return w;
}

size_t pty_filter_feed(struct pty_filter *f, const char *in, size_t n, char *out)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];
		/* U+0080 to U+009F, C2 80 to C2 9F: dropped whole, in every
		 * state, so that what the filter decides on is what the
		 * terminal reads (no string ended or begun by one). A C2 goes
		 * on only with the byte that makes it U+00A0 to U+00BF, so it
		 * never meets a later 80 to 9F across what is dropped. */
		if (f->lead) {
			f->lead = false;
			if (c >= 0xa0 && c <= 0xbf) {
				w += filter_byte(f, 0xc2, out + w);
				w += filter_byte(f, c, out + w);
				continue;
			}
			if (c >= 0x80 && c <= 0x9f)
				continue;
		}
		if (c == 0xc2) {
			f->lead = true;
			continue;
		}
		w += filter_byte(f, c, out + w);
	}
	return w;
}
