/* The process model of DESIGN §2:
 *
 *   wicket (supervisor, unsandboxed)
 *     └─ init: pid 1 of the new pid namespace; builds the mount view
 *        (its base while the supervisor works out the rest of the plan),
 *        then vforks the command, forwards signals to it, reaps orphans
 *        and exits with its status. Its exit ends every process left in
 *        the namespace.
 *          └─ command: session leader, of its own pty when a stream is
 *             a terminal (pty.c) → caps → no_new_privs → Landlock →
 *             fds > 2 closed → seccomp → exec
 *
 * The command is not pid 1 because pid 1 of a namespace ignores every
 * signal it has no handler for: `kill -TERM` would not reach `sleep`.
 *
 * Setup failures travel to the supervisor over a close-on-exec pipe as a
 * struct setup_error; EOF on that pipe means the command was exec'd. */
#include "config.h"
#include "base/session.h"
#include "base/mountops.h"
#include "base/setupfail.h"
#include "child/caps.h"
#include "child/landlock.h"
#include "child/mounts.h"
#include "plan/llplan.h"
#include "plan/plan.h"
#include "supervisor/closer.h"
#include "supervisor/control.h"
#include "supervisor/netnotify.h"
#include "supervisor/proxy.h"
#include "supervisor/pty.h"
#include "supervisor/stdio.h"
#include "supervisor/supervisor.h"
#include "supervisor/viewthread.h"
#include "supervisor/warm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/close_range.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"

/* Signals passed on to the command. The sandboxed command leads a
 * session of its own (pty.c), outside the real terminal's foreground
 * process group, so the supervisor also passes on what that terminal
 * sends (Ctrl-C, Ctrl-\\): to the foreground of the session's pty when
 * it has one that only shows output, else to the command. With a pty
 * that reads the keyboard the real terminal is raw and sends none: Ctrl-C
 * reaches the pty as a byte. init, in the supervisor's process group,
 * gets the terminal's copy too and leaves it (one delivery); so does a
 * command without a sandbox, which is in that group itself. */
static const int fwd_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM};
#define N_FWD (sizeof fwd_signals / sizeof fwd_signals[0])
static volatile pid_t fwd_target;
static volatile sig_atomic_t fwd_from_tty; /* the supervisor of a sandboxed session */
/* Until the command runs there is nothing of the user's to preserve: a
 * request to stop (or Ctrl-C) ends the half-built sandbox at once. */
static volatile sig_atomic_t setup_done, setup_abort_sig;
/* A page shared with init (and the command before its exec, which
 * borrows init's memory): set by the command right before its execve.
 * Nothing of the sandbox's can reach it after the exec (init is not
 * dumpable); the supervisor only reads it. */
static _Atomic int *exec_begun;
/* Other forwarded signals that came during the setup (bit SIG): the
 * command's once it runs (SIGUSR1, SIGALRM...), nothing to stop. */
static volatile sig_atomic_t setup_late_sigs;
/* A signal init got before it knew the command's pid: its vfork returns
 * only after the command's exec, by which time the supervisor (which saw
 * that exec) may already have forwarded one. Handed on right after. */
static volatile sig_atomic_t pending_sig;

/* The terminal is gone (SIGHUP to wicket, or the session's pty saw the
 * real terminal hang up): the command got SIGHUP; one that ignores it
 * gets SIGTERM HANGUP_GRACE_S seconds later, and SIGKILL (all of the
 * sandbox, through init) as long again after that. Not when wicket was
 * started with SIGHUP ignored (nohup): that session is meant to outlive
 * its terminal. A POSIX timer on HANGUP_SIG drives the steps from the
 * signal handlers alone, whichever loop the supervisor waits in. */
#define HANGUP_GRACE_S 2
#define HANGUP_SIG SIGRTMIN
static timer_t hup_timer;
static bool hup_timer_ok, hup_ignored;
static volatile sig_atomic_t hup_stage;

static void hangup_arm(void)
{
	struct itimerspec its = {.it_value = {.tv_sec = HANGUP_GRACE_S}};
	timer_settime(hup_timer, 0, &its, NULL);
}

static void hangup_step(int sig)
{
	(void)sig;
	pid_t t = fwd_target;
	if (t <= 0)
		return;
	if (hup_stage == 1) {
		hup_stage = 2;
		kill(t, SIGTERM);
		hangup_arm();
	} else if (hup_stage == 2) {
		hup_stage = 3;
		kill(t, SIGKILL);
	}
}

static void hangup_prepare(void)
{
	struct sigaction old;
	hup_ignored = sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = hangup_step;
	sa.sa_flags = SA_RESTART;
	sigfillset(&sa.sa_mask);
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = HANGUP_SIG;
	hup_timer_ok = !hup_ignored && sigaction(HANGUP_SIG, &sa, NULL) == 0 &&
		       timer_create(CLOCK_MONOTONIC, &ev, &hup_timer) == 0;
	if (!hup_ignored && !hup_timer_ok)
		warnmsg("cannot time the end of a session whose terminal closes: %s", strerror(errno));
}

