/* The session's own terminal (DESIGN §2: the sudo use_pty model).
 *
 * No sandboxed process holds a descriptor of a real terminal: through
 * one it could chmod or chown the device, or change its modes, for good.
 * When any of stdin, stdout and stderr is a terminal, the first one that
 * is decides: every stream on that terminal gets a pty of the session's
 * own, whose session leader the command is. When that is stdin and
 * wicket is in the terminal's foreground, the supervisor copies bytes
 * both ways between the real terminal (in raw mode) and the pty's
 * master. Otherwise the pty only shows output: the supervisor copies the
 * master to the real terminal, never reads it, never makes it raw (the
 * slave has OPOST off: the real terminal processes the output, once),
 * and passes the terminal's Ctrl-C and Ctrl-\ to the pty's foreground
 * (pty_signal). Without any terminal stream the command still leads a
 * session of its own, with no controlling terminal (pty_child_ctty).
 *
 * Whatever the sandbox does to its terminal (modes, window size, TIOCSTI,
 * job control, a process that outlives the command and keeps reading)
 * happens on its pty; the real terminal stays the supervisor's alone,
 * which is what makes a prompt on it trustworthy.
 *
 * The pty comes from the sandbox's own /dev/ptmx. With a mount namespace
 * that is the sandbox's private devpts instance (mounts.c), so `tty` and
 * ttyname() inside name it and /dev/pts inside shows it and nothing of
 * the host's (a pty of the host's instance would be "not a tty" there);
 * without one it is the host's. init opens it once the mount view is
 * built, sets it up like the real terminal (modes, window size), and
 * sends the master to the supervisor over a socket pair made for that one
 * descriptor, closed before the command runs. The slave becomes each of
 * the command's stdin, stdout and stderr that is on the terminal; one
 * sent elsewhere stays where it is (as with sudo), so `wicket run -- cmd
 * >file` writes the file directly, and one on a second terminal is
 * relayed through a pipe (stdio.c).
 *
 * The real terminal's mode is restored on every way out of the
 * supervisor: the end of the session, exit() (die(): atexit), a fatal
 * signal (the handler restores, then the signal is raised again), and a
 * stop (SIGTSTP restores, SIGCONT in the foreground makes it raw again).
 * SIGINT, SIGTERM and SIGHUP are forwarded to the command (supervisor.c)
 * and end the session through the normal path. The real terminal hanging
 * up counts as a SIGHUP to wicket (terminal_gone), which supervisor.c
 * follows with SIGTERM and SIGKILL. */
#include "config.h"
#include "base/session.h"
#include "base/setupfail.h"
#include "supervisor/pty.h"
#include "supervisor/ptyfilter.h"
#include "supervisor/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "askrender.h"
#include "util.h"
#include "fdpass.h"

/* --- pure ---------------------------------------------------------------- */

unsigned pty_choose(const struct pty_fdinfo fd[3], bool sandbox, bool background)
{
	if (!sandbox)
		return 0;
	int t = 0;
	while (t < 3 && !fd[t].tty)
		t++;
	if (t == 3)
		return 0;
	unsigned m = 0;
	for (int i = t; i < 3; i++)
		if (fd[i].tty && fd[i].rdev == fd[t].rdev)
			m |= 1u << i;
	if (t == 0 && !background)
		m |= PTY_INPUT;
	return m;
}

size_t pty_crlf(char *out, const char *in, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (in[i] == '\n' && (i == 0 || in[i - 1] != '\r'))
			out[w++] = '\r';
		out[w++] = in[i];
	}
	return w;
}

enum { ALT_GROUND, ALT_ESC, ALT_CSI, ALT_PRIV, ALT_OTHER };

void pty_col_feed(struct pty_col *c, const char *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char b = (unsigned char)in[i];
		/* CAN and SUB end any sequence or string, as a terminal has it;
		 * an ESC inside a string ends the string and starts a sequence. */
		if (c->esc && (b == 0x18 || b == 0x1a)) {
			c->esc = 0;
			continue;
		}
		switch (c->esc) {
		case 1: /* after ESC */
		case 4: /* after ESC in a string (ESC \ is its end) */
			c->esc = b == '[' ? 2 : b == ']' || b == 'P' || b == '_' || b == '^' ? 3 :
				 b == 0x1b ? 1 : 0;
			continue;
		case 2: /* CSI: parameters, then a final byte */
			if (b >= 0x40 && b <= 0x7e)
				c->esc = 0;
			continue;
		case 3: /* a string: up to BEL or ESC */
			if (b == 0x07)
				c->esc = 0;
			else if (b == 0x1b)
				c->esc = 4;
			continue;
		}
		if (b == 0x1b)
			c->esc = 1;
		else if (b == '\n' || b == '\r')
			c->mid = false;
		else if (b >= 0x20 && b != 0x7f)
			c->mid = true;
	}
}

size_t pty_alt_feed(struct pty_alt *a, const char *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];
		/* As a terminal parses (the DEC parser xterm and tmux follow):
		 * inside a sequence, CAN and SUB cancel it and any other C0
		 * control but ESC is carried out and the sequence goes on. */
		if (a->st != ALT_GROUND && (c == 0x18 || c == 0x1a)) {
			a->st = ALT_GROUND;
			continue;
		}
		if (a->st != ALT_GROUND && (c < 0x20 || c == 0x7f) && c != 0x1b)
			continue;
		switch (a->st) {
		case ALT_ESC:
			a->st = c == '[' ? ALT_CSI : c == 0x1b ? ALT_ESC : ALT_GROUND;
			break;
		case ALT_CSI:
			a->param = 0;
			a->set = false;
			/* Only ESC [ ? ... is a private mode; any other CSI is
			 * skipped to its final byte. */
			a->st = c == '?' ? ALT_PRIV : c >= 0x40 && c <= 0x7e ? ALT_GROUND
			      : c == 0x1b ? ALT_ESC : ALT_OTHER;
			break;
		case ALT_PRIV:
			if (c >= '0' && c <= '9') {
				a->param = a->param > 100000 ? a->param : a->param * 10 + (c - '0');
			} else if (c == ';' || c == 'h' || c == 'l') {
				a->set |= a->param == 1049 || a->param == 1047 || a->param == 47;
				a->param = 0;
				if (c != ';') {
					a->st = ALT_GROUND;
					bool was = a->on;
					if (a->set)
						a->on = c == 'h';
					a->set = false;
					if (a->on != was)
						return i + 1;
				}
			} else {
				a->st = c == 0x1b ? ALT_ESC : c >= 0x40 && c <= 0x7e ? ALT_GROUND : ALT_OTHER;
			}
			break;
		case ALT_OTHER:
			if (c >= 0x40 && c <= 0x7e)
				a->st = ALT_GROUND;
			else if (c == 0x1b)
				a->st = ALT_ESC;
			break;
		default:
			if (c == 0x1b)
				a->st = ALT_ESC;
			break;
		}
	}
	return n;
}

