#include "config.h"
#define WK_PATH_C /* defines what path.h declares */
#include "path.h"
#include "pathlex.h"
#include "util.h"

#include <string.h>

char *path_normalize(const char *path)
{
	if (!path || path[0] != '/')
		return NULL;
	char *out = xstrdup(path);
	pathlex_normalize(out);
	return out;
}

bool path_is_under(const char *path, const char *root)
{
	return pathlex_under(path, root, strlen(root));
}

char *path_join(const char *a, const char *b)
{
	size_t al = strlen(a);
	while (al > 0 && a[al - 1] == '/')
		al--;
	while (*b == '/')
		b++;
	return xasprintf("%.*s/%s", (int)al, a, b);
}

char *path_expand_home(const char *path, const char *home)
{
	if (path[0] == '~' && (path[1] == '\0' || path[1] == '/'))
		return path[1] ? path_join(home, path + 2) : xstrdup(home);
	return xstrdup(path);
}

char *path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return xstrdup("/");
	return xasprintf("%.*s", (int)(slash - path), path);
}

bool path_is_home_state(const char *path, const char *const *homes)
{
	/* Files, with whatever a program writes next to them first
	 * (.bash_history-1234.tmp, .zsh_history.LOCK, .viminfz.tmp, and
	 * less's .lesshsQ, which it renames to .lesshst). */
	static const char *const files[] = {
		".bash_history", ".zsh_history", ".viminf", ".lesshs", ".python_history",
		".node_repl_history", ".psql_history", ".sqlite_history", ".mysql_history",
		".wget-hsts", NULL,
	};
	static const char *const dirs[] = {".npm", ".cache", NULL};
	for (size_t h = 0; homes && homes[h]; h++) {
		size_t hl = strlen(homes[h]);
		if (hl < 2 || strncmp(path, homes[h], hl) != 0 || path[hl] != '/')
			continue;
		const char *rest = path + hl + 1;
		for (size_t i = 0; dirs[i]; i++) {
			size_t n = strlen(dirs[i]);
			if (strncmp(rest, dirs[i], n) == 0 && (rest[n] == '\0' || rest[n] == '/'))
				return true;
		}
		if (strchr(rest, '/'))
			continue;
		for (size_t i = 0; files[i]; i++)
			if (strncmp(rest, files[i], strlen(files[i])) == 0)
				return true;
	}
	return false;
}
