/* Names, patterns and addresses of network mode "domains" (netdomain.h). */
#include "config.h"

#include "netdomain.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

static bool label_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

const char *wk_name_check(const char *s, size_t len)
{
	if (len && s[len - 1] == '.')
		len--;
	if (len == 0)
		return "an empty name";
	if (len > WK_NAME_MAX)
		return "a name longer than 253 bytes";
	size_t start = 0;
	bool digits = true; /* the current label is all digits (or 0x...) */
	for (size_t i = 0; i <= len; i++) {
		if (i == len || s[i] == '.') {
			size_t l = i - start;
			if (l == 0)
				return "an empty label";
			if (l > 63)
				return "a label longer than 63 bytes";
			if (s[start] == '-' || s[i - 1] == '-')
				return "a label that starts or ends with '-'";
			start = i + 1;
			if (i < len)
				digits = true;
			continue;
		}
		unsigned char c = (unsigned char)s[i];
		if (!label_char(c))
			return "a character that is not a letter, digit, '-', '_' or '.'";
		bool hexstart = i == start + 1 && (c == 'x' || c == 'X') && s[start] == '0';
		bool hexdigit = i > start + 1 && (s[start + 1] == 'x' || s[start + 1] == 'X') &&
				((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
		if (!(c >= '0' && c <= '9') && !hexstart && !hexdigit)
			digits = false;
	}
	/* Resolvers read "127.1", "2130706433" and "0x7f.0.0.1" as addresses:
	 * no top-level domain is numeric, so such a text is never a name. */
	if (digits)
		return "an address, not a name (its last label is a number)";
	return NULL;
}

const char *wk_pattern_check(const char *pat)
{
	if (strcmp(pat, "*") == 0 || strcmp(pat, "*.") == 0)
		return "a bare '*' would allow every name";
	if (pat[0] == '*') {
		if (pat[1] != '.')
			return "'*' may only stand alone as the first label (\"*.example.org\")";
		const char *rest = pat + 2;
		const char *why = wk_name_check(rest, strlen(rest));
		if (why)
			return why;
		const char *dot = strchr(rest, '.');
		if (!dot || dot[1] == '\0')
			return "a wildcard over a whole top-level domain (name at least two labels "
			       "after \"*.\")";
		return NULL;
	}
	if (strchr(pat, '*'))
		return "'*' may only stand alone as the first label (\"*.example.org\")";
	return wk_name_check(pat, strlen(pat));
}

static size_t name_len(const char *s)
{
	size_t n = strlen(s);
	return n && s[n - 1] == '.' ? n - 1 : n;
}

static bool same_ci(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
		if (x >= 'A' && x <= 'Z')
			x = (unsigned char)(x + 32);
		if (y >= 'A' && y <= 'Z')
			y = (unsigned char)(y + 32);
		if (x != y)
			return false;
	}
	return true;
}

bool wk_pattern_match(const char *pat, const char *name)
{
	size_t nl = name_len(name);
	if (pat[0] == '*' && pat[1] == '.') {
		const char *suf = pat + 1; /* ".example.org" */
		size_t sl = name_len(suf);
		return nl > sl && same_ci(name + nl - sl, suf, sl);
	}
	size_t pl = name_len(pat);
	return pl == nl && same_ci(pat, name, nl);
}

enum wk_domain_verdict wk_domain_decide(const char *name, const char *const *allow, size_t na,
					const char *const *deny, size_t nd, const char **which)
{
	if (which)
		*which = NULL;
	for (size_t i = 0; i < nd; i++)
		if (wk_pattern_match(deny[i], name)) {
			if (which)
				*which = deny[i];
			return WK_DOMAIN_DENIED;
		}
	for (size_t i = 0; i < na; i++)
		if (wk_pattern_match(allow[i], name)) {
			if (which)
				*which = allow[i];
			return WK_DOMAIN_ALLOWED;
		}
	return WK_DOMAIN_UNLISTED;
}

static enum wk_addr_class classify4(const unsigned char *a)
{
	if (a[0] == 127)
		return WK_ADDR_LOOPBACK;
	if (a[0] == 0)
		return WK_ADDR_UNSPECIFIED;
	if (a[0] == 169 && a[1] == 254)
		return WK_ADDR_LINKLOCAL;
	if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) || (a[0] == 192 && a[1] == 168) ||
	    (a[0] == 100 && (a[1] & 0xc0) == 64))
		return WK_ADDR_PRIVATE;
	if (a[0] >= 224 && a[0] < 240)
		return WK_ADDR_MULTICAST;
	if (a[0] >= 240)
		return WK_ADDR_RESERVED;
	/* IETF protocol assignments, TEST-NET-1/2/3, benchmarking. */
	if ((a[0] == 192 && a[1] == 0 && (a[2] == 0 || a[2] == 2)) ||
	    (a[0] == 198 && a[1] == 51 && a[2] == 100) || (a[0] == 203 && a[1] == 0 && a[2] == 113) ||
	    (a[0] == 198 && (a[1] & 0xfe) == 18))
		return WK_ADDR_RESERVED;
	return WK_ADDR_PUBLIC;
}

