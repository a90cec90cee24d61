/* The user wicket runs for: the passwd entry and the home directory.
 * Below everything that needs them (main.c, policycmd.c, probe.c, the
 * state directory in state.c). */
#include "config.h"
#include "base/user.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Our passwd entry: /etc/passwd read directly first (NSS start-up costs
 * more than the whole rest of the supervisor's preparation), NSS for
 * users that live elsewhere (LDAP, sssd). */
struct passwd *passwd_of(uid_t uid)
{
	FILE *f = fopen("/etc/passwd", "re");
	if (f) {
		struct passwd *pw;
		while ((pw = fgetpwent(f)))
			if (pw->pw_uid == uid)
				break;
		fclose(f);
		if (pw)
			return pw;
	}
#ifdef WICKET_STATIC
	return NULL;
#else
	return getpwuid(uid);
#endif
}

/* ${home}: $HOME, else the passwd entry's, as a session takes it. */
const char *user_home(void)
{
	const char *h = getenv("HOME");
	if (h && h[0] == '/')
		return h;
	struct passwd *pw = passwd_of(getuid());
	return pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
}
