/* The event stream (events.h): lines appended to a bounded buffer under
 * a lock (the proxy's thread writes too) and written without ever
 * blocking: the descriptor is the supervisor's own open of the pipe or
 * file (reopened O_NONBLOCK through /proc/self/fd, so the harness's own
 * end keeps its flags), a socket is sent to with MSG_DONTWAIT. What the
 * reader does not take at once waits in the buffer for a writer thread,
 * started the first time there is a backlog; past EVENTS_BUFFER a line
 * is dropped whole and counted ("lost" on the "end" line). Into a pipe
 * each line is one write, whole or not at all up to PIPE_BUF bytes. */
#include "config.h"
#include "supervisor/events.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int out = -1;
static bool is_sock, is_pipe, on, ending, thread_up;
static pthread_t writer;
static char *buf;
static size_t len;
static unsigned long lost;
/* Denials by category, for the "end" line: few categories, a short list. */
#define CATEGORIES 32
static struct { const char *name; unsigned long n; } cats[CATEGORIES];
static unsigned long uncounted;

bool events_on(void)
{
	return on;
}

/* Our own descriptor of what FD holds, non-blocking, close-on-exec. */
static int own_open(int fd, const char **err)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		*err = "not an open descriptor";
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY || (fl & O_PATH)) {
		*err = "not open for writing";
		return -1;
	}
	if (S_ISSOCK(st.st_mode)) {
		is_sock = true;
		return fcntl(fd, F_DUPFD_CLOEXEC, 3);
	}
	if (S_ISREG(st.st_mode)) /* a file never makes a write wait for a reader */
		return fcntl(fd, F_DUPFD_CLOEXEC, 3);
	is_pipe = S_ISFIFO(st.st_mode);
	char p[32];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	/* host: a descriptor the caller handed us, reopened for its flags */
	int w = open(p, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (fl & O_APPEND));
	if (w < 0)
		*err = "cannot be opened again without blocking (a pipe, a FIFO, a file or a socket "
		       "is expected)";
	return w;
}

const char *events_open(const char *spec)
{
	const char *err = NULL;
	long fd;
	if (strspn(spec, "0123456789") == strlen(spec) && spec[0]) {
		if (!parse_long(spec, 0, 1 << 20, &fd))
			return "not a descriptor number";
		if (fd <= 2)
			return "descriptors 0, 1 and 2 are the command's too, which could write lines "
			       "of its own into the stream: give another descriptor, or a path";
		out = own_open((int)fd, &err);
		if (out < 0)
			return err ? err : strerror(errno);
		/* Nothing in the sandbox may write into it: the number goes. */
		close((int)fd);
	} else {
		/* host: a path the caller names, made anew */
		out = open(spec, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
			   0600);
		if (out < 0)
			return errno == EEXIST ? "exists already (a path must be a new file; an open "
						 "descriptor takes a pipe)" : strerror(errno);
	}
	on = true;
	return NULL;
}

/* Write what the buffer holds as far as the reader takes it: true when
 * a byte went (or nothing was left). Under the lock. A reader gone
 * (EPIPE) or any other error: the rest is lost. */
