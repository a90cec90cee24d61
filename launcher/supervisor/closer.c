/* The closer (supervisor/closer.h): one thread, a bounded queue. */
#include "config.h"
#include "supervisor/closer.h"
#include "fdpass.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CLOSER_QUEUE 4096
/* A close that waits (the linger time of a TCP socket) is cut short by a
 * signal to the thread after this long: the kernel stops waiting when a
 * signal is pending, and the socket is closed all the same. */
#define CLOSER_WAIT_NS (20 * 1000000L)
#define CLOSER_SIG (SIGRTMIN + 5)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
/* Made again by start_locked, of CLOCK_MONOTONIC (closer_reserve). */
static pthread_cond_t room_cv = PTHREAD_COND_INITIALIZER;
static int queue[CLOSER_QUEUE];
static size_t head, count;
/* Backpressure (closer_busy): at HIGH descriptors waiting or about to be
 * taken (RESERVED, closer_reserve), no more are taken from the sandbox
 * until they are down to LOW. */
static size_t high = 64, low = 32, reserved;
static bool waiting;     /* closer_busy said so: tell ROOM_FD at LOW */
static int room_fd = -1; /* an eventfd */
static enum { C_NONE, C_STARTING, C_RUNNING, C_FAILED } state;
static timer_t timer;
/* closer_recv's: a timer aimed at the thread that started the closer
 * (the relay loop's), and that thread. */
static timer_t loop_timer;
static pid_t loop_tid;
static bool loop_timer_made;

static void on_closer_sig(int sig)
{
	(void)sig; /* only to be pending: the waiting close returns */
}

/* Timer T (thread_timer) set to go off in CLOSER_WAIT_NS, or (ON false)
 * disarmed; false if it could not be set. */
static bool timer_arm(timer_t t, bool on)
{
	struct itimerspec its;
	memset(&its, 0, sizeof its);
	if (on)
		its.it_value.tv_nsec = CLOSER_WAIT_NS;
	return timer_settime(t, 0, &its, NULL) == 0;
}

/* FD closed; a socket's close, which can wait (a TCP socket with SO_LINGER
 * and unsent data, also one in flight in a unix socket closed here), for
 * CLOSER_WAIT_NS at most (red team 14, F4). */
static void close_one(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		close(fd);
		return;
	}
	timer_arm(timer, true);
	close(fd);
	timer_arm(timer, false);
}

/* With MU held: room for N more beside those queued and reserved (more
 * than HIGH at once fits only alone). */
static bool room_for(size_t n)
{
	return count + reserved + n <= high || count + reserved == 0;
}

/* With MU held, after COUNT or RESERVED went down: those waiting for
 * room are told. */
static void room_changed(void)
{
	if (count + reserved < high)
		pthread_cond_broadcast(&room_cv);
	if (waiting && count + reserved <= low) {
		waiting = false;
		(void)!write(room_fd, &(uint64_t){1}, sizeof(uint64_t));
	}
}

/* A timer that sends CLOSER_SIG to thread TID. */
static bool thread_timer(pid_t tid, timer_t *t)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = CLOSER_SIG;
	ev._sigev_un._tid = tid; /* sigev_notify_thread_id, which glibc 2.36 lacks */
	return timer_create(CLOCK_MONOTONIC, &ev, t) == 0;
}

static void *closer_main(void *arg)
{
	(void)arg;
	/* The one signal this thread takes: its own timer's. */
	sigset_t only;
	sigemptyset(&only);
	sigaddset(&only, CLOSER_SIG);
	bool ok = thread_timer(gettid(), &timer) &&
		  pthread_sigmask(SIG_UNBLOCK, &only, NULL) == 0;
	pthread_mutex_lock(&mu);
	state = ok ? C_RUNNING : C_FAILED;
	pthread_cond_broadcast(&cv);
	if (!ok) {
		pthread_mutex_unlock(&mu);
		return NULL;
	}
	for (;;) {
		while (!count)
			pthread_cond_wait(&cv, &mu);
		int fd = queue[head];
		head = (head + 1) % CLOSER_QUEUE;
		count--;
		pthread_mutex_unlock(&mu);
		close_one(fd);
		pthread_mutex_lock(&mu);
		room_changed();
	}
	return NULL;
}

