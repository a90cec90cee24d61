/* libFuzzer target: one packet on the control socket, as the supervisor
 * handles it (launcher/supervisor/control.c). Whatever the sandbox sends must give a
 * clean refusal or a well-formed denial or answer: no crash, no leak, no
 * undefined behaviour, no unbounded growth.
 *
 * The first byte of an input chooses whether a reply socket comes with
 * the packet (bit 0); the rest is the packet. The denials kept between
 * inputs are bounded by the supervisor itself. */
#include "config.h"
#include "base/session.h"
#include "base/user.h"
#include "supervisor/ask.h"
#include "supervisor/control.h"
#include "supervisor/events.h"
#include "supervisor/notifyutil.h"
#include "supervisor/pty.h"
#include "supervisor/watch.h"

#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "askproto.h"
#include "path.h"

/* The launcher's functions control.c uses, reduced to what it needs
 * (plan.c and autorun.c, which decide what `wicket why` may advise, are
 * the real ones). */
struct passwd *passwd_of(uid_t uid)
{
	(void)uid;
	return NULL;
}

/* The ask requests have a target of their own (ask-fuzz.c): here the
 * packet is parsed and its descriptors closed, as a refusal would. */
void ask_request(struct session *ss, const char *buf, size_t len, pid_t sender,
		 int sender_pidfd, const int *fds, int nfds)
{
	(void)ss, (void)sender, (void)sender_pidfd;
	struct ask_req r;
	const char *err;
	if (ask_parse(buf, len, &r, &err))
		ask_req_free(&r);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
}

void ask_finish(struct session *ss)
{
	(void)ss;
}

/* No terminal is relayed here: nothing the program wrote waits in a pty,
 * and no line of it is left unfinished. */
void pty_catch_up(void)
{
}

bool pty_midline(void)
{
	return false;
}

void pty_line_ended(void)
{
}

static struct session s;

static void setup(void)
{
	s.pol.name = "fuzz";
	s.pol.sandbox = true;
	strv_add(&s.pol.read, "/");
	strv_add(&s.pol.write, "/work");
	strv_add(&s.pol.protect, "/work/.git/hooks");
	strv_add(&s.pol.hide, "/home/u/.ssh");
	s.pol.net = NET_PORTS;
	s.workspace = "/work";
	s.session_id = "0123456789abcdef";
	s.view_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	s.view_ns = -1;
	for (size_t i = 0; i < WK_MAX_WATCH; i++)
		session_unwatch(&s.watch[i]);
	control_out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	setenv("XDG_STATE_HOME", "/nonexistent", 1);
	/* Each denial's event line too, made from the packet's bytes. */
	char fd[16];
	snprintf(fd, sizeof fd, "%d", open("/dev/null", O_WRONLY));
	if (events_open(fd))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	if (!ready) {
		setup();
		ready = 1;
	}
	if (size < 1)
		return 0;
	int sv[2] = {-1, -1};
	if ((data[0] & 1) && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 0;
	control_handle(&s, (const char *)data + 1, size - 1, 42, WK_PIDFD_NONE, sv[1] >= 0 ? &sv[1] : NULL,
		       sv[1] >= 0 ? 1 : 0);
	if (sv[0] >= 0) {
		/* Drain the answer as a client would, then let any answer still
		 * pending finish: the watch is served until it goes. */
		char buf[65536];
		fcntl(sv[0], F_SETFL, O_NONBLOCK);
		for (int round = 0; round < 64; round++) {
			while (read(sv[0], buf, sizeof buf) > 0)
				;
			bool pending = false;
			for (size_t i = 0; i < WK_MAX_WATCH; i++)
				if (s.watch[i].ready) {
					pending = true;
					s.watch[i].ready(&s, &s.watch[i], POLLOUT);
				}
			if (!pending)
				break;
		}
		close(sv[0]);
	}
	return 0;
}
