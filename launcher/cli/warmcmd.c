/* Warm sessions, the commands. The supervisor's side is
 * supervisor/warm.c; the protocol lib/warmproto.c. */
#include "config.h"
#include "cli/warmcmd.h"
#include "supervisor/ptyfilter.h"
#include "supervisor/warm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "fdpass.h"
#include "warmproto.h"

static void name_check(const char *name)
{
	if (!warm_name_ok(name))
		die("session name '%s': 1 to %d letters, digits, '.', '_' or '-', not starting "
		    "with '.' or '-'", name, WARM_NAME_MAX);
}

/* The session's socket, connected; -1 when it is not running. */
static int session_connect(int dirfd, const char *name)
{
	char *path = warm_path(dirfd, name, "sock");
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	free(path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		close(fd);
		fd = -1;
	}
	struct ucred cr;
	socklen_t cl = sizeof cr;
	if (fd >= 0 && (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0 ||
			cr.uid != geteuid())) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int connect_or_die(const char *name)
{
	name_check(name);
	int dirfd = warm_dir_open();
	int fd = dirfd >= 0 ? session_connect(dirfd, name) : -1;
	if (dirfd >= 0)
		close(dirfd);
	if (fd < 0)
		die("session %s is not running (start it: wicket session start --name %s)", name,
		    name);
	return fd;
}

/* --- wicket exec -------------------------------------------------------- */

/* A stream that cannot be handed to the sandbox as it is (a terminal: the
 * sandbox would change its modes and write what it likes to it; a file:
 * the descriptor reaches the host's mount) goes through a pipe that this
 * process copies, through the terminal filter for a terminal. */
struct pump {
	int from, to;
	bool filter;
	struct pty_filter f;
};

static volatile sig_atomic_t got_sig;
static void on_sig(int sig)
{
	got_sig = sig;
}

static bool pump_step(struct pump *p)
{
	char in[16384], out[16384 + PTY_FILTER_HOLD + 1];
	ssize_t n = read(p->from, in, sizeof in);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0) {
		if (p->filter) {
			size_t k = pty_filter_flush(&p->f, out);
			(void)write_all(p->to, out, k);
		}
		return false;
	}
	if (p->filter) {
		size_t k = pty_filter_feed(&p->f, in, (size_t)n, out);
		return write_all(p->to, out, k);
	}
	return write_all(p->to, in, (size_t)n);
}

/* wicket exec --events FD|PATH: where this exec's event lines go. A
 * descriptor (3 or more: 0 to 2 are the command's streams), or a new
 * file. The lines come from the supervisor through this process, which
 * may wait for the harness to read them: the session never does. */
