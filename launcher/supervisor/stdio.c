/* The command's stdin, stdout and stderr.
 *
 * A descriptor inherited from the caller points at the host's own mounts,
 * not at the sandbox's read-only view: through it (or through
 * /proc/self/fd/N) a sandboxed program could chmod, chown, utime or
 * setxattr the file, or, as root, turn a file it writes through stdout
 * into a setuid executable, and through a terminal change its mode or
 * owner or put it in raw mode. So, before the command starts:
 *  - a terminal, on any of the three, becomes the session's own pty
 *    (pty.c); a second, different terminal on stdout or stderr becomes a
 *    pipe that the supervisor copies into it; pipes and sockets pass;
 *  - a file opened for writing inside a writable root passes (the caller
 *    gave it to be written, and the sandbox may change it anyway), unless
 *    it is a protected or hidden path, which is refused (stdio_check_late:
 *    a link the sandbox planted can lead the caller's '>' there);
 *  - a read-only file, anywhere, and the standard device nodes, are
 *    reopened through the sandbox's view (its offset is handed back to
 *    the caller's descriptor at the end, as if shared): inside a writable
 *    root too, where the view may protect the file (.git/config) or
 *    hide it, which the host's mount behind the caller's descriptor
 *    does not (red team 14, F1);
 *  - a file opened for writing elsewhere becomes a pipe that the
 *    supervisor copies into the real file;
 *  - anything else (a directory, a disk, another device) is refused.
 * Descriptors above 2 are closed at exec (exec_command). */
#include "config.h"
#include "base/session.h"
#include "base/mountops.h"
#include "base/setupfail.h"
#include "plan/plan.h"
#include "supervisor/ask.h"
#include "supervisor/closer.h"
#include "supervisor/control.h"
#include "supervisor/pty.h"
#include "supervisor/stdio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "classify.h"

#ifndef KCMP_FILE
#define KCMP_FILE 0
#endif

static const char *const fd_names[3] = {"stdin", "stdout", "stderr"};