static void hangup_finish(void)
{
	if (hup_timer_ok)
		timer_delete(hup_timer);
	hup_timer_ok = false;
	hup_stage = 0;
}

static void hangup_part_close(struct session *s)
{
	(void)s;
	hangup_prepare();
}

static void hangup_part_finish(struct session *s)
{
	(void)s;
	hangup_finish();
}

/* The supervisor's parts in a session's life. At each step they are
 * called in the order of this table; at the end, in the reverse order,
 * as a stack unwinds: what was set up later ends first. So the hang-up
 * timer stops first; the terminal is given back (stdio, its pty) before
 * the proxy and the notifications report their last words; control ends
 * last, writing the session's record with every denial they reported. */
struct part {
	void (*prepare)(struct session *s);      /* before the clone */
	void (*parent_close)(struct session *s); /* after it: the sandbox's ends closed here */
	void (*start)(struct session *s, bool started); /* the command runs (false: its setup failed) */
	void (*finish)(struct session *s);       /* the command ended */
};

/* The sandbox's view (session.h, lib/view.h): init opens its root and
 * its mount namespace once its mounts are final (the sandbox can change
 * them no more: no mount calls, no namespaces, seccomp-rules.c) and hands
 * both over as descriptors, before the command exists; the supervisor
 * takes them once the command runs. A descriptor, not /proc/PID/root:
 * init is not dumpable, so that name is closed to an unprivileged
 * supervisor, and a name could be another process's by then. The mount
 * namespace is held so that the view stays whole until the supervisor is
 * done: were it to end first, the root would be a detached mount with the
 * host's files under what were the stand-ins of hidden paths. */
static void view_prepare(struct session *s)
{
	s->view_sock[0] = s->view_sock[1] = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->view_sock) < 0)
		die_errno("socketpair");
}

/* RULESET: the command's Landlock ruleset, or -1: the view thread takes
 * it on (viewthread.c). */
static int view_send(struct session *s, int ruleset)
{
	close(s->view_sock[0]);
	/* host: init's own root and mount namespace */
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* host: ditto */
	int fds[3] = {root, open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC), ruleset};
	size_t nfds = ruleset >= 0 ? 3 : 2;
	ssize_t n = fds[0] >= 0 && fds[1] >= 0 ?
			    fdpass_send(s->view_sock[1], nfds == 3 ? "L" : "V", 1, fds, nfds, 0) : -1;
	int e = errno;
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	close(s->view_sock[1]);
	s->view_sock[1] = -1;
	if (n != 1)
		return setup_fail(STAGE_MOUNT, e, "hand the sandbox's view to the supervisor");
	return 0;
}

static void view_parent_close(struct session *s)
{
	close(s->view_sock[1]);
	s->view_sock[1] = -1;
}

static void view_start(struct session *s, bool started)
{
	char b = 0; /* read below even when nothing was received */
	struct fdpass_in in;
	ssize_t n = started ? fdpass_recv(s->view_sock[0], &b, 1, 3, 0, MSG_DONTWAIT, &in) : -1;
	close(s->view_sock[0]);
	s->view_sock[0] = -1;
	size_t want = b == 'L' ? 3 : 2;
	if (n != 1 || (b != 'V' && b != 'L') || in.nfds != want || (in.flags & MSG_CTRUNC)) {
		if (n >= 0)
			fdpass_close(&in);
		return; /* no view: every look at a path of the sandbox's fails */
	}
	s->view_root = in.fds[0];
	s->view_ns = in.fds[1];
	/* Looked at with the sandbox's rights, never the supervisor's. */
	viewthread_start(want == 3 ? in.fds[2] : -1);
}

/* The last hold on the sandbox's mount namespace: its close takes the
 * namespace's mounts down, which waits for an RCU grace period (about
 * 0.15 ms). Nothing after this looks through the view, so the closer's
 * thread does that while the session's end goes on (its record, the
 * checks of what the session left on the host). */
static void view_finish(struct session *s)
{
	closer_close(s->view_root);
	closer_close(s->view_ns);
	s->view_root = s->view_ns = -1;
}

static const struct part parts[] = {
	{view_prepare, view_parent_close, view_start, view_finish},
	{NULL, NULL, NULL, control_finish},
	{netnotify_prepare, NULL, netnotify_start, netnotify_finish},
	{proxy_plan, proxy_parent_close, proxy_start, proxy_finish},
	{NULL, stdio_parent_close, stdio_start, stdio_finish},
	{NULL, hangup_part_close, NULL, hangup_part_finish},
	{NULL, warm_parent_close, warm_start, warm_finish},
};
#define N_PARTS (sizeof parts / sizeof parts[0])