/* --- the plan, and the child's side --------------------------------------- */

static int above_stdio(int fd)
{
	if (fd < 0 || fd > 2)
		return fd;
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return hi;
}

/* The real terminal's size when the session was planned (init copies it
 * to the session's terminal a little later). */
static struct winsize planned_ws;
static bool planned_ws_ok;
/* The real terminal: stdin, or, when stdin is not a terminal (a pipe),
 * stdout or stderr when it is the controlling terminal (as sudo asks on
 * /dev/tty): the session gets a pty all the same, so the sandbox never
 * holds the real terminal and a question can be asked on it. */

void pty_plan(struct session *s)
{
	struct pty_plan *p = &s->pty;
	p->on = false;
	p->input = false;
	p->tty_fd = -1;
	p->sock[0] = p->sock[1] = -1;
	struct pty_fdinfo fi[3];
	struct stat st;
	for (int fd = 0; fd < 3; fd++) {
		fi[fd].tty = isatty(fd) && fstat(fd, &st) == 0;
		fi[fd].rdev = fi[fd].tty ? st.st_rdev : 0;
	}
	/* In the background of its terminal wicket can neither make it raw
	 * nor read it: the pty then only shows output. */
	pid_t fg = fi[0].tty ? tcgetpgrp(STDIN_FILENO) : -1;
	unsigned m = pty_choose(fi, s->pol.sandbox, fg >= 0 && fg != getpgrp());
	if (!m)
		return;
	p->input = (m & PTY_INPUT) != 0;
	for (int fd = 2; fd >= 0; fd--)
		if (m & (1u << fd))
			p->tty_fd = fd;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, p->sock) < 0)
		die_errno("socketpair for the session's terminal");
	p->sock[0] = above_stdio(p->sock[0]);
	p->sock[1] = above_stdio(p->sock[1]);
	if (p->sock[0] < 0 || p->sock[1] < 0)
		die_errno("socketpair for the session's terminal");
	p->on = true;
	for (int fd = 0; fd < 3; fd++)
		if (m & (1u << fd))
			s->stdio[fd].kind = STDIO_PTY;
	planned_ws_ok = ioctl(p->tty_fd, TIOCGWINSZ, &planned_ws) == 0;
}

static int send_fd(int sock, int fd)
{
	return fdpass_send(sock, "m", 1, &fd, 1, 0) == 1 ? 0 : -1;
}

/* In init, before the command exists: the pty, set up like the real
 * terminal; its master goes to the supervisor. Returns the slave. */
int pty_child_open(struct session *s)
{
	close(s->pty.sock[0]);
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0)
		return setup_fail(STAGE_STDIO, errno, "open /dev/ptmx for the session's terminal");
	int sl = -1;
	if (unlockpt(m) == 0) {
		/* By the master, not by name: no path to look up. */
		sl = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
		char name[64];
		if (sl < 0 && ptsname_r(m, name, sizeof name) == 0)
			/* host: in init, the pty's own slave, named by ptsname */
			sl = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	}
	sl = above_stdio(sl);
	if (sl < 0) {
		int e = errno;
		close(m);
		return setup_fail(STAGE_STDIO, e, "open the session's terminal");
	}
	struct termios t;
	struct winsize ws;
	if (tcgetattr(s->pty.tty_fd, &t) == 0) {
		/* Output only: bytes pass unchanged, and the real terminal
		 * (not raw) does its own output processing, once. */
		if (!s->pty.input)
			t.c_oflag &= ~(tcflag_t)OPOST;
		tcsetattr(sl, TCSANOW, &t);
	}
	if (ioctl(s->pty.tty_fd, TIOCGWINSZ, &ws) == 0)
		ioctl(sl, TIOCSWINSZ, &ws);
	int r = send_fd(s->pty.sock[1], m);
	int e = errno;
	close(m);
	close(s->pty.sock[1]);
	if (r < 0) {
		close(sl);
		return setup_fail(STAGE_STDIO, e, "hand the session's terminal to the supervisor");
	}
	return sl;
}

/* In the command, before anything narrows it: the pty becomes its
 * controlling terminal, with the command as session leader (so job
 * control is the command's; init stays outside that session). */
int pty_child_ctty(const struct session *s)
{
	/* Without a pty the command still leaves wicket's session: with no
	 * controlling terminal, /dev/tty inside leads nowhere (it would be
	 * the real terminal). */
	if (!s->pty.on)
		return setsid() < 0 ? setup_fail(STAGE_STDIO, errno, "leave the caller's session") : 0;
	if (setsid() < 0 || ioctl(s->pty.tty_fd, TIOCSCTTY, 0) < 0)
		return setup_fail(STAGE_STDIO, errno, "make the session's terminal the controlling one");
	return 0;
}

void pty_parent_close(struct session *s)
{
	if (s->pty.sock[1] >= 0)
		close(s->pty.sock[1]);
	s->pty.sock[1] = -1;
}

/* --- the supervisor's side ------------------------------------------------- */

#define PTY_BUF 16384
/* A read from the pty leaves room for what the filter held from before
 * and a CAN (pty_filter_feed). */
#define MASTER_READ_MIN (PTY_FILTER_HOLD + 8)
/* After the command has gone, output still on its way is waited for until
 * the pty reports that no one holds it any more, or nothing has moved for
 * this long (something outside a pid namespace kept it open). */
#define DRAIN_IDLE_MS 500

struct buf {
	char b[PTY_BUF];
	size_t off, len;
};

static size_t buf_room(const struct buf *b) { return sizeof b->b - b->len; }

static char *buf_tail(struct buf *b)
{
	if (b->off) {
		memmove(b->b, b->b + b->off, b->len);
		b->off = 0;
	}
	return b->b + b->len;
}

static void buf_take(struct buf *b, size_t n)
{
	b->off += n;
	b->len -= n;
	if (!b->len)
		b->off = 0;
}

static struct {
	int master;              /* -1: no pty this session */
	bool input;              /* keystrokes are read and relayed (raw mode) */
	int tty_fd;              /* which of fds 0..2 is the real terminal */
	int tty_rd, tty_wr;      /* the real terminal */
	int tty_own;             /* our own non-blocking description of it, or -1 */
	int err_rd, saved_err;   /* the supervisor's stderr while the terminal is raw */
	struct watch *w_master, *w_in, *w_out, *w_err;
	struct buf in, out;      /* keyboard -> pty, pty -> screen */
	bool master_done;        /* EIO: no one holds the slave any more */
	bool tty_gone;           /* the real terminal hung up */
	bool child_gone;
	bool paused;             /* a prompt has the real terminal (pty_prompt) */
	bool drew;               /* the command wrote to the real terminal what can change
				  * its state (pty_can_change: finish_reset) */
	struct pty_alt alt;      /* the command's output is on the alternate screen */
	struct pty_col col, col_alt; /* where its output leaves the cursor; as it was
				  * when the alternate screen began */
	struct pty_filter filter; /* what it may not send the terminal (pty_filter_feed) */
	struct timespec last;    /* the last byte moved after the command ended */
} P = {.master = -1, .tty_fd = STDIN_FILENO, .tty_own = -1, .err_rd = -1, .saved_err = -1};