void stdio_plan(struct session *s)
{
	s->offset_pipe[0] = s->offset_pipe[1] = -1;
	for (int fd = 0; fd < 3; fd++) {
		struct stdio_fix *f = &s->stdio[fd];
		memset(f, 0, sizeof *f);
		f->kind = STDIO_PASS;
		f->relay_rd = f->relay_wr = -1;
		if (s->warm_name) {
			/* A warm session's server reads and writes nothing: each
			 * exec brings its own (warm.c); the supervisor's own
			 * streams are the session's log. */
			f->kind = STDIO_REOPEN_DEV;
			snprintf(f->path, sizeof f->path, "/dev/null");
			f->flags = O_RDWR;
			continue;
		}
		int fl = fcntl(fd, F_GETFL);
		struct stat st;
		if (fl < 0 || fstat(fd, &st) < 0)
			continue; /* closed stays closed */
		if (!s->layers.mntns) {
			/* No view to reopen through (see the gaps). A file opened
			 * for writing outside the writable roots still becomes a
			 * pipe: through the descriptor itself the sandbox could
			 * truncate it, or take its O_APPEND away (red team 15, C). */
			char path[PATH_MAX];
			bool named = path_of_fd(fd, path, sizeof path);
			if (!s->pol.sandbox || !S_ISREG(st.st_mode) || (fl & O_ACCMODE) == O_RDONLY ||
			    (named && path[0] == '/' && writable_root_of(&s->pol, path)))
				continue;
			/* A pipe cannot stand in for a stdin opened for writing
			 * (red team 16, F1). */
			if (fd == 0)
				die("stdin is the file %s outside the writable roots, opened for "
				    "writing, which the sandbox cannot hand over safely; open it "
				    "read-only ('< file') or use a pipe", named ? path : "(unknown)");
			f->kind = STDIO_RELAY;
			continue;
		}
		if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || (st.st_mode & S_IFMT) == 0)
			continue;
		if (S_ISCHR(st.st_mode)) {
			if (isatty(fd))
				continue;
			for (size_t i = 0; i < WK_N_DEV_NODES; i++)
				if (major(st.st_rdev) == wk_dev_nodes[i].maj &&
				    minor(st.st_rdev) == wk_dev_nodes[i].min) {
					f->kind = STDIO_REOPEN_DEV;
					snprintf(f->path, sizeof f->path, "%s", wk_dev_nodes[i].path);
					f->flags = fl & O_ACCMODE;
				}
			if (f->kind == STDIO_PASS)
				die("%s is a device the sandbox cannot hand over safely (%u:%u); use a pipe",
				    fd_names[fd], major(st.st_rdev), minor(st.st_rdev));
			continue;
		}
		char path[PATH_MAX];
		if (!path_of_fd(fd, path, sizeof path))
			die("%s: cannot tell which file it is", fd_names[fd]);
		int mode = fl & O_ACCMODE;
		if (S_ISREG(st.st_mode) && mode != O_RDONLY && path[0] == '/' &&
		    !strstr(path, " (deleted)") && writable_root_of(&s->pol, path))
			continue;
		if (S_ISREG(st.st_mode) && mode == O_RDONLY && path[0] == '/' &&
		    strlen(path) < sizeof f->path) {
			f->kind = STDIO_REOPEN_FILE;
			strcpy(f->path, path);
			f->dev = st.st_dev;
			f->ino = st.st_ino;
			f->offset = lseek(fd, 0, SEEK_CUR);
			continue;
		}
		if (S_ISREG(st.st_mode) && fd > 0 && mode != O_RDONLY) {
			f->kind = STDIO_RELAY;
			continue;
		}
		die("%s is %s %s%s, which the sandbox cannot hand over safely; use a pipe (e.g. "
		    "'| cat' or '< file' for a readable file)", fd_names[fd],
		    S_ISDIR(st.st_mode) ? "the directory" : "the file", path,
		    writable_root_of(&s->pol, path) ? "" : " outside the writable roots");
	}
	/* Every terminal among the three becomes the session's pty (pty.c),
	 * whichever stream it is; a second, different terminal on stdout or
	 * stderr gets a pipe that the supervisor copies into it. No
	 * sandboxed process holds a descriptor of a real terminal. */
	pty_plan(s);
	for (int fd = 1; fd < 3; fd++)
		if (s->pol.sandbox && s->stdio[fd].kind == STDIO_PASS && isatty(fd))
			s->stdio[fd].kind = STDIO_RELAY;
	/* 2>&1 onto one file: one pipe, so the two streams keep their order. */
	if (s->stdio[1].kind == STDIO_RELAY && s->stdio[2].kind == STDIO_RELAY &&
	    syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, 1, 2) == 0)
		s->stdio[2].share = true;
	for (int fd = 1; fd < 3; fd++) {
		struct stdio_fix *f = &s->stdio[fd];
		if (f->kind != STDIO_RELAY || f->share)
			continue;
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0)
			die_errno("pipe");
		/* Read only when poll says so, and by relay_catch_up any time. */
		if (fcntl(p[0], F_SETFL, O_NONBLOCK) < 0)
			die_errno("pipe");
		f->relay_rd = p[0];
		f->relay_wr = p[1];
	}
	if (s->stdio[2].share) {
		s->stdio[2].relay_wr = s->stdio[1].relay_wr;
	}
	if (s->stdio[0].kind == STDIO_REOPEN_FILE && pipe2(s->offset_pipe, O_CLOEXEC) < 0)
		die_errno("pipe");
}

void stdio_check_late(const struct session *s)
{
	struct wk_fstable t;
	plan_fstable(s, &t);
	for (int fd = 0; fd < 3; fd++) {
		struct stat st;
		if (s->stdio[fd].kind != STDIO_PASS || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		char path[PATH_MAX];
		if (!path_of_fd(fd, path, sizeof path))
			die("%s: cannot tell which file it is", fd_names[fd]);
		enum wk_fs_verdict v = path[0] == '/' ? wk_classify(&t, path, NULL) : WK_FS_WRITABLE;
		if (v != WK_FS_PROTECTED && v != WK_FS_HIDDEN)
			continue;
		if (fd == 2) {
			/* Not even wicket's own line goes there: the terminal, or
			 * nowhere. */
			/* host: our terminal */
			int o = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC);
			if (o < 0)
				/* host: /dev/null */
				o = open("/dev/null", O_WRONLY | O_CLOEXEC);
			if (o >= 0)
				dup2(o, 2);
		}
		die("%s is %s, which the session %s (a link planted in the workspace may have "
		    "led there); the sandbox may not write it: give the command another file, "
		    "or a pipe", fd_names[fd], path, v == WK_FS_HIDDEN ? "hides" : "protects");
	}
	plan_fstable_free(&t);
}

