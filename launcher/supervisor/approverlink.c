/* The approver a harness holds: JSON lines over a stream socket
 * (approverlink.h). The harness is outside and trusted as an approver
 * program is; what it is protected against is itself being slow or
 * wrong: the supervisor never waits on it (what it has not read waits
 * here, up to a bound, and a request past that bound is refused), a line
 * it sends is bounded, and a link that breaks its framing is closed, so
 * that every request after it is refused rather than answered by a
 * guess. The descriptor's file status flags are the harness's too (an
 * inherited descriptor shares them), so nothing here sets O_NONBLOCK:
 * each call says MSG_DONTWAIT. The sandbox never holds the descriptor: the command's init
 * closes everything above standard error, and the supervisor's is
 * close-on-exec. */
#include "config.h"

#include "approverlink.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/session.h"
#include "supervisor/watch.h"
#include "util.h"

#define LINK_LINE_MAX 65536        /* bytes of one answer line */
#define LINK_PENDING_MAX (1 << 20) /* bytes of requests the harness has not read */

static struct watch *w_link;
static alink_answer_fn on_answer;
static char *out;         /* what is not written yet */
static size_t out_len, out_off;
static char in[LINK_LINE_MAX + 1];
static size_t in_len;
static bool gone;
static const char *gone_why;

static void link_ready(struct session *s, struct watch *w, short revents);

bool alink_usable(const struct session *s)
{
	return s->approver_fd >= 0 && !gone;
}

/* The link is over: nothing more is sent or read; every request still
 * waiting for it is refused by the caller (ANSWER with id 0). */
static void link_gone(struct session *s, const char *why)
{
	if (gone)
		return;
	gone = true;
	gone_why = why;
	if (w_link)
		session_unwatch(w_link);
	w_link = NULL;
	free(out);
	out = NULL;
	out_len = out_off = 0;
	warnmsg("the approver on descriptor %d: %s; requests are refused from now on",
		s->approver_fd, why);
	if (on_answer)
		on_answer(s, 0, NULL, why);
}

static void flush_out(struct session *s)
{
	while (out_off < out_len) {
		ssize_t n = send(s->approver_fd, out + out_off, out_len - out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			link_gone(s, "the connection is closed");
			return;
		}
		out_off += (size_t)n;
	}
	if (out_off == out_len) {
		out_off = out_len = 0;
	}
	if (w_link)
		w_link->events = (short)(POLLIN | (out_len ? POLLOUT : 0));
}

/* One answer line: its "id" and the object go to the caller; a line that
 * is not an object with a whole-number id breaks the link. */
static void take_line(struct session *s, const char *line, size_t len)
{
	json_error_t je;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	json_t *id = json_object_get(o, "id");
	if (!json_is_object(o) || !json_is_integer(id) || json_integer_value(id) <= 0) {
		json_decref(o);
		link_gone(s, "it sent a line that is not {\"id\": N, \"approve\": ...}");
		return;
	}
	on_answer(s, (unsigned long)json_integer_value(id), o, NULL);
	json_decref(o);
}

static void read_in(struct session *s)
{
	for (int rounds = 0; rounds < 16 && !gone; rounds++) {
		ssize_t n = recv(s->approver_fd, in + in_len, sizeof in - in_len, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			link_gone(s, "the connection is closed");
			return;
		}
		in_len += (size_t)n;
		char *nl;
		size_t start = 0;
		while (!gone && (nl = memchr(in + start, '\n', in_len - start))) {
			size_t len = (size_t)(nl - (in + start));
			if (len)
				take_line(s, in + start, len);
			start += len + 1;
		}
		if (gone)
			return;
		memmove(in, in + start, in_len - start);
		in_len -= start;
		if (in_len == sizeof in) {
			link_gone(s, "it sent a line longer than 65536 bytes");
			return;
		}
	}
}

static void link_ready(struct session *s, struct watch *w, short revents)
{
	(void)w;
	if (revents & POLLOUT)
		flush_out(s);
	if (!gone && (revents & (POLLIN | POLLHUP | POLLERR)))
		read_in(s);
}

bool alink_send(struct session *s, unsigned long id, json_t *req, alink_answer_fn answer,
		const char **why)
{
	*why = NULL;
	if (!alink_usable(s)) {
		*why = gone_why ? gone_why : "there is no approver";
		return false;
	}
	on_answer = answer;
	if (!w_link) {
		w_link = session_watch(s, s->approver_fd, POLLIN, link_ready, NULL);
		if (!w_link) {
			*why = "no room to watch the approver";
			return false;
		}
	}
	json_object_set_new(req, "id", json_integer((json_int_t)id));
	char *text = json_dumps(req, JSON_COMPACT);
	json_object_del(req, "id");
	if (!text) {
		*why = "out of memory";
		return false;
	}
	size_t len = strlen(text);
	if (out_len - out_off + len + 1 > LINK_PENDING_MAX) {
		free(text);
		*why = "the approver has not read the requests sent before";
		return false;
	}
	if (out_off) {
		memmove(out, out + out_off, out_len - out_off);
		out_len -= out_off;
		out_off = 0;
	}
	out = xrealloc(out, out_len + len + 1);
	memcpy(out + out_len, text, len);
	out[out_len + len] = '\n';
	out_len += len + 1;
	free(text);
	flush_out(s);
	if (gone) {
		*why = gone_why;
		return false;
	}
	return true;
}

void alink_close(struct session *s)
{
	if (w_link)
		session_unwatch(w_link);
	w_link = NULL;
	free(out);
	out = NULL;
	out_len = out_off = in_len = 0;
	if (s->approver_fd >= 0)
		close(s->approver_fd);
	s->approver_fd = -1;
}