/* The session's terminal as the sandbox holds it (the slave of P.master):
 * the one terminal where what is read is what the person types. */
static struct {
	bool known;
	dev_t dev, rdev;
} slave;

bool pty_is_session_tty(int fd)
{
	struct stat st;
	return slave.known && fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_dev == slave.dev &&
	       st.st_rdev == slave.rdev;
}

static struct termios saved;
static volatile sig_atomic_t raw_on;
static pid_t owner;

/* Async-signal-safe, like everything the handlers below call. */
static void raw_leave(void)
{
	if (!raw_on || getpid() != owner)
		return;
	sigset_t ttou, old;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	tcsetattr(P.tty_fd, TCSANOW, &saved);
	sigprocmask(SIG_SETMASK, &old, NULL);
	raw_on = 0;
}

static void raw_enter(void)
{
	struct termios raw = saved;
	cfmakeraw(&raw);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (P.input && tcsetattr(P.tty_fd, TCSANOW, &raw) == 0)
		raw_on = 1;
}

/* An approved command's own terminal while it runs (pty_cmd_open). */
static struct {
	int master;              /* -1: none */
	struct watch *w;
	bool done;               /* EIO: no one holds its slave any more */
	struct pty_filter filter; /* its output may be the sandbox's (cat of a file) */
	bool hold;               /* after it ended by a signal: keys dropped until Enter */
} D = {.master = -1};

static void sync_winsize(void)
{
	struct winsize ws;
	if (P.master >= 0 && ioctl(P.tty_fd, TIOCGWINSZ, &ws) == 0) {
		ioctl(P.master, TIOCSWINSZ, &ws);
		if (D.master >= 0)
			ioctl(D.master, TIOCSWINSZ, &ws);
	}
}

static void on_winch(int sig)
{
	(void)sig;
	int e = errno;
	sync_winsize();
	errno = e;
}

/* Stopped from outside (kill -TSTP): the terminal goes back to its mode
 * while the shell that started wicket has it. */
static void on_tstp(int sig)
{
	(void)sig;
	int e = errno;
	raw_leave();
	/* Output only, the terminal's Ctrl-Z came as a signal: the job
	 * inside stops with wicket (its group is orphaned, so SIGSTOP). */
	pty_signal(SIGSTOP);
	kill(getpid(), SIGSTOP);
	errno = e;
}

static void on_cont(int sig)
{
	(void)sig;
	int e = errno;
	if (!raw_on && P.master >= 0 && tcgetpgrp(P.tty_fd) == getpgrp())
		raw_enter();
	pty_signal(SIGCONT);
	sync_winsize();
	errno = e;
}

bool pty_signal(int sig)
{
	return P.master >= 0 && !P.input && ioctl(P.master, TIOCSIG, sig) == 0;
}

static void restore_stderr(void)
{
	if (P.saved_err < 0)
		return;
	dup2(P.saved_err, STDERR_FILENO);
	close(P.saved_err);
	P.saved_err = -1;
}

static void on_fatal(int sig)
{
	raw_leave();
	restore_stderr();
	/* SA_RESETHAND: the default action, as soon as the handler returns. */
	raise(sig);
}

static const int fatal_signals[] = {SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGSYS,
				    SIGTRAP, SIGXCPU, SIGXFSZ, SIGPIPE, SIGPROF, SIGVTALRM};
#define N_FATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction fatal_old[N_FATAL];
static bool fatal_set[N_FATAL];

