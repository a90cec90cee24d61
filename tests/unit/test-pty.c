/* The pure decisions of pty.c: which descriptors get the session's own
 * terminal, and the CR LF the raw real terminal needs for the
 * supervisor's own lines. */
#include "config.h"
#include "base/session.h"
#include "supervisor/pty.h"
#include "tap.h"

#include <string.h>

static unsigned choose(bool t0, bool t1, bool t2, dev_t d1, dev_t d2, bool sandbox, bool bg)
{
	struct pty_fdinfo fi[3] = {{t0, 7}, {t1, d1}, {t2, d2}};
	return pty_choose(fi, sandbox, bg);
}

static void crlf(const char *in, const char *want, const char *what)
{
	char out[64];
	size_t n = pty_crlf(out, in, strlen(in));
	out[n] = '\0';
	is_str(out, want, "crlf: %s", what);
}

/* Feeds IN in pieces of STEP bytes; returns the state after, and in
 * *FLIPS how many times it changed. */
static bool alt_after(struct pty_alt *a, const char *in, size_t step, int *flips)
{
	size_t n = strlen(in);
	*flips = 0;
	for (size_t i = 0; i < n;) {
		size_t k = n - i < step ? n - i : step;
		while (k) {
			bool was = a->on;
			size_t u = pty_alt_feed(a, in + i, k);
			*flips += a->on != was;
			i += u, k -= u;
		}
	}
	return a->on;
}

static void alt(const char *in, bool want, int want_flips, const char *what)
{
	for (size_t step = 1; step <= 64; step *= 4) {
		struct pty_alt a = {0};
		int flips;
		bool on = alt_after(&a, in, step, &flips);
		ok(on == want && flips == want_flips, "alt screen: %s (pieces of %zu)", what, step);
	}
}

/* Whether the filters of FILT pass the reports (their answers go to the
 * sandbox's own terminal). */
static bool filt_reports;

/* IN through the filter in pieces of STEP, held bytes flushed at the end. */
static void filt(const char *in, size_t len, const char *want, size_t wlen, const char *what)
{
	for (size_t step = 1; step <= 64; step *= 4) {
		struct pty_filter f = {.reports = filt_reports};
		char out[512];
		size_t w = 0;
		for (size_t i = 0; i < len; i += step) {
			size_t k = len - i < step ? len - i : step;
			w += pty_filter_feed(&f, in + i, k, out + w);
		}
		w += pty_filter_flush(&f, out + w);
		bool same = w == wlen && memcmp(out, want, w) == 0;
		ok(same, "filter: %s (pieces of %zu)", what, step);
		if (!same) {
			printf("#   got %zu bytes:", w);
			for (size_t i = 0; i < w; i++)
				printf(" %02x", (unsigned char)out[i]);
			printf("\n");
		}
	}
}
#define FILT(in, want, what) filt(in, sizeof in - 1, want, sizeof want - 1, what)
/* IN passes unchanged. */
#define PASSES(in, what) FILT(in, in, what)

/* Random streams of the bytes that matter, in random pieces: no call
 * writes more than its room, and no U+0080 to U+009F (C2 80 to C2 9F)
 * ever reaches the terminal, whatever is dropped around it. */
