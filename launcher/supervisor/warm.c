/* Warm sessions, the supervisor's side. `wicket session start` runs a
 * session whose command is the server (`wicket session serve FD`, in
 * cli/warmcmd.c); the supervisor listens on STATE/warm/NAME.sock, in the
 * state directory the sandbox cannot see (it is hidden: main.c), takes
 * each client's request there (the same uid only: SO_PEERCRED), and hands
 * it to the server with the client's descriptors (SCM_RIGHTS, never
 * copied byte by byte). The server forks and execs; its child says
 * "started" itself, so that the packet's credentials give the exec's pid
 * as the supervisor sees it, which attributes denials to the exec
 * (warm_exec_of, control_exec_hook). Every message is decoded by
 * lib/warmproto.c, from either side: the server is the sandbox's, a
 * client any process of the user's. */
#include "config.h"
#include "base/session.h"
#include "base/state.h"
#include "supervisor/control.h"
#include "supervisor/warm.h"
#include "supervisor/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <signal.h>
#include <unistd.h>

#include <jansson.h>

#include "fdpass.h"
#include "utf8.h"
#include "warmproto.h"

/* Clients at once (8 parallel tool calls and more); one more is refused. */
#define WARM_CLIENTS 32

struct client {
	int fd;
	struct watch *w;
	unsigned long long id; /* its exec, once handed to the server; 0: none */
	pid_t pid;             /* the exec's pid (started), 0 until then */
	bool events;           /* it takes its exec's event lines (wicket exec --events) */
};
static struct client clients[WARM_CLIENTS];
static int listener = -1, server = -1;
static struct watch *w_listener, *w_server;
static unsigned long long next_id;
static const struct session *wsess;
/* Execs that ended lately, for the reports that come after their end
 * (a refused process exits at once; its report is read later). */
#define WARM_ENDED 256
struct ended_exec {
	pid_t pid;
	unsigned long long id;
};
static struct ended_exec ended[WARM_ENDED];
static size_t n_ended;
static int stopper = -1; /* the client that stopped the session: held to our end */
static bool stopping;

int warm_dir_open(void)
{
	char *state = wicket_state_dir();
	if (!state) {
		errno = ENOENT;
		return -1;
	}
	char *dir = xasprintf("%s/warm", state);
	free(state);
	int fd = -1;
	if (wicket_state_dir_make(dir)) {
		/* host: the user's own state directory */
		fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		struct stat st;
		if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != geteuid() ||
				(st.st_mode & 077))) {
			close(fd);
			fd = -1;
			errno = EPERM;
		}
	}
	free(dir);
	return fd;
}

char *warm_path(int dirfd, const char *name, const char *ext)
{
	return xasprintf("/proc/self/fd/%d/%s.%s", dirfd, name, ext);
}

static void server_ready(struct session *s, struct watch *w, short revents);
static struct session *warm_s;
/* exec_of's look at the server socket is made in the middle of a
 * report; an exec's end it finds there waits (exits_due) until the
 * report's lines went to the exec's client, which the end closes: the
 * relay loop takes it, woken by exits_fd. */
static bool before_reports;
static struct {
	unsigned long long id;
	int status;
} exits_due[WARM_CLIENTS];
static size_t n_exits_due;
static int exits_fd = -1;
static struct watch *w_exits;

static unsigned long long exec_of(pid_t pid)
{
	/* An exec's process says "started" before its exec, so before
	 * anything it runs reports: what the server socket holds is taken
	 * first, whichever socket the relay loop happened to read first. */
	if (w_server && warm_s) {
		before_reports = true;
		server_ready(warm_s, w_server, POLLIN);
		before_reports = false;
	}
	/* Up the process's parents to an exec's own process, bounded: the
	 * sandbox can make a chain as long as it likes. */
	for (int depth = 0; pid > 1 && depth < 64; depth++) {
		for (size_t i = 0; i < WARM_CLIENTS; i++)
			if (clients[i].fd >= 0 && clients[i].pid == pid)
				return clients[i].id;
		/* Newest first: a number may have been another's before. */
		for (size_t k = 0; k < WARM_ENDED && k < n_ended; k++) {
			const struct ended_exec *e = &ended[(n_ended - 1 - k) % WARM_ENDED];
			if (e->pid == pid)
				return e->id;
		}
		char p[64], buf[512];
		snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
		/* host: /proc of a process of the sandbox's, read as text only */
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 0;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			return 0;
		buf[n] = '\0';
		/* "pid (comm) state ppid": comm may hold anything but ends at
		 * the last ')'. */
		char *r = strrchr(buf, ')');
		int ppid;
		if (!r || sscanf(r + 1, " %*c %d", &ppid) != 1)
			return 0;
		pid = ppid;
	}
	return 0;
}