static void handle(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigfillset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void install_handlers(void)
{
	handle(SIGWINCH, on_winch, SA_RESTART);
	handle(SIGTSTP, on_tstp, SA_RESTART);
	handle(SIGCONT, on_cont, SA_RESTART);
	for (size_t i = 0; i < N_FATAL; i++) {
		/* Only where the signal would end wicket: an ignored SIGPIPE
		 * stays ignored. */
		fatal_set[i] = sigaction(fatal_signals[i], NULL, &fatal_old[i]) == 0 &&
			       fatal_old[i].sa_handler == SIG_DFL;
		if (fatal_set[i])
			handle(fatal_signals[i], on_fatal, SA_RESETHAND);
	}
}

static void reset_handlers(void)
{
	signal(SIGWINCH, SIG_DFL);
	signal(SIGTSTP, SIG_DFL);
	signal(SIGCONT, SIG_DFL);
	for (size_t i = 0; i < N_FATAL; i++)
		if (fatal_set[i])
			sigaction(fatal_signals[i], &fatal_old[i], NULL);
}

static void write_best_effort(int fd, const char *p, size_t n)
{
	(void)write_all(fd, p, n);
}

/* What the supervisor wrote to its stderr while the terminal was raw and
 * has not been shown yet, now on the real stderr. */
static void err_flush(void)
{
	if (P.err_rd < 0)
		return;
	char b[4096];
	ssize_t n;
	while ((n = read(P.err_rd, b, sizeof b)) > 0)
		write_best_effort(STDERR_FILENO, b, (size_t)n);
	close(P.err_rd);
	P.err_rd = -1;
}

/* exit() after raw mode was set (die(), ...): the terminal back first. */
static void pty_atexit(void)
{
	if (getpid() != owner)
		return;
	if (P.out.len && !P.tty_gone)
		write_best_effort(P.tty_wr, P.out.b + P.out.off, P.out.len);
	P.out.len = 0;
	raw_leave();
	restore_stderr();
	err_flush();
}

static void progress(void)
{
	if (P.child_gone)
		clock_gettime(CLOCK_MONOTONIC, &P.last);
}

/* Which descriptors the relay loop polls, from the state of the buffers:
 * a watch with nothing to do gets fd -1, which poll() skips (a hung-up
 * descriptor would otherwise report POLLHUP on every round). */
static void rearm(void)
{
	if (P.w_in && P.input) {
		P.w_in->fd = !P.paused && !P.tty_gone && !P.child_gone && buf_room(&P.in) ? P.tty_rd
											 : -1;
	} else if (P.w_in) {
		/* Output only: watched for its hang-up alone (no events). */
		P.w_in->fd = !P.tty_gone && !P.child_gone ? P.tty_rd : -1;
	}
	if (P.w_master) {
		short ev = 0;
		/* While an approved command has the terminal, the session's
		 * output waits and gets no keys (pty_cmd_open). */
		if (!P.master_done && !P.paused && D.master < 0) {
			if (buf_room(&P.out) > MASTER_READ_MIN)
				ev |= POLLIN;
			if (P.in.len)
				ev |= POLLOUT;
		}
		P.w_master->events = ev;
		P.w_master->fd = ev ? P.master : -1;
	}
	if (P.w_out)
		P.w_out->fd = P.out.len && !P.tty_gone ? P.tty_wr : -1;
	if (P.w_err)
		P.w_err->fd = !P.paused && !P.alt.on && D.master < 0 && buf_room(&P.out) >= 2
			      ? P.err_rd : -1;
	if (D.w) {
		short ev = 0;
		if (!D.done && buf_room(&P.out) > MASTER_READ_MIN)
			ev |= POLLIN;
		if (!P.paused && P.in.len)
			ev |= POLLOUT;
		D.w->events = ev;
		D.w->fd = ev ? D.master : -1;
	}
}

/* The real terminal hung up: what would have been shown is dropped, and
 * the session is told, as by a SIGHUP to wicket (supervisor.c). */
static void terminal_gone(void)
{
	if (!P.tty_gone && !P.child_gone)
		raise(SIGHUP);
	P.tty_gone = true;
	P.out.len = P.out.off = 0;
}

static void in_ready(struct session *s, struct watch *w, short revents)
{
	(void)s, (void)w;
	if (!P.input) {
		if (revents & (POLLHUP | POLLERR))
			terminal_gone();
		rearm();
		return;
	}
	ssize_t n = read(P.tty_rd, buf_tail(&P.in), buf_room(&P.in));
	if (n > 0 && D.hold) {
		/* Typed for the approved command that has just ended: not
		 * the session's (pty_cmd_end). */
		if (memchr(buf_tail(&P.in), '\r', (size_t)n) ||
		    memchr(buf_tail(&P.in), '\n', (size_t)n))
			D.hold = false;
	} else if (n > 0) {
		P.in.len += (size_t)n;
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		terminal_gone();
	}
	rearm();
}

static void out_ready(struct session *s, struct watch *w, short revents)
{
	(void)s, (void)w, (void)revents;
	ssize_t n = write(P.tty_wr, P.out.b + P.out.off, P.out.len);
	if (n > 0) {
		buf_take(&P.out, (size_t)n);
		progress();
	} else if (n < 0 && errno != EINTR && errno != EAGAIN) {
		terminal_gone();
	}
	rearm();
}

/* The supervisor's own lines waiting in its stderr pipe, into the relay,
 * leaving RESERVE bytes of room. Not while a full-screen program has the
 * alternate screen: there they would draw over it, so they wait in the
 * pipe (a bounded queue: a write to a full pipe is dropped, the denial
 * still counted for `wicket why`) until it leaves (scan_output). */
static size_t err_pull(size_t reserve)
{
	if (P.err_rd < 0 || P.alt.on || buf_room(&P.out) < reserve + 4)
		return 0;
	char b[PTY_BUF / 2];
	size_t want = (buf_room(&P.out) - reserve - 2) / 2;
	ssize_t n = read(P.err_rd, b, want < sizeof b ? want : sizeof b);
	if (n <= 0)
		return 0;
	size_t added = 0;
	/* Our lines start a line of their own, even where the command's
	 * output stopped in the middle of one. */
	if (P.col.mid) {
		memcpy(buf_tail(&P.out), "\r\n", 2);
		added = 2;
		P.col.mid = false;
	}
	/* A raw terminal needs CR LF; one that is not adds the CR. */
	if (P.input) {
		added += pty_crlf(buf_tail(&P.out) + added, b, (size_t)n);
	} else {
		memcpy(buf_tail(&P.out) + added, b, (size_t)n);
		added += (size_t)n;
	}
	P.out.len += added;
	if (P.tty_gone)
		P.out.len = P.out.off = 0;
	return added;
}

/* The bytes just read from the pty, from FROM (P.out.off is 0) to the
 * end, followed for the alternate screen: where the program leaves it,
 * the lines held meanwhile go in, right after the sequence that left. */
static void scan_output(size_t from)
{
	static char tail[PTY_BUF];
	size_t i = from;
	while (i < P.out.len) {
		bool was = P.alt.on;
		i += pty_alt_feed(&P.alt, P.out.b + i, P.out.len - i);
		if (!was && P.alt.on)
			P.col_alt = P.col; /* (roughly: as the whole read left it) */
		if (!was || P.alt.on)
			continue;
		/* Leaving it puts the cursor back where it was. */
		P.col = P.col_alt;
		pty_col_feed(&P.col, P.out.b + i, P.out.len - i);
		size_t t = P.out.len - i;
		memcpy(tail, P.out.b + i, t);
		P.out.len = i;
		i += err_pull(t);
		memcpy(P.out.b + P.out.len, tail, t);
		P.out.len += t;
	}
}

/* What the pty holds now, into the relay (as far as there is room). */
/* What the pty master FD holds, through the filter F, into the relay
 * (as far as there is room: then -1 and EAGAIN); read's result. */
static ssize_t relay_from(int fd, struct pty_filter *f)
{
	static char raw[PTY_BUF];
	size_t room = buf_room(&P.out);
	if (room <= MASTER_READ_MIN) {
		errno = EAGAIN;
		return -1;
	}
	char *tail = buf_tail(&P.out);
	ssize_t n = read(fd, raw, room - MASTER_READ_MIN);
	if (n > 0) {
		size_t k = pty_filter_feed(f, raw, (size_t)n, tail);
		P.drew = P.drew || pty_can_change(tail, k);
		pty_col_feed(&P.col, tail, k);
		P.out.len += k;
	}
	return n;
}

static void master_read(void)
{
	size_t from = P.out.len;
	ssize_t n = relay_from(P.master, &P.filter);
	if (n > 0) {
		scan_output(from);
		if (P.tty_gone)
			P.out.len = P.out.off = 0; /* no one to show it to: the command never waits */
		progress();
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		/* EIO: every descriptor of the slave is closed. */
		P.master_done = true;
	}
}

bool pty_midline(void)
{
	/* While our lines go through the relay, err_pull breaks the line. */
	return P.err_rd < 0 && P.saved_err < 0 && P.col.mid;
}

void pty_line_ended(void)
{
	P.col.mid = false;
}

void pty_catch_up(void)
{
	if (P.master < 0 || P.paused || P.master_done || D.master >= 0)
		return;
	for (int i = 0; i < 8 && buf_room(&P.out) > MASTER_READ_MIN && !P.master_done; i++) {
		size_t before = P.out.len;
		master_read();
		if (P.out.len == before)
			break;
	}
	rearm();
}

/* The keys read so far, into the pty master FD (the session's, or an
 * approved command's); dropped if it is gone. */
static void keys_to(int fd)
{
	ssize_t n = write(fd, P.in.b + P.in.off, P.in.len);
	if (n > 0)
		buf_take(&P.in, (size_t)n);
	else if (n < 0 && errno != EINTR && errno != EAGAIN)
		P.in.len = P.in.off = 0;
}

static void master_ready(struct session *s, struct watch *w, short revents)
{
	(void)s, (void)w;
	if ((revents & POLLOUT) && P.in.len)
		keys_to(P.master);
	if ((revents & (POLLIN | POLLHUP | POLLERR)) && buf_room(&P.out) > MASTER_READ_MIN) {
		/* The supervisor's lines first: each was written after what
		 * the pty held then (pty_catch_up) and before what it holds
		 * now (a denial printed before the shell's prompt,
		 * diag_status_sync), and is shown in that place. */
		while (err_pull(PTY_BUF / 4))
			;
		master_read();
	}
	rearm();
}

static void err_ready(struct session *s, struct watch *w, short revents)
{
	(void)s, (void)w, (void)revents;
	err_pull(0);
	rearm();
}

/* The supervisor's own messages (denial lines, warnings) during the
 * session go through a pipe into the relay, in raw mode with CR LF and
 * never in the middle of a write of the command's output; its writes
 * never block (a full pipe drops the message). */
static void capture_stderr(void)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return;
	P.saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (P.saved_err < 0 || dup2(p[1], STDERR_FILENO) < 0) {
		if (P.saved_err >= 0)
			close(P.saved_err);
		P.saved_err = -1;
		close(p[0]);
		close(p[1]);
		return;
	}
	close(p[1]);
	P.err_rd = p[0];
}