static void filt_random(void)
{
	static const unsigned char alpha[] = {0x1b, ']', 'P', '\\', '5', '2', ';', 'x',
					      0x07, 0x18, 0xc2, 0x9d, 0x9c, 0x90, 0xa0, 0x80,
					      0xe0, '_', 'k', '[', '?', '3', 'J', 'h', '\n', '(', '0'};
	unsigned long long r = 42;
	bool room = true, c1 = false, esc_high = false, same = true;
	for (int round = 0; round < 20000; round++) {
		unsigned char in[64];
		char out[64 * 2 + PTY_FILTER_HOLD + 1];
		struct pty_filter f = {0};
		size_t w = 0;
		for (size_t i = 0; i < sizeof in; i++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			in[i] = alpha[(r >> 33) % sizeof alpha];
		}
		for (size_t i = 0; i < sizeof in;) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			size_t k = 1 + (r >> 33) % 9;
			if (k > sizeof in - i)
				k = sizeof in - i;
			size_t got = pty_filter_feed(&f, (const char *)in + i, k, out + w);
			room = room && got <= k + PTY_FILTER_HOLD + 1;
			w += got;
			i += k;
		}
		w += pty_filter_flush(&f, out + w);
		for (size_t i = 0; i + 1 < w; i++) {
			c1 = c1 || ((unsigned char)out[i] == 0xc2 && (unsigned char)out[i + 1] >= 0x80 &&
				    (unsigned char)out[i + 1] <= 0x9f);
			esc_high = esc_high || (out[i] == 0x1b && (unsigned char)out[i + 1] >= 0x80);
		}
		/* What passed is whole and allowed: through the filter again
		 * it is the same, less the CANs (dropped in text). */
		char again[sizeof out + PTY_FILTER_HOLD + 1], less[sizeof out];
		struct pty_filter g = {0};
		size_t a = pty_filter_feed(&g, out, w, again), l = 0;
		a += pty_filter_flush(&g, again + a);
		for (size_t i = 0; i < w; i++)
			if (out[i] != 0x18)
				less[l++] = out[i];
		same = same && a == l && memcmp(again, less, l) == 0;
	}
	ok(room, "filter: no call writes more than its room (random streams)");
	ok(!c1, "filter: no UTF-8 C1 control gets through (random streams)");
	ok(!esc_high, "filter: no byte from 0x80 up right after an ESC (random streams)");
	ok(same, "filter: what passes passes again unchanged (random streams)");
}

