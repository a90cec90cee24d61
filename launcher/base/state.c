/* The state kept after a session: the directory (XDG_STATE_HOME's, else
 * the home's) and the names of the records of the sessions that ended.
 * Written by control.c, read by why.c, ask.c's audit log goes there too. */
#include "config.h"
#include "base/state.h"
#include "base/user.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"
#include "util.h"

char *wicket_state_dir(void)
{
	const char *x = getenv("XDG_STATE_HOME");
	if (x && x[0] == '/')
		return path_join(x, "wicket");
	const char *home = getenv("HOME");
	if (!home || home[0] != '/') {
		struct passwd *pw = passwd_of(getuid());
		home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
	}
	return home ? path_join(home, ".local/state/wicket") : NULL;
}

/* mkdir -p DIR with mode 0700 for what it creates. */
bool wicket_state_dir_make(const char *dir)
{
	struct stat st;
	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode);
	char *p = xstrdup(dir);
	for (char *c = p + 1;; c++) {
		if (*c != '/' && *c != '\0')
			continue;
		char saved = *c;
		*c = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			free(p);
			return false;
		}
		*c = saved;
		if (!saved)
			break;
	}
	free(p);
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A record in sessions/: "SECONDS.NANOSECONDS-SESSION.json", zero-padded
 * so the names sort as the sessions ended. */
bool session_record_name(const char *name)
{
	size_t n = strlen(name);
	return n > 26 && strspn(name, "0123456789") == 10 && name[10] == '.' &&
	       strspn(name + 11, "0123456789") == 9 && name[20] == '-' &&
	       strcmp(name + n - 5, ".json") == 0;
}
