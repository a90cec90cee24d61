/* The watch list (watch.c): the descriptors the supervisor's relay loop
 * polls besides the command's output, each with what runs when it is
 * ready. struct watch and the session's array of them are in base/session.h. */
#ifndef WICKET_WATCH_H
#define WICKET_WATCH_H

struct session;
struct watch;

/* Watch FD for EVENTS: READY runs when poll reports them (or an error);
 * NULL when all WK_MAX_WATCH places are taken. */
struct watch *session_watch(struct session *s, int fd, short events,
			    void (*ready)(struct session *, struct watch *, short), void *data);
void session_unwatch(struct watch *w);
/* The watch *W (if any) removed and its descriptor *FD (if open) closed;
 * both then say none (NULL, -1). */
void session_unwatch_close(struct watch **w, int *fd);

#endif