static int recv_fd(int sock)
{
	char byte;
	struct fdpass_in in;
	if (fdpass_recv(sock, &byte, 1, 1, 0, MSG_DONTWAIT, &in) != 1 || in.nfds != 1 ||
	    in.extra || (in.flags & MSG_CTRUNC)) {
		fdpass_close(&in);
		return -1;
	}
	int fd = in.fds[0];
	/* A pty master answers TIOCGPTN; nothing else does. */
	unsigned ptn;
	if (ioctl(fd, TIOCGPTN, &ptn) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

void pty_start(struct session *s, bool started)
{
	if (!s->pty.on)
		return;
	int m = started ? recv_fd(s->pty.sock[0]) : -1;
	close(s->pty.sock[0]);
	s->pty.sock[0] = -1;
	if (m < 0) {
		if (started)
			warnmsg("internal error: the session's terminal did not arrive");
		return;
	}
	fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_NONBLOCK);
	P.tty_fd = s->pty.tty_fd;
	P.input = s->pty.input;
	P.filter.reports = P.input;
	if (tcgetattr(P.tty_fd, &saved) < 0) {
		close(m);
		return;
	}
	P.master = m;
	/* Which terminal the slave is: opened from the master, by no path. */
	int sl = ioctl(m, TIOCGPTPEER, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	struct stat sst;
	if (sl >= 0 && fstat(sl, &sst) == 0) {
		slave.dev = sst.st_dev;
		slave.rdev = sst.st_rdev;
		slave.known = true;
	}
	if (sl >= 0)
		close(sl);
	/* A description of our own, so that non-blocking I/O never changes
	 * the one the calling shell shares; the shared one, written only when
	 * poll() says so, where the terminal cannot be opened again. */
	char own[32];
	snprintf(own, sizeof own, "/proc/self/fd/%d", P.tty_fd);
	/* host: our own terminal's descriptor */
	P.tty_own = open(own, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	P.tty_rd = P.tty_own >= 0 ? P.tty_own : P.tty_fd;
	P.tty_wr = P.tty_own >= 0 ? P.tty_own
		 : s->stdio[1].kind == STDIO_PTY ? STDOUT_FILENO
		 : s->stdio[2].kind == STDIO_PTY ? STDERR_FILENO : STDIN_FILENO;
	owner = getpid();
	static bool registered;
	if (!registered)
		registered = atexit(pty_atexit) == 0;
	if (s->stdio[2].kind == STDIO_PTY)
		capture_stderr();
	install_handlers();
	raw_enter();
	/* The real terminal may have been resized before there was a SIGWINCH
	 * handler to pass it on. Only then: by now the command runs, and may
	 * have set a size of its own, which is not overwritten with the one
	 * init copied. */
	struct winsize ws;
	if (!planned_ws_ok || ioctl(P.tty_fd, TIOCGWINSZ, &ws) < 0 ||
	    memcmp(&ws, &planned_ws, sizeof ws) != 0)
		sync_winsize();
	P.w_master = session_watch(s, P.master, POLLIN, master_ready, NULL);
	P.w_in = session_watch(s, P.tty_rd, P.input ? POLLIN : 0, in_ready, NULL);
	P.w_out = session_watch(s, -1, POLLOUT, out_ready, NULL);
	if (P.err_rd >= 0)
		P.w_err = session_watch(s, P.err_rd, POLLIN, err_ready, NULL);
	if (!P.w_master || !P.w_in || !P.w_out || (P.err_rd >= 0 && !P.w_err))
		die("internal error: no room to watch the session's terminal");
	rearm();
}

int pty_drain(struct session *s)
{
	(void)s;
	if (P.master < 0)
		return -1;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!P.child_gone) {
		/* Keystrokes typed from now on are the calling shell's. */
		P.child_gone = true;
		P.in.len = P.in.off = 0;
		P.last = now;
		rearm();
	}
	if (P.master_done && (P.out.len == 0 || P.tty_gone))
		return -1;
	long idle = (now.tv_sec - P.last.tv_sec) * 1000 + (now.tv_nsec - P.last.tv_nsec) / 1000000;
	return idle >= DRAIN_IDLE_MS ? -1 : (int)(DRAIN_IDLE_MS - idle);
}

/* --- the prompt: `wicket ask` on the real terminal (ask.c) ---------------
 *
 * While a prompt is up, nothing moves between the real terminal and the
 * sandbox's pty: what the sandbox writes waits in its pty (it cannot draw
 * over the question or after it), and every keystroke is read here. The
 * terminal stays raw, so Ctrl-C is a byte (it means No), not a signal.
 * An answer is "y" or "yes" and Enter; anything else, and any escape
 * sequence or control character in the line (a terminal's reply to a
 * query the sandbox printed earlier, a paste), is No.
 *
 * What the sandbox wrote before the question reached the terminal, and
 * may have left it in a state of its choosing (issue 12): a scroll region
 * that keeps the question out of sight, wrap off, line-drawing letters,
 * hidden text, default colours of its choosing (black on black: OSC 10,
 * 11, 12, 4), an escape string left open that would swallow the
 * question whole. PROMPT_RESET undoes each of those explicitly; a hard
 * reset (RIS, ESC c) would do it too but clears the person's screen and
 * scrollback on many terminals, and is not needed. Then a line of its
 * own, everything below it cleared, and the question (askrender.c: the
 * exact argv, printable, as wide as the terminal at most).
 *
 * What was on the screen above the question stays: the alternate
 * screen is left as tty_take says (leaving it when not on it restores
 * the cursor a full-screen program saved long ago, and the clearing
 * below would then erase what came after it), and the scroll region
 * is reset between a save and a restore of the cursor, since DECSTBM
 * (and DECOM) move it home. Origin mode is not set off for the same
 * reason (the restore would set it again): with no scroll region it
 * changes no position.
 *
 * Keys typed before the question was up, or within PROMPT_GRACE_MS after
 * it was drawn (a habitual second "y" Enter meant for something else),
 * are dropped: the terminal's input is flushed when the question appears
 * and again when the grace ends, and what is read meanwhile is ignored.
 * The "[y/N]" is only drawn when answers count. */

#define PROMPT_GRACE_MS 1000

static const char prompt_reset[] =
	"\033(B\033)B\017"      /* G0 and G1 ASCII, G0 shifted in: letters are letters */
	"\033[0m\033[?5l"       /* plain attributes (nothing hidden), screen not reversed */
	"\0337\033[r\033[?69l\0338" /* no scroll region, no left and right margins, the cursor kept */
	"\033[?7h"              /* wrap at the right edge on */
	"\033[4l"               /* replace, not insert */
	"\033]110\033\\\033]111\033\\" /* the default foreground and background colours */
	"\033]112\033\\\033]104\033\\" /* the cursor's colour, the whole palette */
	"\033[?25h\033[0 q"      /* a visible cursor, of the terminal's default shape */
	"\033[?9l\033[?1000l\033[?1002l\033[?1003l\033[?1006l" /* no mouse reports */
	"\033[>4m\033[=0;1u"    /* keys as plain bytes: no modifyOtherKeys, no kitty flags */
	"\033[?8h"             /* keys repeat */
	"\033[?1l\033>"         /* cursor keys and keypad send their plain codes */
	"\033[?2004h"           /* bracketed paste: a paste arrives marked, never an answer */
	"\r\n\033[J";           /* a line of its own, and nothing below it */

/* What a session leaves behind on the real terminal, after its last
 * byte: the sandbox does not choose the state the calling shell's next
 * output meets (an escape string left open would swallow it, hidden
 * text or black on black would hide it, a scroll region or the line
 * drawing letters would garble it). The same resets as PROMPT_RESET,
 * but the cursor stays where the session left it: no new line, nothing
 * cleared, the scroll region reset between a save and a restore of the
 * cursor (DECSTBM moves it home). Origin mode is left as it is for the
 * same reason; with no scroll region it changes no position. The
 * alternate screen is left only if the command is on it (pty_alt), as
 * leaving it restores a saved cursor. */
static const char finish_reset[] =
	"\030\033\\"
	"\033[0m\033[?5l\033(B\033)B\017"
	"\0337\033[r\033[?69l\0338"
	"\033[?7h\033[4l"
	"\033[2l\033[12h\033[20l" /* the keyboard unlocked, no local echo, no newline mode */
	"\033]110\033\\\033]111\033\\\033]112\033\\\033]104\033\\"
	"\033[?25h\033[?12l\033[0 q" /* a visible cursor, not blinking, of the default shape */
	"\033[?9l\033[?1000l\033[?1002l\033[?1003l\033[?1006l\033[?1005l\033[?1015l"
	"\033[?1004l"          /* no focus reports */
	"\033[>4m"             /* no modifyOtherKeys: Ctrl-C is a byte again */
	"\033[=0;1u"           /* nor the kitty keyboard protocol's flags */
	"\033[?8h"             /* keys repeat */
	"\033[?1l\033>\033[?66l" /* cursor keys and keypad send their plain codes */
	"\033[?2004l";

static void write_bounded(int fd, const char *p, size_t n);

/* Leave the alternate screen where the cursor is (no restore, unlike
 * 1049): for when it is not known whether the command entered it. */
static const char leave_alt_here[] = "\030\033\\\033[?1047l";

/* The tab stops back at every 8 columns, as a terminal starts (the
 * sandbox could clear them, and the calling shell's ls would be
 * garbled): all cleared, then one set every 8 columns of the terminal
 * at FD, between a save and a restore of the cursor. */
static void tabs_reset(int fd)
{
	struct winsize ws;
	unsigned cols = ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
	if (cols > 1024)
		cols = 1024;
	char b[16 + 1024 / 8 * 6];
	size_t n = 0;
	static const char start[] = "\0337\r\033[3g"; /* save the cursor, clear every stop */
	memcpy(b, start, sizeof start - 1);
	n = sizeof start - 1;
	for (unsigned c = 8; c < cols; c += 8) {
		memcpy(b + n, "\033[8C\033H", 6);
		n += 6;
	}
	memcpy(b + n, "\0338", 2);
	write_bounded(fd, b, n + 2);
}

void pty_reset_other(int fd)
{
	write_bounded(fd, leave_alt_here, sizeof leave_alt_here - 1);
	write_bounded(fd, finish_reset, sizeof finish_reset - 1);
	tabs_reset(fd);
}

static struct {
	struct watch *w, *w_grace;
	int grace_fd;
	bool open;               /* the grace is over: keys answer */
	char line[8];
	size_t len;
	bool tainted;
	enum pty_ask kind;
	void (*done)(struct session *, enum pty_answer, void *);
	void *data;
} Q = {.grace_fd = -1};

bool pty_can_prompt(void)
{
	return P.master >= 0 && P.input && !P.tty_gone && !P.child_gone && !P.paused &&
	       D.master < 0 && tcgetpgrp(P.tty_rd) == getpgrp();
}

/* Write to a terminal, waiting for room at most about a second in all (a
 * terminal stopped with Ctrl-S must not hold the supervisor). */
static void write_bounded(int fd, const char *p, size_t n)
{
	for (int tries = 0; n && tries < 20;) {
		ssize_t w = write(fd, p, n);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN)
			return;
		struct pollfd pf = {fd, POLLOUT, 0};
		poll(&pf, 1, 50);
		tries++;
	}
}

static void tty_write_bounded(const char *p, size_t n)
{
	write_bounded(P.tty_wr, p, n);
}

/* Any sequence or string left open ended (CAN, ST), and the normal
 * screen: on the alternate screen as far as pty_alt can tell, leave it
 * and restore the cursor saved on entering it. Otherwise leave it all
 * the same where the cursor is (1047, no restore), in case the command
 * entered it in a way pty_alt missed: 1049 there would restore a
 * cursor saved by a program that ended long ago. */
static void tty_leave_alt(void)
{
	static const char leave_alt[] = "\030\033\\\033[?1049l";
	if (P.alt.on)
		tty_write_bounded(leave_alt, sizeof leave_alt - 1);
	else
		tty_write_bounded(leave_alt_here, sizeof leave_alt_here - 1);
}

static void tty_say(const char *text)
{
	size_t n = strlen(text);
	char *c = xmalloc(2 * n + 1);
	size_t k = pty_crlf(c, text, n);
	tty_write_bounded(c, k);
	free(c);
}

static unsigned tty_columns(unsigned *rows)
{
	struct winsize ws;
	if (ioctl(P.tty_rd, TIOCGWINSZ, &ws) < 0)
		ws.ws_col = ws.ws_row = 0;
	*rows = ws.ws_row;
	return ws.ws_col;
}

/* TEXT, wrapped to the terminal's width. */
static void tty_say_wrapped(const char *text)
{
	unsigned rows, cols = tty_columns(&rows);
	char *w = askr_wrap(text, cols ? cols : 80);
	tty_say(w);
	free(w);
}

/* The real terminal in a known state, on a line of its own: what the
 * command wrote before comes first, then the normal screen (as
 * pty_finish leaves the alternate one: the question stays in the
 * scrollback), then PROMPT_RESET. */
static void tty_take(void)
{
	if (P.out.len)
		tty_write_bounded(P.out.b + P.out.off, P.out.len);
	P.out.len = P.out.off = 0;
	tty_leave_alt();
	tty_write_bounded(prompt_reset, sizeof prompt_reset - 1);
	tabs_reset(P.tty_wr);
	/* What the terminal is in now: no sequence open, the normal screen. */
	P.alt = (struct pty_alt){0};
}

static void prompt_close(void)
{
	if (Q.w)
		session_unwatch(Q.w);
	if (Q.w_grace)
		session_unwatch(Q.w_grace);
	Q.w = Q.w_grace = NULL;
	if (Q.grace_fd >= 0)
		close(Q.grace_fd);
	Q.grace_fd = -1;
	Q.done = NULL;
	P.paused = false;
	tty_write_bounded("\033[?2004l", 8); /* the shell in the sandbox sets it again if it uses it */
	rearm();
}

static void prompt_answer(struct session *s, enum pty_answer answer)
{
	void (*done)(struct session *, enum pty_answer, void *) = Q.done;
	void *data = Q.data;
	tty_say(answer != PTY_NO ? "\n" :
		Q.kind != PTY_ASK_HOST ? "\nwicket: not run.\n" : "\nwicket: refused.\n");
	prompt_close();
	if (done)
		done(s, answer, data);
}

static void prompt_ready(struct session *s, struct watch *w, short revents)
{
	(void)w, (void)revents;
	unsigned char b[64];
	ssize_t n = read(P.tty_rd, b, sizeof b);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		terminal_gone();
		prompt_answer(s, PTY_NO);
		return;
	}
	if (!Q.open)
		return; /* typed before the question could be read */
	for (ssize_t i = 0; i < n; i++) {
		unsigned char c = b[i];
		if (c == '\r' || c == '\n') {
			Q.line[Q.len] = '\0';
			enum pty_answer a = PTY_NO;
			if (!Q.tainted && (strcasecmp(Q.line, "y") == 0 || strcasecmp(Q.line, "yes") == 0))
				a = PTY_YES;
			else if (!Q.tainted && Q.kind == PTY_ASK_HOST &&
				 (strcasecmp(Q.line, "s") == 0 || strcasecmp(Q.line, "session") == 0))
				a = PTY_SESSION;
			prompt_answer(s, a);
			return;
		}
		if (c == 0x03 || c == 0x04) { /* Ctrl-C, Ctrl-D */
			prompt_answer(s, PTY_NO);
			return;
		}
		if ((c == 0x7f || c == 0x08) && Q.len) {
			Q.len--;
			tty_write_bounded("\b \b", 3);
		} else if (c >= 0x20 && c < 0x7f && Q.len < sizeof Q.line - 1) {
			Q.line[Q.len++] = (char)c;
			tty_write_bounded((char *)&c, 1);
		} else if (c < 0x20 || c >= 0x7f) {
			Q.tainted = true;
		}
	}
}

