#ifndef WICKET_SUPERVISOR_PTYFILTER_H
#define WICKET_SUPERVISOR_PTYFILTER_H

#include <stdbool.h>
#include <stddef.h>

/* ptyfilter.c: what of the command's output reaches the real terminal.
 * Pure, so that the unit tests (and tests/mutate) reach every decision.
 *
 * An allow-list: text, the C0 controls a screen needs, and the escape
 * sequences a full-screen program draws with (cursor movement, erasing
 * but the scrollback, insert and delete, scrolling, the scroll region,
 * attributes, the G0 and G1 character sets, tab stops, a fixed list of
 * modes, the cursor's shape, the position and attribute reports where
 * their answers go to the sandbox: pty_filter.reports). Every
 * other sequence and every string (OSC, DCS, APC, PM, SOS, ESC k) is
 * dropped whole, with a CAN in its place. A sequence is held until its
 * final byte decides it (at most PTY_FILTER_HOLD bytes, across calls;
 * longer ones are dropped), read as the terminal reads it (the DEC
 * parser xterm and tmux follow): C0 controls inside it are carried out
 * (passed on at once if allowed), CAN and SUB cancel it, ESC starts
 * another, bytes from 0x80 up are ignored. What passes is a whole
 * sequence: the terminal is never left inside one by the filter. */
#define PTY_FILTER_HOLD 64
#define PTY_FILTER_PARAMS 16
struct pty_filter {
	unsigned char st;
	unsigned char held[PTY_FILTER_HOLD];
	size_t nheld;
	unsigned char mark;   /* a CSI's private marker (< = > ?), or 0 */
	unsigned char inter;  /* its (or an ESC's) intermediate byte, or 0 */
	bool colon;           /* a ':' among its parameters */
	bool bad;             /* what no allowed sequence has: dropped at the end */
	unsigned np;          /* parameters so far, the one being read included */
	unsigned par[PTY_FILTER_PARAMS];
	bool lead;            /* a UTF-8 0xC2 held, for the byte after it */
	/* Set by the caller: the terminal's answers go to the sandbox's own
	 * terminal (the supervisor reads the real one and relays it), so
	 * the reports (CSI 5 n, 6 n, c, > c) may pass; otherwise they are
	 * dropped, as the answers would be typed into another program. */
	bool reports;
	bool asked;           /* one passed: answers may still be on their way */
};
/* IN (N bytes) filtered into OUT, which has room for N + PTY_FILTER_HOLD
 * + 1; returns the bytes written. C1 controls written in UTF-8 (U+0080
 * to U+009F: OSC, DCS, ST ... to a terminal that decodes first) are
 * dropped, and a C2 that does not start U+00A0 to U+00BF; as 8-bit
 * bytes alone C1 controls are not controls to a UTF-8 terminal. */
size_t pty_filter_feed(struct pty_filter *f, const char *in, size_t n, char *out);
/* The end of the stream: a sequence still held (unfinished) is dropped,
 * a CAN written in its place (OUT has room for 1); returns the bytes
 * written. */
size_t pty_filter_flush(struct pty_filter *f, char *out);
/* B (N bytes of output) can change a terminal's state: an escape
 * sequence or a character set switch in it. */
bool pty_can_change(const char *b, size_t n);

#endif
