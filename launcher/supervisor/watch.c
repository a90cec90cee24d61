/* The watch list: descriptors the supervisor's relay loop (stdio.c)
 * polls, registered by the modules that own them (control.c, ask.c,
 * pty.c, netnotify.c, unixnotify.c). Below all of them: it only keeps
 * the session's array. */
#include "config.h"
#include "base/session.h"
#include "supervisor/watch.h"

#include <unistd.h>

struct watch *session_watch(struct session *s, int fd, short events,
			    void (*ready)(struct session *, struct watch *, short), void *data)
{
	for (size_t i = 0; i < WK_MAX_WATCH; i++)
		if (!s->watch[i].ready) {
			s->watch[i] = (struct watch){fd, events, ready, data, false};
			return &s->watch[i];
		}
	return NULL;
}

void session_unwatch(struct watch *w)
{
	*w = (struct watch){-1, 0, NULL, NULL, false};
}

void session_unwatch_close(struct watch **w, int *fd)
{
	if (*w)
		session_unwatch(*w);
	*w = NULL;
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}