static void grace_over(struct session *s, struct watch *w, short revents)
{
	(void)s, (void)w, (void)revents;
	session_unwatch(Q.w_grace);
	Q.w_grace = NULL;
	close(Q.grace_fd);
	Q.grace_fd = -1;
	tcflush(P.tty_rd, TCIFLUSH);
	Q.open = true;
	/* The question says where the command would run: a grant's in a
	 * sandbox, never "outside". */
	static const char run_q[] = "Run it outside the sandbox once?",
			  grant_q[] = "Run it once in that sandbox of its own?",
			  host_q[] = "Let it connect? y: this once, s: for this session, n: no.";
	static const char run_keys[] = "[y/N] ", host_keys[] = "[y/s/N] ";
	const char *q = Q.kind == PTY_ASK_RUN ? run_q : Q.kind == PTY_ASK_GRANT ? grant_q : host_q;
	const char *keys = Q.kind != PTY_ASK_HOST ? run_keys : host_keys;
	unsigned rows, cols = tty_columns(&rows);
	if (cols && cols < strlen(q) + 1 + strlen(keys)) {
		tty_say_wrapped(q);
		tty_say(keys);
	} else {
		tty_say(q);
		tty_say(" ");
		tty_say(keys);
	}
}

bool pty_prompt(struct session *s, const char *text, enum pty_ask kind,
		void (*done)(struct session *, enum pty_answer, void *), void *data)
{
	if (!pty_can_prompt())
		return false;
	Q.grace_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	struct itimerspec its = {.it_value = {PROMPT_GRACE_MS / 1000, (PROMPT_GRACE_MS % 1000) * 1000000L}};
	Q.w = session_watch(s, P.tty_rd, POLLIN, prompt_ready, NULL);
	Q.w_grace = Q.grace_fd >= 0 ? session_watch(s, Q.grace_fd, POLLIN, grace_over, NULL) : NULL;
	if (!Q.w || !Q.w_grace || timerfd_settime(Q.grace_fd, 0, &its, NULL) < 0) {
		Q.done = NULL;
		prompt_close();
		return false;
	}
	P.paused = true;
	rearm();
	tcflush(P.tty_rd, TCIFLUSH);
	Q.open = false;
	Q.len = 0;
	Q.tainted = false;
	Q.kind = kind;
	Q.done = done;
	Q.data = data;
	tty_take();
	tty_say(text);
	tty_say_wrapped("(keys typed in the next second are ignored)");
	return true;
}