static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (fwd_target <= 0) { /* never kill(0, ...): that is our whole process group */
		pending_sig = sig;
		return;
	}
	if (!setup_done) {
		/* The supervisor's setup loop decides: the command may have
		 * started already (its exec closed errp, which the loop has not
		 * seen yet), and then the signal is the command's. */
		if (sig == SIGHUP || sig == SIGINT || sig == SIGQUIT || sig == SIGTERM)
			setup_abort_sig = sig;
		else if (sig < 31)
			setup_late_sigs |= 1 << sig;
		return;
	}
	if (si && si->si_code == SI_KERNEL && (sig == SIGINT || sig == SIGQUIT) &&
	    (!fwd_from_tty || pty_signal(sig)))
		return;
	if (sig == SIGHUP && fwd_from_tty && hup_timer_ok && hup_stage == 0) {
		hup_stage = 1;
		hangup_arm();
	}
	kill(fwd_target, sig);
}

static void install_forwarders(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < N_FWD; i++)
		sigaction(fwd_signals[i], &sa, NULL);
}

static void block_forwarded(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < N_FWD; i++)
		sigaddset(&set, fwd_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static noreturn void child_fail(int errfd)
{
	ssize_t r = write(errfd, &setup_err, sizeof setup_err);
	(void)r;
	_exit(EXIT_WICKET);
}

/* The last steps before the command: each one only narrows what the
 * process may do, and none can be undone by the command. */
/* The dispositions wicket was started with (SIG_IGN from nohup must reach
 * the command), saved by init before it installs its forwarders. */
static struct sigaction orig_action[N_FWD];

static noreturn void exec_command(struct session *s, int ruleset, int errfd, const sigset_t *mask)
{
	if (s->layers.pidns)
		for (size_t i = 0; i < N_FWD; i++)
			sigaction(fwd_signals[i], &orig_action[i], NULL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	if (stdio_command(s) < 0)
		child_fail(errfd);
	if (caps_drop_all() < 0)
		child_fail(errfd);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		setup_fail(STAGE_NNP, errno, "set no_new_privs");
		child_fail(errfd);
	}
	if (ruleset >= 0 && landlock_enforce(ruleset) < 0)
		child_fail(errfd);
	/* Descriptors the caller leaked (a directory fd reaches the host's
	 * writable mounts and hidden files alike) do not cross into the
	 * sandbox: everything above 2 closes at exec. */
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		for (int fd = 3; fd < 65536; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	/* The descriptors that do cross: the sandbox's end of the control
	 * socket and the acknowledgement page (control.c). */
	if (s->ctl_child >= 0)
		fcntl(s->ctl_child, F_SETFD, 0);
	if (s->ack_fd >= 0)
		fcntl(s->ack_fd, F_SETFD, 0);
	/* And for an interactive shell with hooks, the denial count they
	 * read (control.c). */
	if (s->status_fd >= 0)
		fcntl(s->status_fd, F_SETFD, 0);
	/* And a warm session's server, its socket (warm.c). */
	if (s->warm_child >= 0)
		fcntl(s->warm_child, F_SETFD, 0);
	/* With the notify program, its listener goes to the supervisor and is
	 * closed here: the command never holds it (netnotify.c). */
	if (s->layers.seccomp && netnotify_seccomp(s) < 0)
		child_fail(errfd);
	if (exec_begun)
		atomic_store(exec_begun, 1);
	execve(s->exec_path, s->argv, s->envp);
	int e = errno;
	/* The view inside can differ from the one the path was resolved in
	 * (e.g. a program under the host's /tmp). */
	char msg[512];
	int n = snprintf(msg, sizeof msg, "wicket: %s: %s\n", s->argv[0], strerror(e));
	if (n > 0)
		(void)!write(STDERR_FILENO, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
	_exit(e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

/* pid 1: forward, reap, and leave with the command's status. Its
 * forwarders were installed before the command started (pid 1 drops any
 * signal it has no handler for), with signals blocked until here. */
static noreturn void init_loop(int keep_stdin, int offset_wr)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* init holds no terminal or pipe open: readers see EOF when the
	 * command and its children are done with them. */
	/* host: /dev/null */
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd < 3 && devnull >= 0; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			dup2(devnull, fd);
	if (devnull > 2)
		close(devnull);
	/* init needs no privilege to wait and to signal its own children. */
	caps_drop_all();
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, 0);
		if (p == fwd_target) {
			if (keep_stdin >= 0 && offset_wr >= 0) {
				off_t off = lseek(keep_stdin, 0, SEEK_CUR);
				if (write(offset_wr, &off, sizeof off) < 0)
					off = 0;
			}
			_exit(exit_code_of(st));
		}
		if (p < 0 && errno != EINTR)
			_exit(EXIT_WICKET);
	}
}

/* Creating a network namespace is the most expensive single step of a
 * session start (about 0.3 ms of kernel work). A helper task that shares
 * init's memory creates it while init builds the mount view; init joins
 * it with setns() right before it starts the command. The helper makes
 * system calls only, on its own small stack, and shares init's file
 * table: it holds no copy of any pipe end, so closing the release pipe
 * in init lets it go, and the supervisor's error pipe sees EOF on time. */
struct net_helper {
	pid_t pid;
	pid_t parent;   /* who started it: the helper must not outlive it */
	int ready[2];   /* helper -> init: one byte, 0 or the errno */
	int release[2]; /* init closes its end: the helper may exit */
};

static char net_helper_stack[16384] __attribute__((aligned(16)));

/* What the helper reports: a step and its errno (0, 0: the namespace is
 * there and its loopback up). */
enum { NET_OK, NET_UNSHARE, NET_LO_FLAGS, NET_LO_UP };

/* The new namespace's loopback up (a new one starts down), by the helper
 * while init builds the view: the command's private loopback, 127.0.0.1
 * and ::1 (the kernel gives lo ::1 as it comes up, where IPv6 is on), and
 * in mode "domains" where the proxy listens. An ioctl on a datagram
 * socket: no netlink message to build. System calls only (see above). */
static int net_helper_lo_up(int *err)
{
	long fd = syscall(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = errno;
		return NET_LO_FLAGS;
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	ifr.ifr_name[0] = 'l';
	ifr.ifr_name[1] = 'o';
	int step = NET_LO_FLAGS;
	if (syscall(SYS_ioctl, fd, SIOCGIFFLAGS, &ifr) == 0) {
		step = NET_LO_UP;
		ifr.ifr_flags |= IFF_UP;
		if (syscall(SYS_ioctl, fd, SIOCSIFFLAGS, &ifr) == 0)
			step = NET_OK;
	}
	*err = step == NET_OK ? 0 : errno;
	syscall(SYS_close, fd);
	return step;
}

static int net_helper_main(void *arg)
{
	struct net_helper *h = arg;
	unsigned char res[2] = {NET_OK, 0};
	int err = 0;
	/* Die with the parent, and close the race where it died before the
	 * request took effect (a supervisor refusing bad input exits at once;
	 * the helper shares its descriptors and would hold its pipes open). */
	syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (syscall(SYS_getppid) != h->parent)
		syscall(SYS_exit, 1);
	if (syscall(SYS_unshare, CLONE_NEWNET) < 0) {
		res[0] = NET_UNSHARE;
		err = errno;
	} else {
		res[0] = (unsigned char)net_helper_lo_up(&err);
	}
	res[1] = (unsigned char)(err > 0 && err < 256 ? err : err ? EIO : 0);
	if (syscall(SYS_write, h->ready[1], res, 2) != 2)
		syscall(SYS_exit, 1);
	/* Stay alive (holding the namespace) until init has joined it. */
	syscall(SYS_read, h->release[0], res, 1);
	syscall(SYS_exit, 0);
	return 0;
}

static int net_helper_start(struct net_helper *h)
{
	if (pipe2(h->ready, O_CLOEXEC) < 0 || pipe2(h->release, O_CLOEXEC) < 0)
		return setup_fail(STAGE_NETNS, errno, "pipe");
	h->parent = getpid();
	h->pid = clone(net_helper_main, net_helper_stack + sizeof net_helper_stack,
		       CLONE_VM | CLONE_FILES | SIGCHLD, h);
	if (h->pid < 0)
		return setup_fail(STAGE_NETNS, errno, "start network namespace helper");
	return 0;
}

/* Wait for the helper's namespace and enter it; PFD names the helper. */
static int net_helper_enter(struct net_helper *h, int pfd)
{
	unsigned char res[2];
	ssize_t n;
	do
		n = read(h->ready[0], res, 2);
	while (n < 0 && errno == EINTR);
	if (n != 2)
		return setup_fail(STAGE_NETNS, EIO, "network namespace helper died");
	if (res[0] != NET_OK)
		return setup_fail(STAGE_NETNS, res[1],
				  res[0] == NET_UNSHARE  ? "create network namespace" :
				  res[0] == NET_LO_FLAGS ? "loopback's flags" :
							   "bring loopback up");
	if (setns(pfd, CLONE_NEWNET) < 0)
		return setup_fail(STAGE_NETNS, errno, "join network namespace");
	return 0;
}

/* Close this process's ends of the helper's pipes: once no release end
 * is open anywhere, the helper exits. */
static void net_helper_close_pipes(struct net_helper *h)
{
	close(h->release[1]);
	close(h->release[0]);
	close(h->ready[0]);
	close(h->ready[1]);
}

static void net_helper_reap(struct net_helper *h)
{
	while (waitpid(h->pid, NULL, __WALL) < 0 && errno == EINTR)
		;
}

static int net_helper_join(struct net_helper *h)
{
	int pfd = (int)syscall(SYS_pidfd_open, h->pid, 0);
	if (pfd < 0)
		return setup_fail(STAGE_NETNS, errno, "pidfd_open");
	int r = net_helper_enter(h, pfd);
	close(pfd);
	net_helper_close_pipes(h);
	net_helper_reap(h);
	return r;
}

/* As root no user namespace has to exist first, so the supervisor starts
 * the helper itself before it prepares anything else: the namespace is
 * usually ready by the time init wants it. init inherits the helper's
 * pidfd and pipes (the helper lives outside the new pid namespace). */
static struct net_helper early_net = {.pid = -1};
static int early_net_pidfd = -1;

void net_early_start(const struct session *s)
{
	if (!s->layers.netns || s->layers.userns)
		return;
	if (net_helper_start(&early_net) < 0) {
		early_net.pid = -1; /* init will try again and explain */
		return;
	}
	early_net_pidfd = (int)syscall(SYS_pidfd_open, early_net.pid, 0);
	if (early_net_pidfd < 0)
		net_early_release();
}

/* The helper may go once init has joined (or the session failed). */
void net_early_release(void)
{
	if (early_net.pid < 0)
		return;
	net_helper_close_pipes(&early_net);
	if (early_net_pidfd >= 0)
		close(early_net_pidfd);
	early_net_pidfd = -1;
	net_helper_reap(&early_net);
	early_net.pid = -1;
}

static int recv_late_plan(struct session *s, struct mount_ops *late);

static noreturn void child_main(struct session *s, int errfd, int alive_rd, int alive_wr,
				const sigset_t *mask)
{
	/* The sandbox dies with the supervisor; the pipe closes the race
	 * where the supervisor died before PDEATHSIG was set. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	close(alive_wr);
	struct pollfd pfd = {.fd = alive_rd, .events = POLLIN};
	if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR)))
		_exit(EXIT_WICKET);
	close(alive_rd);
	netnotify_child_close();

	if (s->layers.pidns) {
		/* init leaves wicket's process group, so that the terminal's
		 * Ctrl-C, Ctrl-\ and hang-up reach wicket alone, which passes
		 * each on once. Sent to both, the terminal's signal and
		 * wicket's could merge into one pending at init, the
		 * terminal's, which forward() ignores: the command never got
		 * its Ctrl-C (a test saw it about one run in five). */
		setpgid(0, 0);
		for (size_t i = 0; i < N_FWD; i++)
			sigaction(fwd_signals[i], NULL, &orig_action[i]);
		install_forwarders();
	}
	struct net_helper nh = {.pid = -1};
	bool bounding_dropped = false;
	bool early = s->layers.netns && early_net.pid > 0 && early_net_pidfd >= 0;
	if (s->layers.netns && !early && net_helper_start(&nh) < 0)
		child_fail(errfd);
	if (s->layers.userns && ns_write_id_maps(s->uid, s->gid) < 0)
		child_fail(errfd);
	if (s->layers.mntns) {
		if (s->late_pipe[1] >= 0)
			close(s->late_pipe[1]);
		if (mounts_run(&s->mount_base) < 0)
			child_fail(errfd);
		if (s->layers.pidns && mounts_proc() < 0)
			child_fail(errfd);
		struct mount_ops late;
		if (s->late_pipe[0] >= 0) {
			/* init needs no bounding set: emptied while the supervisor
			 * may still be making the late plan, off the critical
			 * path; inherited through vfork. */
			if (caps_drop_bounding() < 0)
				child_fail(errfd);
			bounding_dropped = true;
			if (recv_late_plan(s, &late) < 0)
				child_fail(errfd);
		} else {
			plan_mount_ops_late(&s->plan, s->start_dir, &late);
		}
		if (mounts_run(&late) < 0)
			child_fail(errfd);
	} else if (chdir(s->start_dir) < 0) {
		setup_fail(STAGE_CHDIR, errno, "chdir %s", s->start_dir);
		child_fail(errfd);
	}
	int keep_stdin = -1;
	if (stdio_apply(s, &keep_stdin) < 0)
		child_fail(errfd);
	int ruleset = -1;
	if (s->landlock.abi && (ruleset = landlock_build(&s->landlock)) < 0)
		child_fail(errfd);
	if (view_send(s, ruleset) < 0)
		child_fail(errfd);
	/* init needs no bounding set; emptying it here (while the network
	 * namespace may still be in the making) spares the command's critical
	 * path, and is inherited through vfork. */
	if (!bounding_dropped && caps_drop_bounding() < 0)
		child_fail(errfd);
	if (early) {
		if (net_helper_enter(&early_net, early_net_pidfd) < 0)
			child_fail(errfd);
		close(early_net_pidfd);
		net_helper_close_pipes(&early_net);
	} else if (s->layers.netns && net_helper_join(&nh) < 0) {
		child_fail(errfd);
	}
	/* Mode "domains": the proxy's listeners, made in the namespace
	 * before the command exists, go to the supervisor (proxy.c). */
	if (proxy_child_listen(s) < 0)
		child_fail(errfd);
	/* init stays inside the sandbox's namespaces, privileged as root:
	 * nothing there may read its memory or descriptors through /proc/1.
	 * Set after the last use of /proc/self (it turns root-owned) and after
	 * joining the network namespace (setns through a pidfd makes a
	 * ptrace-style check on the helper, which shares init's memory and so
	 * its dumpable flag); the command's exec makes it dumpable again. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);

	if (!s->layers.pidns)
		exec_command(s, ruleset, errfd, mask);
	/* vfork: the command's path to exec is system calls only (the seccomp
	 * program is prebuilt), so it can borrow init's memory and save
	 * copying the page tables. */
	pid_t cmd = vfork();
	if (cmd < 0) {
		setup_fail(STAGE_EXEC, errno, "fork");
		child_fail(errfd);
	}
	if (cmd == 0)
		exec_command(s, ruleset, errfd, mask);
	fwd_target = cmd;
	setup_done = 1;
	int late = pending_sig;
	pending_sig = 0;
	if (late)
		kill(cmd, late);
	if (ruleset >= 0)
		close(ruleset);
	netnotify_init_close();
	/* init neither reports nor asks: the control socket and the hooks'
	 * count are the command's and the supervisor's (control.c). */
	control_init_close(s);
	warm_init_close(s);
	close(errfd);
	for (int fd = 1; fd < 3; fd++)
		if (s->stdio[fd].relay_rd >= 0)
			close(s->stdio[fd].relay_rd);
	if (s->offset_pipe[0] >= 0)
		close(s->offset_pipe[0]);
	init_loop(keep_stdin, s->offset_pipe[1]);
}

/* The late part of the plan travels from the supervisor to init as its
 * operations (base/mountops.h, one codec), then the command's
 * environment: a length and the encoded ops, a count and NUL-terminated
 * strings. */
static void send_late_plan(struct session *s)
{
	struct mount_ops late;
	plan_mount_ops_late(&s->plan, s->start_dir, &late);
	size_t olen;
	char *ops = mount_ops_encode(&late, &olen);
	mount_ops_free(&late);
	char *buf = NULL;
	size_t len = 0, cap = 0, envn = 0;
	uint32_t c = (uint32_t)olen;
	bytes_add(&buf, &len, &cap, &c, sizeof c);
	bytes_add(&buf, &len, &cap, ops, olen);
	free(ops);
	while (s->envp[envn])
		envn++;
	c = (uint32_t)envn;
	bytes_add(&buf, &len, &cap, &c, sizeof c);
	for (size_t i = 0; i < envn; i++)
		bytes_add(&buf, &len, &cap, s->envp[i], strlen(s->envp[i]) + 1);
	for (size_t off = 0; off < len;) {
		ssize_t w = write(s->late_pipe[1], buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* init died: its status tells the rest */
		off += (size_t)w;
	}
	close(s->late_pipe[1]);
	s->late_pipe[1] = -1;
	free(buf);
}

/* Parse one list; false on anything malformed (the peer is our own
 * supervisor, but a short read must not become a half-applied plan). */
static bool take_list(const char **p, const char *end, struct strv *out)
{
	uint32_t c;
	if ((size_t)(end - *p) < sizeof c)
		return false;
	memcpy(&c, *p, sizeof c);
	*p += sizeof c;
	for (uint32_t i = 0; i < c; i++) {
		const char *z = memchr(*p, '\0', (size_t)(end - *p));
		if (!z)
			return false;
		strv_add(out, *p);
		*p = z + 1;
	}
	return true;
}

static int recv_late_plan(struct session *s, struct mount_ops *late)
{
	size_t len = 0, cap = 65536;
	char *buf = xmalloc(cap);
	for (;;) {
		if (len == cap) {
			if (cap >= (64u << 20)) {
				free(buf);
				return setup_fail(STAGE_MOUNT, E2BIG, "session plan too large");
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t n = read(s->late_pipe[0], buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return setup_fail(STAGE_MOUNT, errno, "read session plan");
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(s->late_pipe[0]);
	const char *p = buf, *end = buf + len;
	struct strv env = {0};
	uint32_t olen = 0;
	bool ok = len >= sizeof olen;
	if (ok) {
		memcpy(&olen, p, sizeof olen);
		p += sizeof olen;
		ok = olen <= (size_t)(end - p) && mount_ops_decode(p, olen, late);
	}
	if (ok) {
		p += olen;
		ok = take_list(&p, end, &env) && p == end;
		if (!ok)
			mount_ops_free(late);
	}
	free(buf);
	if (!ok || env.n == 0)
		return setup_fail(STAGE_MOUNT, EPROTO, "the supervisor did not finish the session plan");
	s->envp = env.v;
	return 0;
}

static const char *stage_name(int stage)
{
	switch (stage) {
	case STAGE_USERNS_MAP: return "user namespace";
	case STAGE_MOUNT: return "mount namespace";
	case STAGE_PROC: return "/proc for the pid namespace";
	case STAGE_CAPS: return "capabilities";
	case STAGE_NNP: return "no_new_privs";
	case STAGE_LANDLOCK: return "Landlock";
	case STAGE_SECCOMP: return "seccomp";
	case STAGE_CHDIR: return "workspace";
	case STAGE_NETNS: return "network namespace";
	case STAGE_STDIO: return "standard streams";
	default: return "setup";
	}
}

static void explain_setup_error(const struct session *s, const struct setup_error *e)
{
	warnmsg("cannot set up the sandbox (%s): %s: %s", stage_name(e->stage), e->detail,
		strerror(e->err));
	if ((e->stage == STAGE_MOUNT || e->stage == STAGE_USERNS_MAP) && e->err == EPERM &&
	    s->kinfo.apparmor_restrict)
		warnmsg("hint: AppArmor restricts user namespaces here; install contrib/apparmor "
			"(see 'wicket doctor')");
}

static const char *clone_hint(const struct session *s, int err)
{
	if (err == ENOSPC)
		return "the user namespace limit is reached (user.max_user_namespaces)";
	if (err == EPERM && !s->kinfo.root_admin)
		return s->kinfo.userns_fix ? s->kinfo.userns_fix
					   : "user namespaces are not allowed here (a container "
					     "runtime's seccomp profile?); see 'wicket doctor'";
	if (err == EINVAL)
		return "this kernel lacks one of the namespace kinds; see 'wicket doctor'";
	return "see 'wicket doctor'";
}

/* An interactive shell the session ran may have taken the terminal's
 * foreground; give it back to our process group. */
static void reclaim_terminal(bool tty_fg)
{
	if (tty_fg && tcgetpgrp(STDIN_FILENO) != getpgrp()) {
		sigset_t ttou, old;
		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		sigprocmask(SIG_BLOCK, &ttou, &old);
		tcsetpgrp(STDIN_FILENO, getpgrp());
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
}

/* Full access (a policy with "sandbox": false): no namespace, no
 * Landlock, no seccomp, capabilities and descriptors as they are. The
 * supervisor still runs the command as its child: signals are forwarded,
 * the status comes back as DESIGN §8 says, and the command dies with
 * wicket as a sandboxed one would. */
static int run_unsandboxed(struct session *s)
{
	warnmsg("WARNING: policy %s: NO SANDBOX; the command can read and write everything you "
		"can, and use the network", s->pol.name);
	int alive[2];
	if (pipe2(alive, O_CLOEXEC) < 0)
		die_errno("pipe");
	sigset_t orig_mask;
	block_forwarded(&orig_mask);
	bool tty_fg = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
	pid_t pid = fork();
	if (pid < 0)
		die_errno("fork");
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		close(alive[1]);
		struct pollfd pfd = {.fd = alive[0], .events = POLLIN};
		if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR)))
			_exit(EXIT_WICKET);
		close(alive[0]);
		sigprocmask(SIG_SETMASK, &orig_mask, NULL);
		if (chdir(s->workspace) < 0) {
			warnmsg("cannot enter %s: %s", s->workspace, strerror(errno));
			_exit(EXIT_WICKET);
		}
		execve(s->exec_path, s->argv, s->envp);
		int e = errno;
		warnmsg("%s: %s", s->argv[0], strerror(e));
		_exit(e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
	}
	close(alive[0]);
	fwd_target = pid;
	setup_done = 1; /* nothing half-built to abandon: signals go to the command */
	install_forwarders();
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die_errno("waitpid");
	fwd_target = 0;
	close(alive[1]);
	reclaim_terminal(tty_fg);
	return exit_code_of(st);
}

static void on_sigpipe(int sig)
{
	(void)sig; /* the write that raised it fails with EPIPE */
}

int session_run(struct session *s)
{
	/* Running without any layer takes two agreeing signals: the policy
	 * says so and the layers were decided for it. Anything else (layers
	 * decided before the policy was resolved) is a bug, and refused. */
	if (s->layers.unsandboxed != !s->pol.sandbox)
		die("internal error: the layers were decided for a %s policy, but policy %s %s",
		    s->layers.unsandboxed ? "full-access" : "sandboxed",
		    s->pol.name ? s->pol.name : "(unnamed)",
		    s->pol.sandbox ? "asks for a sandbox" : "asks for none");
	if (s->layers.unsandboxed)
		return run_unsandboxed(s);
	/* A reader that went away (wicket run ... 2>&1 | head) ends nothing
	 * of the supervisor's: its writes fail with EPIPE and the session
	 * ends as any other (approved commands ended, its record kept). A
	 * handler, not SIG_IGN: exec resets it, so the command and all the
	 * supervisor starts get SIGPIPE as usual. */
	struct sigaction pipe_old;
	if (sigaction(SIGPIPE, NULL, &pipe_old) == 0 && pipe_old.sa_handler == SIG_DFL) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_sigpipe;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGPIPE, &sa, NULL);
	}
	/* Read roots the session's own /tmp and /run would cover. */
	if (s->layers.mntns) {
		plan_read_keep(s);
		plan_mount_ops_base(&s->plan, &s->mount_base);
	}
	/* Landlock's rules, from the same table (plan_fstable, with the
	 * kept read roots): decided here, added as they are in the child. */
	plan_landlock(s, &s->landlock);

	int errp[2], alive[2];
	if (pipe2(errp, O_CLOEXEC) < 0 || pipe2(alive, O_CLOEXEC) < 0)
		die_errno("pipe");

	unsigned long flags = SIGCHLD;
	if (s->layers.userns)
		flags |= CLONE_NEWUSER;
	if (s->layers.mntns)
		flags |= CLONE_NEWNS;
	if (s->layers.pidns)
		flags |= CLONE_NEWPID;
	/* CLONE_NEWNET is not here: see struct net_helper. */
	if (s->layers.ipcns)
		flags |= CLONE_NEWIPC;

	void *page = mmap(NULL, sizeof *exec_begun, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	exec_begun = page == MAP_FAILED ? NULL : page;
	/* Before the sandbox exists: it could use up the processes a thread
	 * needs later (closer.h). */
	if (!closer_start())
		die("cannot start the thread that closes what the sandbox hands over");
	for (size_t i = 0; i < N_PARTS; i++)
		if (parts[i].prepare)
			parts[i].prepare(s);

	/* Stop the terminal-owning dance from racing with our handlers. */
	sigset_t orig_mask;
	block_forwarded(&orig_mask);
	bool tty_fg = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();

	pid_t pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, 0);
	if (pid < 0)
		die("cannot create the sandbox's namespaces: %s (%s)", strerror(errno),
		    clone_hint(s, errno));
	if (pid == 0) {
		close(errp[0]);
		child_main(s, errp[1], alive[0], alive[1], &orig_mask);
	}
	close(errp[1]);
	close(alive[0]);
	s->child = pid;
	/* What an approved command leaves behind in a session of its own
	 * (setsid -f, a daemon) becomes ours, not init's, and ends with the
	 * session (ask.c). */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	if (s->layers.pidns) {
		/* Every process of the sandbox is in it (no call makes another). */
		char p[64];
		struct stat st;
		snprintf(p, sizeof p, "/proc/%d/ns/pid", (int)pid);
		/* host: /proc of init, our child */
		if (stat(p, &st) == 0) {
			s->pidns_dev = st.st_dev;
			s->pidns_ino = st.st_ino;
		}
	}
	for (size_t i = 0; i < N_PARTS; i++)
		if (parts[i].parent_close)
			parts[i].parent_close(s);
	fwd_target = pid;
	fwd_from_tty = 1;
	install_forwarders();
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
	if (s->late_pipe[0] >= 0) {
		/* init builds the base of the view meanwhile. */
		close(s->late_pipe[0]);
		s->late_pipe[0] = -1;
		s->late_prepare(s);
		send_late_plan(s);
		if (s->late_notes)
			s->late_notes(s);
	}

	struct setup_error e;
	ssize_t n;
	bool abandoned = false;
	for (;;) {
		/* The command may stop before its exec for the supervisor to
		 * take its seccomp listener (netnotify.c). A request to stop
		 * (setup_abort_sig) ends a setup still under way at once;
		 * errp, closed by the command's exec (and init's end once its
		 * vfork returns), tells whether it is. */
		struct pollfd p[2] = {{errp[0], POLLIN, 0}, {netnotify_setup_fd(), POLLIN, 0}};
		/* Once the command's exec is under way, its outcome decides,
		 * not how soon init, which shares errp until its vfork
		 * returns, gets to close its end (on a loaded machine the
		 * command may have long run by then). */
		bool execing = exec_begun && atomic_load(exec_begun);
		int r = poll(p, 2, setup_abort_sig && !abandoned && !execing ? 0 : -1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			die_errno("poll");
		}
		if (r == 0) {
			kill(pid, SIGKILL);
			abandoned = true;
			continue;
		}
		if (p[1].revents & POLLIN) {
			netnotify_take(s);
			continue;
		}
		if (p[0].revents)
			break;
	}
	do
		n = read(errp[0], &e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(errp[0]);
	bool started = n == 0 && !abandoned;
	if (started) {
		setup_done = 1;
		/* Sent while the command was starting: now it is the command's. */
		int late = setup_abort_sig;
		setup_abort_sig = 0;
		if (late)
			kill(pid, late);
		for (int sig = 1; sig < 31; sig++)
			if (setup_late_sigs & (1 << sig))
				kill(pid, sig);
		setup_late_sigs = 0;
	}
	net_early_release();
	for (size_t i = 0; i < N_PARTS; i++)
		if (parts[i].start)
			parts[i].start(s, started);

	if (s->ctl_child >= 0) {
		close(s->ctl_child);
		s->ctl_child = -1;
	}
	/* The page stays mapped here (control.c). */
	if (s->ack_fd >= 0) {
		close(s->ack_fd);
		s->ack_fd = -1;
	}
	bool watching = false;
	for (int i = 0; i < WK_MAX_WATCH; i++)
		watching |= s->watch[i].ready != NULL;
	int st;
	if (stdio_has_relay(s) || watching) {
		if (stdio_relay_wait(s, pid, &st) < 0)
			die_errno("relay");
	} else {
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				die_errno("waitpid");
	}
	fwd_target = 0;
	for (size_t i = N_PARTS; i-- > 0;)
		if (parts[i].finish)
			parts[i].finish(s);
	close(alive[1]);

	reclaim_terminal(tty_fg);

	if (setup_abort_sig) {
		warnmsg("interrupted while setting up the sandbox");
		return exit_code_of_signal(setup_abort_sig);
	}
	if (n == (ssize_t)sizeof e) {
		e.detail[sizeof e.detail - 1] = '\0';
		explain_setup_error(s, &e);
		return EXIT_WICKET;
	}
	return exit_code_of(st);
}
