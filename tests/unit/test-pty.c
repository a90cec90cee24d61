/* The pure decisions of pty.c: which descriptors get the session's own
 * terminal, and the CR LF the raw real terminal needs for the
 * supervisor's own lines. */
#include "config.h"
#include "sandbox.h"
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
	return done_testing();
}