int main(void)
{
	const unsigned I = PTY_INPUT;
	ok(choose(true, true, true, 7, 7, true, false) == (7 | I), "all three on stdin's terminal: all get the pty, which reads it");
	ok(choose(true, false, true, 0, 7, true, false) == (5 | I), "stdout a file: stdin and stderr only");
	ok(choose(true, true, false, 7, 0, true, false) == (3 | I), "stderr a file: stdin and stdout only");
	ok(choose(true, true, true, 9, 7, true, false) == (5 | I), "stdout another terminal: not this pty (stdio.c relays it)");
	ok(choose(false, true, true, 7, 7, true, false) == 6, "stdin not a terminal: stdout and stderr get the pty, output only");
	ok(choose(false, false, true, 0, 7, true, false) == 4, "only stderr a terminal: it gets the pty, output only");
	ok(choose(false, true, true, 7, 9, true, false) == 2, "stdout and stderr on two terminals: the first one's");
	ok(choose(false, false, false, 0, 0, true, false) == 0, "no terminal: no pty");
	ok(choose(true, true, true, 7, 7, true, true) == 7, "in the background of its terminal: the pty, output only");
	ok(choose(true, true, true, 7, 7, false, false) == 0, "no sandbox: no pty");

	crlf("a\nb\n", "a\r\nb\r\n", "each LF gets a CR");
	crlf("a\r\nb", "a\r\nb", "an existing CR LF stays");
	crlf("\n\n", "\r\n\r\n", "empty lines");
	crlf("", "", "nothing");

	alt("\033[?1049h", true, 1, "1049h enters");
	alt("\033[?1049hx\033[?1049l", false, 2, "1049l leaves");
	alt("\033[?47h", true, 1, "47h enters");
	alt("\033[?1047h\033[?1047l", false, 2, "1047 enters and leaves");
	alt("\033[?1;1049h", true, 1, "among other parameters");
	alt("\033[?25l\033[?1h", false, 0, "other private modes do nothing");
	alt("\033[1049h", false, 0, "not private: nothing");
	alt("\033[?10490h\033[?471h", false, 0, "longer numbers are others");
	alt("\033[?1049h\033[?1049h", true, 1, "entering twice is one change");
	alt("\033[?1049\033[?1049h", true, 1, "a sequence cut by ESC starts over");
	alt("\033]0;\033[?1049h\007", true, 1, "inside an OSC still seen (no harm: a title)");
	alt("ab\033[31mcd\033[?1049hef\033[2J\033[?1049lgh", false, 2, "with colours and clears around");
	alt("\033[?10\n49h", true, 1, "a C0 control inside the sequence is carried out, the sequence goes on");
	alt("\033\r[?1049h", true, 1, "also right after ESC");
	alt("\033[?1\b0\17749h", true, 1, "BS and DEL inside");
	alt("\033[?10\03049h", false, 0, "CAN cancels the sequence");
	alt("\033[?10\03249h", false, 0, "SUB cancels the sequence");
	FILT("ab\033]52;c;ZGF0YQ==\007cd", "ab\030cd", "OSC 52 ended by BEL is dropped");
	FILT("ab\033]52;c;ZGF0YQ==\033\\cd", "ab\030cd", "OSC 52 ended by ST is dropped");
	FILT("\033]52;p;?\007", "\030", "a clipboard query is dropped");
	FILT("\033]0052;c;eA==\007", "\030", "leading zeros do not hide 52");
	FILT("\033]5\n2;c;eA==\007", "\030", "a C0 control inside the number does not hide 52");
	FILT("\033]4294967348;c;eA==\007", "\030", "nor an overflowing number");
	FILT("\033]5522;type=write\007", "\030", "kitty's clipboard (5522)");
	FILT("\033]1337;File=name=eA==:eA==\007", "\030", "iTerm2's file transfer (1337)");
	FILT("\033]5113;ac=send\033\\", "\030", "kitty's file transfer (5113)");
	FILT("\033Ptmux;\033\033]4;1;red\007\033\\x", "\030\030\030\030x", "tmux passthrough is dropped, and what it carried (an OSC 4, then a lone ST)");
	FILT("\033Ptmux;\033\033]52;c;eA==\007\033\\", "\030\030\030\030", "a clipboard write passed through tmux is dropped");
	FILT("\033P@kitty-cmd{\"cmd\":\"launch\"}\033\\ok", "\030ok", "kitty remote control is dropped");
	FILT("\033]0;title\007\033]2;t\033\\\033]1;i\007x", "\030\030\030x", "the titles are dropped (0, 1, 2)");
	FILT("\033]002;t\007\033]4;1;red\007", "\030\030", "however the number is written; 4 (a colour) is dropped too");
	FILT("\033]008;;http://e.x/\007", "\030", "every OSC is dropped, hyperlinks (8) too");
	FILT("\033]07;file://h/etc\007x", "\030x", "the current directory for the next tab (7) is dropped");
	FILT("\033]9;approved\007\033]777;notify;a;b\033\\\033]99;;hi\007x", "\030\030\030x", "desktop notifications (9, 777, 99) are dropped");
	FILT("\033P1;1|17/6375726c0d\033\\x", "\030x", "user-defined keys (DECUDK) are dropped");
	FILT("\033P0;1;0;10;1;1{ @???\033\\x", "\030x", "a soft font (DECDLD) is dropped");
	FILT("\033P1$p0;0;0\033\\x", "\030x", "a terminal state restored (DECRSTS) is dropped");
	FILT("\033P$qm\033\\", "\030", "every DCS is dropped (DECRQSS)");
	FILT("\033\001]52;c;eA==\007x", "\030x", "a C0 control right after ESC does not hide 52 (SOH itself is not passed)");
	FILT("\033\177]52;c;eA==\007x", "\030x", "nor DEL");
	FILT("\033P1tmux;\033\033]4;1;red\007\033\\", "\030\030\030\030", "tmux passthrough with a parameter is dropped");
	FILT("\033P0;1$tmux;x\033\\", "\030", "with parameters and an intermediate too");
	FILT("\033P1;2;3;4;5;6;7;8;9q#0\033\\", "\030", "a head too long to tell is not passed on");
	PASSES("\033[31mred\033[0m \033[?1049h\033(0q", "CSI and ESC sequences pass");
	FILT("a\033]52;c;eA==\030b\033]52", "a\030b\030", "CAN ends a dropped string (and is dropped with it)");
	/* red team 17, F2: OSC l and L (xterm's title and icon name), APC
	 * (tmux's pane title), PM, SOS and ESC k (screen's and tmux's window
	 * name). The strings but OSC end only at ST (or CAN, SUB). */
	FILT("a\033]lTITLE\033\\b\033]LICON\007c", "a\030b\030c", "an OSC that does not start with a number is dropped");
	FILT("a\033_TITLE\033\\b", "a\030b", "APC is dropped");
	FILT("a\033_x\007TITLE\033\\b", "a\030b", "BEL does not end an APC, which tmux reads to ST");
	FILT("a\033^pm\033\\b\033Xsos\033\\c\033kname\033\\d", "a\030b\030c\030d", "PM, SOS and ESC k are dropped");
	FILT("a\033_x\030b", "a\030b", "CAN ends a dropped APC");
	FILT("a\033_x\033[1mb", "a\030\033[1mb", "an ESC that is not ST ends it and starts a sequence");
	FILT("a\033]\007b", "a\030b", "an empty OSC is dropped too");
	/* Red team 18, F1: tmux ignores 0x80 to 0xFF inside an escape and a
	 * DCS head; so must the filter, or it read the rest as text. */
	FILT("a\033\340]2;T\007b", "a\030b", "a byte >= 0x80 after ESC does not end it (OSC 2 dropped)");
	FILT("a\033\340kW\033\\b\033\302\240_P\033\\c", "a\030b\030c", "nor before ESC k or APC, U+00A0 neither");
	FILT("a\033\340]52;c;eA==\007b", "a\030b", "nor before OSC 52");
	FILT("a\033P\340tmux;\033\033]52;c;eA==\007\033\\b", "a\030\030\030\030b", "nor in a DCS head");
	FILT("a\033]2;x\033\340]2;T\007b", "a\030\030b", "nor after the ESC that ends a dropped string");
	FILT("a\033]6;file:///x\007b\033]30;tab\007c\033]50;f\007d\033]51;Eeval\007e",
	     "a\030b\030c\030d\030e", "OSC 6, 30, 50 and 51 are dropped (red team 19's list)");
	FILT("\033]3;WM_NAME=x\007", "\030", "and OSC 3");
	/* Red team 19: BEL right after ESC, or in a DCS head, is carried
	 * out (or ignored) and the sequence goes on; and tmux reads a DCS
	 * head past an ESC (ESC P t ESC m ux;): a DCS is decided by its
	 * final byte alone. */
	FILT("\033\007]2;PWNED\007", "\007\030", "BEL after ESC does not end it (no OSC 2)");
	FILT("\033\007_APC\033\\x", "\007\030x", "nor before APC");
	FILT("\033P\007tmux;\033\033[4h\033\\", "\030\030\033[4h\030", "BEL in a DCS head is ignored (tmux; dropped)");
	FILT("\033P0\0075tmux;x\033\\", "\030", "after parameters too");
	FILT("\033Pt\033mux;\033\033[4h\033\\", "\030\030ux;\030\033[4h\030", "a DCS with final t is dropped, an ESC after it or not (ESC m too)");
	FILT("\033P@x\033\\ok", "\030ok", "and with final @");
	FILT("\033Pq#0;2;0;0;0\033\\", "\030", "sixel is dropped");
	FILT("\033P+q544e\033\\", "\030", "XTGETTCAP is dropped");
	/* A dropped sequence leaves a CAN in its place: the terminal ends
	 * there what the bytes before it began, as the ESC would have. */
	FILT("\033]5\033_x\033\\2;c;eA==\007", "\030\0302;c;eA==\007",
	     "an OSC head cut by a dropped APC never goes on with what follows (no OSC 52)");
	FILT("\033P\033_x\033\\tmux;\033\033]52;c;eA==\007\033\\", "\030\030tmux;\030\030\030",
	     "nor a DCS head (no tmux passthrough)");
	FILT("a\033\033_x\030\340]2;T\007", "a\030\030\340]2;T\007", "nor a lone ESC (no OSC 2)");
	/* C1 controls written in UTF-8 (U+0080 to U+009F): terminals that
	 * decode first (xterm, VTE) read U+009D as OSC, U+009C as ST. */
	FILT("a\302\23552;c;eA==\302\234b", "a52;c;eA==b", "UTF-8 C1 controls are dropped: no OSC 52 through U+009D");
	FILT("\302\220tmux;\033\033]52;c;eA==\007\302\234", "tmux;\030\030",
	     "no DCS through U+0090 either");
	FILT("\033]8;;http://x/\302\234link\033]8;;\033\\", "\030\030",
	     "an ST as U+009C never ends a dropped string");
	FILT("caf\303\251 \302\240 \302\251 \302", "caf\303\251 \302\240 \302\251 ",
	     "other UTF-8, U+00A0 and up, passes; a lead byte left alone at the end does not");
	FILT("\302\302\235x", "x", "a lead byte followed by another is not passed on");
	FILT("\302\033]52;c;eA==\007\235", "\030\235",
	     "a lead byte never meets a continuation byte across what is dropped");
	FILT("\302\033[m\235", "\033[m\235", "nor across a sequence passed on (the C2 is gone)");
	/* The allow-list: what a full-screen program draws with passes,
	 * byte for byte; every other sequence is a CAN. */
	PASSES("a\007\b\t\n\013\014\r\016\017b", "BEL, BS, HT, LF, VT, FF, CR, SO and SI pass");
	FILT("a\000\001\005\006\020\030\032\034\037\177b", "ab", "the other C0 controls and DEL do not (ENQ: the answerback)");
	PASSES("\033[A\033[2B\033[3C\033[4D\033[E\033[F\033[5G\033[1;1H\033[2;3f\033[7d\033[e\033[a\033[9`",
	     "cursor movement passes");
	PASSES("\033[I\033[2Z\033[3b\033[s\033[u", "tabs forward and back, repeat, save and restore pass");
	PASSES("\033[J\033[0J\033[1J\033[2J\033[K\033[1K\033[2K", "erase in display (0, 1, 2) and in line pass");
	FILT("\033[3J\033[2;3J\033[4294967299J\033[3K", "\030\030\030\030",
	     "the scrollback erased (3 J) is dropped, with another parameter, as a number that wraps to 3, and 3 K");
	PASSES("\033[@\033[2P\033[L\033[3M\033[4X\033[S\033[2T\033[3;20r\033[r",
	     "insert, delete, erase characters, scroll and the scroll region pass");
	FILT("\033[1;2;3A\033[1;2;3r\033[1;2;3S\033[1;2;3T\033[1;2;3;4;5T", "\030\030\030\030\030",
	     "too many parameters for a move, a region or a scroll (T with 5: mouse highlighting) is dropped");
	PASSES("\033[m\033[0;1;4;5;7;8;38;5;196;48;2;1;2;3m\033[38:2::1:2:3m", "SGR passes, with sub-parameters");
	FILT("\033[1:2H\033[?1:2h", "\030\030", "sub-parameters elsewhere are dropped");
	PASSES("\033[g\033[0g\033[3g\033H", "tab stops cleared and set pass");
	FILT("\033[1g\033[2g", "\030\030", "other tab clears are dropped");
	PASSES("\033[?1h\033[?7l\033[?12h\033[?25l\033[?47h\033[?66h\033[?1000;1002;1003;1004;1005;1006;1015h\033[?1047l\033[?1048h\033[?1049h\033[?2004h",
	     "the listed private modes pass");
	FILT("\033[?5h\033[?6h\033[?9h\033[?69h\033[?2026h\033[?1049;5h\033[?h\033[?1;;25l\033[?0001049h", "\030\030\030\030\030\030\030\030\033[?0001049h",
	     "others are dropped, a sequence with one among listed ones too; leading zeros read as the terminal does");
	PASSES("\033[4h\033[4l\033[4;4h", "insert mode passes");
	FILT("\033[2h\033[12l\033[20h\033[4;20h\033[h", "\030\030\030\030\030", "other ANSI modes (keyboard lock, local echo, newline) are dropped");
	filt_reports = true;
	PASSES("\033[5n\033[6n\033[c\033[0c\033[>c\033[>0c",
	       "where the answers go to the sandbox, the status and position reports and the device attributes pass");
	FILT("\033[n\033[5;6n\033[?6n\033[=c\033[1c\033[>1c\033[?c", "\030\030\030\030\030\030\030",
	     "other reports and attributes are dropped");
	filt_reports = false;
	FILT("\033[5n\033[6n\033[c\033[0c\033[>c\033[>0c", "\030\030\030\030\030\030",
	     "elsewhere none passes");
	{
		const char *seqs[] = {"\033[5n", "\033[6n", "\033[c", "\033[>c", "\033[1m", "\033[?6n"};
		const bool want[] = {true, true, true, true, false, false};
		for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++) {
			struct pty_filter f = {.reports = true};
			char out[16];
			pty_filter_feed(&f, seqs[i], strlen(seqs[i]), out);
			ok(f.asked == want[i], "a report passed is noted: %s", seqs[i] + 1);
		}
	}
	PASSES("\033[ q\033[0 q\033[6 q\033[!p", "the cursor's shape (0 to 6) and a soft reset pass");
	FILT("\033[7 q\033[1;2 q\033[?2 q\033[1!p\033[\"p\033[$p\033[1 $q", "\030\030\030\030\030\030\030",
	     "other shapes, other intermediates, two of them are dropped");
	FILT("\033[8;1;1t\033[22;0t\033[3;0;0t\033[?1$p\033[>4;1m\033[>1u\033[=1;1u\033[?u\033[<u\033[1s\033[2u",
	     "\030\030\030\030\030\030\030\030\030\030\030",
	     "window operations, mode queries, modifyOtherKeys, the kitty keyboard, margins are dropped");
	FILT("\033[1?h\033[1 2m\033[>m", "\030\030\030", "a marker after parameters, a parameter after an intermediate, an SGR with a marker");
	PASSES("\0337\0338\033M\033D\033E\033=\033>\033(0\033(B\033)0\033)B", "the escapes listed pass");
	FILT("\033c\033#8\033(A\033)<\033%G\033N\033O\033\\\033 F\033((B\033Z", "\030\030\030\030\030\030\030\030\030\030\030",
	     "others are dropped (RIS, DECALN, other sets, UTF-8 select, single shifts, a lone ST, S7C1T, DECID)");
	FILT("\033[1\n0A\033[2\005;3H\033[1\1771B", "\n\033[10A\033[2;3H\033[11B",
	     "a passed C0 control inside a CSI goes out at once, others and DEL are dropped, the CSI goes on");
	FILT("\033[1\340;2H\033\340\3407", "\033[1;2H\0337", "bytes from 0x80 up inside are ignored");
	FILT("a\033[1\030b\033[2\032c\033[3\033[4A", "a\030b\030c\030\033[4A", "CAN and SUB cancel a CSI, ESC starts another");
	FILT("\033(\030x\033(\033)0", "\030x\030\033)0", "and an escape with an intermediate");
	FILT("\033[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16m\033[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17m",
	     "\033[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16m\030", "16 parameters at most");
	FILT("\033[?1049;;;;;;;;;;;;;;;;1h", "\030", "empty ones count");
	FILT("\033[00000000000000000000000000000000000000000000000000000000000000000000001mX\033[1m",
	     "\030X\033[1m", "a CSI longer than the filter holds is dropped, to its final byte");
	PASSES("\033[0000000000000000000000000000000000000000000000000000000000001m", "one of 64 bytes passes");
	FILT("\033[00000000000000000000000000000000000000000000000000000000000001mY", "\030Y", "one of 65 does not");
	PASSES("\033[99999999999999A\033[99999999999999m", "counts are not checked where any count is fine");
	FILT("\033[1\200;2H", "\033[1;2H", "0x80 itself is ignored inside");
	FILT("\0330x", "\030x", "ESC 0 is a final byte, not an intermediate");
	FILT("\033[$ q\033[  q", "\030\030", "two intermediates, the second allowed, are dropped");
	FILT("\033[ 2q", "\030", "a parameter after an intermediate is dropped");
	FILT("\033[4?h", "\030", "a marker after a parameter is dropped");
	PASSES("\033[?1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;25h", "the 16th parameter is read");
	FILT("\033[?1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;5h", "\030", "and decides");
	FILT("\033[0000000000000000000000000000000000000000000000000000000000000000000000@X", "\030X", "a CSI too long ends at any final byte, @ too");
	FILT("\302\277\302\237x\302\200y", "\302\277xy", "U+00BF passes, U+009F and U+0080 do not");
	{
		struct pty_filter f = {0};
		char out[8];
		size_t n = pty_filter_feed(&f, "\033[1", 3, out);
		n += pty_filter_flush(&f, out + n);
		ok(n == 1 && out[0] == 0x18, "a sequence unfinished at the end is dropped, not flushed");
		ok(pty_filter_flush(&f, out) == 0, "and nothing is held after it");
		n = pty_filter_feed(&f, "\033", 1, out);
		n += pty_filter_feed(&f, "7", 1, out + n);
		ok(n == 2 && memcmp(out, "\0337", 2) == 0, "a filter flushed goes on from the ground");
		n = pty_filter_feed(&f, "\302", 1, out);
		n += pty_filter_flush(&f, out + n);
		n += pty_filter_feed(&f, "\240", 1, out + n);
		ok(n == 1 && out[0] == '\240', "a lead byte is forgotten when flushed");
		ok(pty_can_change("ab\033", 3) && pty_can_change("a\016", 2) && pty_can_change("\017b", 2),
		   "ESC, SO and SI can change the terminal's state");
		ok(!pty_can_change("ab\r\n\007\b", 6), "text and other controls cannot");
	}
	{
		struct pty_alt a = {0};
		const char *s = "ab\033[?1049hcd";
		ok(pty_alt_feed(&a, s, strlen(s)) == 10 && a.on, "stops right after the sequence that changed it");
	}
	/* Where the output leaves the cursor (pty_col_feed). */
	{
		struct pty_col c = {0};
		pty_col_feed(&c, "abc", 3);
		ok(c.mid, "text: mid-line");
		pty_col_feed(&c, "\r\n", 2);
		ok(!c.mid, "CR LF: at a line's start");
		pty_col_feed(&c, "\x1b[1m\x1b[0m", 8);
		ok(!c.mid, "a CSI sequence is no text");
		pty_col_feed(&c, "\x1b]0;title\x07", 10);
		ok(!c.mid, "an OSC string (BEL) is no text");
		pty_col_feed(&c, "\x1b]0;t\x1b", 6);
		pty_col_feed(&c, "\\", 1);
		ok(!c.mid && c.esc == 0, "one ended by ESC \\, split across calls");
		pty_col_feed(&c, "\x1b", 1);
		pty_col_feed(&c, "[", 1);
		pty_col_feed(&c, "2", 1);
		ok(!c.mid && c.esc == 2, "a CSI split across calls is still one");
		pty_col_feed(&c, "Kx", 2);
		ok(c.mid && c.esc == 0, "text after it counts");
		pty_col_feed(&c, "y\r", 2);
		ok(!c.mid, "CR alone: at a line's start");
		struct pty_col d = {0};
		pty_col_feed(&d, "\x7f\x07", 2);
		ok(!d.mid, "DEL and BEL are no text");
		pty_col_feed(&d, "\x1b" "c", 2);
		ok(!d.mid && d.esc == 0, "a two-byte escape is no text");
		/* red team 13, G3: CAN ends a string, as the terminal has it;
		 * the text after it counts. */
		pty_col_feed(&d, "\x1b]8;;\x18" "Type:", 10);
		ok(d.mid && d.esc == 0, "CAN ends an OSC string; the text after it is text");
		struct pty_col e = {0};
		pty_col_feed(&e, "\x1b]0;t\x1b[1mX", 11);
		ok(e.mid && e.esc == 0, "an ESC in a string ends it and starts a CSI");
		struct pty_col f = {0};
		pty_col_feed(&f, "\x1b[1\x1a" "Y", 6);
		ok(f.mid && f.esc == 0, "SUB ends a CSI");
	}
	filt_random();
	return done_testing();
}