static bool zero(const unsigned char *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i])
			return false;
	return true;
}

/* The IPv4 address an IPv6 one carries, or NULL. */
static const unsigned char *embedded4(const unsigned char *a)
{
	static const unsigned char nat64[12] = {0x00, 0x64, 0xff, 0x9b};
	if (zero(a, 10) && a[10] == 0xff && a[11] == 0xff)
		return a + 12; /* ::ffff:a.b.c.d */
	if (zero(a, 12) && !zero(a + 12, 3))
		return a + 12; /* ::a.b.c.d, deprecated but routed by some stacks */
	if (memcmp(a, nat64, 12) == 0)
		return a + 12;
	if (a[0] == 0x20 && a[1] == 0x02)
		return a + 2; /* 6to4 */
	return NULL;
}

enum wk_addr_class wk_addr_classify(int family, const unsigned char *a)
{
	if (family == AF_INET)
		return classify4(a);
	static const unsigned char loop[16] = {[15] = 1};
	if (memcmp(a, loop, 16) == 0)
		return WK_ADDR_LOOPBACK;
	if (zero(a, 16))
		return WK_ADDR_UNSPECIFIED;
	const unsigned char *v4 = embedded4(a);
	if (v4)
		return classify4(v4);
	if (a[0] == 0xff)
		return WK_ADDR_MULTICAST;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return WK_ADDR_LINKLOCAL;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return WK_ADDR_PRIVATE;
	if ((a[0] & 0xfe) == 0xfc)
		return WK_ADDR_ULA;
	if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8)
		return WK_ADDR_RESERVED; /* documentation */
	/* Only global unicast (2000::/3) is public; the rest is unassigned. */
	if ((a[0] & 0xe0) != 0x20)
		return WK_ADDR_RESERVED;
	return WK_ADDR_PUBLIC;
}

const char *wk_addr_class_name(enum wk_addr_class c)
{
	switch (c) {
	case WK_ADDR_PUBLIC: return "a public address";
	case WK_ADDR_LOOPBACK: return "a loopback address";
	case WK_ADDR_LINKLOCAL: return "a link-local address";
	case WK_ADDR_PRIVATE: return "a private address";
	case WK_ADDR_ULA: return "a unique local address";
	case WK_ADDR_UNSPECIFIED: return "an unspecified address";
	case WK_ADDR_MULTICAST: return "a multicast address";
	case WK_ADDR_RESERVED: return "a reserved address";
	}
	return "an address";
}

/* ADDR as 16 bytes of IPv6 (an IPv4 address v4-mapped). */
static void as6(const struct wk_addr *addr, unsigned char out[16])
{
	if (addr->family == AF_INET) {
		memset(out, 0, 10);
		out[10] = out[11] = 0xff;
		memcpy(out + 12, addr->a, 4);
	} else {
		memcpy(out, addr->a, 16);
	}
}

bool wk_addr_in(const struct wk_addr *addr, const struct wk_addr *list, size_t n)
{
	unsigned char x[16], y[16];
	as6(addr, x);
	for (size_t i = 0; i < n; i++) {
		as6(&list[i], y);
		if (memcmp(x, y, 16) == 0)
			return true;
	}
	return false;
}

const char *wk_addr_refusal(const struct wk_addr *addr, const struct wk_addr *allowed,
			    size_t nallowed, const struct wk_addr *own, size_t nown)
{
	/* The policy's own word for an address wins over everything: it is
	 * how a local registry or a test server is reached on purpose. */
	if (wk_addr_in(addr, allowed, nallowed))
		return NULL;
	enum wk_addr_class c = wk_addr_classify(addr->family, addr->a);
	if (c != WK_ADDR_PUBLIC)
		return wk_addr_class_name(c);
	if (wk_addr_in(addr, own, nown))
		return "one of this host's addresses";
	return NULL;
}

bool wk_addr_canonical(const char *text, int family, char *out, size_t outsz)
{
	unsigned char a[16];
	for (int f = 0; f < 2; f++) {
		int fam = f ? AF_INET6 : AF_INET;
		if ((!family || family == fam) && inet_pton(fam, text, a) == 1)
			return inet_ntop(fam, a, out, (socklen_t)outsz) != NULL;
	}
	return false;
}

const char *wk_hosts_entry(const char *name, size_t nl, const char *addr, char *out,
			   size_t outsz, bool *addr_bad)
{
	char canon[64];
	const char *why = wk_name_check(name, nl);
	*addr_bad = false;
	if (why)
		return why;
	if (!wk_addr_canonical(addr, 0, canon, sizeof canon)) {
		*addr_bad = true;
		return "not an IPv4 or IPv6 address";
	}
	/* One entry per name: lower case, without a trailing dot. */
	nl -= name[nl - 1] == '.';
	size_t al = strlen(canon);
	if (nl + 1 + al + 1 > outsz)
		return "too long";
	for (size_t i = 0; i < nl; i++)
		out[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] + 32) : name[i];
	out[nl] = '=';
	memcpy(out + nl + 1, canon, al + 1);
	return NULL;
}
