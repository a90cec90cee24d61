/* history_filter: which lines of the sandbox's history file reach the
 * user's (history.c). */
#include "config.h"
#include "sandbox.h"
#include "tap.h"

#include <string.h>

static void filt(const char *in, bool partial, const char *want, const char *what)
{
	char out[256];
	size_t n = history_filter(in, strlen(in), out, partial);
	out[n] = '\0';
	is_str(out, want, "%s", what);
}

int main(void)
{
	filt("ls\nmake -j2\n", false, "ls\nmake -j2\n", "plain lines are kept");
	filt("ls\nlast", false, "ls\nlast\n", "a last line without a newline gets one");
	filt("a\n\nb\n", false, "a\nb\n", "empty lines go");
	filt("ok\n\033]2;t\007x\nok2\n", false, "ok\nok2\n", "a line with an escape sequence goes");
	filt("rm -rf x\recho hi\n", false, "", "a carriage return that hides the start goes");
	filt("a\tb\n", false, "a\tb\n", "a tab stays");
	filt("x\177y\n", false, "", "DEL goes");
	filt("caf\xc3\xa9\n", false, "caf\xc3\xa9\n", "UTF-8 stays");
	filt("a\xc2\x9b" "31m\n", false, "", "a C1 CSI in UTF-8 goes");
	filt("tail of a line\nwhole\n", true, "whole\n", "read from the middle: the first line is cut");
	char big[5000];
	memset(big, 'a', sizeof big - 2);
	big[sizeof big - 2] = '\n';
	big[sizeof big - 1] = '\0';
	char out[5000];
	ok(history_filter(big, strlen(big), out, false) == 0, "a line over 4096 bytes goes");
	return done_testing();
}