/* In the child, after the mount view is built. */
int stdio_apply(struct session *s, int *keep_stdin)
{
	*keep_stdin = -1;
	int slave = -1;
	if (s->pty.on && (slave = pty_child_open(s)) < 0)
		return -1;
	for (int fd = 0; fd < 3; fd++) {
		struct stdio_fix *f = &s->stdio[fd];
		int nfd;
		switch (f->kind) {
		case STDIO_REOPEN_DEV:
			/* host: in init, a device the user's own redirection named */
			nfd = open(f->path, f->flags | O_CLOEXEC | O_NOCTTY);
			if (nfd < 0)
				return setup_fail(STAGE_STDIO, errno, "reopen %s as %s", f->path,
						  fd_names[fd]);
			break;
		case STDIO_REOPEN_FILE: {
			/* host: in init, the user's own redirection, checked by inode below */
			nfd = open(f->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
			struct stat st;
			if (nfd < 0 || fstat(nfd, &st) < 0 || st.st_dev != f->dev || st.st_ino != f->ino) {
				if (nfd >= 0)
					close(nfd);
				return setup_fail(STAGE_STDIO, nfd < 0 ? errno : ESTALE,
						  "%s is %s, which the sandbox cannot see; pass it "
						  "through a pipe (cat FILE | wicket ...)", fd_names[fd], f->path);
			}
			if (f->offset > 0)
				lseek(nfd, f->offset, SEEK_SET);
			/* init keeps the description to report the final offset. */
			*keep_stdin = fcntl(nfd, F_DUPFD_CLOEXEC, 3);
			break;
		}
		case STDIO_RELAY:
			nfd = f->relay_wr;
			break;
		case STDIO_PTY:
			nfd = slave;
			break;
		default:
			continue;
		}
		if (dup2(nfd, fd) < 0)
			return setup_fail(STAGE_STDIO, errno, "install %s", fd_names[fd]);
		if (f->kind != STDIO_RELAY && f->kind != STDIO_PTY)
			close(nfd);
	}
	if (slave >= 0)
		close(slave);
	return 0;
}

/* In the command, right before its exec. */
int stdio_command(const struct session *s)
{
	return pty_child_ctty(s);
}

/* In the supervisor after the fork: the relay ends it does not use. */
void stdio_parent_close(struct session *s)
{
	if (s->stdio[1].relay_wr >= 0)
		close(s->stdio[1].relay_wr);
	if (s->stdio[2].relay_wr >= 0 && !s->stdio[2].share)
		close(s->stdio[2].relay_wr);
	if (s->offset_pipe[1] >= 0)
		close(s->offset_pipe[1]);
	pty_parent_close(s);
}

static void write_or_break(int fd, const char *buf, size_t len, bool *broken)
{
	/* A broken file: keep draining, so the command never blocks. */
	if (!*broken && !write_all(fd, buf, len))
		*broken = true;
}

/* LEN bytes of the command's output into FD. Into the file the denial
 * lines go to as well (LINES), up to the last newline first: lines held
 * for the end of the command's go out there, not inside it. */
static void copy_out(int fd, const char *b, size_t len, bool lines, bool *broken)
{
	if (!lines || !len) {
		write_or_break(fd, b, len, broken);
		return;
	}
	const char *nl = memrchr(b, '\n', len);
	size_t head = nl ? (size_t)(nl - b) + 1 : 0;
	if (head) {
		write_or_break(fd, b, head, broken);
		control_relay_wrote(true);
	}
	if (head < len) {
		write_or_break(fd, b + head, len - head, broken);
		control_relay_wrote(false);
	}
}

bool stdio_has_relay(const struct session *s)
{
	return s->stdio[1].relay_rd >= 0 || s->stdio[2].relay_rd >= 0;
}

/* Copy relayed output into the real files until the child has exited and
 * every writer is gone (the pid namespace ends them all with init); serve
 * the watched descriptors (the control socket, ...) meanwhile. */
/* After the command's end, how long what still holds its output (an
 * approved command) may write before the session ends it (ask.c). */
#define STDIO_LATE_MS 200

/* The copy's state, for the relay loop and for control.c's lines. */
static struct {
	struct session *s;
	bool broken[3], drew[3], tty[3];
	/* A second terminal gets what the session's own gets: the command's
	 * bytes less what may not reach a terminal (pty_filter_feed). */
	struct pty_filter filter[3];
	int lines_fd;  /* the copy the supervisor's own lines go into too */
	bool copying;  /* inside copy_out: control.c is being told */
} R = {.lines_fd = -1};

/* One read of the relay pipe of FD (not blocking) into its file: how
 * many bytes were read, 0 if none are there now, -1 once it ended. */
static ssize_t relay_read(int fd)
{
	static char buf[65536], filtered[sizeof buf + PTY_FILTER_HOLD + 8];
	struct stdio_fix *f = &R.s->stdio[fd];
	ssize_t n = read(f->relay_rd, buf, sizeof buf);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close(f->relay_rd);
		f->relay_rd = -1;
		return -1;
	}
	R.copying = true;
	if (R.tty[fd]) {
		size_t k = pty_filter_feed(&R.filter[fd], buf, (size_t)n, filtered);
		copy_out(fd, filtered, k, fd == R.lines_fd, &R.broken[fd]);
		R.drew[fd] = R.drew[fd] || pty_can_change(filtered, k);
	} else {
		copy_out(fd, buf, (size_t)n, fd == R.lines_fd, &R.broken[fd]);
	}
	R.copying = false;
	return n;
}