static void send_msg(int fd, const struct warm_msg *m, const int *fds, size_t nfds)
{
	size_t len;
	char *buf = warm_encode(m, &len);
	if (!buf)
		return;
	if (nfds)
		(void)fdpass_send(fd, buf, len, fds, nfds, MSG_DONTWAIT);
	else
		(void)send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	free(buf);
}

/* A line of exec ID's own event stream, to its client, never waiting: a
 * client that does not read loses it (its own --events output is where
 * it waits). */
static void exec_line(unsigned long long id, const char *text);

static void client_close(struct client *c)
{
	if (c->pid > 0)
		ended[n_ended++ % WARM_ENDED] = (struct ended_exec){c->pid, c->id};
	if (c->w)
		session_unwatch(c->w);
	if (c->fd >= 0)
		close(c->fd);
	*c = (struct client){.fd = -1};
}

static void client_refuse(struct client *c, const char *why)
{
	struct warm_msg m = {.verb = WARM_ERROR, .text = why, .status = EXIT_WICKET};
	send_msg(c->fd, &m, NULL, 0);
	client_close(c);
}

/* The client's exec to the server, its descriptors with it. */
static void client_exec(struct client *c, const struct warm_msg *req, struct fdpass_in *in)
{
	size_t want = 0;
	for (int i = 0; i < 3; i++)
		want += req->fds[i] == 'p';
	if (in->nfds != want) {
		client_refuse(c, "the descriptors sent are not those the message names");
		return;
	}
	if (stopping || server < 0) {
		client_refuse(c, "the session is ending");
		return;
	}
	struct warm_msg m = *req;
	m.id = c->id = ++next_id;
	m.events = false;
	c->events = req->events;
	if (c->events) {
		json_t *a = json_array();
		for (size_t i = 0; i < req->argc; i++)
			json_array_append_new(a, wk_json_text(req->argv[i]));
		json_t *o = json_pack("{s:i, s:s, s:s, s:I, s:s, s:o}", "v", 1, "event", "exec",
				      "session", wsess && wsess->session_id ? wsess->session_id : "", "exec",
				      (json_int_t)c->id, "cwd", req->cwd ? req->cwd : "", "argv", a);
		char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		json_decref(o);
		if (text)
			exec_line(c->id, text);
		free(text);
	}
	size_t len;
	char *buf = warm_encode(&m, &len);
	ssize_t n = buf ? (want ? fdpass_send(server, buf, len, in->fds, want, MSG_DONTWAIT)
				: send(server, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL))
			: -1;
	free(buf);
	if (n < 0)
		client_refuse(c, "the session's server does not take it");
}

/* No new client from here; the name is free at once, for a session of
 * the same name started meanwhile, whose socket is then never ours to
 * remove. */
static void stop_listening(struct session *s)
{
	if (w_listener)
		session_unwatch(w_listener);
	w_listener = NULL;
	if (listener < 0)
		return;
	close(listener);
	listener = -1;
	char *path = warm_path(s->warm_dirfd, s->warm_name, "sock");
	/* host: the user's state directory, through its descriptor */
	unlink(path);
	free(path);
}

/* The server is the sandbox's: one that does not end when told (stopped
 * by a signal from an exec, traced, busy) must not hold the session, and
 * with it the end-of-session checks, forever. After STOP_GRACE_S the
 * whole sandbox is killed through init, as a run's hangup does; the
 * checks follow its end as they follow any other. */
#define STOP_GRACE_S 5
static int stop_timer = -1;
static struct watch *w_stop_timer;

static void stop_timer_ready(struct session *s, struct watch *w, short revents)
{
	(void)w, (void)revents;
	uint64_t n;
	(void)!read(stop_timer, &n, sizeof n);
	if (s->child > 0)
		kill(s->child, SIGKILL);
}

static void stop_session(struct session *s)
{
	stopping = true;
	stop_listening(s);
	struct warm_msg m = {.verb = WARM_STOP, .status = -1};
	if (server >= 0)
		send_msg(server, &m, NULL, 0);
	stop_timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	struct itimerspec its = {.it_value = {.tv_sec = STOP_GRACE_S}};
	w_stop_timer = stop_timer >= 0 && timerfd_settime(stop_timer, 0, &its, NULL) == 0
			       ? session_watch(s, stop_timer, POLLIN, stop_timer_ready, NULL)
			       : NULL;
	if (!w_stop_timer && s->child > 0)
		kill(s->child, SIGKILL); /* no timer: no grace */
}

