/* The user wicket runs for (user.c): the passwd entry and the home
 * directory, as a session takes them. */
#ifndef WICKET_USER_H
#define WICKET_USER_H

#include <sys/types.h>

struct passwd;
struct passwd *passwd_of(uid_t uid);
const char *user_home(void); /* $HOME when absolute, else the passwd entry's */

#endif