void pty_prompt_cancel(struct session *s, const char *note)
{
	(void)s;
	if (!Q.w)
		return;
	tty_say("\n");
	tty_say_wrapped(note);
	prompt_close();
}

unsigned pty_prompt_width(unsigned *rows)
{
	*rows = 0;
	return P.master >= 0 ? tty_columns(rows) : 0;
}

void pty_note(struct session *s, const char *note)
{
	(void)s;
	if (P.master < 0 || P.tty_gone || P.paused)
		return;
	tty_take();
	tty_say_wrapped(note);
	tty_write_bounded("\033[?2004l", 8);
}

/* --- an approved command's own terminal (ask.c) --------------------------- */

/* An approved command whose standard input, output or error is the
 * session's terminal runs on a pty of the supervisor's own instead, as
 * sudo's use_pty gives one, and what the person types goes to it alone.
 * On the session's pty, a process of the sandbox in a session of its own
 * (no job control stops it: that pty is not its controlling terminal)
 * would read what was typed for the command: a password for an approved
 * ssh, git or npm login. The new pty is set up as the real terminal was
 * before the session (its modes, its size), and is the command's
 * controlling terminal, so a program that asks on /dev/tty asks there.
 * Its output goes to the real terminal as it is: outside code, processed
 * by that pty as the real terminal would have. Meanwhile the session's
 * output and wicket's own lines wait, so that nothing of the sandbox's
 * draws over the command's screen. */
