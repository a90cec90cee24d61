#include "rules.h"
#include "pathlex.h"

#include <string.h>

static bool path_kind(char k)
{
	return k == RULE_READ || k == RULE_WRITE || k == RULE_PROTECT || k == RULE_HIDE ||
	       k == RULE_KEEP || k == RULE_HIDE_CLOSED;
}

static bool port_kind(char k)
{
	return k == RULE_CONNECT || k == RULE_BIND;
}

static bool flag_kind(char k)
{
	return k == RULE_UDP || k == RULE_UNIX || k == RULE_SUPERVISOR;
}

static const char *const net_names[] = {
	[RULES_NET_NONE] = "none", [RULES_NET_FULL] = "full", [RULES_NET_PORTS] = "ports"};

const char *rules_net_name(int mode)
{
	return mode > RULES_NET_UNKNOWN && mode <= RULES_NET_PORTS ? net_names[mode] : NULL;
}

static int net_of(const char *v, size_t len)
{
	for (int m = RULES_NET_NONE; m <= RULES_NET_PORTS; m++)
		if (strlen(net_names[m]) == len && memcmp(net_names[m], v, len) == 0)
			return m;
	return RULES_NET_UNKNOWN;
}

/* The port V (LEN bytes, decimal, 1 to 65535), else 0. */
static unsigned port_of(const char *v, size_t len)
{
	unsigned p = 0;
	if (len == 0 || len > 5)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return 0;
		p = p * 10 + (unsigned)(v[i] - '0');
	}
	return p <= 65535 ? p : 0;
}

/* KIND VALUE (LEN bytes, no newline in it) is a rule: the one test both
 * directions share. */
static bool valid(char kind, const char *v, size_t len)
{
	if (len == 0 || memchr(v, '\n', len) || memchr(v, '\0', len))
		return false;
	if (path_kind(kind))
		return v[0] == '/';
	if (port_kind(kind))
		return port_of(v, len) != 0;
	if (flag_kind(kind))
		return len == 1 && (v[0] == '0' || v[0] == '1');
	if (kind == RULE_NET)
		return net_of(v, len) != RULES_NET_UNKNOWN;
	return false;
}

size_t rules_put(char *buf, size_t size, size_t len, char kind, const char *value)
{
	size_t n = strlen(value);
	if (!valid(kind, value, n))
		return 0;
	size_t end = len + n + 3; /* "K " VALUE "\n" */
	if (end >= size)
		return end;
	buf[len] = kind;
	buf[len + 1] = ' ';
	memcpy(buf + len + 2, value, n);
	buf[end - 1] = '\n';
	buf[end] = '\0';
	return end;
}

bool rules_next(const char **cur, char *kind, const char **value, size_t *len)
{
	while (*cur && **cur) {
		const char *l = *cur, *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		*cur = e ? e + 1 : l + n;
		if (n >= 3 && l[1] == ' ' && valid(l[0], l + 2, n - 2)) {
			*kind = l[0];
			*value = l + 2;
			*len = n - 2;
			return true;
		}
	}
	return false;
}

bool rules_cover(const char *rules, char kind, const char *path, char *root, size_t rootsz)
{
	const char *v;
	size_t len;
	char k;
	while (rules_next(&rules, &k, &v, &len)) {
		if (k != kind || !pathlex_under(path, v, len))
			continue;
		if (root && len < rootsz) {
			memcpy(root, v, len);
			root[len] = '\0';
		}
		return true;
	}
	return false;
}

bool rules_is(const char *rules, char kind, const char *value)
{
	const char *v;
	size_t len;
	char k;
	while (rules_next(&rules, &k, &v, &len))
		if (k == kind && strncmp(value, v, len) == 0 && value[len] == '\0')
			return true;
	return false;
}

bool rules_port(const char *rules, char kind, unsigned port)
{
	const char *v;
	size_t len;
	char k;
	while (rules_next(&rules, &k, &v, &len))
		if (k == kind && port_of(v, len) == port)
			return true;
	return false;
}

int rules_net(const char *rules)
{
	const char *v;
	size_t len;
	char k;
	while (rules_next(&rules, &k, &v, &len))
		if (k == RULE_NET)
			return net_of(v, len);
	return RULES_NET_UNKNOWN;
}

void rules_supervisor_off(char *rules)
{
	if (rules && rules[0] == RULE_SUPERVISOR && rules[1] == ' ' && rules[2] == '1' &&
	    rules[3] == '\n')
		rules[2] = '0';
}