static void client_ready(struct session *s, struct watch *w, short revents)
{
	struct client *c = w->data;
	char buf[WARM_MSG_MAX];
	struct fdpass_in in;
	ssize_t n = (revents & POLLIN) ? fdpass_recv(c->fd, buf, sizeof buf, 3, 0, MSG_DONTWAIT, &in)
				       : -1;
	if (n < 0 && (revents & POLLIN) && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* The client went away; its exec goes on (a harness's tool
		 * call is over once it stops waiting for it). */
		if (n == 0)
			fdpass_close(&in);
		client_close(c);
		return;
	}
	struct warm_msg m;
	const char *err;
	if ((in.flags & (MSG_TRUNC | MSG_CTRUNC)) || in.extra) {
		fdpass_close(&in);
		client_refuse(c, "message too large, or too many descriptors");
		return;
	}
	if (!warm_decode(buf, (size_t)n, &m, &err)) {
		fdpass_close(&in);
		client_refuse(c, err);
		return;
	}
	if (m.verb == WARM_EXEC && !c->id) {
		client_exec(c, &m, &in);
	} else if (m.verb == WARM_SIGNAL && c->id && server >= 0) {
		struct warm_msg f = {.verb = WARM_SIGNAL, .id = c->id, .sig = m.sig, .status = -1};
		send_msg(server, &f, NULL, 0);
	} else if (m.verb == WARM_STOP && !c->id && in.nfds == 2 && !stopping) {
		/* What the session's end says (the planted-file guard, the
		 * history) goes to whoever stopped it. */
		dup2(in.fds[0], STDOUT_FILENO);
		dup2(in.fds[1], STDERR_FILENO);
		stopper = c->fd;
		session_unwatch(c->w);
		*c = (struct client){.fd = -1};
		stop_session(s);
	} else {
		fdpass_close(&in);
		warm_msg_free(&m);
		client_refuse(c, "a message out of place");
		return;
	}
	fdpass_close(&in);
	warm_msg_free(&m);
}

static void listener_ready(struct session *s, struct watch *w, short revents)
{
	(void)w, (void)revents;
	for (int k = 0; k < 16; k++) {
		int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		/* The user's alone: the directory is 0700, and the peer is checked
		 * all the same (a descriptor of the socket handed on). */
		struct ucred cr;
		socklen_t cl = sizeof cr;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0 || cr.uid != geteuid()) {
			close(fd);
			continue;
		}
		struct client *c = NULL;
		for (size_t i = 0; i < WARM_CLIENTS && !c; i++)
			if (clients[i].fd < 0)
				c = &clients[i];
		struct watch *cw = c ? session_watch(s, fd, POLLIN, client_ready, c) : NULL;
		if (!cw) {
			struct warm_msg m = {.verb = WARM_ERROR, .status = EXIT_WICKET,
					     .text = "too many clients of this session at once"};
			send_msg(fd, &m, NULL, 0);
			close(fd);
			continue;
		}
		*c = (struct client){.fd = fd, .w = cw};
	}
}

static struct client *client_of(unsigned long long id)
{
	for (size_t i = 0; id && i < WARM_CLIENTS; i++)
		if (clients[i].fd >= 0 && clients[i].id == id)
			return &clients[i];
	return NULL;
}

static bool exec_wants(unsigned long long id)
{
	struct client *c = client_of(id);
	return c && c->events;
}

static void exec_line(unsigned long long id, const char *text)
{
	struct client *c = client_of(id);
	if (!c || !c->events)
		return;
	struct warm_msg m = {.verb = WARM_EVENT, .id = id, .json = text, .status = -1};
	send_msg(c->fd, &m, NULL, 0);
}

/* Exec ID ended with STATUS: its client told, with its number (for the
 * lines of the session's own stream and record that name it). */
static void exec_ended(unsigned long long id, int status)
{
	struct client *c = client_of(id);
	if (!c)
		return;
	struct warm_msg e = {.verb = WARM_EXIT, .id = id, .status = status};
	send_msg(c->fd, &e, NULL, 0);
	client_close(c);
}

static void exits_ready(struct session *s, struct watch *w, short revents)
{
	(void)w, (void)revents;
	uint64_t n;
	(void)!read(exits_fd, &n, sizeof n);
	control_catch_up(s);
	for (size_t i = 0; i < n_exits_due; i++)
		exec_ended(exits_due[i].id, exits_due[i].status);
	n_exits_due = 0;
}