static int exec_events_open(const char *spec)
{
	long fd;
	if (spec[0] && strspn(spec, "0123456789") == strlen(spec)) {
		if (!parse_long(spec, 3, 1 << 20, &fd) || fcntl((int)fd, F_GETFL) < 0)
			die("exec: --events %s: not an open descriptor of 3 or more", spec);
		fcntl((int)fd, F_SETFD, FD_CLOEXEC);
		return (int)fd;
	}
	/* host: a path the caller names, made anew */
	int f = open(spec, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (f < 0)
		die("exec: --events %s: %s", spec, errno == EEXIST ? "exists already (a new file, "
		    "or a descriptor)" : strerror(errno));
	return f;
}

/* This exec's stream: each line the supervisor sends, and the denials
 * counted by category for the "end" line. */
struct exec_events {
	int fd;
	json_t *counts;
	json_int_t total;
	char *session;
};

static void exec_events_line(struct exec_events *ev, const char *line)
{
	json_error_t je;
	json_t *o = json_loads(line, 0, &je);
	const char *event = json_string_value(json_object_get(o, "event"));
	if (event && strcmp(event, "denial") == 0) {
		const char *cat = json_string_value(json_object_get(o, "category"));
		cat = cat ? cat : "other";
		json_int_t n = json_integer_value(json_object_get(ev->counts, cat));
		json_object_set_new(ev->counts, cat, json_integer(n + 1));
		ev->total++;
	} else if (event && strcmp(event, "exec") == 0 && !ev->session) {
		const char *sid = json_string_value(json_object_get(o, "session"));
		ev->session = sid ? xstrdup(sid) : NULL;
	}
	json_decref(o);
	(void)(write_all(ev->fd, line, strlen(line)) && write_all(ev->fd, "\n", 1));
}

static void exec_events_end(struct exec_events *ev, unsigned long long id, int status)
{
	json_t *o = json_pack("{s:i, s:s, s:s, s:I, s:i, s:I, s:O, s:b}", "v", 1, "event", "end",
			      "session", ev->session ? ev->session : "", "exec", (json_int_t)id,
			      "status", status, "denials", ev->total, "counts", ev->counts, "refused",
			      ev->total > 0);
	char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (text)
		(void)(write_all(ev->fd, text, strlen(text)) && write_all(ev->fd, "\n", 1));
	free(text);
	json_decref(ev->counts);
	free(ev->session);
	close(ev->fd);
}

int cmd_exec(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		printf("Usage: wicket exec NAME [--cwd DIR] [--events FD|PATH] [--] CMD [ARGS...]\n"
		       "Run CMD in the warm session NAME (wicket session start --name NAME):\n"
		       "its own streams, directory (default: this one) and exit status;\n"
		       "--events: its own event lines (its denials, then its end).\n");
		return argc < 2 ? EXIT_WICKET : 0;
	}
	const char *name = argv[1];
	name_check(name);
	char *cwd = getcwd(NULL, 0);
	const char *dir = NULL, *events = NULL;
	int i = 2;
	for (; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "--cwd") == 0 && i + 1 < argc)
			dir = argv[++i];
		else if (strncmp(argv[i], "--cwd=", 6) == 0)
			dir = argv[i] + 6;
		else if (strcmp(argv[i], "--events") == 0 && i + 1 < argc)
			events = argv[++i];
		else if (strncmp(argv[i], "--events=", 9) == 0)
			events = argv[i] + 9;
		else if (argv[i][0] == '-')
			die("exec: unknown option '%s' (usage: wicket exec NAME [--cwd DIR] -- CMD)",
			    argv[i]);
		else
			break;
	}
	if (i >= argc)
		die("exec: missing command (usage: wicket exec NAME [--cwd DIR] -- CMD [ARGS...])");
	if (!cwd && (!dir || dir[0] != '/'))
		die("exec: cannot tell the current directory: %s", strerror(errno));
	char *where = dir && dir[0] == '/' ? xstrdup(dir) : dir ? xasprintf("%s/%s", cwd, dir)
							       : xstrdup(cwd);
	free(cwd);
	int sock = connect_or_die(name);
	struct exec_events ev = {.fd = events ? exec_events_open(events) : -1,
				 .counts = events ? json_object() : NULL};
	unsigned long long exec_id = 0;

	char fl[4] = "ppp";
	int pass[3];
	size_t npass = 0;
	struct pump pumps[3];
	size_t npumps = 0;
	for (int fd = 0; fd < 3; fd++) {
		struct stat st;
		if (fcntl(fd, F_GETFL) < 0 || fstat(fd, &st) < 0 ||
		    (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3)) {
			fl[fd] = 'n'; /* the sandbox's own /dev/null */
			continue;
		}
		if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
			pass[npass++] = fd;
			continue;
		}
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0)
			die_errno("pipe");
		struct pump *u = &pumps[npumps++];
		memset(u, 0, sizeof *u);
		u->filter = fd > 0 && isatty(fd);
		u->from = fd == 0 ? 0 : p[0];
		u->to = fd == 0 ? p[1] : fd;
		pass[npass++] = fd == 0 ? p[0] : p[1];
	}
	struct warm_msg m = {.verb = WARM_EXEC, .cwd = where, .fds = fl, .status = -1,
			     .events = events != NULL,
			     .argv = (const char **)argv + i, .argc = (size_t)(argc - i)};
	size_t len;
	char *buf = warm_encode(&m, &len);
	if (!buf)
		die("exec: the command or directory is too long to send");
	sigset_t block, orig;
	sigemptyset(&block);
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	struct sigaction sa = {.sa_handler = on_sig};
	for (size_t k = 0; k < 4; k++) {
		sigaddset(&block, sigs[k]);
		sigaction(sigs[k], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	sigprocmask(SIG_BLOCK, &block, &orig);
	ssize_t sent = npass ? fdpass_send(sock, buf, len, pass, npass, 0)
			     : send(sock, buf, len, MSG_NOSIGNAL);
	free(buf);
	free(where);
	if (sent < 0)
		die("exec: session %s: %s", name, strerror(errno));
	/* The ends the sandbox got are its own now. */
	for (size_t k = 0; k < npass; k++)
		if (pass[k] > 2)
			close(pass[k]);
	int status = -1;
	bool sock_open = true;
	for (;;) {
		struct pollfd pf[4];
		nfds_t n = 0;
		if (sock_open)
			pf[n++] = (struct pollfd){sock, POLLIN, 0};
		for (size_t k = 0; k < npumps; k++)
			pf[n++] = (struct pollfd){pumps[k].from, pumps[k].from >= 0 ? POLLIN : 0, 0};
		bool any = sock_open;
		for (size_t k = 0; k < npumps; k++)
			any |= pumps[k].from >= 0 && !(k == 0 && pumps[k].from == 0 && !sock_open);
		if (!any)
			break;
		int r = ppoll(pf, n, NULL, &orig);
		if (r < 0 && errno != EINTR)
			die_errno("poll");
		if (got_sig && sock_open) {
			struct warm_msg sm = {.verb = WARM_SIGNAL, .sig = got_sig, .status = -1};
			got_sig = 0;
			char *sb = warm_encode(&sm, &len);
			if (sb)
				(void)send(sock, sb, len, MSG_NOSIGNAL);
			free(sb);
		}
		if (r <= 0)
			continue;
		nfds_t j = 0;
		if (sock_open) {
			if (pf[j].revents) {
				char rb[WARM_MSG_MAX];
				ssize_t got = recv(sock, rb, sizeof rb, 0);
				struct warm_msg res;
				const char *err;
				if (got > 0 && warm_decode(rb, (size_t)got, &res, &err)) {
					if (res.verb == WARM_EVENT && ev.fd >= 0)
						exec_events_line(&ev, res.json);
					else if (res.verb == WARM_EXIT)
						status = res.status, exec_id = res.id;
					else if (res.verb == WARM_ERROR) {
						warnmsg("exec: %s", res.text);
						status = res.status >= 0 ? res.status : EXIT_WICKET;
					}
					warm_msg_free(&res);
				}
				if (got <= 0 || status >= 0) {
					sock_open = false;
					/* The command is over: what it did not read of
					 * our stdin stays unread. */
					for (size_t k = 0; k < npumps; k++)
						if (pumps[k].from == 0) {
							close(pumps[k].to);
							pumps[k].from = -1;
						}
				}
			}
			j++;
		}
		for (size_t k = 0; k < npumps; k++, j++) {
			if (pumps[k].from < 0 || !pf[j].revents)
				continue;
			if (!pump_step(&pumps[k])) {
				if (pumps[k].from == 0)
					close(pumps[k].to);
				else
					close(pumps[k].from);
				pumps[k].from = -1;
			}
		}
	}
	close(sock);
	if (status < 0)
		warnmsg("exec: session %s ended before the command did", name);
	if (ev.fd >= 0)
		exec_events_end(&ev, exec_id, status < 0 ? EXIT_WICKET : status);
	return status < 0 ? EXIT_WICKET : status;
}

/* --- wicket session stop | list ------------------------------------------- */

int warm_stop_cmd(int argc, char **argv)
{
	if (argc != 2)
		die("usage: wicket session stop NAME");
	int sock = connect_or_die(argv[1]);
	int fds[2] = {STDOUT_FILENO, STDERR_FILENO};
	int null = -1;
	for (int k = 0; k < 2; k++)
		if (fcntl(fds[k], F_GETFD) < 0) {
			/* host: /dev/null */
			if (null < 0)
				null = open("/dev/null", O_WRONLY | O_CLOEXEC);
			fds[k] = null;
		}
	struct warm_msg m = {.verb = WARM_STOP, .fds = "npp", .status = -1};
	size_t len;
	char *buf = warm_encode(&m, &len);
	if (!buf || fds[0] < 0 || fdpass_send(sock, buf, len, fds, 2, 0) < 0)
		die("session stop %s: %s", argv[1], strerror(errno));
	free(buf);
	if (null >= 0)
		close(null);
	/* Until the supervisor is gone: its end closes after the session's
	 * last checks. */
	int rc = 0;
	for (;;) {
		char rb[WARM_MSG_MAX];
		ssize_t got = recv(sock, rb, sizeof rb, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		struct warm_msg res;
		const char *err;
		if (warm_decode(rb, (size_t)got, &res, &err) && res.verb == WARM_ERROR) {
			warnmsg("session stop %s: %s", argv[1], res.text);
			rc = EXIT_WICKET;
		}
		warm_msg_free(&res);
	}
	close(sock);
	return rc;
}

int warm_list_cmd(int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		die("usage: wicket session list");
	int dirfd = warm_dir_open();
	if (dirfd < 0)
		return 0;
	char *p = xasprintf("/proc/self/fd/%d", dirfd);
	/* host: the user's state directory */
	DIR *d = opendir(p);
	free(p);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 6 || strcmp(e->d_name + n - 5, ".sock") != 0)
			continue;
		char *name = xasprintf("%.*s", (int)(n - 5), e->d_name);
		int fd = warm_name_ok(name) ? session_connect(dirfd, name) : -1;
		if (fd >= 0) {
			printf("%s\n", name);
			close(fd);
		}
		free(name);
	}
	if (d)
		closedir(d);
	close(dirfd);
	return 0;
}