bool pty_cmd_needed(void)
{
	return P.master >= 0 && P.input;
}

bool pty_foreground(pid_t pid)
{
	pid_t pg = getpgid(pid);
	return P.master >= 0 && pg > 0 && tcgetpgrp(P.master) == pg;
}

int pty_cmd_open(int *slave_fd)
{
	*slave_fd = -1;
	if (!pty_cmd_needed() || D.master >= 0 || P.tty_gone)
		return -1;
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0)
		return -1;
	int sl = -1;
	struct winsize ws;
	if (unlockpt(m) < 0 ||
	    (sl = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0 ||
	    tcsetattr(sl, TCSANOW, &saved) < 0 || fcntl(m, F_SETFL, O_NONBLOCK) < 0) {
		if (sl >= 0)
			close(sl);
		close(m);
		return -1;
	}
	if (ioctl(P.tty_fd, TIOCGWINSZ, &ws) == 0)
		ioctl(m, TIOCSWINSZ, &ws);
	*slave_fd = sl;
	return m;
}

static void cmd_read(void)
{
	/* Filtered like the session's: what it shows may be a file of the
	 * sandbox's (an approved cat), whose title or clipboard string would
	 * act outside. */
	ssize_t n = relay_from(D.master, &D.filter);
	if (n > 0) {
		if (P.tty_gone)
			P.out.len = P.out.off = 0;
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		D.done = true;
	}
}

static void cmd_ready(struct session *s, struct watch *w, short revents)
{
	(void)s, (void)w;
	if ((revents & POLLOUT) && P.in.len)
		keys_to(D.master);
	if (revents & (POLLIN | POLLHUP | POLLERR))
		cmd_read();
	rearm();
}

bool pty_cmd_active(void)
{
	return D.master >= 0;
}

bool pty_cmd_held(void)
{
	return D.hold;
}

bool pty_cmd_start(struct session *s, int master)
{
	D.master = master;
	D.done = false;
	D.filter = (struct pty_filter){0};
	D.w = session_watch(s, master, POLLIN, cmd_ready, NULL);
	if (!D.w) {
		close(master);
		D.master = -1;
		return false;
	}
	rearm();
	return true;
}

/* The keys go back to the session, which the sandbox reads: what was
 * typed for the command and is still on its way is dropped; and when
 * HOLD (it was ended by a signal, or had one sent: the sandbox can have
 * it ended, through its wicket ask, while the person types a password),
 * everything until Enter, with NOTE on the terminal. A command that ends
 * on its own gives the keys back at once. */
void pty_cmd_end(struct session *s, const char *note, bool hold)
{
	if (D.master < 0)
		return;
	/* What it wrote last, as far as there is room. */
	for (int i = 0; i < 16 && !D.done && buf_room(&P.out) > MASTER_READ_MIN; i++) {
		size_t before = P.out.len;
		cmd_read();
		if (P.out.len == before)
			break;
	}
	/* An unfinished sequence at the very end is dropped, a CAN in its
	 * place (pty_filter_flush), so the session's next output is not
	 * read as its rest: only where it fits. */
	if (buf_room(&P.out) >= 1)
		P.out.len += pty_filter_flush(&D.filter, buf_tail(&P.out));
	session_unwatch(D.w);
	D.w = NULL;
	close(D.master);
	D.master = -1;
	if (P.input && !P.tty_gone) {
		tcflush(P.tty_rd, TCIFLUSH);
		P.in.len = P.in.off = 0;
		D.hold = hold;
		if (note)
			pty_note(s, note);
	}
	rearm();
}

/* The terminal's answers to the reports the sandbox asked for (CSI 5 n,
 * 6 n, c: ptyfilter.c) come in where the keys do; one still on its way
 * when the session ends would be read by the calling shell, typed into
 * its next line. The terminal answers in order: a status report of our
 * own, and everything read up to its answer is dropped, or whatever
 * came within ANSWER_WAIT_MS if the terminal never answers. */
#define ANSWER_WAIT_MS 1000

static void answers_drop(void)
{
	static const char status[] = "\033[5n";
	tty_write_bounded(status, sizeof status - 1);
	long long end = now_ms() + ANSWER_WAIT_MS;
	char last[3] = {0}; /* the three bytes before, across reads */
	for (long long left; (left = end - now_ms()) > 0;) {
		struct pollfd pf = {P.tty_rd, POLLIN, 0};
		int r = poll(&pf, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		char b[256];
		ssize_t n = read(P.tty_rd, b, sizeof b);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			/* ESC [ digit n: the answer to ours. */
			if (b[i] == 'n' && last[0] == 0x1b && last[1] == '[' && last[2] >= '0' && last[2] <= '9')
				goto answered;
			last[0] = last[1];
			last[1] = last[2];
			last[2] = b[i];
		}
	}
answered:
	tcflush(P.tty_rd, TCIFLUSH);
}

void pty_finish(struct session *s)
{
	(void)s;
	if (P.master < 0)
		return;
	if (Q.w)
		prompt_close();
	struct watch **ws[] = {&P.w_master, &P.w_in, &P.w_out, &P.w_err};
	for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
		if (*ws[i]) {
			session_unwatch(*ws[i]);
			*ws[i] = NULL;
		}
	if (!P.tty_gone && P.drew) {
		if (P.out.len)
			tty_write_bounded(P.out.b + P.out.off, P.out.len);
		P.out.len = P.out.off = 0;
		tty_leave_alt();
		tty_write_bounded(finish_reset, sizeof finish_reset - 1);
		tabs_reset(P.tty_wr);
		if (P.filter.asked && P.input)
			answers_drop();
	}
	raw_leave();
	restore_stderr();
	err_flush();
	reset_handlers();
	close(P.master);
	P.master = -1;
	if (P.tty_own >= 0)
		close(P.tty_own);
	P.tty_own = -1;
}