static void server_ready(struct session *s, struct watch *w, short revents)
{
	(void)s;
	for (int k = 0; k < 64 && (revents & POLLIN); k++) {
		char buf[WARM_MSG_MAX];
		struct fdpass_in in;
		ssize_t n = fdpass_recv(server, buf, sizeof buf, 0, FDPASS_CREDS, MSG_DONTWAIT, &in);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		fdpass_close(&in);
		if (n <= 0)
			break;
		struct warm_msg m;
		const char *err;
		if ((in.flags & (MSG_TRUNC | MSG_CTRUNC)) || !warm_decode(buf, (size_t)n, &m, &err))
			continue; /* the sandbox's nonsense: refused, nothing else */
		struct client *c = client_of(m.id);
		if (m.verb == WARM_READY && s->warm_ready >= 0) {
			(void)!write(s->warm_ready, "r", 1);
			close(s->warm_ready);
			s->warm_ready = -1;
		} else if (m.verb == WARM_STARTED && c && !c->pid && in.pid > 0) {
			c->pid = in.pid;
		} else if (m.verb == WARM_EXIT && c && before_reports && n_exits_due < WARM_CLIENTS) {
			exits_due[n_exits_due].id = m.id;
			exits_due[n_exits_due++].status = m.status;
			uint64_t one = 1;
			(void)!write(exits_fd, &one, sizeof one);
		} else if (m.verb == WARM_EXIT && c) {
			/* What its processes reported before they ended, first. */
			control_catch_up(s);
			exec_ended(m.id, m.status);
		}
		warm_msg_free(&m);
	}
	if (revents & (POLLHUP | POLLERR)) {
		session_unwatch(w);
		w_server = NULL;
	}
}

void warm_plan(struct session *s)
{
	for (size_t i = 0; i < WARM_CLIENTS; i++)
		clients[i] = (struct client){.fd = -1};
	int sv[2];
	if (fdpass_pair(sv) < 0)
		die_errno("warm session: the server's socket");
	server = sv[0];
	s->warm_child = sv[1];
	control_exec_hook(exec_of);
	control_exec_events(exec_wants, exec_line);
	wsess = s;
}

void warm_init_close(struct session *s)
{
	if (s->warm_child >= 0)
		close(s->warm_child);
	if (server >= 0)
		close(server);
	if (s->warm_ready >= 0)
		close(s->warm_ready);
	if (s->warm_dirfd >= 0)
		close(s->warm_dirfd);
	s->warm_child = s->warm_ready = s->warm_dirfd = server = -1;
}

void warm_parent_close(struct session *s)
{
	if (s->warm_child >= 0)
		close(s->warm_child);
	s->warm_child = -1;
}

void warm_start(struct session *s, bool started)
{
	if (!s->warm_name || !started)
		return;
	/* After the clone: init never holds the listener. */
	char *path = warm_path(s->warm_dirfd, s->warm_name, "sock");
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	listener = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	/* host: the user's state directory, through its descriptor */
	unlink(path);
	if (listener < 0 || bind(listener, (struct sockaddr *)&a, sizeof a) < 0 ||
	    listen(listener, 64) < 0)
		die("session %s: cannot listen on %s: %s", s->warm_name, path, strerror(errno));
	free(path);
	w_listener = session_watch(s, listener, POLLIN, listener_ready, NULL);
	w_server = session_watch(s, server, POLLIN, server_ready, NULL);
	exits_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w_exits = exits_fd >= 0 ? session_watch(s, exits_fd, POLLIN, exits_ready, NULL) : NULL;
	warm_s = s;
	if (!w_listener || !w_server || !w_exits)
		die("internal error: no room to watch the session's sockets");
}

void warm_finish(struct session *s)
{
	if (!s->warm_name)
		return;
	for (size_t i = 0; i < WARM_CLIENTS; i++)
		if (clients[i].fd >= 0)
			client_refuse(&clients[i], "the session ended before the command did");
	stop_listening(s);
	if (w_server)
		session_unwatch(w_server);
	w_server = NULL;
	session_unwatch_close(&w_exits, &exits_fd);
	n_exits_due = 0;
	session_unwatch_close(&w_stop_timer, &stop_timer);
	if (server >= 0)
		close(server);
	server = -1;
	if (s->warm_ready >= 0)
		close(s->warm_ready);
	s->warm_ready = -1;
	/* The stopper's end stays open until this process exits, after the
	 * end-of-session checks: its EOF says they are done. */
	(void)stopper;
}
