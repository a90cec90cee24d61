/* The closer (supervisor/closer.h): one thread, a bounded queue. */
#include "config.h"
#include "supervisor/closer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CLOSER_QUEUE 4096
#define CLOSER_BATCH 256

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int queue[CLOSER_QUEUE];
static size_t head, count;
static bool started, failed;

/* The N descriptors of FDS closed, none of them waiting. The last close
 * of a socket can wait: a TCP socket with SO_LINGER and unsent data
 * waits the linger time, also when it is closed with the unix socket
 * whose queue it is in flight in, and the sandbox can set either up. A
 * process that exits never waits (the kernel skips the linger of an
 * exiting task), and one thread that waited would hold every close after
 * it (red team 14, F4). So, when there is a socket among them, a child
 * holds copies of them all while this thread closes its own, none of them
 * the last, and then exits, which closes the copies. */
static void close_batch(const int *fds, size_t n)
{
	bool socket = false;
	for (size_t i = 0; i < n && !socket; i++) {
		struct stat st;
		socket = fstat(fds[i], &st) == 0 && S_ISSOCK(st.st_mode);
	}
	int p[2] = {-1, -1};
	pid_t pid = -1;
	if (socket && pipe2(p, O_CLOEXEC) == 0) {
		pid = fork();
		if (pid == 0) {
			/* Until every copy of the parent's is closed. */
			char b;
			close(p[1]);
			while (read(p[0], &b, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		close(p[0]);
	}
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	if (p[1] >= 0)
		close(p[1]);
	/* Reaped here, or by ask.c's reaper of adopted processes (ECHILD). */
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

static void *closer_main(void *arg)
{
	(void)arg;
	int batch[CLOSER_BATCH];
	for (;;) {
		size_t n = 0;
		pthread_mutex_lock(&mu);
		while (!count)
			pthread_cond_wait(&cv, &mu);
		while (count && n < CLOSER_BATCH) {
			batch[n++] = queue[head];
			head = (head + 1) % CLOSER_QUEUE;
			count--;
		}
		pthread_mutex_unlock(&mu);
		close_batch(batch, n);
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
