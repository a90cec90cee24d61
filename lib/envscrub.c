#include "config.h"
#include "envscrub.h"

#include <string.h>

/* ASCII case folding without a locale lookup per character: variable
 * names are ASCII, and this runs for every pattern against every name. */
static inline unsigned char fold(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
}

/* Case-insensitive glob with '*' and '?' only (all that variable names
 * need); iterative, with one backtrack point, so linear in practice and
 * several times cheaper than fnmatch(FNM_CASEFOLD) on the start-up path. */
bool glob_match_ci(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;
	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat == '?' || (*pat && fold((unsigned char)*pat) == fold((unsigned char)*s))) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

bool envscrub_match(const char *name, const char *const *patterns)
{
	for (size_t i = 0; patterns[i]; i++)
		if (glob_match_ci(patterns[i], name))
			return true;
	return false;
}

int envscrub_filter(char **envp, const char *const *patterns)
{
	char name[256];
	int removed = 0;
	size_t w = 0;
	for (size_t r = 0; envp[r]; r++) {
		const char *eq = strchr(envp[r], '=');
		size_t nl = eq ? (size_t)(eq - envp[r]) : strlen(envp[r]);
		bool drop;
		if (nl >= sizeof name) {
			drop = true; /* absurdly long names are not worth the risk */
		} else {
			memcpy(name, envp[r], nl);
			name[nl] = '\0';
			drop = envscrub_match(name, patterns);
		}
		if (drop)
			removed++;
		else
			envp[w++] = envp[r];
	}
	envp[w] = NULL;
	return removed;
}

size_t env_unset(char **envp, const char *name)
{
	size_t nl = strcspn(name, "="), w = 0;
	for (size_t r = 0; envp[r]; r++)
		if (strncmp(envp[r], name, nl) != 0 || envp[r][nl] != '=')
			envp[w++] = envp[r];
	envp[w] = NULL;
	return w;
}
