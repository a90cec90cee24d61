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

/* The URLs among ARGS (LEN bytes) as "HOST PORT" joined by "|". */
static void urls(const char *args, size_t len, size_t max, const char *want, const char *what)
{
	struct wk_url_target t[16];
	char o[16 * (WK_GRANT_HOST_MAX + 16)] = "";
	/* In a buffer of exactly LEN bytes: a read past it is AddressSanitizer's. */
	char *copy = args ? malloc(len ? len : 1) : NULL;
	if (copy)
		memcpy(copy, args, len);
	size_t n = wk_url_targets(copy, len, t, max);
	free(copy);
	for (size_t i = 0; i < n; i++) {
		char one[WK_GRANT_HOST_MAX + 16];
		snprintf(one, sizeof one, "%s%.255s %u", i ? "|" : "", t[i].host, t[i].port);
		strcat(o, one);
	}
	is_str(o, want, "%s", what);
}

/* The grant derived from a refusal before any address, in a session with
 * no network (LIFTABLE) or not, with ARGS. */
static void from_args(const char *object, bool liftable, const char *args, size_t len,
		      const char *want, const char *what)
{
	derives((struct wk_refusal){.kind = WK_REFUSED_CONNECT, .object = object,
				    .liftable = liftable, .args = args, .args_len = len},
		want, what);
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

	/* A refusal before any address: the URLs among its arguments. */
	static const char curl[] = "curl\0-o\0x\0https://Example.org/a?b#c\0";
	from_args("socket ipv4/udp", true, curl, sizeof curl - 1, "--net example.org:443",
		  "a name lookup with the network off: the URL's name and the scheme's port");
	from_args("socket ipv4/tcp", true, curl, sizeof curl - 1, "--net example.org:443",
		  "the socket itself: the same");
	from_args("connect 10.0.0.1:53/udp", true, curl, sizeof curl - 1, "--net example.org:443",
		  "a connected UDP socket (a lookup): the URL's");
	from_args("/udp", true, curl, sizeof curl - 1, "--net example.org:443",
		  "nothing but \"/udp\": still a lookup");
	from_args("socket ipv4/udp", false, curl, sizeof curl - 1, "",
		  "where a grant's proxy would not help: none");
	from_args("bind 0.0.0.0:53/tcp", true, curl, sizeof curl - 1, "", "a bind: none");
	from_args("sendto 10.0.0.1:443/tcp", true, curl, sizeof curl - 1, "",
		  "TCP Fast Open: none, not the URL's");
	static const char clone[] = "git\0clone\0https://u:p@a.org:8443/r\0ssh://[::1]/x\0"
				  "x://b.org/\0http://c.org:0/\0http://d.org:99999/\0http://e.org:8x/\0"
				  "https://\0";
	from_args("socket ipv4/udp", true, clone, sizeof clone - 1, "--net a.org:8443 --net '[::1]:22'",
		  "the user and password left out, an explicit port, an address in brackets; "
		  "no port known, a port that is none: nothing");
	static const char nine[] = "x\0http://a1\0http://a2\0http://a3\0http://a4\0http://a5\0"
				   "http://a6\0http://a7\0http://a8\0http://a9\0";
	from_args("socket ipv4/udp", true, nine, sizeof nine - 1,
		  "--net a1:80 --net a2:80 --net a3:80 --net a4:80 --net a5:80 --net a6:80 --net a7:80 "
		  "--net a8:80", "at most 8 URLs");
	static const char noport[] = "wget\0foo://a.org/\0";
	from_args("socket ipv4/udp", true, noport, sizeof noport - 1, "",
		  "a scheme with no port known: none");

	urls(clone, sizeof clone - 1, 8,
	     "a.org 8443|[::1] 22|b.org 0|c.org 0|d.org 0|e.org 0| 443",
	     "each URL: its host and port, 0 when none; an empty host is one");
	urls(clone, sizeof clone - 1, 2, "a.org 8443|[::1] 22", "at most MAX");
	urls(clone, sizeof clone - 1, 0, "", "none with MAX 0");
	static const char schemes[] = "http://a\0HTTPS://a\0ws://a\0wss://a\0ftp://a\0ssh://a\0"
				      "git://a\0git+ssh://a\0ssh+git://a\0gitx://a\0xgit://a\0--u=http://a\0";
	urls(schemes, sizeof schemes - 1, 16,
	     "a 80|a 443|a 80|a 443|a 21|a 22|a 9418|a 22|a 22|a 0|a 0|a 0",
	     "the schemes' ports, any case; no other scheme's");
	static const char cut[] = "curl\0http://a.org:81/x";
	urls(cut, sizeof cut - 1, 8, "a.org 81", "the last word without its NUL, within LEN");
	urls(cut, 11, 8, "", "LEN ends before the scheme's separator is whole");
	static const char v6[] = "http://[fe80::1]:8080/\0http://[::1\0http://host:/\0http://@h\0";
	urls(v6, sizeof v6 - 1, 8, "[fe80::1] 8080|[::1 80|host 80|h 80",
	     "brackets, an unclosed one, an empty port (the scheme's), an empty user");
	char longhost[300 + 16] = "http://";
	memset(longhost + 7, 'a', 300);
	memcpy(longhost + 307, ":81/", 5);
	urls(longhost, strlen(longhost) + 1, 8, " 81", "a host too long to be one: none, its port kept");
	urls(NULL, 5, 8, "", "no arguments");
	static const char next[] = "http://a.org\0:99\0";
	urls(next, sizeof next - 1, 8, "a.org 80", "a host ends with its word");
	static const char open_end[] = "x\0https://";
	urls(open_end, sizeof open_end - 1, 8, " 443", "a last word without its NUL, nothing after \"//\"");
	static const char ports[] = "http://a:655350\0http://a:65535\0http://a:9419\0http://a:65536\0";
	urls(ports, sizeof ports - 1, 8, "a 0|a 65535|a 9419|a 0",
	     "the highest port, a 9, and one digit or one more than a port");
	char h256[7 + 256 + 5] = "http://", h255[7 + 255 + 5] = "http://";
	memset(h256 + 7, 'b', 256);
	memcpy(h256 + 7 + 256, ":81", 4);
	memset(h255 + 7, 'b', 255);
	memcpy(h255 + 7 + 255, ":81", 4);
	urls(h256, sizeof h256 - 1, 8, " 81", "a host of 256 bytes: none");
	struct wk_url_target t1;
	ok(wk_url_targets(h255, sizeof h255 - 1, &t1, 1) == 1 && strlen(t1.host) == 255 && t1.port == 81,
	   "a host of 255 bytes: kept");

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
