/* A refusal's grant and command (lib/grantderive.c): each kind of refusal
 * gives the narrowest grant that allows it, or none; the refused
 * process's words, whole or not at all; the command line quoted. */
#include "config.h"
#include "tap.h"
#include "askproto.h"
#include "grantderive.h"

#include <stdlib.h>
#include <string.h>

/* The grant derived for R, as wicket ask's options ("" when none). */
static char *grant_of(const struct wk_refusal *r)
{
	struct wk_grant g = {0};
	struct strv argv = {0};
	wk_grant_derive(r, &g, &argv);
	char *t = wk_grant_text(&g);
	wk_grant_free(&g);
	strv_free(&argv);
	return t;
}

static void derives(struct wk_refusal r, const char *want, const char *what)
{
	char *t = grant_of(&r);
	is_str(t, want, "%s: \"%s\"", what, want);
	free(t);
}

/* The words derived from ARGS (LEN bytes), joined by "|"; NULL: none. */
static char *words_of(const char *args, size_t len)
{
	struct wk_refusal r = {.kind = WK_REFUSED_WRITE, .object = "/x", .place = "/x",
			       .args = args, .args_len = len};
	struct wk_grant g = {0};
	struct strv argv = {0};
	wk_grant_derive(&r, &g, &argv);
	wk_grant_free(&g);
	if (!argv.n)
		return NULL;
	size_t cap = 1;
	for (size_t i = 0; i < argv.n; i++)
		cap += strlen(argv.v[i]) + 1;
	char *o = calloc(1, cap);
	for (size_t i = 0; i < argv.n; i++) {
		if (i)
			strcat(o, "|");
		strcat(o, argv.v[i]);
	}
	strv_free(&argv);
	return o;
}

static void words(const char *args, size_t len, const char *want, const char *what)
{
	char *w = words_of(args, len);
	is_str(w, want, "%s", what);
	free(w);
}