/* --- session start: detached --------------------------------------------- */

void warm_detach(const char *name, const int *keep, size_t nkeep, int *dirfd, int *ready)
{
	name_check(name);
	int dfd = warm_dir_open();
	if (dfd < 0)
		die("session %s: no state directory for its socket: %s", name, strerror(errno));
	int running = session_connect(dfd, name);
	if (running >= 0)
		die("session %s is running already (wicket session stop %s)", name, name);
	char *log = warm_path(dfd, name, "log");
	/* host: the user's state directory */
	int logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (logfd < 0)
		die("%s: %s", log, strerror(errno));
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		die_errno("pipe");
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		die_errno("fork");
	if (pid > 0) {
		close(p[1]);
		close(logfd);
		char b = 0;
		ssize_t n;
		do
			n = read(p[0], &b, 1);
		while (n < 0 && errno == EINTR);
		if (n == 1 && b == 'r')
			exit(0);
		int st = 0;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		/* host: ditto */
		int lr = open(log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		char buf[4096];
		while (lr >= 0 && (n = read(lr, buf, sizeof buf)) > 0)
			(void)write_all(STDERR_FILENO, buf, (size_t)n);
		warnmsg("session %s did not start", name);
		int code = exit_code_of(st);
		exit(code ? code : EXIT_WICKET);
	}
	free(log);
	close(p[0]);
	setsid();
	/* host: /dev/null */
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
	    dup2(logfd, STDERR_FILENO) < 0)
		_exit(EXIT_WICKET);
	close(null);
	close(logfd);
	/* Nothing of the caller's stays open in a process that outlives it
	 * (a test runner waits for its own descriptors to close), but what
	 * the session itself takes (KEEP: --events FD, the approver's). */
	int held[8];
	size_t nh = 0;
	held[nh++] = dfd;
	held[nh++] = p[1];
	for (size_t i = 0; i < nkeep && nh < 8; i++)
		if (keep[i] > 2)
			held[nh++] = keep[i];
	unsigned from = 3;
	for (;;) {
		/* The lowest kept descriptor at or above FROM. */
		int next = -1;
		for (size_t i = 0; i < nh; i++)
			if ((unsigned)held[i] >= from && (next < 0 || held[i] < next))
				next = held[i];
		if (next < 0) {
			syscall(SYS_close_range, from, ~0U, 0U);
			break;
		}
		if ((unsigned)next > from)
			syscall(SYS_close_range, from, (unsigned)next - 1, 0U);
		from = (unsigned)next + 1;
	}
	*dirfd = dfd;
	*ready = p[1];
}