/* Before control.c writes a line of its own into the copy: what the
 * command wrote there before it is copied first. The command wrote it
 * before the packet that line answers was sent (a program's message,
 * then its next refused call), but the relay loop may be reading a
 * backlog of packets while those bytes wait in the pipe: copied after,
 * the line would land ahead of them, inside the command's line. */
static void relay_catch_up(void)
{
	if (!R.s || R.lines_fd < 0 || R.copying)
		return;
	/* What is in the pipe now, and no more: a command that keeps
	 * writing does not keep the supervisor here. */
	int left = 0;
	if (R.s->stdio[R.lines_fd].relay_rd < 0 ||
	    ioctl(R.s->stdio[R.lines_fd].relay_rd, FIONREAD, &left) < 0)
		return;
	while (left > 0) {
		ssize_t n = relay_read(R.lines_fd);
		if (n <= 0)
			break;
		left -= (int)n;
	}
}

int stdio_relay_wait(struct session *s, pid_t child, int *status)
{
	int pfd = (int)syscall(SYS_pidfd_open, child, 0);
	bool exited = false;
	bool ended = false;   /* ask_session_over was called */
	long long late_at = 0; /* when the command exited, then when that was called */
	memset(&R, 0, sizeof R);
	R.s = s;
	for (int fd = 1; fd < 3; fd++)
		R.tty[fd] = s->stdio[fd].kind == STDIO_RELAY && isatty(fd);
	R.lines_fd = s->stdio[2].kind != STDIO_RELAY ? -1 : s->stdio[2].share ? 1 : 2;
	control_relay_catch_up(relay_catch_up);
	for (;;) {
		struct pollfd p[4 + WK_MAX_WATCH];
		int map[4 + WK_MAX_WATCH], np = 0, nrelay = 0;
		for (int fd = 1; fd < 3; fd++)
			if (s->stdio[fd].relay_rd >= 0) {
				p[np].fd = s->stdio[fd].relay_rd;
				p[np].events = POLLIN;
				map[np++] = fd;
				nrelay++;
			}
		int wait_ms = pfd < 0 && !exited ? 50 : -1;
		if (exited) {
			/* The pty's last output, still on its way (pty.c). */
			int pty_ms = pty_drain(s);
			if (nrelay == 0 && pty_ms < 0)
				break;
			if (pty_ms >= 0)
				wait_ms = pty_ms;
			/* The command is gone and the sandbox with it: whoever
			 * still holds its output is a command approved outside
			 * (or what it left behind). The session is over for it
			 * too, once what was written is read (STDIO_LATE_MS);
			 * whoever holds it as long again is not waited for. */
			long long late = nrelay ? late_at + STDIO_LATE_MS - now_ms() : 1;
			if (late <= 0 && !ended) {
				ask_session_over(s);
				ended = true;
				late_at = now_ms();
				late = STDIO_LATE_MS;
			} else if (late <= 0) {
				for (int fd = 1; fd < 3; fd++)
					if (s->stdio[fd].relay_rd >= 0) {
						close(s->stdio[fd].relay_rd);
						s->stdio[fd].relay_rd = -1;
					}
				continue;
			}
			if (nrelay && (wait_ms < 0 || wait_ms > late))
				wait_ms = (int)late;
		}
		/* While the closer is behind, nothing that takes the
		 * sandbox's descriptors is read; its room is waited for. */
		bool busy = closer_busy();
		for (int i = 0; i < WK_MAX_WATCH; i++)
			if (s->watch[i].ready && !(busy && s->watch[i].takes_fds)) {
				p[np].fd = s->watch[i].fd;
				p[np].events = s->watch[i].events;
				map[np++] = -10 - i;
			}
		if (busy) {
			p[np].fd = closer_room_fd();
			p[np].events = POLLIN;
			map[np++] = -2;
		}
		if (!exited) {
			p[np].fd = pfd;
			p[np].events = POLLIN;
			map[np++] = -1;
		}
		if (poll(p, (nfds_t)np, wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!exited && (pfd < 0 || (p[np - 1].revents & POLLIN))) {
			pid_t r = waitpid(child, status, pfd < 0 ? WNOHANG : 0);
			if (r == child) {
				exited = true;
				late_at = now_ms();
			}
		}
		for (int i = 0; i < np; i++) {
			int fd = map[i];
			if (fd == -2) {
				uint64_t n;
				if (p[i].revents)
					(void)!read(p[i].fd, &n, sizeof n);
				continue;
			}
			if (fd <= -10) {
				/* A handler may have removed or replaced the watch. */
				struct watch *w = &s->watch[-10 - fd];
				if (p[i].revents && w->ready && w->fd == p[i].fd)
					w->ready(s, w, p[i].revents);
				continue;
			}
			/* A catch-up (relay_catch_up) may have read or closed it. */
			if (fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)) ||
			    s->stdio[fd].relay_rd != p[i].fd)
				continue;
			relay_read(fd);
		}
	}
	control_relay_catch_up(NULL);
	R.s = NULL;
	if (pfd >= 0)
		close(pfd);
	/* A second terminal the command wrote to is left as the terminal
	 * of the session is (pty_finish): not in a state of its choosing.
	 * Once if stdout and stderr are the same one. */
	for (int fd = 1; fd < 3; fd++)
		if (R.drew[fd] && !R.broken[fd] && R.tty[fd] &&
		    !(fd == 2 && s->stdio[2].share && R.drew[1]))
			pty_reset_other(fd);
	return 0;
}

/* The command runs (or its setup failed): its terminal's master is here. */
void stdio_start(struct session *s, bool started)
{
	pty_start(s, started);
}

/* After the session: the terminal given back as it was, and the caller's
 * stdin offset moves on as far as the command read, as it would have
 * through a shared descriptor. */
void stdio_finish(struct session *s)
{
	pty_finish(s);
	if (s->stdio[0].kind != STDIO_REOPEN_FILE || s->offset_pipe[0] < 0)
		return;
	off_t off;
	if (read(s->offset_pipe[0], &off, sizeof off) == (ssize_t)sizeof off && off >= 0)
		lseek(STDIN_FILENO, off, SEEK_SET);
	close(s->offset_pipe[0]);
}
