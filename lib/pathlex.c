#include "pathlex.h"

#include <string.h>

size_t pathlex_normalize(char *p)
{
	char *w = p;
	const char *r = p;
	while (*r) {
		while (*r == '/')
			r++;
		const char *s = r;
		while (*r && *r != '/')
			r++;
		size_t n = (size_t)(r - s);
		if (n == 0 || (n == 1 && s[0] == '.'))
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (w > p && *--w != '/')
				;
			continue;
		}
		*w++ = '/';
		memmove(w, s, n);
		w += n;
	}
	if (w == p)
		*w++ = '/';
	*w = '\0';
	return (size_t)(w - p);
}

bool pathlex_under(const char *path, const char *root, size_t rlen)
{
	while (rlen > 1 && root[rlen - 1] == '/')
		rlen--;
	if (rlen == 1 && root[0] == '/')
		return path[0] == '/';
	return strncmp(path, root, rlen) == 0 && (path[rlen] == '/' || path[rlen] == '\0');
}

bool pathlex_dot_step(char *cur, const char *c, size_t n)
{
	if (n == 1 && c[0] == '.')
		return true;
	if (n != 2 || c[0] != '.' || c[1] != '.')
		return false;
	char *slash = strrchr(cur, '/');
	if (slash)
		*slash = '\0';
	return true;
}

const char *pathlex_next(const char *p, size_t *n)
{
	while (*p == '/')
		p++;
	if (!*p)
		return NULL;
	*n = strcspn(p, "/");
	return p;
}
