/* The closer (supervisor/closer.h): one thread, a bounded queue. */
#include "config.h"
#include "supervisor/closer.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
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
static int queue[CLOSER_QUEUE];
static size_t head, count;
static enum { C_NONE, C_STARTING, C_RUNNING, C_FAILED } state;
static timer_t timer;

static void on_closer_sig(int sig)
{
	(void)sig; /* only to be pending: the waiting close returns */
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
	struct itimerspec on = {.it_value = {.tv_nsec = CLOSER_WAIT_NS}}, off;
	memset(&off, 0, sizeof off);
	timer_settime(timer, 0, &on, NULL);
	close(fd);
	timer_settime(timer, 0, &off, NULL);
}

static void *closer_main(void *arg)
{
	(void)arg;
	/* The one signal this thread takes: its own timer's. */
	sigset_t only;
	sigemptyset(&only);
	sigaddset(&only, CLOSER_SIG);
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = CLOSER_SIG;
	ev._sigev_un._tid = gettid(); /* sigev_notify_thread_id, which glibc 2.36 lacks */
	bool ok = timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0 &&
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
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_closer_sig;
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