int main(void)
{
	/* Files: the place the caller decided, or nothing. */
	derives((struct wk_refusal){.kind = WK_REFUSED_WRITE, .object = "/w/out/f", .place = "/w/out"},
		"--write /w/out", "a write: the directory given");
	derives((struct wk_refusal){.kind = WK_REFUSED_WRITE, .object = "/w/out/f"}, "",
		"a write no grant may allow: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_WRITE, .object = "/w/f", .place = "w"}, "",
		"a place that is not absolute: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_WRITE, .object = "/", .place = "/"}, "",
		"the whole file system: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_READ, .object = "/h/.ssh/id", .place = "/h/.ssh"},
		"--read /h/.ssh", "a read of a hidden store: the whole store");
	derives((struct wk_refusal){.kind = WK_REFUSED_READ, .object = "/h/.ssh/id"}, "",
		"a read with no place: none");

	/* The sandbox's network rules. */
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "connect 10.1.2.3:443/tcp",
				    .liftable = true},
		"--net 10.1.2.3:443", "a TCP connect to an address: that address and port");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "connect [::1]:22/tcp",
				    .liftable = true},
		"--net '[::1]:22'", "an IPv6 address in brackets, with its port");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "connect 10.1.2.3:443/tcp"},
		"", "a connect around a proxy a grant would add: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "connect 10.1.2.3:53/udp",
				    .liftable = true},
		"", "UDP, which the proxy does not carry: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "bind 127.0.0.1:80/tcp",
				    .liftable = true},
		"", "a bind: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "sendto 10.1.2.3:443/tcp",
				    .liftable = true},
		"", "a TCP Fast Open send: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "connect 10.1.2.3/tcp",
				    .liftable = true},
		"", "no port: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "connect 10.1.2.3:0/tcp",
				    .liftable = true},
		"", "port 0: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "connect /tcp",
				    .liftable = true},
		"", "nothing between: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "connect :1/tcp",
				    .liftable = true},
		"", "no address: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "connect unix:/run/a.sock"},
		"--socket /run/a.sock", "a unix socket: its path, whatever the network");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "sendto unix:/run/log"},
		"--socket /run/log", "a datagram to a unix socket: its path");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "sendmsg unix:/run/log"},
		"--socket /run/log", "sendmsg to a unix socket: its path");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "connect unix:@bus",
				    .liftable = true},
		"", "an abstract socket: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = "bind unix:/run/a.sock",
				    .liftable = true},
		"", "a bind of a unix socket: none");

	/* The proxy's refusals. */
	derives((struct wk_refusal){.kind = WK_REFUSED_PROXY, .object = "CONNECT Example.org:443",
				    .liftable = true},
		"--net example.org:443", "a CONNECT: the name and port, canonical");
	derives((struct wk_refusal){.kind = WK_REFUSED_PROXY, .object = "GET example.org:8080",
				    .liftable = true},
		"--net example.org:8080", "a plain request: its name and port");
	derives((struct wk_refusal){.kind = WK_REFUSED_PROXY, .object = "CONNECT 127.0.0.1:8080",
				    .liftable = true},
		"--net 127.0.0.1:8080", "an address: the address and port");
	derives((struct wk_refusal){.kind = WK_REFUSED_PROXY, .object = "CONNECT [::1]:8080",
				    .liftable = true},
		"--net '[::1]:8080'", "an IPv6 address: in brackets");
	derives((struct wk_refusal){.kind = WK_REFUSED_PROXY, .object = "CONNECT [::1:8080",
				    .liftable = true},
		"", "an unclosed bracket: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_PROXY, .object = "CONNECT a.org:443",
				    .place = "b.org", .liftable = true},
		"--net b.org:443", "another name to grant (a TLS hello's): that name, the port");
	derives((struct wk_refusal){.kind = WK_REFUSED_PROXY, .object = "CONNECT a.org:443",
				    .place = "fd00::5", .liftable = true},
		"--net '[fd00::5]:443'", "the IPv6 address a name resolved to: in brackets");
	derives((struct wk_refusal){.kind = WK_REFUSED_PROXY, .object = "CONNECT a.org:443",
				    .place = "[fd00::5]", .liftable = true},
		"--net '[fd00::5]:443'", "an address in brackets already");
	derives((struct wk_refusal){.kind = WK_REFUSED_PROXY, .object = "CONNECT a.org:443",
				    .place = "10.0.0.5", .liftable = true},
		"--net 10.0.0.5:443", "the IPv4 address a name resolved to");
	derives((struct wk_refusal){.kind = WK_REFUSED_PROXY, .object = "CONNECT a.org:443"}, "",
		"a refusal no grant lifts (a deny list): none");
	derives((struct wk_refusal){.kind = WK_REFUSED_PROXY, .object = "malformed proxy request",
				    .liftable = true},
		"", "no target: none");
	derives((struct wk_refusal){.kind = WK_REFUSED_PROXY, .object = "CONNECT a.org",
				    .liftable = true},
		"", "no port: none");

	/* The process's words. */
	static const char two[] = "git\0push\0";
	words(two, sizeof two - 1, "git|push", "its words, every one");
	static const char empty_word[] = "printf\0\0x\0";
	words(empty_word, sizeof empty_word - 1, "printf||x", "an empty word is a word");
	words(two, sizeof two - 2, NULL, "cut short (no NUL at the end): none");
	words(two, 0, NULL, "nothing read: none");
	words(NULL, 9, NULL, "no arguments: none");
	static const char nl[] = "awk\0{print}\n\0";
	words(nl, sizeof nl - 1, "awk|{print}\n", "a control character is carried (quoted later)");
	static const char bad[] = "cat\0\xff\0";
	words(bad, sizeof bad - 1, NULL, "a word that is not UTF-8: none at all");
	static const char bad_last[] = "cat\0a\0\xc3\0";
	words(bad_last, sizeof bad_last - 1, NULL, "the last word not UTF-8: none at all");
	/* At the limits of a request: 256 words, 32768 bytes. */
	char many[ASK_ARGC_MAX * 2 + 2];
	for (size_t i = 0; i < sizeof many; i += 2)
		memcpy(many + i, "a", 2);
	char *w = words_of(many, ASK_ARGC_MAX * 2);
	ok(w && strlen(w) == ASK_ARGC_MAX * 2 - 1, "%d words: all", ASK_ARGC_MAX);
	free(w);
	words(many, ASK_ARGC_MAX * 2 + 2, NULL, "one word more than a request carries: none");
	char *big = malloc(ASK_ARGV_BYTES + 1);
	memset(big, 'b', ASK_ARGV_BYTES + 1);
	big[ASK_ARGV_BYTES - 1] = '\0';
	w = words_of(big, ASK_ARGV_BYTES);
	ok(w && strlen(w) == ASK_ARGV_BYTES - 1, "%d bytes: the word", ASK_ARGV_BYTES);
	free(w);
	big[ASK_ARGV_BYTES - 1] = 'b';
	big[ASK_ARGV_BYTES] = '\0';
	words(big, ASK_ARGV_BYTES + 1, NULL, "a byte more than a request carries: none");
	free(big);

	/* The command: the grant's options, then the words, each quoted. */
	static const char quoted[] = "sh\0-c\0echo 'hi' >f\0\x1b[2J\0";
	struct wk_refusal r = {.kind = WK_REFUSED_WRITE, .object = "/w/a b/f", .place = "/w/a b",
			       .args = quoted, .args_len = sizeof quoted - 1};
	struct wk_grant g = {0};
	struct strv argv = {0};
	wk_grant_derive(&r, &g, &argv);
	char *c = wk_grant_command(&g, &argv);
	is_str(c, "wicket ask --write '/w/a b' -- sh -c 'echo '\\''hi'\\'' >f' $'\\x1b[2J'",
	       "the command line, quoted as a shell reads it");
	free(c);
	struct strv cv = {0};
	ok(wk_grant_command_argv(&g, &argv, &cv) && cv.n == 9 &&
		   strcmp(cv.v[2], "--write") == 0 && strcmp(cv.v[3], "/w/a b") == 0 &&
		   strcmp(cv.v[4], "--") == 0 && strcmp(cv.v[8], "\x1b[2J") == 0,
	   "the command as words");
	strv_free(&cv);
	struct strv none = {0};
	ok(wk_grant_command(&g, &none) == NULL && !wk_grant_command_argv(&g, &none, &cv) && !cv.n,
	   "no words: no command");
	wk_grant_free(&g);
	ok(wk_grant_command(&g, &argv) == NULL && !wk_grant_command_argv(&g, &argv, &cv) && !cv.n,
	   "no grant: no command");
	strv_free(&argv);
	/* Every kind, in the order of wicket ask's options. */
	wk_grant_add(&g, WK_GRANT_NET, "a.org:443");
	wk_grant_add(&g, WK_GRANT_WRITE, "/w");
	wk_grant_add(&g, WK_GRANT_SOCKET, "/s");
	wk_grant_add(&g, WK_GRANT_READ, "/r");
	strv_add(&argv, "true");
	c = wk_grant_command(&g, &argv);
	is_str(c, "wicket ask --write /w --read /r --net a.org:443 --socket /s -- true",
	       "several rights, each its option");
	free(c);
	wk_grant_free(&g);
	strv_free(&argv);
	return done_testing();
}