/* With MU held. */
static bool start_locked(void)
{
	if (state != C_NONE) {
		while (state == C_STARTING)
			pthread_cond_wait(&cv, &mu);
		return state == C_RUNNING;
	}
	state = C_STARTING;
	/* A quarter of the descriptors the supervisor may have, and less
	 * where one packet's 253 (SCM_MAX_FD) and the supervisor's own would
	 * not fit beside it; at most half the queue, at least 16. From a
	 * limit of about 600 up, the supervisor then never reaches its limit,
	 * where the kernel would drop what a packet carries (and close it) in
	 * the relay loop's thread; below, it can, and closer_recv's timer
	 * bounds what that costs (red team 18, F2). */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rlim_t q = rl.rlim_cur / 4;
		rlim_t fit = rl.rlim_cur > 253 + 64 ? (rl.rlim_cur - 253 - 64) / 2 : 0;
		if (fit < q)
			q = fit;
		high = q < 16 ? 16 : q > CLOSER_QUEUE / 2 ? CLOSER_QUEUE / 2 : (size_t)q;
		low = high / 2;
	}
	pthread_condattr_t ca;
	bool cv_made = pthread_condattr_init(&ca) == 0 &&
		       pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
		       pthread_cond_init(&room_cv, &ca) == 0;
	pthread_condattr_destroy(&ca);
	room_fd = cv_made ? eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) : -1;
	if (room_fd < 0) {
		state = C_FAILED;
		return false;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_closer_sig;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* No signal but its own is the closer's to take: the relay loop
	 * handles them. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 * 1024);
	pthread_t t;
	bool made = sigaction(CLOSER_SIG, &sa, NULL) == 0 &&
		    pthread_create(&t, &at, closer_main, NULL) == 0;
	pthread_attr_destroy(&at);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!made)
		state = C_FAILED;
	while (state == C_STARTING)
		pthread_cond_wait(&cv, &mu);
	return state == C_RUNNING;
}

bool closer_start(void)
{
	pthread_mutex_lock(&mu);
	bool ok = start_locked();
	if (ok && !loop_timer_made) {
		loop_tid = gettid();
		loop_timer_made = ok = thread_timer(loop_tid, &loop_timer);
	}
	pthread_mutex_unlock(&mu);
	return ok;
}

void closer_close(int fd)
{
	if (fd < 0)
		return;
	pthread_mutex_lock(&mu);
	if (!start_locked() || count == CLOSER_QUEUE) {
		/* Kept open: closing it here could block the caller. */
		pthread_mutex_unlock(&mu);
		return;
	}
	queue[(head + count) % CLOSER_QUEUE] = fd;
	count++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

bool closer_busy(void)
{
	pthread_mutex_lock(&mu);
	bool busy = count + reserved >= high;
	if (busy)
		waiting = true;
	pthread_mutex_unlock(&mu);
	return busy;
}

int closer_room_fd(void)
{
	return room_fd;
}

bool closer_reserve(size_t n, int ms)
{
	struct timespec until = monotonic_after_ms(ms);
	pthread_mutex_lock(&mu);
	int rc = 0;
	while (state == C_RUNNING && !room_for(n) && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&room_cv, &mu, &until);
	bool room = room_for(n);
	if (room)
		reserved += n;
	pthread_mutex_unlock(&mu);
	return room;
}

void closer_unreserve(size_t n)
{
	pthread_mutex_lock(&mu);
	reserved -= n < reserved ? n : reserved;
	room_changed();
	pthread_mutex_unlock(&mu);
}

ssize_t closer_recv(int sock, void *buf, size_t len, size_t maxfds, unsigned want, int flags,
		    struct fdpass_in *in)
{
	bool guard = loop_timer_made && gettid() == loop_tid;
	if (guard) {
		/* The signal must reach this thread, whatever mask wicket
		 * was started with (the command has its own by now). */
		static bool unblocked;
		if (!unblocked) {
			sigset_t only;
			sigemptyset(&only);
			sigaddset(&only, CLOSER_SIG);
			unblocked = pthread_sigmask(SIG_UNBLOCK, &only, NULL) == 0;
		}
		guard = unblocked && timer_arm(loop_timer, true);
	}
	ssize_t n = fdpass_recv(sock, buf, len, maxfds, want, flags, in);
	if (guard) {
		int e = errno;
		timer_arm(loop_timer, false);
		errno = e;
	}
	return n;
}
