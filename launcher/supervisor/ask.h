#ifndef WICKET_SUPERVISOR_ASK_H
#define WICKET_SUPERVISOR_ASK_H

#include "base/session.h"
#include "supervisor/notifyutil.h"
#include "supervisor/pty.h"


/* ask.c: `wicket ask` requests, the supervisor's side: the decision
 * (policy rules, approver, terminal, timeout), the command run outside
 * the sandbox, the audit log. ask_request takes the packet and its
 * descriptors (stdin, stdout, stderr, reply socket); never blocks. */
void ask_request(struct session *s, const char *buf, size_t len, pid_t sender,
		 int sender_pidfd, const int *fds, int nfds);
void ask_finish(struct session *s);
/* The command and the sandbox are gone: approved commands still running
 * (and what they left behind) are ended now (SIGHUP, SIGTERM, SIGKILL),
 * not when they let go of the session's output. */
void ask_session_over(struct session *s);
/* ask.c: one line of the audit log for a decision of the proxy. */
void ask_audit_net(const struct session *s, const char *comm, long host_pid, const char *object,
		   bool allowed, const char *reason);

/* A name not in the allowed domains, which the proxy asks about (ask.c
 * asks the approver or the person at the terminal, with the safeguards of
 * `wicket ask`); the answer comes back from the relay
 * loop, through Q->answer: PTY_YES (this connection), PTY_SESSION (the
 * name, for the rest of the session) or PTY_NO with REASON, said in the
 * refusal's line. */
struct net_question {
	unsigned long token;
	const char *host, *request, *comm;
	long pid, host_pid; /* as the sandbox sees it; as the host does */
	/* Where the answer goes (the proxy's; ask.c calls no proxy code);
	 * SETTLED: it holds for the rest of the session (a "for the
	 * session", or a no from the person or the approver). */
	void (*answer)(unsigned long token, enum pty_answer answer, bool settled,
		       const char *reason);
};
void ask_net(struct session *s, const struct net_question *q);

#endif