/* --- the server, inside the sandbox -------------------------------------- */

#define SERVE_MAX 1024
struct job {
	pid_t pid;
	unsigned long long id;
};

static void send_to(int sock, const struct warm_msg *m)
{
	size_t len;
	char *b = warm_encode(m, &len);
	if (b)
		(void)send(sock, b, len, MSG_NOSIGNAL);
	free(b);
}

/* The exec's process, after vfork: system calls only (it borrows the
 * server's memory until its exec), its "started" message made before. */
static noreturn void run_child(int sock, const struct warm_msg *m, const int *fds, size_t nfds,
			       const char *started, size_t started_len, const sigset_t *orig)
{
	/* Its own session and process group: a signal for the exec reaches
	 * all of it (kill(-pid)), and nothing of the others. */
	setsid();
	int use[3];
	size_t k = 0;
	for (int fd = 0; fd < 3; fd++)
		use[fd] = m->fds[fd] == 'p' && k < nfds ? fds[k++] : -1;
	for (int fd = 0; fd < 3; fd++) {
		if (use[fd] < 0) {
			int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
			if (nul < 0)
				_exit(EXIT_WICKET);
			use[fd] = fcntl(nul, F_DUPFD_CLOEXEC, 3);
			close(nul);
		}
	}
	for (int fd = 0; fd < 3; fd++)
		if (dup2(use[fd], fd) < 0)
			_exit(EXIT_WICKET);
	/* Said by this process, so that the supervisor learns its pid. */
	(void)send(sock, started, started_len, MSG_NOSIGNAL);
	if (m->cwd && chdir(m->cwd) < 0) {
		static const char msg[] = "wicket: exec: cannot enter the directory in the sandbox\n";
		(void)!write(STDERR_FILENO, msg, sizeof msg - 1);
		_exit(EXIT_WICKET);
	}
	/* The server's SIGPIPE (ignored) and mask are not the command's. */
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, orig, NULL);
	execvp(m->argv[0], (char *const *)m->argv);
	int e = errno;
	const char *why = e == ENOENT ? ": command not found\n" : ": cannot execute it\n";
	struct iovec iov[3] = {{(void *)"wicket: ", 8},
			       {(void *)m->argv[0], strlen(m->argv[0])},
			       {(void *)why, strlen(why)}};
	(void)!writev(STDERR_FILENO, iov, 3);
	_exit(e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

int warm_serve(int argc, char **argv)
{
	long sock;
	if (argc != 2 || !parse_long(argv[1], 3, 1 << 20, &sock) || !getenv("WICKET"))
		die("session serve: started by a warm session itself");
	fcntl((int)sock, F_SETFD, FD_CLOEXEC);
	/* The shim's lines to each exec's own stderr. */
	setenv("WICKET_DIAG", "stderr", 0);
	static struct job jobs[SERVE_MAX];
	size_t njobs = 0;
	sigset_t chld, orig;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &orig);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		die_errno("signalfd");
	struct warm_msg ready = {.verb = WARM_READY, .status = -1};
	send_to((int)sock, &ready);
	bool over = false;
	while (!over) {
		struct pollfd pf[2] = {{(int)sock, POLLIN, 0}, {sfd, POLLIN, 0}};
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[1].revents) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof si) > 0)
				;
			int st;
			pid_t p;
			while ((p = waitpid(-1, &st, WNOHANG)) > 0)
				for (size_t k = 0; k < njobs; k++)
					if (jobs[k].pid == p) {
						struct warm_msg x = {.verb = WARM_EXIT, .id = jobs[k].id,
								     .status = exit_code_of(st)};
						send_to((int)sock, &x);
						jobs[k] = jobs[--njobs];
						break;
					}
		}
		if (!pf[0].revents)
			continue;
		static char buf[WARM_MSG_MAX];
		struct fdpass_in in;
		ssize_t n = fdpass_recv((int)sock, buf, sizeof buf, 3, 0, 0, &in);
		if (n <= 0) {
			fdpass_close(&in);
			if (n < 0 && errno == EINTR)
				continue;
			break; /* the supervisor is gone */
		}
		struct warm_msg m;
		const char *err;
		if (!warm_decode(buf, (size_t)n, &m, &err)) {
			fdpass_close(&in);
			continue;
		}
		if (m.verb == WARM_EXEC && m.id) {
			struct warm_msg st = {.verb = WARM_STARTED, .id = m.id, .status = -1};
			size_t sl;
			char *sb = warm_encode(&st, &sl);
			pid_t p = njobs < SERVE_MAX && sb ? vfork() : -1;
			if (p == 0)
				run_child((int)sock, &m, in.fds, in.nfds, sb, sl, &orig);
			free(sb);
			if (p > 0) {
				jobs[njobs++] = (struct job){p, m.id};
			} else {
				struct warm_msg x = {.verb = WARM_EXIT, .id = m.id, .status = EXIT_WICKET};
				send_to((int)sock, &x);
			}
		} else if (m.verb == WARM_SIGNAL && m.id) {
			for (size_t k = 0; k < njobs; k++)
				if (jobs[k].id == m.id)
					kill(-jobs[k].pid, m.sig);
		} else if (m.verb == WARM_STOP) {
			over = true;
		}
		warm_msg_free(&m);
		fdpass_close(&in);
	}
	for (size_t k = 0; k < njobs; k++)
		kill(-jobs[k].pid, SIGKILL);
	return 0;
}
