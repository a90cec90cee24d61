#include "fdspec.h"
#include "netfmt.h"

#include <errno.h>
#include <limits.h>

static const char *parse_num(const char *s, unsigned long long *v)
{
	*v = 0;
	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned long long d = (unsigned long long)(*s - '0');
		if (*v > (~0ULL - d) / 10)
			return NULL;
		*v = *v * 10 + d;
	}
	return s;
}

size_t fdspec_format(char buf[FDSPEC_LEN], int fd, const struct stat *st)
{
	size_t n = netfmt_uint(buf, (unsigned long long)(fd < 0 ? 0 : fd));
	buf[n++] = ':';
	n += netfmt_uint(buf + n, (unsigned long long)st->st_dev);
	buf[n++] = ':';
	n += netfmt_uint(buf + n, (unsigned long long)st->st_ino);
	buf[n] = '\0';
	return n;
}

bool fdspec_parse(const char *s, struct fdspec *out)
{
	unsigned long long n;
	*out = (struct fdspec){.fd = -1};
	if (!s || !(s = parse_num(s, &n)) || n >= INT_MAX)
		goto bad;
	if (*s == ':') {
		if (!(s = parse_num(s + 1, &out->dev)) || *s != ':' ||
		    !(s = parse_num(s + 1, &out->ino)))
			goto bad;
		out->checked = true;
	}
	if (*s != '\0')
		goto bad;
	out->fd = (int)n;
	return true;
bad:
	*out = (struct fdspec){.fd = -1};
	return false;
}

bool fdspec_same(const struct fdspec *sp, const struct stat *st)
{
	return !sp->checked ||
	       ((unsigned long long)st->st_dev == sp->dev && (unsigned long long)st->st_ino == sp->ino);
}

int fdspec_socket(const struct fdspec *sp)
{
	struct stat st;
	int e = errno;
	bool ok = sp->fd >= 0 && fstat(sp->fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
		  fdspec_same(sp, &st);
	errno = e;
	return ok ? sp->fd : -1;
}
