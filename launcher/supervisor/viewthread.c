/* The view thread (viewthread.h).
 *
 * The supervisor has the user's full rights: root's capabilities in a
 * root session, and no Landlock at all. A path the sandbox names must be
 * looked at with the sandbox's rights instead, or the answer (a program
 * found, a script's first bytes, a git config's url) would tell the
 * sandbox what it cannot read: another user's 0700 directory, a file
 * beneath no read root. Credentials, capabilities, no_new_privs and a
 * Landlock domain are each a thread's own, so one thread of the
 * supervisor takes the sandbox's and does every such look, one at a
 * time, for whichever thread asks. */
#include "config.h"
#include "supervisor/viewthread.h"
#include "base/landlock_compat.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "util.h"
#include "view.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t asked = PTHREAD_COND_INITIALIZER, answered = PTHREAD_COND_INITIALIZER;
static enum { IDLE, ASKED, ANSWERED } state;
static int (*req_fn)(void *);
static void *req_arg;
static int req_ret, req_errno;
static int ruleset_fd = -1;
static enum { STARTING, READY, FAILED } setup;

/* This thread alone: no capabilities (root's DAC override and search
 * are the sandbox's no more than anyone's), no new privileges, and the
 * session's Landlock domain. */
static bool narrow(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {{0}};
	if (syscall(SYS_capset, &hdr, data) < 0)
		return false;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return false;
	return ruleset_fd < 0 || syscall(SYS_landlock_restrict_self, ruleset_fd, 0) == 0;
}

static void *view_main(void *unused)
{
	(void)unused;
	bool ok = narrow();
	if (ruleset_fd >= 0)
		close(ruleset_fd);
	pthread_mutex_lock(&mu);
	setup = ok ? READY : FAILED;
	pthread_cond_broadcast(&answered);
	while (ok) {
		while (state != ASKED)
			pthread_cond_wait(&asked, &mu);
		int fn_errno;
		pthread_mutex_unlock(&mu);
		errno = 0;
		int r = req_fn(req_arg);
		fn_errno = errno;
		pthread_mutex_lock(&mu);
		req_ret = r;
		req_errno = fn_errno;
		state = ANSWERED;
		pthread_cond_broadcast(&answered);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

static int run(int (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&mu);
	while (setup == STARTING)
		pthread_cond_wait(&answered, &mu);
	if (setup != READY) {
		pthread_mutex_unlock(&mu);
		errno = EACCES;
		return -1;
	}
	while (state != IDLE)
		pthread_cond_wait(&answered, &mu);
	req_fn = fn;
	req_arg = arg;
	state = ASKED;
	pthread_cond_signal(&asked);
	while (state != ANSWERED)
		pthread_cond_wait(&answered, &mu);
	int r = req_ret, e = req_errno;
	state = IDLE;
	pthread_cond_broadcast(&answered);
	pthread_mutex_unlock(&mu);
	errno = e;
	return r;
}

void viewthread_start(int ruleset)
{
	ruleset_fd = ruleset;
	view_set_runner(run);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_t t;
	int e = pthread_create(&t, NULL, view_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		warnmsg("the supervisor's view thread: %s; it looks at none of the sandbox's paths",
			strerror(e));
		pthread_mutex_lock(&mu);
		setup = FAILED;
		pthread_mutex_unlock(&mu);
		return;
	}
	pthread_detach(t);
}