static bool write_some(void)
{
	bool moved = false;
	while (len) {
		ssize_t w;
		/* Into a pipe one line a write: one of PIPE_BUF bytes or less
		 * goes whole or not at all, so a reader that stops at the end
		 * never holds half of one (a longer line may be cut then). */
		size_t n = len;
		const char *nl = is_pipe ? memchr(buf, '\n', len) : NULL;
		if (nl)
			n = (size_t)(nl - buf) + 1;
		if (is_sock) {
			w = send(out, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		} else {
			/* SIGPIPE, should the reader be gone, stays this thread's
			 * and is taken back: the supervisor is not ended by it. */
			sigset_t pipe_set, old;
			sigemptyset(&pipe_set);
			sigaddset(&pipe_set, SIGPIPE);
			pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
			w = write(out, buf, n);
			int e = errno;
			if (w < 0 && e == EPIPE) {
				struct timespec zero = {0, 0};
				while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
					;
			}
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			errno = e;
		}
		if (w > 0) {
			memmove(buf, buf + w, len - (size_t)w);
			len -= (size_t)w;
			moved = true;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return moved;
		/* Gone: every whole line left is lost. */
		for (size_t i = 0; i < len; i++)
			lost += buf[i] == '\n';
		len = 0;
		return true;
	}
	return true;
}

/* The writer: waits for room at the reader, writes, and at the end
 * gives up once EVENTS_DRAIN_MS pass without a byte taken. */
static void *writer_main(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	long long last = now_ms();
	pthread_mutex_lock(&mu);
	for (;;) {
		while (!len && !ending)
			pthread_cond_wait(&cv, &mu);
		if (!len)
			break;
		pthread_mutex_unlock(&mu);
		struct pollfd p = {out, POLLOUT, 0};
		/* Woken every so often to see the end come. */
		poll(&p, 1, 100);
		pthread_mutex_lock(&mu);
		/* Until the end, as long as the reader takes (the buffer bounds
		 * what waits); from the end on, while it takes something. */
		if (write_some() || !ending) {
			last = now_ms();
		} else if (now_ms() - last >= EVENTS_DRAIN_MS) {
			for (size_t i = 0; i < len; i++)
				lost += buf[i] == '\n';
			len = 0;
		}
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void append_line(json_t *doc)
{
	char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(doc);
	pthread_mutex_lock(&mu);
	size_t n = text ? strlen(text) : 0;
	if (!text || out < 0 || len + n + 1 > EVENTS_BUFFER) {
		lost++;
	} else {
		if (!buf)
			buf = xmalloc(EVENTS_BUFFER);
		memcpy(buf + len, text, n);
		buf[len + n] = '\n';
		len += n + 1;
		if (thread_up)
			pthread_cond_signal(&cv);
		else
			write_some();
		/* A backlog: the writer takes it from here. */
		if (len && !thread_up && !ending)
			thread_up = pthread_create(&writer, NULL, writer_main, NULL) == 0;
	}
	pthread_mutex_unlock(&mu);
	free(text);
}

static json_t *head(const char *name)
{
	json_t *o = json_object();
	json_object_set_new(o, "v", json_integer(1));
	json_object_set_new(o, "event", json_string(name));
	return o;
}

void events_emit(const char *name, json_t *o)
{
	if (!on) {
		json_decref(o);
		return;
	}
	json_t *doc = head(name);
	if (o)
		json_object_update(doc, o);
	json_decref(o);
	append_line(doc);
}

void events_count(const char *category)
{
	if (!on)
		return;
	pthread_mutex_lock(&mu);
	size_t i = 0;
	while (i < CATEGORIES && cats[i].name && strcmp(cats[i].name, category) != 0)
		i++;
	if (i == CATEGORIES) {
		uncounted++;
	} else {
		cats[i].name = category; /* a static string (control.c's) */
		cats[i].n++;
	}
	pthread_mutex_unlock(&mu);
}

void events_end(json_t *o)
{
	if (!on) {
		json_decref(o);
		return;
	}
	json_t *doc = head("end");
	if (o)
		json_object_update(doc, o);
	json_decref(o);
	json_t *counts = json_object();
	unsigned long total = uncounted;
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < CATEGORIES && cats[i].name; i++) {
		json_object_set_new(counts, cats[i].name, json_integer((json_int_t)cats[i].n));
		total += cats[i].n;
	}
	unsigned long lost_before = lost;
	pthread_mutex_unlock(&mu);
	json_object_set_new(doc, "denials", json_integer((json_int_t)total));
	json_object_set_new(doc, "counts", counts);
	json_object_set_new(doc, "refused", json_boolean(total > 0));
	json_object_set_new(doc, "lost", json_integer((json_int_t)lost_before));
	append_line(doc);
	pthread_mutex_lock(&mu);
	ending = true;
	pthread_cond_signal(&cv);
	bool joined = thread_up;
	pthread_mutex_unlock(&mu);
	if (joined)
		pthread_join(writer, NULL);
	close(out);
	out = -1;
	free(buf);
	buf = NULL;
	len = 0;
	on = false;
}
