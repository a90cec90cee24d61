/* The closer (supervisor/closer.h): one thread, a bounded queue. */
#include "config.h"
#include "supervisor/closer.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#define CLOSER_QUEUE 4096

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int queue[CLOSER_QUEUE];
static size_t head, count;
static bool started, failed;

static void *closer_main(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (!count)
			pthread_cond_wait(&cv, &mu);
		int fd = queue[head];
		head = (head + 1) % CLOSER_QUEUE;
		count--;
		pthread_mutex_unlock(&mu);
		close(fd);
	}
	return NULL;
}

static bool start(void)
{
	if (started || failed)
		return started;
	/* No signal is the closer's to take: the relay loop handles them. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 * 1024);
	pthread_t t;
	started = pthread_create(&t, &at, closer_main, NULL) == 0;
	failed = !started;
	pthread_attr_destroy(&at);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return started;
}

void closer_close(int fd)
{
	if (fd < 0)
		return;
	pthread_mutex_lock(&mu);
	if (!start() || count == CLOSER_QUEUE) {
		/* Kept open: closing it here could block the caller. */
		pthread_mutex_unlock(&mu);
		return;
	}
	queue[(head + count) % CLOSER_QUEUE] = fd;
	count++;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}
