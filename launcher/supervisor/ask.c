/* `wicket ask`, the supervisor's side (DESIGN §6).
 *
 * A process in the sandbox sends one packet on the control socket,
 *   {"v":1,"type":"ask","argv":[...],"reason":"...","timeout":N}
 * with four descriptors (SCM_RIGHTS): its stdin, stdout, stderr and a
 * SOCK_SEQPACKET reply socket; or, sent with send() where a sendmsg()
 * would be a seccomp notification (WICKET_ASK_TAKE, control.c), with
 * "fds" naming them, taken from the sender (take_fds). The supervisor decides, in order: the
 * policy's escalation.deny rules, its escalation.allow rules, the mode
 * (deny; the approver program: --approver or the policy's; the real
 * terminal), and no answer within the timeout is No. Rules match the
 * whole argv (askproto.h). A CAREFUL command, one whose code the sandbox
 * can write (careful.h), skips the allow rules and the approver: only the
 * terminal can approve it. An approved command
 * runs outside the sandbox, as the supervisor's child, with the
 * requester's stdio and cwd and the supervisor's own environment. The
 * reply socket carries {"v":1,"type":"signal","signal":N} from the client
 * and one {"v":1,"type":"result",...} back; its end means the requester
 * is gone. Every request is one line of the audit log.
 *
 * Why the sandbox cannot approve its own request:
 *  - nothing it sends is an answer: the reply socket is only read for
 *    signals, the control socket knows no "approve";
 *  - the approver is outside (a path from the command line or from a
 *    policy file the session cannot write) and is refused when the
 *    sandbox could rewrite it; the prompt is on the real terminal, which
 *    no sandboxed process holds, with the relay paused (pty.c);
 *  - what runs is what was shown: the executable is opened (O_PATH) when
 *    the request arrives and run through that descriptor (execveat), the
 *    cwd likewise (fchdir), so renaming files or directories afterwards
 *    changes nothing; neither an allow rule nor an approver approves a
 *    CAREFUL command (the sandbox could change the code after the
 *    decision); paths through /proc magic links (/proc/PID/root...) are
 *    refused: they lead into the sandbox's own view of the files;
 *  - argv[0] is resolved with the supervisor's PATH (absolute entries
 *    only) and the command gets the supervisor's environment: no
 *    LD_PRELOAD, PATH or other variable of the sandbox's reaches it;
 *  - the sender is who the kernel says (SCM_CREDENTIALS): a process
 *    without CAP_SYS_ADMIN cannot claim another pid, and the pid only
 *    picks the cwd, which is checked to be the same directory outside;
 *    where the kernel also sends a pidfd of the sender (SCM_PIDFD, 6.5),
 *    its /proc entry is checked to be the sender's own, not that of a
 *    process that got the number after the sender died.
 *
 * The supervisor never waits: the approver, the prompt, the timeout and
 * the command are watches of the relay loop (pidfds, a timerfd, the
 * terminal, the reply socket). At most ASK_MAX requests are in flight;
 * more get an error reply. */
#include "config.h"
#include "base/session.h"
#include "base/setupfail.h"
#include "base/state.h"
#include "plan/autorun.h"
#include "plan/plan.h"
#include "supervisor/ask.h"
#include "supervisor/approverlink.h"
#include "supervisor/closer.h"
#include "supervisor/events.h"
#include "supervisor/pty.h"
#include "supervisor/watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <linux/close_range.h>
#include <linux/openat2.h>
#include <time.h>
#include <unistd.h>

#include "askproto.h"
#include "classify.h"
#include "fdpass.h"
#include "grant.h"
#include "sha256.h"
#include "careful.h"
#include "askrender.h"
#include "path.h"
#include "view.h"

extern char **environ;

#define ASK_MAX 16            /* requests in flight */
#define ASK_END_GRACE_MS 1000 /* a command at the session's end: SIGHUP, SIGTERM, SIGKILL */
/* What one session may write to the audit log: past AUDIT_BUDGET bytes
 * its further requests are refused, unrun and only counted (one line at
 * the end of the session), so that no session can rotate away the record
 * of the ones before it: the log keeps AUDIT_KEEP files of AUDIT_ROTATE
 * before the current one, and a session can fill at most a quarter of
 * one (plus the lines of the requests already in flight). */
#define AUDIT_BUDGET (1 << 20)
/* Of which the proxy's refusals may take this much: a session that makes
 * refused connections in a loop cannot spend the budget of its requests. */
#define AUDIT_NET_BUDGET (AUDIT_BUDGET / 4)
#define AUDIT_KEEP 3          /* audit.jsonl.1 .. audit.jsonl.3 */
#define AUDIT_ARGS 32         /* arguments an audit line lists (it says how many there were) */
#define AUDIT_STR 256         /* bytes of a string in an audit line; longer: cut in the middle */
#define AUDIT_ROTATE (4 << 20) /* audit.jsonl grows to this, then becomes audit.jsonl.1 */
_Static_assert(AUDIT_BUDGET <= AUDIT_ROTATE / 4, "a session fills at most a quarter of a file");
/* After FLOOD_REFUSALS questions refused (No, Ctrl-C, no answer) within
 * FLOOD_WINDOW_MS, the session's requests are refused without a question
 * until it has not asked for FLOOD_QUIET_MS: a loop that asks again as
 * soon as it is refused (and ignores signals) cannot take the terminal. */
#define FLOOD_REFUSALS 5
#define FLOOD_WINDOW_MS 60000
#define FLOOD_QUIET_MS 30000
#define SIGNALS_PER_WAKE 8
#define APPROVER_ANSWER_MAX 65536 /* bytes of an approver's answer (approver_answer) */

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

enum state { A_FREE, A_QUEUED, A_PROMPT, A_APPROVER, A_RUNNING, A_REAPING };

struct ask {
	enum state st;
	int io[3];              /* the requester's stdin, stdout, stderr */
	int reply;              /* -1 once closed */
	int cwd_fd, exe_fd;     /* opened when the request came */
	struct ask_req req;
	pid_t host_pid;
	long sb_pid;            /* as the sandbox sees it */
	char *comm, *exe, *cwd, *path;
	char *careful;          /* --outside: NULL, or why the sandbox controls the code
				 * that would run (careful.h), said to the person */
	struct wk_grant given;  /* a grant's: what its sandbox gets (the request's, or
				 * less: an approver's answer) */
	char **run_argv, **run_envp; /* a grant's: the wicket that starts its sandbox */
	int *held;              /* and the objects of its paths (grant_check), -1 ended */
	size_t nheld;
	int approver_out;       /* the approver's standard output (its answer), or -1 */
	unsigned long link_id;  /* sent to the approver a harness holds (approverlink.h): its
				 * answer's "id"; 0: not */
	const char *input;      /* its standard input: "terminal", "null", or what the
				 * sandbox writes ("pipe", "file", "socket", "device") */
	bool input_sb;          /* the latter: only the person or a rule with "stdin":
				 * true passes it on; else the command gets /dev/null */
	bool input_nulled;      /* and it did */
	int ctty;               /* which of io[] is a pty of its own (pty_cmd_open), or -1 */
	bool signalled;         /* the sandbox had a signal sent to it (its wicket ask) */
	long long t0, deadline; /* monotonic ms; deadline 0: none (running) */
	time_t wall0;
	pid_t child;            /* approver or command */
	int child_pidfd;
	struct watch *w_reply, *w_child;
	const char *decision, *by;
	char *rule, *message;
	int status;             /* the command's, or 128+N when cancelled by signal N */
	bool ran;               /* the command ran (status is its own) */
	/* A question of the proxy's about a host (ask_net), not a command:
	 * no descriptors, no command; the answer goes to the proxy. */
	bool net;
	unsigned long net_token;
	void (*net_reply)(unsigned long, enum pty_answer, bool, const char *);
	char *net_host, *net_request;
	enum pty_answer net_answer; /* once approved: PTY_YES or PTY_SESSION */
};

static struct ask asks[ASK_MAX];
static bool init_done;

/* A grant's writable roots and the places beneath them that run code
 * later (autorun.c), as they were when its sandbox started. Its own
 * wicket moves aside what its command made there when it ends; when the
 * session ends, after every command of it has (end_commands), they are
 * looked at again here (grant_guards_check), so that a grant's wicket
 * killed before its own look leaves nothing planted either. */
#define GUARDS_MAX 64
struct grant_guard {
	struct strv roots, before;
};
static struct grant_guard guards[GUARDS_MAX];
static size_t n_guards;
static int self_fd = -1; /* wicket itself (init_once) */
static struct wk_wset wset; /* what the session can write (plan_wset) */
static bool wset_done;

/* Who can write what the command reads on standard input. The
 * session's terminal: only the person types there (the sandbox cannot
 * inject keys: TIOCSTI is refused). /dev/null, by device number, whatever
 * inode names it. Anything else the sandbox gave it, a pipe, a file or a
 * socket, holds what the sandbox wrote: an approved vim, git commit's
 * editor, less or ssh would take that as keys. The person at the terminal
 * is shown it in the question and decides; a rule passes it on only when
 * it says "stdin": true; otherwise (the approver, any other rule) the
 * command runs with /dev/null and the client says so. */
static const char *input_kind(int fd, bool *from_sandbox)
{
	struct stat st;
	*from_sandbox = false;
	if (pty_is_session_tty(fd))
		return "terminal";
	bool known = fstat(fd, &st) == 0;
	if (known && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
		return "null";
	*from_sandbox = true;
	return !known ? "unknown" : S_ISFIFO(st.st_mode) ? "pipe" : S_ISREG(st.st_mode) ? "file"
	     : S_ISSOCK(st.st_mode) ? "socket" : "device";
}

static const char *input_article(const char *kind)
{
	return strcmp(kind, "pipe") == 0 ? "a pipe" : strcmp(kind, "file") == 0 ? "a file"
	     : strcmp(kind, "socket") == 0 ? "a socket" : strcmp(kind, "device") == 0 ? "a device"
	     : "something";
}
static int timer_fd = -1;
static struct watch *w_timer;
static size_t audit_bytes;       /* written by this session */
static size_t audit_net_bytes;   /* of which about the network (the proxy's, ask_net's) */
/* Requests refused without a line each in the audit log: how many, from
 * when to when (tally_line says it in one line). */
struct tally {
	unsigned n;
	time_t from, last;
};
static struct tally unlogged;    /* refused past AUDIT_BUDGET */
static long long refused_at[FLOOD_REFUSALS]; /* the latest refusals, monotonic ms */
static unsigned refused_next;
static long long muted_until;    /* 0: questions are asked */
static struct tally muted;       /* refused without a question since */

static void init_once(void)
{
	if (init_done)
		return;
	for (size_t i = 0; i < ASK_MAX; i++)
		asks[i] = (struct ask){.io = {-1, -1, -1}, .reply = -1, .cwd_fd = -1,
				       .exe_fd = -1, .child_pidfd = -1, .status = -1, .ctty = -1,
				       .approver_out = -1};
	/* host: this very program, which plans and starts a grant's sandbox */
	self_fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);
	init_done = true;
}

/* Every descriptor of a request: the sandbox's objects, closed off the
 * relay loop (closer.h). */
static void close_fd(int *fd)
{
	if (*fd >= 0)
		closer_close(*fd);
	*fd = -1;
}

/* --- messages to the client ---------------------------------------------- */

/* One packet, never waiting: the socket is fresh and the client reads;
 * a client that does not is dropped. */
static void send_doc(int fd, json_t *doc)
{
	char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	json_decref(doc);
	if (fd >= 0 && text)
		(void)!send(fd, text, strlen(text), MSG_DONTWAIT | MSG_NOSIGNAL);
	free(text);
}

static void send_error(int fd, const char *msg)
{
	send_doc(fd, json_pack("{s:i, s:s, s:s}", "v", 1, "type", "error", "error", msg));
}

/* --- the audit log --------------------------------------------------------- */

/* FILE.1 .. FILE.AUDIT_KEEP each one further back, the oldest dropped,
 * and FILE becomes FILE.1. Under the lock of FILE (audit_open): one
 * session at a time. */
static bool audit_rotate(const char *file)
{
	for (int i = AUDIT_KEEP - 1; i >= 0; i--) {
		char *from = i ? xasprintf("%s.%d", file, i) : xstrdup(file);
		char *to = xasprintf("%s.%d", file, i + 1);
		bool ok = rename(from, to) == 0 || (i && errno == ENOENT);
		free(from);
		free(to);
		if (!ok)
			return false;
	}
	return true;
}

/* FILE for appending a line of LEN bytes, locked: when the line would
 * take it past AUDIT_ROTATE it is rotated (audit_rotate) and a new FILE
 * is started. The lock is on the file itself, and the name is checked
 * to still be that file once it is held: two sessions that rotate at
 * once rotate it once. */
static int audit_open(const char *file, size_t len)
{
	for (int tries = 0; tries < 4; tries++) {
		/* host: the audit log, in the user's state directory */
		int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		struct stat st, named;
		if (fd < 0 || flock(fd, LOCK_EX) < 0 || fstat(fd, &st) < 0) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		/* host: the audit log */
		if (lstat(file, &named) < 0 || named.st_ino != st.st_ino || named.st_dev != st.st_dev) {
			close(fd); /* rotated meanwhile by another session */
			continue;
		}
		if (st.st_size == 0 || (unsigned long long)st.st_size + len <= AUDIT_ROTATE)
			return fd;
		bool moved = audit_rotate(file);
		close(fd);
		if (!moved)
			return -1;
	}
	return -1;
}

/* One line of the audit log; what it takes counts against the session's
 * budget. */
static void audit_line(json_t *o)
{
	char *dir = wicket_state_dir();
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (dir && text && wicket_state_dir_make(dir)) {
		char *file = path_join(dir, "audit.jsonl");
		int fd = audit_open(file, strlen(text) + 1);
		if (fd >= 0) {
			size_t n = strlen(text);
			text[n] = '\n'; /* json_dumps leaves room: the NUL becomes the newline */
			if (write(fd, text, n + 1) != (ssize_t)(n + 1))
				warnmsg("ask: cannot append to %s", file);
			audit_bytes += n + 1;
			close(fd);
		} else {
			warnmsg("ask: cannot open %s: %s", file, strerror(errno));
		}
		free(file);
	}
	free(dir);
	free(text);
}

/* Room left for lines about the network (their share: AUDIT_NET_BUDGET). */
static bool net_budget_left(void)
{
	return audit_net_bytes < AUDIT_NET_BUDGET && audit_bytes < AUDIT_BUDGET;
}

/* A line about the network, on its share of the budget. */
static void audit_line_net(json_t *o)
{
	if (!net_budget_left()) {
		json_decref(o);
		return;
	}
	size_t before = audit_bytes;
	audit_line(o);
	audit_net_bytes += audit_bytes - before;
}

/* A request no one was asked about: no one to ask, or the policy's mode
 * (or budget) asks no one. */
static bool nobody_asked(const char *by)
{
	return strcmp(by, "no-terminal") == 0 || strcmp(by, "policy") == 0;
}

static json_t *argv_json(const struct strv *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->n; i++)
		json_array_append_new(a, json_string(v->v[i]) ?: json_string("?"));
	return a;
}

/* A string from the sandbox, as JSON: jansson wants UTF-8. */
static json_t *jstr(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	char *c = text_clean(s, 4096);
	j = json_string(c);
	free(c);
	return j;
}

/* S for the audit log: at most AUDIT_STR bytes, its middle cut out. */
static json_t *jstr_cut(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n <= AUDIT_STR)
		return jstr(s);
	char *c = xasprintf("%.*s...%s", AUDIT_STR / 2, s, s + n - AUDIT_STR / 2);
	json_t *j = jstr(c);
	free(c);
	return j;
}

/* The argv for the audit log: the first AUDIT_ARGS arguments, a long one
 * as {"head", "tail", "bytes"}; "argc" beside it says how many there were. */
static json_t *audit_argv(const struct strv *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->n && i < AUDIT_ARGS; i++) {
		size_t n = strlen(v->v[i]);
		if (n <= AUDIT_STR / 2) {
			json_array_append_new(a, jstr(v->v[i]));
			continue;
		}
		char *head = xasprintf("%.*s", AUDIT_STR / 4, v->v[i]);
		json_array_append_new(a, json_pack("{s:o, s:o, s:I}", "head", jstr(head), "tail",
						   jstr(v->v[i] + n - AUDIT_STR / 4), "bytes",
						   (json_int_t)n));
		free(head);
	}
	return a;
}

/* V does not fit an audit line whole (audit_argv cuts it). */
static bool argv_cut(const struct strv *v)
{
	if (v->n > AUDIT_ARGS)
		return true;
	for (size_t i = 0; i < v->n; i++)
		if (strlen(v->v[i]) > AUDIT_STR / 2)
			return true;
	return false;
}

/* The whole of V, kept beside the audit log in a file named by its
 * digest (audit-argv/SHA256.json), so that the record holds what ran
 * however long it was; the name, relative to the log's directory, or
 * NULL when it could not be kept (the line then says so). Its bytes
 * count against the session's budget. */
static char *audit_argv_file(const struct strv *v)
{
	json_t *a = argv_json(v);
	char *text = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	char *dir = wicket_state_dir(), *name = NULL;
	if (text && dir && wicket_state_dir_make(dir)) {
		char hex[65];
		size_t n = strlen(text);
		wk_sha256_hex(text, n, hex);
		char *sub = path_join(dir, "audit-argv");
		char *rel = xasprintf("audit-argv/%s.json", hex);
		char *file = path_join(dir, rel);
		char *tmp = xasprintf("%s.%d.tmp", file, (int)getpid());
		struct stat st;
		/* host: the user's state directory */
		if ((mkdir(sub, 0700) == 0 || errno == EEXIST) && lstat(sub, &st) == 0 &&
		    S_ISDIR(st.st_mode)) {
			/* host: a file of the state directory, named by its content */
			int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
			bool ok = fd >= 0 && write(fd, text, n) == (ssize_t)n;
			if (fd >= 0)
				close(fd);
			/* host: the same */
			if (ok && rename(tmp, file) == 0) {
				name = rel;
				rel = NULL;
				audit_bytes += n;
			} else {
				/* host: the same */
				unlink(tmp);
			}
		}
		free(tmp);
		free(file);
		free(rel);
		free(sub);
	}
	free(dir);
	free(text);
	return name;
}

static const char *policy_name(const struct session *s)
{
	return s->pol.name ? s->pol.name : DEFAULT_POLICY;
}

static void audit(const struct session *s, const struct ask *a)
{
	if (a->by && (strcmp(a->by, "rate-limit") == 0 || strcmp(a->by, "audit-budget") == 0))
		return; /* counted, and said in one line (flood_summary, budget_summary) */
	char when[32];
	struct tm tm;
	time_t t = a->wall0;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	json_t *o = json_object();
	json_object_set_new(o, "time", json_string(when));
	json_object_set_new(o, "session", json_string(s->session_id ? s->session_id : ""));
	json_object_set_new(o, "policy", jstr(policy_name(s)));
	if (a->net) {
		/* A question about a host: what was asked, and the answer;
		 * on the proxy's budget. Not asked (no one to ask, or the
		 * policy's mode): the proxy's refusal is the line. */
		if (a->by && nobody_asked(a->by)) {
			json_decref(o);
			return;
		}
		json_object_set_new(o, "type", json_string("network"));
		json_object_set_new(o, "pid", json_integer(a->host_pid));
		json_object_set_new(o, "sandbox_pid", json_integer(a->sb_pid));
		json_object_set_new(o, "comm", jstr_cut(a->comm));
		json_object_set_new(o, "object", jstr_cut(a->net_request));
		json_object_set_new(o, "host", jstr_cut(a->net_host));
		json_object_set_new(o, "decision", json_string(a->decision ? a->decision : "error"));
		json_object_set_new(o, "by", json_string(a->by ? a->by : "error"));
		if (a->decision && strcmp(a->decision, "approved") == 0)
			json_object_set_new(o, "scope", json_string(a->net_answer == PTY_SESSION ?
								    "session" : "once"));
		if (a->message)
			json_object_set_new(o, "message", jstr_cut(a->message));
		json_object_set_new(o, "duration_ms", json_integer(now_ms() - a->t0));
		audit_line_net(o);
		return;
	}
	json_object_set_new(o, "pid", json_integer(a->host_pid));
	json_object_set_new(o, "sandbox_pid", json_integer(a->sb_pid));
	json_object_set_new(o, "comm", jstr_cut(a->comm));
	json_object_set_new(o, "exe", jstr_cut(a->exe));
	json_object_set_new(o, "argc", json_integer((json_int_t)a->req.argv.n));
	json_object_set_new(o, "argv", audit_argv(&a->req.argv));
	if (argv_cut(&a->req.argv)) {
		char *whole = audit_argv_file(&a->req.argv);
		json_object_set_new(o, "argv_whole", whole ? json_string(whole)
				    : json_string("(not kept: the state directory could not take it)"));
		free(whole);
	}
	json_object_set_new(o, "path", jstr_cut(a->path));
	json_object_set_new(o, "cwd", jstr_cut(a->cwd));
	json_object_set_new(o, "reason", jstr_cut(a->req.reason));
	if (a->req.outside)
		json_object_set_new(o, "outside", json_true());
	else
		json_object_set_new(o, "grant_asked", wk_grant_to_json(&a->req.grant));
	if (!a->req.outside && a->decision && strcmp(a->decision, "approved") == 0)
		json_object_set_new(o, "grant", wk_grant_to_json(&a->given));
	if (a->careful)
		json_object_set_new(o, "careful", jstr_cut(a->careful));
	json_object_set_new(o, "stdin", json_string(a->input ? a->input : "?"));
	if (a->input_nulled)
		json_object_set_new(o, "stdin_replaced", json_string("/dev/null"));
	json_object_set_new(o, "decision", json_string(a->decision ? a->decision : "error"));
	json_object_set_new(o, "by", json_string(a->by ? a->by : "error"));
	if (a->rule)
		json_object_set_new(o, "rule", jstr_cut(a->rule));
	if (a->message)
		json_object_set_new(o, "message", jstr_cut(a->message));
	json_object_set_new(o, "status", a->ran ? json_integer(a->status) : json_null());
	json_object_set_new(o, "duration_ms", json_integer(now_ms() - a->t0));
	audit_line(o);
}

void ask_audit_net(const struct session *s, const char *comm, long host_pid, const char *object,
		   bool allowed, const char *reason)
{
	/* Past their budget the proxy's decisions go unlogged (the refusals
	 * are still in `wicket why`). */
	if (!net_budget_left())
		return;
	char when[32];
	struct tm tm;
	time_t t = time(NULL);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	json_t *o = json_object();
	json_object_set_new(o, "time", json_string(when));
	json_object_set_new(o, "session", json_string(s->session_id ? s->session_id : ""));
	json_object_set_new(o, "policy", jstr(policy_name(s)));
	json_object_set_new(o, "type", json_string("network"));
	json_object_set_new(o, "pid", json_integer(host_pid));
	json_object_set_new(o, "comm", jstr_cut(comm ? comm : "?"));
	json_object_set_new(o, "object", jstr_cut(object));
	json_object_set_new(o, "decision", json_string(allowed ? "allowed" : "denied"));
	json_object_set_new(o, "by", json_string("proxy"));
	if (reason)
		json_object_set_new(o, "reason", jstr_cut(reason));
	audit_line_net(o);
}

/* --- the life of a request ---------------------------------------------------- */

static json_t *request_json(const struct session *s, const struct ask *a);

/* An "ask" line of the event stream (events.h): request A put to WHO
 * ("approver" or "terminal"; NULL: decided, as A says). */
static void ask_event(const struct session *s, const struct ask *a, const char *who)
{
	if (!events_on())
		return;
	json_t *req = request_json(s, a);
	json_object_del(req, "v");
	json_object_del(req, "session");
	json_t *o = json_object();
	json_object_set_new(o, "session", json_string(s->session_id ? s->session_id : ""));
	json_object_set_new(o, "phase", json_string(who ? "asked" : "decided"));
	if (who) {
		json_object_set_new(o, "to", json_string(who));
	} else {
		json_object_set_new(o, "decision", json_string(a->decision ? a->decision : "error"));
		json_object_set_new(o, "by", json_string(a->by ? a->by : "error"));
		if (a->message)
			json_object_set_new(o, "message", jstr(a->message));
		if (a->status >= 0)
			json_object_set_new(o, "status", json_integer(a->status));
	}
	json_object_set_new(o, "request", req);
	events_emit("ask", o);
}

static void timer_rearm(void);
static void prompt_next(struct session *s);
static bool grant_is_path(int k);
static char *fd_path(int fd);
static char *grant_check(const struct session *s, const struct wk_grant *g, int *held);
static void reap_adopted(pid_t sandbox);

/* The process group of a child of ours; never kill(0) or kill(-1),
 * which would reach the supervisor itself or everything it can signal. */
static void kill_group(pid_t pid, int sig)
{
	if (pid > 1)
		kill(-pid, sig);
}


static void free_vec(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void held_close(struct ask *a)
{
	for (size_t i = 0; i < a->nheld; i++)
		if (a->held[i] >= 0)
			close(a->held[i]);
	free(a->held);
	a->held = NULL;
	a->nheld = 0;
}

static void slot_free(struct ask *a)
{
	if (a->w_reply)
		session_unwatch(a->w_reply);
	if (a->w_child)
		session_unwatch(a->w_child);
	for (int i = 0; i < 3; i++)
		close_fd(&a->io[i]);
	close_fd(&a->reply);
	close_fd(&a->cwd_fd);
	close_fd(&a->exe_fd);
	close_fd(&a->child_pidfd);
	ask_req_free(&a->req);
	free(a->comm);
	free(a->exe);
	free(a->cwd);
	free(a->path);
	free(a->careful);
	free(a->rule);
	free(a->message);
	free(a->net_host);
	free(a->net_request);
	wk_grant_free(&a->given);
	free_vec(a->run_argv);
	free_vec(a->run_envp);
	held_close(a);
	close_fd(&a->approver_out);
	*a = (struct ask){.io = {-1, -1, -1}, .reply = -1, .cwd_fd = -1, .exe_fd = -1,
			  .child_pidfd = -1, .status = -1, .ctty = -1, .approver_out = -1};
}

static const char taken_back[] =
	"wicket: the question was taken back (no answer in time, or the requester is gone).";

/* The end of a request: the answer to the client, the audit line, and
 * the slot freed (or kept until a killed approver is reaped). */
static void conclude(struct session *s, struct ask *a, const char *decision, const char *by,
		     const char *message)
{
	a->decision = decision;
	a->by = by;
	if (message && !a->message)
		a->message = xstrdup(message);
	json_t *r = json_pack("{s:i, s:s, s:s, s:s}", "v", 1, "type", "result", "decision",
			      decision, "by", by);
	if (r && a->message)
		json_object_set_new(r, "message", jstr(a->message));
	if (r && a->status >= 0)
		json_object_set_new(r, "status", json_integer(a->status));
	send_doc(a->reply, r);
	audit(s, a);
	ask_event(s, a, NULL);
	if (a->net) {
		/* No one to ask, or a policy that asks no one: the plain
		 * refusal; else who said no. */
		bool yes = strcmp(decision, "approved") == 0;
		char *why = yes ? NULL :
			    nobody_asked(by) || !a->message ? xstrdup("not in the allowed domains") :
			    xasprintf("not in the allowed domains; %s", a->message);
		/* For the session: its "s", the approver's yes; the person's
		 * or the approver's no. */
		bool decided = strcmp(by, "terminal") == 0 || strcmp(by, "approver") == 0;
		enum pty_answer answer = yes ? a->net_answer : PTY_NO;
		a->net_reply(a->net_token, answer, answer == PTY_SESSION || (!yes && decided), why);
		free(why);
	}
	bool was_prompt = a->st == A_PROMPT;
	if (was_prompt)
		pty_prompt_cancel(s, taken_back);
	if (a->st == A_APPROVER && a->child > 0) {
		kill_group(a->child, SIGKILL);
		a->st = A_REAPING;
		a->deadline = 0;
		if (a->w_reply)
			session_unwatch(a->w_reply);
		a->w_reply = NULL;
		close_fd(&a->reply);
	} else {
		slot_free(a);
	}
	timer_rearm();
	if (was_prompt)
		prompt_next(s);
}

static void deny(struct session *s, struct ask *a, const char *by, const char *msg)
{
	conclude(s, a, "denied", by, msg);
}

/* deny() with a message made of FMT. */
__attribute__((format(printf, 4, 5))) static void denyf(struct session *s, struct ask *a,
							const char *by, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	deny(s, a, by, m);
	free(m);
}

struct spawn {
	int (*fn)(void *);
	void *arg;
};

/* The signals whose disposition is not the default in this process (a
 * handler, or ignored), from its own /proc status (SigCgt, SigIgn): bit
 * N-1 for signal N. All of them when that cannot be read. Only the
 * caller's stack is written. */
static unsigned long long sig_not_default(void)
{
	char buf[4096];
	unsigned long long set = 0;
	/* host: our own status */
	read_text_at(AT_FDCWD, "/proc/self/status", buf, sizeof buf);
	static const char *const keys[] = {"\nSigIgn:\t", "\nSigCgt:\t"};
	for (size_t i = 0; i < 2; i++) {
		const char *l = strstr(buf, keys[i]);
		char *end;
		unsigned long long v = l ? strtoull(l + strlen(keys[i]), &end, 16) : 0;
		if (!l || *end != '\n')
			return ~0ULL;
		set |= v;
	}
	return set;
}

static int spawn_child(void *p)
{
	const struct spawn *sp = p;
	setsid();
	/* Back to the default, for the signals that are not: 10 system
	 * calls instead of 64 on a path every approved command takes
	 * (bench/README.md). The table is this child's own copy (no
	 * CLONE_SIGHAND), so no other thread changes it meanwhile. */
	unsigned long long set = sig_not_default();
	_Static_assert(NSIG <= 65, "a signal set in 64 bits");
	/* The kernel's call, not libc's: libc refuses the two signals it
	 * keeps for its threads (32, 33), which a caller may have ignored
	 * all the same, and an exec keeps an ignored signal ignored. */
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		unsigned long mask;
	} dfl = {SIG_DFL, 0, NULL, 0};
	for (int sig = 1; sig < NSIG; sig++)
		if (set >> (sig - 1) & 1)
			syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof dfl.mask);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	return sp->fn(sp->arg);
}

/* A child that runs FN(ARG), which ends in an exec or _exit: its own
 * session (no terminal of the supervisor's, no signal from its
 * keyboard), default dispositions. Every signal is blocked until the
 * child has reset them: a signal meant for the child (kill_group) must
 * never run one of the supervisor's handlers in it (its forwarder would
 * pass it on to the sandbox).
 *
 * The child shares the supervisor's memory until its exec, and the
 * supervisor's thread waits for that (CLONE_VM | CLONE_VFORK, as
 * posix_spawn does): a fork() of the supervisor, with its worker threads
 * (unixnotify.c), copied its page tables and then faulted on every page
 * either side wrote, and cost an approved `wicket ask` more than all the
 * rest on a loaded machine (bench/README.md). So FN only makes system
 * calls on what it is given and writes nothing but its own stack; its
 * dispositions are its own (no CLONE_SIGHAND). */
static pid_t spawn_clean(int (*fn)(void *), void *arg)
{
	static char stack[64 << 10] __attribute__((aligned(16)));
	struct spawn sp = {fn, arg};
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid_t pid = clone(spawn_child, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &sp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

static void approve(struct session *s, struct ask *a, const char *by);

/* The grant G an approver gives instead of the one asked for: within
 * what was asked, it is then what is given. NULL, or why it is refused
 * (allocated). */
static char *approver_narrow(struct ask *a, json_t *g)
{
	struct wk_grant answer = {0};
	char *why = NULL;
	if (!wk_grant_from_json(g, NULL, NULL, &answer, &why))
		;
	else {
		char *more = wk_grant_covers(&a->req.grant, &answer);
		if (more) {
			why = xasprintf("the approver's answer grants more than was asked: %s", more);
			free(more);
		}
	}
	if (why) {
		wk_grant_free(&answer);
		return why;
	}
	wk_grant_free(&a->given);
	a->given = answer;
	return NULL;
}

/* An approver that said yes may narrow the grant: its standard output is
 * nothing (the grant asked for), or {"grant": {...}} within what was
 * asked, which is then what is given. NULL, or why its answer is
 * refused (allocated). */
static char *approver_answer(struct ask *a)
{
	char *buf = xmalloc(APPROVER_ANSWER_MAX + 1);
	size_t n = 0;
	ssize_t r;
	while (a->approver_out >= 0 && n <= APPROVER_ANSWER_MAX &&
	       (r = read(a->approver_out, buf + n, APPROVER_ANSWER_MAX + 1 - n)) > 0)
		n += (size_t)r;
	close_fd(&a->approver_out);
	size_t k = 0;
	while (k < n && (buf[k] == ' ' || buf[k] == '\n' || buf[k] == '\t' || buf[k] == '\r'))
		k++;
	if (k == n) {
		free(buf);
		return NULL;
	}
	if (n > APPROVER_ANSWER_MAX || a->req.outside) {
		free(buf);
		return xasprintf(a->req.outside ? "an approver does not answer for a command run "
			"outside" : "the approver's answer is longer than %d bytes", APPROVER_ANSWER_MAX);
	}
	json_error_t je;
	json_t *o = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	json_t *g = json_object_get(o, "grant");
	char *why = !json_is_object(o) || json_object_size(o) != 1 || !g
		? xstrdup("the approver's answer is not {\"grant\": {...}} (its standard output "
			  "is that, or nothing)")
		: approver_narrow(a, g);
	json_decref(o);
	return why;
}

static void child_exited(struct session *s, struct watch *w, short revents)
{
	(void)w, (void)revents;
	struct ask *a = w->data;
	int st;
	pid_t r = waitpid(a->child, &st, WNOHANG);
	if (r == 0)
		return;
	session_unwatch(a->w_child);
	a->w_child = NULL;
	close_fd(&a->child_pidfd);
	pid_t was = a->child;
	a->child = 0;
	if (r != was) {
		st = 0;
		if (a->st == A_APPROVER) {
			deny(s, a, "error", "the approver could not be waited for");
			return;
		}
	}
	switch (a->st) {
	case A_REAPING:
		slot_free(a);
		break;
	case A_APPROVER:
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			char *bad = approver_answer(a);
			if (bad) {
				deny(s, a, "approver", bad);
				free(bad);
				break;
			}
			approve(s, a, "approver");
		} else {
			char msg[96];
			snprintf(msg, sizeof msg, "the approver said no (exit status %d)",
				 exit_code_of(st));
			deny(s, a, "approver", msg);
		}
		break;
	case A_RUNNING:
		if (a->ctty >= 0) {
			/* Said on the terminal, as the keys go back to the
			 * session; a command ended by a signal (which the
			 * sandbox can have sent) holds them until Enter. */
			char note[200];
			bool hold = WIFSIGNALED(st) || a->signalled;
			snprintf(note, sizeof note, "wicket: the command run %s has ended (%s %d); "
				 "what you type is dropped until you press Enter.",
				 a->req.outside ? "outside" : "on a grant",
				 WIFSIGNALED(st) ? "signal" : "status",
				 WIFSIGNALED(st) ? WTERMSIG(st) : exit_code_of(st));
			pty_cmd_end(s, hold ? note : NULL, hold);
		}
		a->ctty = -1;
		a->status = exit_code_of(st);
		a->ran = true;
		conclude(s, a, "approved", a->by, NULL);
		reap_adopted(s->child);
		prompt_next(s); /* a question that waited for the terminal */
		break;
	default:
		break;
	}
}

static bool watch_child(struct session *s, struct ask *a, pid_t pid)
{
	a->child = pid;
	a->child_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (a->child_pidfd >= 0)
		fcntl(a->child_pidfd, F_SETFD, FD_CLOEXEC);
	a->w_child = a->child_pidfd >= 0 ? session_watch(s, a->child_pidfd, POLLIN, child_exited, a)
					 : NULL;
	return a->w_child != NULL;
}

/* The command's child (spawn_clean): the requester's stdio and cwd; a
 * grant's, wicket itself, which starts the command's sandbox (run_argv);
 * --outside, the program itself. */
static int command_child(void *arg)
{
	const struct ask *a = arg;
	for (int i = 0; i < 3; i++)
		if (dup2(a->io[i], i) < 0)
			_exit(EXIT_WICKET);
	/* Its own pty is its controlling terminal (spawn_child made it a
	 * session leader): a program that asks on /dev/tty asks there. */
	if (a->ctty >= 0 && ioctl(a->ctty, TIOCSCTTY, 0) < 0)
		_exit(EXIT_WICKET);
	if (fchdir(a->cwd_fd) < 0)
		_exit(EXIT_WICKET);
	/* Nothing of the supervisor's stays open; the program's own
	 * descriptor does (a script's interpreter opens /dev/fd/N). */
	syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
	if (a->run_argv) {
		for (size_t i = 0; i < a->nheld; i++)
			fcntl(a->held[i], F_SETFD, 0); /* named /proc/self/fd/N in run_argv */
		syscall(SYS_execveat, self_fd, "", a->run_argv, a->run_envp, AT_EMPTY_PATH);
		_exit(EXIT_WICKET);
	}
	fcntl(a->exe_fd, F_SETFD, 0);
	syscall(SYS_execveat, a->exe_fd, "", a->req.argv.v, environ, AT_EMPTY_PATH);
	int e = errno;
	char msg[256];
	/* The C locale (the supervisor sets none): strerror takes no memory. */
	int n = snprintf(msg, sizeof msg, "wicket ask: %s: %s\n", a->path, strerror(e));
	(void)!write(2, msg, n > 0 && (size_t)n < sizeof msg ? (size_t)n : 0);
	_exit(e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

/* The wicket that starts a grant's sandbox: the session planned again
 * from the host (s->rerun), the grant's rights, and the command; the
 * supervisor's environment with the values of the session's --env. The
 * grant is checked once more, on what is given, and each path goes as
 * the object checked (/proc/self/fd/N, held open for it), never a name
 * the sandbox could point elsewhere in between. NULL, or why not. */
static char *grant_run_plan(const struct session *s, struct ask *a)
{
	size_t npaths = 0;
	for (int k = 0; k < WK_GRANT_KINDS; k++)
		npaths += grant_is_path(k) ? a->given.v[k].n : 0;
	a->held = xcalloc(npaths + 1, sizeof *a->held);
	for (size_t i = 0; i < npaths; i++)
		a->held[i] = -1;
	a->nheld = npaths;
	char *bad = grant_check(s, &a->given, a->held);
	if (bad)
		return bad;
	if (a->given.v[WK_GRANT_WRITE].n) {
		if (n_guards == GUARDS_MAX)
			return xasprintf("this session has had %d grants with --write; no more (each "
					 "is looked at again when the session ends)", GUARDS_MAX);
		struct grant_guard *g = &guards[n_guards++];
		*g = (struct grant_guard){0};
		for (size_t i = 0; i < a->given.v[WK_GRANT_WRITE].n; i++) {
			char *where = fd_path(a->held[i]); /* write items come first */
			if (where)
				strv_push(&g->roots, where);
		}
		/* What runs code later beneath the roots: git's places, and the
		 * startup places of the whole file system (worked out once a
		 * session: the homes' files and what their git config includes,
		 * which the sandbox cannot change) that lie there. */
		static struct strv startup_all;
		static bool startup_done;
		if (!startup_done) {
			struct strv all = {0};
			strv_add(&all, "/");
			autorun_startup_places(&all, s->homes, &startup_all);
			strv_free(&all);
			startup_done = true;
		}
		struct strv places = {0};
		for (size_t i = 0; i < startup_all.n; i++)
			for (size_t r = 0; r < g->roots.n; r++)
				if (path_is_under(startup_all.v[i], g->roots.v[r]) &&
				    !strv_contains(&places, startup_all.v[i]))
					strv_add(&places, startup_all.v[i]);
		if (!autorun_git_places(&g->roots, s->homes, &places)) {
			n_guards--;
			strv_free(&g->roots);
			strv_free(&places);
			return xstrdup("a granted path holds too many git directories or config "
				       "includes to know what runs code beneath it");
		}
		/* Those that exist now (the list holds places git would read
		 * if they did, such as a commondir). */
		for (size_t i = 0; i < places.n; i++) {
			struct stat st;
			/* host: a place beneath a granted root, as autorun.c found it */
			if (lstat(places.v[i], &st) == 0)
				strv_add(&g->before, places.v[i]);
		}
		strv_free(&places);
	}
	struct strv v = {0};
	size_t h = 0;
	strv_add(&v, "wicket");
	for (size_t i = 0; i < s->rerun.n; i++)
		strv_add(&v, s->rerun.v[i]);
	static const char *const opt[WK_GRANT_KINDS] = {
		[WK_GRANT_WRITE] = "--write", [WK_GRANT_READ] = "--read",
		[WK_GRANT_SOCKET] = "--socket", [WK_GRANT_ENV] = "--env"};
	for (int k = 0; k < WK_GRANT_KINDS; k++)
		for (size_t i = 0; i < a->given.v[k].n; i++) {
			const char *item = a->given.v[k].v[i];
			if (grant_is_path(k)) {
				strv_add(&v, opt[k]);
				strv_push(&v, xasprintf("/proc/self/fd/%d", a->held[h++]));
				continue;
			}
			if (k != WK_GRANT_NET) {
				strv_add(&v, opt[k]);
				strv_add(&v, item);
				continue;
			}
			if (s->pol.net == NET_FULL)
				continue; /* reached already */
			char host[WK_GRANT_HOST_MAX];
			int port;
			bool addr;
			wk_grant_net_split(item, host, &port, &addr);
			strv_add(&v, addr ? "--allow-address" : "--allow-domain");
			strv_add(&v, port ? item : host);
		}
	strv_add(&v, "--grant-of");
	strv_add(&v, s->session_id ? s->session_id : "0");
	strv_add(&v, "--");
	for (size_t i = 0; i < a->req.argv.n; i++)
		strv_add(&v, a->req.argv.v[i]);
	a->run_argv = v.v;

	struct strv e = {0};
	for (char **p = environ; *p; p++) {
		bool over = strncmp(*p, "WICKET_GRANT_CHAIN=", 19) == 0;
		for (size_t i = 0; i < s->rerun_env.n && !over; i++) {
			size_t nl = strcspn(s->rerun_env.v[i], "=") + 1;
			over = strncmp(*p, s->rerun_env.v[i], nl) == 0;
		}
		if (!over)
			strv_add(&e, *p);
	}
	for (size_t i = 0; i < s->rerun_env.n; i++)
		strv_add(&e, s->rerun_env.v[i]);
	strv_push(&e, xasprintf("WICKET_GRANT_CHAIN=%s", s->rerun_chain ? s->rerun_chain : ""));
	a->run_envp = e.v ? e.v : xcalloc(1, sizeof *e.v);
	return NULL;
}

static void run_command(struct session *s, struct ask *a)
{
	const char *by = a->by;
	if (!a->req.outside) {
		if (self_fd < 0) {
			deny(s, a, "error", "wicket cannot find its own program to start the sandbox");
			return;
		}
		char *bad = grant_run_plan(s, a);
		if (bad) {
			denyf(s, a, "error", "not run: %s", bad);
			free(bad);
			return;
		}
	}
	/* What the sandbox wrote, unless the person (or a rule's "stdin":
	 * true) passed it on: /dev/null instead (input_kind). */
	bool nulled = a->input_sb && strcmp(by, "terminal") != 0;
	/* Keys from the session's terminal: for a request from its
	 * foreground (the person is at it), through a pty of the command's
	 * own (pty_cmd_open), which has the terminal until it ends; from the
	 * background, none (/dev/null), so that a job left running neither
	 * holds the session's terminal nor shares its keys with the sandbox. */
	bool fg = pty_is_session_tty(a->io[0]) && pty_foreground(a->host_pid) &&
		  !pty_cmd_held(); /* the keys being dropped are no one's */
	if (nulled || (pty_is_session_tty(a->io[0]) && !fg)) {
		/* host: /dev/null */
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (null < 0) {
			deny(s, a, "error", "cannot open /dev/null for its standard input");
			return;
		}
		closer_close(a->io[0]);
		a->io[0] = null;
		a->input_nulled = true;
	}
	int master = -1;
	for (int i = 0; i < 3 && fg && pty_cmd_needed(); i++) {
		if (!pty_is_session_tty(a->io[i]))
			continue;
		int sl = -1;
		if (master < 0 && (master = pty_cmd_open(&sl)) < 0) {
			deny(s, a, "error", "cannot give the command a terminal of its own (another "
			     "approved command may have it: ask again when it ends)");
			return;
		}
		int d = sl >= 0 ? sl : fcntl(a->io[a->ctty], F_DUPFD_CLOEXEC, 3);
		if (d < 0) {
			close(master);
			deny(s, a, "error", "cannot give the command a terminal of its own");
			return;
		}
		closer_close(a->io[i]);
		a->io[i] = d;
		if (a->ctty < 0)
			a->ctty = i;
	}
	pid_t pid = spawn_clean(command_child, a);
	if (master >= 0 && (pid < 0 || !pty_cmd_start(s, master))) {
		if (pid > 0)
			kill_group(pid, SIGKILL); /* no one would relay its terminal */
		else
			close(master);
	}
	if (pid < 0) {
		deny(s, a, "error", "cannot start the command (fork failed)");
		return;
	}
	held_close(a); /* the command's wicket has them now */
	a->st = A_RUNNING;
	a->by = by;
	a->deadline = 0;
	/* The command has the requester's stdio now; the supervisor keeps no
	 * copy (a reader waits for the command's output alone). */
	for (int i = 0; i < 3; i++)
		close_fd(&a->io[i]);
	if (!watch_child(s, a, pid)) {
		kill_group(pid, SIGKILL);
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		a->child = 0;
		deny(s, a, "error", "no room to watch the command");
		return;
	}
	send_doc(a->reply, json_pack("{s:i, s:s, s:s, s:b}", "v", 1, "type", "running", "by", by,
				     "stdin_null", nulled));
	timer_rearm();
}

static void approve(struct session *s, struct ask *a, const char *by)
{
	a->by = by;
	if (a->net) {
		/* An approver's yes is for the session: asked again, the same
		 * program would say the same. */
		if (a->net_answer == PTY_NO)
			a->net_answer = PTY_SESSION;
		a->st = A_QUEUED;
		conclude(s, a, "approved", by, NULL);
		return;
	}
	run_command(s, a);
}

/* --- requests refused without a line each ---------------------------------- */

static void tally_add(struct tally *t)
{
	time_t now = time(NULL);
	if (!t->n)
		t->from = now;
	t->n++;
	t->last = now;
}

/* The one audit line for the requests of T, refused BY (KEY: their
 * number; NOTE, when not NULL, what it means); T starts again. */
static void tally_line(const struct session *s, struct tally *t, const char *by, const char *key,
		       const char *note)
{
	if (!t->n)
		return;
	char from[32], to[32];
	struct tm tm;
	strftime(from, sizeof from, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t->from, &tm));
	strftime(to, sizeof to, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t->last, &tm));
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i}", "time", from, "until", to, "session",
			      s->session_id ? s->session_id : "", "decision", "denied", "by", by,
			      key, (int)t->n);
	if (o && note)
		json_object_set_new(o, "note", json_string(note));
	audit_line(o);
	t->n = 0;
}

/* --- floods: too many questions refused ------------------------------------- */

static void flood_summary(const struct session *s)
{
	tally_line(s, &muted, "rate-limit", "refused_without_question", NULL);
}

/* Whether the questions are paused now; a request while they are keeps
 * them paused (the quiet time starts again). */
static bool flood_muted(const struct session *s)
{
	long long now = now_ms();
	if (muted_until && now >= muted_until) {
		flood_summary(s);
		muted_until = 0;
		memset(refused_at, 0, sizeof refused_at);
	}
	if (!muted_until)
		return false;
	muted_until = now + FLOOD_QUIET_MS;
	return true;
}

static void flood_refused(struct session *s)
{
	long long now = now_ms();
	refused_at[refused_next++ % FLOOD_REFUSALS] = now;
	long long oldest = refused_at[refused_next % FLOOD_REFUSALS];
	if (muted_until || !oldest || now - oldest > FLOOD_WINDOW_MS)
		return;
	muted_until = now + FLOOD_QUIET_MS;
	char *note = xasprintf("wicket: %d questions refused within %d s: further requests of this "
			       "session are refused without a question until it has not asked for "
			       "%d s.",
			       FLOOD_REFUSALS, FLOOD_WINDOW_MS / 1000, FLOOD_QUIET_MS / 1000);
	pty_note(s, note);
	free(note);
}

static void flood_deny(struct session *s, struct ask *a)
{
	tally_add(&muted);
	deny(s, a, "rate-limit", "not asked: too many questions of this session were refused "
				 "just before");
}

/* --- the audit log's budget ------------------------------------------------ */

static void budget_summary(const struct session *s)
{
	tally_line(s, &unlogged, "audit-budget", "refused_unlogged",
		   "further requests refused, not logged individually: the session wrote what "
		   "the audit log keeps of one session");
}

/* Past the budget: refused, unrun, counted. */
static bool budget_spent(struct session *s, struct ask *a)
{
	if (audit_bytes - audit_net_bytes < AUDIT_BUDGET - AUDIT_NET_BUDGET)
		return false;
	tally_add(&unlogged);
	deny(s, a, "audit-budget", "not asked: this session's requests filled what the audit log "
				   "keeps of one session; further requests are refused");
	return true;
}

/* --- the terminal ------------------------------------------------------------ */

static void prompt_done(struct session *s, enum pty_answer answer, void *data)
{
	struct ask *a = data;
	if (a->st != A_PROMPT)
		return;
	a->st = A_QUEUED; /* no longer on the terminal: conclude() must not cancel it */
	a->net_answer = answer;
	if (answer != PTY_NO) {
		approve(s, a, "terminal");
	} else {
		deny(s, a, "terminal", "the person at the terminal said no");
		flood_refused(s);
	}
	prompt_next(s);
}

static char *prompt_text(const struct ask *a)
{
	unsigned rows, cols = pty_prompt_width(&rows);
	if (a->net) {
		struct askr_netq q = {.comm = a->comm ? a->comm : "?", .pid = a->sb_pid,
				      .host = a->net_host, .request = a->net_request};
		return askr_render_net(&q, cols);
	}
	/* A program the sandbox can change is CAREFUL (wk_program_writable). */
	struct askr_question q = {.comm = a->comm ? a->comm : "?", .pid = a->sb_pid,
				  .cwd = a->cwd ? a->cwd : "?", .path = a->path,
				  .argv = a->req.argv.v, .argc = a->req.argv.n,
				  .reason = a->req.reason, .careful = a->careful,
				  .outside = a->req.outside};
	char *grant = a->req.outside ? NULL : wk_grant_text(&a->given);
	q.grant = grant;
	char *in = a->input_sb ? xasprintf("%s the sandbox writes: the command reads what the "
					   "sandbox put there (to an editor, a shell or a "
					   "pager, that is typing)", input_article(a->input))
			       : NULL;
	q.input = in;
	char *t = askr_render(&q, cols, rows);
	free(in);
	free(grant);
	return t;
}

static bool prompt_busy(void)
{
	for (size_t i = 0; i < ASK_MAX; i++)
		if (asks[i].st == A_PROMPT)
			return true;
	return false;
}

/* One question at a time on the terminal: the next one waiting, oldest
 * first. */
static void prompt_next(struct session *s)
{
	/* An approved command has the terminal: the questions wait for it
	 * to end (child_exited), or for their time. */
	if (pty_cmd_active())
		return;
	while (!prompt_busy()) {
		struct ask *a = NULL;
		for (size_t i = 0; i < ASK_MAX; i++)
			if (asks[i].st == A_QUEUED && asks[i].deadline &&
			    (!a || asks[i].t0 < a->t0))
				a = &asks[i];
		if (!a)
			return;
		if (flood_muted(s)) {
			flood_deny(s, a);
			continue;
		}
		char *t = prompt_text(a);
		if (!t) {
			deny(s, a, "terminal", "the command is too long to show whole on this terminal, "
			     "and a command run outside is only asked about whole (ask for a grant "
			     "instead, or run it yourself)");
			continue;
		}
		a->st = A_PROMPT;
		bool ok = pty_prompt(s, t, a->net ? PTY_ASK_HOST : a->req.outside ? PTY_ASK_RUN
								 : PTY_ASK_GRANT, prompt_done, a);
		free(t);
		if (ok)
			return;
		a->st = A_QUEUED;
		deny(s, a, "no-terminal", "no terminal to ask on");
	}
}

/* --- the approver ---------------------------------------------------------- */

/* What the session can write (careful.h), worked out once. */
static const struct wk_wset *session_wset(const struct session *s)
{
	if (!wset_done)
		plan_wset(s, &wset);
	wset_done = true;
	return &wset;
}

static json_t *request_json(const struct session *s, const struct ask *a)
{
	json_t *o = json_object();
	json_object_set_new(o, "v", json_integer(1));
	if (a->net) {
		json_object_set_new(o, "type", json_string("network"));
		json_object_set_new(o, "session", json_string(s->session_id ? s->session_id : ""));
		json_object_set_new(o, "policy", jstr(policy_name(s)));
		json_object_set_new(o, "host", jstr(a->net_host));
		json_object_set_new(o, "request", jstr(a->net_request));
		json_object_set_new(o, "pid", json_integer(a->host_pid));
		json_object_set_new(o, "sandbox_pid", json_integer(a->sb_pid));
		json_object_set_new(o, "comm", jstr(a->comm));
		return o;
	}
	json_object_set_new(o, "type", json_string("ask"));
	json_object_set_new(o, "session", json_string(s->session_id ? s->session_id : ""));
	json_object_set_new(o, "policy", jstr(policy_name(s)));
	json_object_set_new(o, "argv", argv_json(&a->req.argv));
	/* What an approver decides on: the rights the command's own sandbox
	 * would get (never outside: that is the person's alone). */
	json_object_set_new(o, "grant", wk_grant_to_json(&a->given));
	json_object_set_new(o, "path", jstr(a->path));
	char *writable = wk_program_writable(session_wset(s), a->path);
	json_object_set_new(o, "path_writable_in_sandbox", json_boolean(writable != NULL));
	free(writable);
	json_object_set_new(o, "cwd", jstr(a->cwd));
	json_object_set_new(o, "stdin", json_string(a->input));
	/* If the approver says yes, such an input is not passed on. */
	json_object_set_new(o, "stdin_from_sandbox", json_boolean(a->input_sb));
	json_object_set_new(o, "reason", jstr(a->req.reason));
	json_object_set_new(o, "pid", json_integer(a->host_pid));
	json_object_set_new(o, "sandbox_pid", json_integer(a->sb_pid));
	json_object_set_new(o, "comm", jstr(a->comm));
	json_object_set_new(o, "exe", jstr(a->exe));
	return o;
}

/* PATH (canonical) is one the sandbox could write (then it could rewrite it). */

/* NAME under DIRFD, opened O_PATH without crossing a /proc magic link
 * (/proc/PID/root, /proc/PID/cwd, /proc/PID/fd/N, /dev/fd/N): those lead
 * into another mount namespace, the sandbox's, where a path does not mean
 * what it means here (its private /tmp). errno ELOOP for those. */
static int open_nomagic(int dirfd, const char *name)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_MAGICLINKS};
	/* host: only a name of the policy's (a rule's program, the approver) */
	return (int)syscall(SYS_openat2, dirfd, name, &how, sizeof how);
}

/* One candidate of open_program: in the sandbox's view beneath ROOT
 * (view.h; relative to CWD there), or with ROOT -1 the supervisor's own
 * (a name of the policy's: a rule's program, the approver). */
static int open_in(int root, const char *cwd, const char *name)
{
	if (root < 0)
		return open_nomagic(AT_FDCWD, name);
	if (name[0] == '/')
		return view_path(root, name, true);
	if (!cwd) {
		errno = ENOENT;
		return -1;
	}
	char *abs = path_join(cwd, name);
	int fd = view_path(root, abs, true);
	free(abs);
	return fd;
}

/* NAME (a path, or a name found in the supervisor's PATH, absolute
 * entries only), opened O_PATH, as open_in looks; -1 when there is no
 * such program (errno ELOOP: refused, through /proc). A request's
 * program is looked for in the sandbox's view only: one the sandbox
 * cannot see (a hidden store's) is not found, exactly as one that does
 * not exist anywhere, so the answer tells the sandbox nothing new. */
static int open_program(const char *name, int root, const char *cwd)
{
	if (strchr(name, '/'))
		return open_in(root, cwd, name);
	const char *p = getenv("PATH");
	if (!p)
		p = "/usr/local/bin:/usr/bin:/bin";
	return view_program(root, p, name);
}

static char *fd_path(int fd)
{
	char buf[PATH_MAX];
	return path_of_fd(fd, buf, sizeof buf) ? xstrdup(buf) : NULL;
}

/* The approver's child (spawn_clean): the request on its stdin, its
 * answer (narrowing the grant, approver_answer) on its stdout. */
struct approver_child {
	int in, out, fd;
	char *path;
};

static int approver_child(void *arg)
{
	const struct approver_child *c = arg;
	if (dup2(c->in, 0) < 0 || dup2(c->out, 1) < 0)
		_exit(EXIT_WICKET);
	syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
	fcntl(c->fd, F_SETFD, 0); /* a script's interpreter opens /dev/fd/N */
	char *argv[] = {c->path, NULL};
	syscall(SYS_execveat, c->fd, "", argv, environ, AT_EMPTY_PATH);
	_exit(EXIT_NOEXEC);
}

static void ask_approver(struct session *s, struct ask *a, const char *approver)
{
	int fd = open_program(approver, -1, NULL);
	char *path = fd >= 0 ? fd_path(fd) : NULL;
	if (fd < 0 || !path) {
		free(path);
		if (fd >= 0)
			close(fd);
		denyf(s, a, "error", "the approver %s cannot be found", approver);
		return;
	}
	char *why = wk_program_writable(session_wset(s), path);
	bool writable = why != NULL;
	free(why);
	if (writable) {
		close(fd);
		denyf(s, a, "error", "the approver %s is writable inside the sandbox: it is not asked",
		      path);
		free(path);
		return;
	}
	json_t *doc = request_json(s, a);
	char *text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	int p[2];
	if (!text || pipe2(p, O_CLOEXEC) < 0) {
		free(text);
		close(fd);
		free(path);
		deny(s, a, "error", "cannot start the approver");
		return;
	}
	size_t len = strlen(text);
	text[len++] = '\n';
	/* The whole request fits the pipe: written now, never waited for. */
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	bool written = write(p[1], text, len) == (ssize_t)len;
	close(p[1]);
	free(text);
	int o[2] = {-1, -1};
	if (pipe2(o, O_CLOEXEC) < 0 || fcntl(o[0], F_SETFL, O_NONBLOCK) < 0) {
		written = false;
	} else {
		/* Room for the whole answer: the approver never waits on it. */
		fcntl(o[1], F_SETPIPE_SZ, APPROVER_ANSWER_MAX * 2);
	}
	struct approver_child c = {p[0], o[1], fd, path};
	pid_t pid = written ? spawn_clean(approver_child, &c) : -1;
	close(p[0]);
	if (o[1] >= 0)
		close(o[1]);
	a->approver_out = o[0];
	close(fd);
	free(path);
	if (pid < 0) {
		deny(s, a, "error", "cannot start the approver");
		return;
	}
	a->st = A_APPROVER;
	if (!watch_child(s, a, pid)) {
		kill_group(pid, SIGKILL);
		a->st = A_REAPING;
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		a->child = 0;
		a->st = A_QUEUED;
		deny(s, a, "error", "no room to watch the approver");
	}
}

/* The approver a harness holds (approverlink.h): the request an approver
 * program gets, with an id; the answer comes back to link_answer. Ids
 * are never used twice in a session, so that an answer to a request
 * that timed out meanwhile finds nothing. */
static unsigned long link_ids;

static void link_answer(struct session *s, unsigned long id, json_t *ans, const char *why)
{
	for (size_t i = 0; i < ASK_MAX; i++) {
		struct ask *a = &asks[i];
		if (a->st != A_APPROVER || !a->link_id || (id && a->link_id != id))
			continue;
		if (!ans) {
			denyf(s, a, "approver", "the approver cannot answer: %s", why);
			continue;
		}
		json_t *yes = json_object_get(ans, "approve");
		json_t *g = json_object_get(ans, "grant");
		const char *msg = json_string_value(json_object_get(ans, "message"));
		size_t known = 2 + (g != NULL) + (msg != NULL);
		if (!json_is_boolean(yes) || json_object_size(ans) != known ||
		    (json_object_get(ans, "message") && !msg)) {
			deny(s, a, "approver", "the approver's answer is not {\"id\": N, \"approve\": "
			     "true or false, \"grant\": {...}?, \"message\": \"...\"?}");
			return;
		}
		if (!json_is_true(yes)) {
			/* Said to the requester: printable and bounded. */
			char *m = msg ? text_clean(msg, 200) : NULL;
			if (m)
				denyf(s, a, "approver", "the approver said no: %s", m);
			else
				deny(s, a, "approver", "the approver said no");
			free(m);
			return;
		}
		char *bad = !g ? NULL : a->net ? xstrdup("the approver's answer to a network "
							 "question has a grant")
					      : approver_narrow(a, g);
		if (bad) {
			deny(s, a, "approver", bad);
			free(bad);
			return;
		}
		approve(s, a, "approver");
		return;
	}
}

static void ask_link(struct session *s, struct ask *a)
{
	json_t *doc = request_json(s, a);
	const char *why = "out of memory";
	unsigned long id = ++link_ids;
	bool sent = doc && alink_send(s, id, doc, link_answer, &why);
	json_decref(doc);
	if (!sent) {
		denyf(s, a, "approver", "the approver cannot be asked: %s", why);
		return;
	}
	a->link_id = id;
	a->st = A_APPROVER;
}

/* --- timeouts, and the client's signals ----------------------------------- */

static void timer_ready(struct session *s, struct watch *w, short revents)
{
	(void)w, (void)revents;
	uint64_t n;
	(void)!read(timer_fd, &n, sizeof n);
	long long now = now_ms();
	for (size_t i = 0; i < ASK_MAX; i++) {
		struct ask *a = &asks[i];
		if ((a->st == A_QUEUED || a->st == A_PROMPT || a->st == A_APPROVER) && a->deadline &&
		    now >= a->deadline) {
			bool asked = a->st == A_PROMPT;
			if (asked) {
				/* Taken back here, so that the refusal is counted
				 * before the next question is drawn. */
				pty_prompt_cancel(s, taken_back);
				a->st = A_QUEUED;
			}
			conclude(s, a, "denied", "timeout", "no answer in time");
			if (asked) {
				flood_refused(s);
				prompt_next(s);
			}
		}
	}
	timer_rearm();
}

static void timer_rearm(void)
{
	if (timer_fd < 0)
		return;
	long long next = 0;
	for (size_t i = 0; i < ASK_MAX; i++)
		if (asks[i].st != A_FREE && asks[i].st != A_RUNNING && asks[i].st != A_REAPING &&
		    asks[i].deadline && (!next || asks[i].deadline < next))
			next = asks[i].deadline;
	struct itimerspec its = {0};
	if (next) {
		long long d = next - now_ms();
		if (d < 1)
			d = 1;
		its.it_value.tv_sec = d / 1000;
		its.it_value.tv_nsec = (d % 1000) * 1000000;
	}
	timerfd_settime(timer_fd, 0, &its, NULL);
}

static void reply_ready(struct session *s, struct watch *w, short revents)
{
	struct ask *a = w->data;
	for (int k = 0; k < SIGNALS_PER_WAKE && !closer_busy(); k++) {
		char buf[256];
		/* With room for every descriptor a message can carry, each
		 * handed to the closer: one the kernel dropped here would be
		 * closed in this thread, and its last close can block
		 * (closer.h; red team 13, G1). */
		struct fdpass_in in;
		ssize_t n = closer_recv(a->reply, buf, sizeof buf, 0, FDPASS_ALL, MSG_DONTWAIT, &in);
		int e = errno;
		fdpass_close(&in);
		errno = e;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !(revents & (POLLHUP | POLLERR)))
			return;
		if (n <= 0) {
			/* The requester is gone. */
			if (a->st == A_RUNNING) {
				/* Like a terminal that hangs up: the command gets SIGHUP. */
				kill_group(a->child, SIGHUP);
				a->signalled = true;
				session_unwatch(a->w_reply);
				a->w_reply = NULL;
				close_fd(&a->reply);
			} else {
				deny(s, a, "cancelled", "the requester is gone");
			}
			return;
		}
		int sig = ask_parse_signal(buf, (size_t)n);
		if (sig < 0)
			continue; /* nothing else is read from this socket: no "approve" */
		if (a->st == A_RUNNING) {
			kill_group(a->child, sig);
			a->signalled = true;
		} else {
			a->status = exit_code_of_signal(sig);
			deny(s, a, "cancelled", "cancelled by a signal");
			return;
		}
	}
}

/* --- the request --------------------------------------------------------------- */

static char *proc_read(int dir, const char *what, size_t max)
{
	char *buf = xmalloc(max + 1);
	/* host: a file of the requester's /proc directory */
	if (read_text_at(dir, what, buf, max + 1) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *proc_link(int dir, const char *what)
{
	char buf[PATH_MAX];
	/* host: a link of the requester's /proc directory */
	ssize_t n = readlinkat(dir, what, buf, sizeof buf - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

/* The requester's pid as the sandbox sees it (the last of NSpid). */
static long sandbox_pid(int dir, pid_t pid)
{
	char *st = proc_read(dir, "status", 4096);
	long v = pid;
	char *l = st ? strstr(st, "\nNSpid:") : NULL;
	if (l) {
		char *end = strchr(l + 1, '\n');
		if (end)
			*end = '\0';
		char *last = strrchr(l, '\t');
		if (last)
			v = strtol(last + 1, NULL, 10);
	}
	free(st);
	return v;
}

/* NAME, resolved as open_program does outside any cwd, is the file FD
 * (opened for the request's program ARG0). When NAME is ARG0 itself and
 * its resolution does not depend on the cwd (a name looked up in PATH,
 * or an absolute path), FD is what that resolution gave, a moment ago:
 * it is not done twice (a PATH walk, on the path of every request an
 * allow rule approves; bench/README.md). */
static bool same_file(int fd, const char *name, const char *arg0)
{
	if (strcmp(name, arg0) == 0 && (!strchr(name, '/') || name[0] == '/'))
		return true;
	int f = open_program(name, -1, NULL);
	struct stat a, b;
	bool same = f >= 0 && fstat(f, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino;
	if (f >= 0)
		close(f);
	return same;
}

static const char *base_of(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

static char *rule_text(const struct wk_cmdrule *r)
{
	char *t = ask_quote_argv(NULL, r->argv.v, r->argv.n);
	if (!r->cwd)
		return t;
	char *c = ask_quote(r->cwd), *both = xasprintf("%s (in %s)", t, c);
	free(t);
	free(c);
	return both;
}

/* The rule's cwd, if it has one, is the directory the command runs in. */
static bool rule_cwd_ok(const struct wk_cmdrule *r, int cwd_fd)
{
	if (!r->cwd)
		return true;
	struct stat a, b;
	/* host: a rule's directory, the policy's */
	int fd = open(r->cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
	bool same = fd >= 0 && fstat(fd, &a) == 0 && fstat(cwd_fd, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	if (fd >= 0)
		close(fd);
	return same;
}

/* PATH (canonical) names the same place in the sandbox and outside:
 * beneath a root the policy binds from the host, and not beneath a mount
 * of the sandbox's own. */
static bool host_bound(const struct session *s, const char *path)
{
	static const char *const own[] = {"/proc", "/dev", "/sys", "/run"};
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		if (path_is_under(path, own[i]))
			return false;
	struct wk_fstable t;
	struct wk_fsmatch m;
	plan_fstable(s, &t);
	enum wk_fs_verdict v = wk_classify(&t, path, &m);
	bool bound = v == WK_FS_READ_ONLY || v == WK_FS_PROTECTED ||
		     (v == WK_FS_WRITABLE && strv_contains(&s->pol.write, m.rule));
	plan_fstable_free(&t);
	return bound;
}

/* One path P of a grant (kind K), checked where it will be used: on the
 * host, where the grant's sandbox is planned (by name, refusing any link:
 * main.c, mounts.c). It must name there what it names in the sandbox (a
 * hidden store excepted, which the sandbox sees covered; a socket, which
 * is the host's by its name); what runs code later is never made
 * writable (autorun.c's places and the session's protected paths; those
 * beneath P its sandbox protects as any session does). NULL, or why not. */
static char *grant_path_check(const struct session *s, const struct wk_fstable *t,
			      enum wk_grant_kind k, const char *p, int *held)
{
	const char *opt = wk_grant_kind_name(k);
	struct wk_fsmatch m;
	enum wk_fs_verdict v = wk_classify(t, p, &m);
	if (v == WK_FS_HIDDEN && k != WK_GRANT_READ)
		return xasprintf("--%s %s: hidden from the session; a grant reads a hidden store "
				   "(--read), it does not %s one", opt, p,
				   k == WK_GRANT_WRITE ? "write" : "reach a socket in");
	if (k == WK_GRANT_WRITE && v == WK_FS_PROTECTED)
		return xasprintf("--write %s: protected in this session (%.*s): a grant never makes "
				 "writable what runs code later or chooses the next session's policy",
				 p, (int)(m.len ? m.len : strlen(m.rule ? m.rule : "")),
				 m.rule ? m.rule : "");
	if (k == WK_GRANT_WRITE && plan_shared_in(&s->shared, p) && !s->allow_shared)
		return xasprintf("--write %s: a shared space (%s); the session was not started with "
				 "--allow-shared-write", p, plan_shared_in(&s->shared, p));
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	/* host: a grant's path, as its sandbox will take it (no link followed) */
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, p, &how, sizeof how);
	struct stat so, si;
	if (fd < 0 || fstat(fd, &so) < 0) {
		if (fd >= 0)
			close(fd);
		return xasprintf("--%s %s: %s outside the sandbox (name the place itself, with no "
				 "symbolic link on the way)", opt, p,
				 errno == ELOOP ? "goes through a symbolic link" : "does not exist");
	}
	/* What is checked is this object: held, it is what the grant's
	 * sandbox gets (grant_run_plan), whatever the name means later. */
	if (held)
		*held = fd;
	else
		close(fd);
	if (v == WK_FS_HIDDEN)
		return NULL;
	if (k == WK_GRANT_SOCKET)
		return S_ISSOCK(so.st_mode) ? NULL : xasprintf("--socket %s: not a unix socket", p);
	if (v != WK_FS_UNREADABLE &&
	    (!host_bound(s, p) || !view_lstat(s->view_root, p, &si) || si.st_dev != so.st_dev ||
	     si.st_ino != so.st_ino))
		return xasprintf("--%s %s: not the same %s in the sandbox and outside (the "
				 "sandbox's private /tmp or a link?); name a place of the host's",
				 opt, p, S_ISDIR(so.st_mode) ? "directory" : "file");
	if (k != WK_GRANT_WRITE)
		return NULL;
	/* The rule why's --write advice follows (runslater.h): never a place
	 * that runs code later, nor one that holds such a place that its
	 * sandbox would not keep read-only. Text only. */
	char *place = autorun_write_runs_later(s->homes, p, p);
	if (place) {
		char *why = xasprintf("--write %s: %s runs code later (a shell's or a tool's startup "
				      "file, a config home, git's or Python's): a grant never makes it "
				      "writable", p, place);
		free(place);
		return why;
	}
	return NULL;
}

/* What the sandbox made during the session where the user's tools would
 * run it (the protected places absent at the start, plan_check_absent's),
 * for the person asked about a command outside: "made during this
 * session: P (pointing at ...)", at most three; NULL when none. */
static char *session_made(const struct session *s)
{
	struct strv seen = {0};
	for (size_t i = 0; i < s->plan.absent_protect.n && seen.n < 3; i++) {
		const char *p = s->plan.absent_protect.v[i];
		struct stat st;
		if (!view_lstat(s->view_root, p, &st))
			continue;
		char text[160] = "";
		ssize_t n = S_ISREG(st.st_mode) ? view_read_text(s->view_root, p, text, sizeof text) : -1;
		if (S_ISLNK(st.st_mode))
			n = view_readlink(s->view_root, p, text, sizeof text - 1);
		if (n > 0) {
			text[n < (ssize_t)sizeof text ? n : (ssize_t)sizeof text - 1] = '\0';
			text[strcspn(text, "\n")] = '\0';
		} else {
			text[0] = '\0';
		}
		strv_push(&seen, text[0] ? xasprintf("%s (pointing at %s)", p, text) : xstrdup(p));
	}
	if (!seen.n)
		return NULL;
	size_t len = 64;
	for (size_t i = 0; i < seen.n; i++)
		len += strlen(seen.v[i]) + 2;
	char *o = xmalloc(len);
	strcpy(o, "made during this session: ");
	for (size_t i = 0; i < seen.n; i++) {
		if (i)
			strcat(o, ", ");
		strcat(o, seen.v[i]);
	}
	strv_free(&seen);
	return o;
}

static bool grant_is_path(int k)
{
	return k == WK_GRANT_WRITE || k == WK_GRANT_READ || k == WK_GRANT_SOCKET;
}

/* A grant's check (G: asked, or as it is to be given): NULL, or why it
 * cannot be given (allocated). Made before anyone decides on it, and
 * again on what is given when it runs, then with HELD (room for every
 * path item, in G's order, -1 each) getting the object of each path,
 * which its sandbox gets instead of the name. */
static char *grant_check(const struct session *s, const struct wk_grant *g, int *held)
{
	if (g->v[WK_GRANT_NET].n && s->pol.net == NET_PORTS)
		return xstrdup("--net: the session's network mode is ports; a grant reaches hosts "
			       "through the proxy of mode domains (start the session with --net none "
			       "or domains)");
	for (size_t i = 0; i < g->v[WK_GRANT_ENV].n; i++)
		if (!getenv(g->v[WK_GRANT_ENV].v[i]))
			return xasprintf("--env %s: not set outside the sandbox: there is nothing to "
					 "pass", g->v[WK_GRANT_ENV].v[i]);
	struct wk_fstable t;
	plan_fstable(s, &t);
	char *why = NULL;
	size_t n = 0;
	for (int k = 0; k < WK_GRANT_KINDS && !why; k++)
		for (size_t i = 0; i < g->v[k].n && !why && grant_is_path(k); i++)
			why = grant_path_check(s, &t, (enum wk_grant_kind)k, g->v[k].v[i],
					       held ? &held[n++] : NULL);
	plan_fstable_free(&t);
	return why;
}

/* The cwd of the requester, the same directory outside: opened by the
 * path its /proc entry gives and checked against the directory itself. */
static const char *find_cwd(const struct session *s, struct ask *a, int dir)
{
	/* host: the requester's /proc directory */
	int inside = openat(dir, "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	a->cwd = proc_link(dir, "cwd");
	struct stat si, so;
	if (inside < 0 || !a->cwd || fstat(inside, &si) < 0) {
		if (inside >= 0)
			close(inside);
		return "the requester's working directory cannot be found";
	}
	close(inside);
	if (a->cwd[0] != '/')
		return "the requester's working directory is not reachable outside the sandbox";
	/* In the sandbox's view first (view.h): relative paths of the
	 * request are looked at there from this name, which must name the
	 * directory there. */
	struct stat sv;
	if (!view_stat(s->view_root, a->cwd, &sv) || sv.st_dev != si.st_dev || sv.st_ino != si.st_ino)
		return "the requester's working directory is not reachable by its name in the "
		       "sandbox; cd to a directory of the workspace";
	/* Outside only a name of a place bound from the host at the same
	 * path (a writable or read root): never one of the sandbox's own
	 * (its private /tmp, /dev/shm, /run, /proc, /dev, a hidden path's
	 * cover), which outside would be a lookup in the host's of a name
	 * the sandbox chose; and no link of the host's followed. */
	if (!host_bound(s, a->cwd))
		return "the requester's working directory is not the same directory outside the "
		       "sandbox (the sandbox's private /tmp?); cd to a directory of the workspace";
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	/* host: a name under a writable root, the directory in the view */
	a->cwd_fd = (int)syscall(SYS_openat2, AT_FDCWD, a->cwd, &how, sizeof how);
	if (a->cwd_fd < 0 || fstat(a->cwd_fd, &so) < 0 || so.st_dev != si.st_dev ||
	    so.st_ino != si.st_ino)
		return "the requester's working directory is not the same directory outside the "
		       "sandbox; cd to a directory of the workspace";
	return NULL;
}

/* FD's socket type (SOCK_SEQPACKET, ...), or 0 if it is not a socket. */
static int sock_type(int fd)
{
	int type = 0;
	socklen_t tl = sizeof type;
	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 ? type : 0;
}

/* The four descriptors a request names, taken from the sender with
 * pidfd_getfd (close-on-exec, as SCM_RIGHTS with MSG_CMSG_CLOEXEC gives
 * them): where the sandbox's sendmsg() goes through the supervisor
 * (unixnotify.c), a request sent with send() and no descriptors costs no
 * seccomp notification. Only with a pidfd the kernel gave with the
 * packet (SCM_PIDFD): a pid alone could have been reused by then. What
 * is taken is what the sender chose to hold under those numbers, as with
 * SCM_RIGHTS: its own descriptors, nothing more. And only from a process
 * of the sandbox (its pid namespace): a process outside that writes what
 * the sandbox chose onto the control socket (an approved command given it
 * as stdout) passes no descriptors, and has none to take either. */
static bool take_fds(const struct session *s, pid_t sender, int pidfd, const int nums[4],
		     int out[4])
{
	if (pidfd < 0 || !s->pidns_ino)
		return false;
	int dir = proc_dir_of(sender, pidfd);
	struct stat st;
	/* host: the sender's /proc directory */
	bool inside = dir >= 0 && fstatat(dir, "ns/pid", &st, 0) == 0 &&
		      st.st_dev == s->pidns_dev && st.st_ino == s->pidns_ino;
	if (dir >= 0)
		close(dir);
	if (!inside)
		return false;
	for (int i = 0; i < 4; i++) {
		out[i] = (int)syscall(SYS_pidfd_getfd, pidfd, nums[i], 0);
		if (out[i] < 0) {
			int e = errno;
			while (i-- > 0)
				closer_close(out[i]);
			/* Where the reply socket can be taken, the requester is
			 * told (it would wait for an answer forever). */
			int reply = (int)syscall(SYS_pidfd_getfd, pidfd, nums[3], 0);
			if (reply >= 0 && sock_type(reply) == SOCK_SEQPACKET) {
				char msg[160];
				snprintf(msg, sizeof msg,
					 "the supervisor could not take the request's descriptors: %s",
					 strerror(e));
				send_error(reply, msg);
			}
			closer_close(reply);
			return false;
		}
	}
	return true;
}

/* The command's standard descriptors, as the requester gives them, must
 * not be a way for the sandbox to type into the command outside. An
 * approved git log, man or less pages through less when its output is a
 * terminal, and less, which has no controlling terminal outside, reads
 * its keys (and "!command") from standard error. So: a terminal must be
 * the session's own, where only the person types (the sandbox holds the
 * other side of a pty it opened itself); and standard output and error,
 * unless they are that terminal, are made write-only (opened again
 * through /proc/self/fd, append mode kept: a file, a pipe, a device), so
 * that nothing the sandbox wrote into them can be read back; a socket,
 * which cannot be opened so, is refused. IO is changed in place; returns
 * NULL, or why the request is refused. */
static const char *stdio_guard(int io[3])
{
	for (int i = 0; i < 3; i++)
		if (isatty(io[i]) && !pty_is_session_tty(io[i]))
			return "its standard input, output or error is a terminal that is not the "
			       "session's: a program in the sandbox could type into what would run "
			       "outside (give it the session's terminal, a file or a pipe)";
	for (int i = 1; i < 3; i++) {
		if (pty_is_session_tty(io[i]))
			continue;
		int fl = fcntl(io[i], F_GETFL);
		if (fl < 0)
			return "its standard output or error cannot be looked at";
		if ((fl & O_ACCMODE) == O_WRONLY)
			continue;
		/* Only ever narrowed: a descriptor the sandbox holds read-only
		 * or O_PATH, reopened for writing here (outside, unsandboxed),
		 * would let the approved command write where the sandbox may
		 * not (a host FIFO, a file outside; red team 14, F2). */
		if ((fl & O_ACCMODE) != O_RDWR || (fl & O_PATH))
			return "its standard output or error is not open for writing: the "
			       "command outside would write where the sandbox may not";
		char p[32];
		snprintf(p, sizeof p, "/proc/self/fd/%d", io[i]);
		/* host: a descriptor we hold, reopened (only narrowed, above) */
		int w = open(p, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | (fl & O_APPEND));
		if (w < 0)
			return "its standard output or error can be read as well as written (a "
			       "socket): what the sandbox writes there could be read by the command "
			       "outside as typed keys; give it a file or a pipe";
		fcntl(w, F_SETFL, fcntl(w, F_GETFL) & ~O_NONBLOCK);
		closer_close(io[i]);
		io[i] = w;
	}
	return NULL;
}

/* The timer of the requests' deadlines, made with the first request. */
static bool timer_open(struct session *s)
{
	if (timer_fd >= 0)
		return true;
	timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	w_timer = timer_fd >= 0 ? session_watch(s, timer_fd, POLLIN, timer_ready, NULL) : NULL;
	if (!w_timer)
		close_fd(&timer_fd);
	return w_timer != NULL;
}

static struct ask *slot_take(void)
{
	for (size_t i = 0; i < ASK_MAX; i++)
		if (asks[i].st == A_FREE)
			return &asks[i];
	return NULL;
}

/* Who decides a request the rules did not: the approver (a path), or
 * NULL (the terminal). */
static const char *approver_of(const struct session *s)
{
	return s->approver ? s->approver :
	       s->wpol.esc_mode == WK_ESC_APPROVER ? s->wpol.esc_approver : NULL;
}

/* The approver (when it may decide: never for a command run outside),
 * or the terminal: what both kinds of request end with. */
static void ask_someone(struct session *s, struct ask *a, bool approver_may)
{
	const char *approver = approver_may ? approver_of(s) : NULL;
	if (approver_may && s->approver_fd >= 0) {
		ask_event(s, a, "approver");
		ask_link(s, a);
		timer_rearm();
		return;
	}
	if (approver) {
		ask_event(s, a, "approver");
		ask_approver(s, a, approver);
		timer_rearm();
		return;
	}
	if (!prompt_busy() && !pty_cmd_active() && !pty_can_prompt()) {
		char *m = a->careful ? xasprintf("CAREFUL: %s; only the person at the terminal may "
						 "approve it, and there is no terminal to ask on",
						 a->careful)
				     : NULL;
		deny(s, a, "no-terminal", m ? m : "no terminal to ask on");
		free(m);
		return;
	}
	if (flood_muted(s)) {
		flood_deny(s, a);
		return;
	}
	ask_event(s, a, "terminal");
	timer_rearm();
	prompt_next(s);
}

void ask_net(struct session *s, const struct net_question *q)
{
	init_once();
	reap_adopted(s->child);
	struct ask *a = slot_take();
	if (!a || !timer_open(s)) {
		q->answer(q->token, PTY_NO, false,
			  "not in the allowed domains; too many questions at once");
		return;
	}
	a->st = A_QUEUED;
	a->net = true;
	a->net_token = q->token;
	a->net_reply = q->answer;
	a->net_host = xstrdup(q->host);
	a->net_request = xstrdup(q->request);
	a->comm = xstrdup(q->comm ? q->comm : "?");
	a->sb_pid = q->pid;
	a->host_pid = q->host_pid;
	a->t0 = now_ms();
	a->wall0 = time(NULL);
	int limit = s->wpol.esc_timeout > 0 ? s->wpol.esc_timeout : 120;
	a->deadline = a->t0 + (long long)limit * 1000;
	if (!net_budget_left()) {
		/* The proxy's share of the audit log is spent: asked no more. */
		deny(s, a, "policy", "not asked: the session's network lines filled their share "
				     "of the audit log");
		return;
	}
	if (s->wpol.esc_mode == WK_ESC_DENY) {
		deny(s, a, "policy", "the policy refuses every request (escalation.mode \"deny\")");
		return;
	}
	ask_someone(s, a, true);
}

void ask_request(struct session *s, const char *buf, size_t len, pid_t sender,
		 int sender_pidfd, const int *fds, int nfds)
{
	init_once();
	reap_adopted(s->child);
	struct ask_req req;
	const char *err;
	bool parsed = ask_parse(buf, len, &req, &err);
	int taken[4];
	if (parsed && req.take) {
		/* The descriptors it names, taken from the sender; never both
		 * ways at once. Nowhere to answer when they cannot be taken. */
		if (nfds || !take_fds(s, sender, sender_pidfd, req.fds, taken)) {
			for (int i = 0; i < nfds; i++)
				closer_close(fds[i]);
			ask_req_free(&req);
			return;
		}
		fds = taken;
		nfds = 4;
	}
	int type = nfds == 4 ? sock_type(fds[3]) : 0;
	if (type != SOCK_SEQPACKET) {
		/* Nowhere to answer, or not the four descriptors of a request. */
		if (nfds == 4 && (type == SOCK_STREAM))
			send_error(fds[3], "an ask request carries a SOCK_SEQPACKET reply socket");
		for (int i = 0; i < nfds; i++)
			closer_close(fds[i]);
		if (parsed)
			ask_req_free(&req);
		return;
	}
	if (!parsed) {
		send_error(fds[3], err);
		for (int i = 0; i < 4; i++)
			closer_close(fds[i]);
		return;
	}
	struct ask *a = slot_take();
	if (!a || sender <= 0) {
		send_error(fds[3], a ? "the requester is unknown" :
			   "too many requests at once (16 in flight); try again later");
		ask_req_free(&req);
		for (int i = 0; i < 4; i++)
			closer_close(fds[i]);
		return;
	}
	if (!timer_open(s)) {
		send_error(fds[3], "the supervisor has no room for a request now");
		ask_req_free(&req);
		for (int i = 0; i < 4; i++)
			closer_close(fds[i]);
		return;
	}
	int io[3] = {fds[0], fds[1], fds[2]};
	const char *unsafe = stdio_guard(io);
	if (unsafe) {
		send_error(fds[3], unsafe);
		ask_req_free(&req);
		for (int i = 0; i < 3; i++)
			closer_close(io[i]);
		closer_close(fds[3]);
		return;
	}
	a->st = A_QUEUED;
	for (int i = 0; i < 3; i++)
		a->io[i] = io[i];
	a->input = input_kind(io[0], &a->input_sb);
	a->reply = fds[3];
	a->req = req;
	a->host_pid = sender;
	a->t0 = now_ms();
	a->wall0 = time(NULL);
	int limit = s->wpol.esc_timeout > 0 ? s->wpol.esc_timeout : 120;
	if (req.timeout && req.timeout < limit)
		limit = req.timeout; /* the client may only shorten it */
	a->deadline = a->t0 + (long long)limit * 1000;
	a->w_reply = session_watch(s, a->reply, POLLIN, reply_ready, a);
	if (!a->w_reply) {
		send_error(a->reply, "the supervisor has no room for a request now");
		slot_free(a);
		return;
	}
	a->w_reply->takes_fds = true;
	if (budget_spent(s, a))
		return;
	int dir = proc_dir_of(sender, sender_pidfd);
	if (dir < 0) {
		deny(s, a, "error", "the requester is gone (it ended before its request was read)");
		return;
	}
	a->sb_pid = sandbox_pid(dir, sender);
	char *comm = proc_read(dir, "comm", 64);
	if (comm)
		comm[strcspn(comm, "\n")] = '\0';
	a->comm = comm;
	a->exe = proc_link(dir, "exe");

	const char *why = find_cwd(s, a, dir);
	close(dir);
	if (why) {
		deny(s, a, "error", why);
		return;
	}
	a->exe_fd = open_program(a->req.argv.v[0], s->view_root, a->cwd);
	if (a->exe_fd < 0 && errno == ELOOP) {
		char *clean = text_clean(a->req.argv.v[0], 256);
		denyf(s, a, "error", "%s: refused: the path goes through /proc (a link into another "
		      "process's view of the files) or loops", clean);
		free(clean);
		return;
	}
	struct stat st;
	if (a->exe_fd < 0 || fstat(a->exe_fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    !(a->path = fd_path(a->exe_fd))) {
		char *clean = text_clean(a->req.argv.v[0], 256);
		a->status = EXIT_NOTFOUND;
		denyf(s, a, "error", "%s: command not found", clean);
		free(clean);
		return;
	}

	/* 1. escalation.deny: any sign that it is the command named. */
	const char *arg0 = a->req.argv.v[0];
	for (size_t i = 0; i < s->wpol.esc_deny.n; i++) {
		const struct wk_cmdrule *rule = &s->wpol.esc_deny.v[i];
		const struct strv *r = &rule->argv;
		if (!ask_args_match(r, a->req.argv.v, a->req.argv.n) || !rule_cwd_ok(rule, a->cwd_fd))
			continue;
		const char *r0 = r->v[0];
		bool hit = strchr(r0, '/') ? strcmp(r0, a->path) == 0 || strcmp(r0, arg0) == 0
					   : strcmp(r0, base_of(arg0)) == 0 ||
						     strcmp(r0, base_of(a->path)) == 0;
		if (hit || same_file(a->exe_fd, r0, arg0)) {
			a->rule = rule_text(rule);
			deny(s, a, "rule", "a deny rule of the policy (escalation.deny) matches");
			return;
		}
	}
	if (s->grant_of) {
		deny(s, a, "policy", "a command run on a grant asks for nothing more; ask from the "
		     "session it was granted in");
		return;
	}
	if (a->req.outside) {
		/* Outside: only the person at the terminal decides, never a
		 * rule or an approver; CAREFUL says what the sandbox could
		 * have put in the way, as advice (it cannot know it all). */
		struct wk_careful_in ci = {.wset = session_wset(s), .cwd = a->cwd,
					   .path_env = getenv("PATH"), .home = getenv("HOME"),
					   .xdg_config = getenv("XDG_CONFIG_HOME"),
					   .program = a->path, .argv = a->req.argv.v,
					   .argc = a->req.argv.n};
		char *careful = wk_careful(&ci);
		char *made = session_made(s);
		if (made) {
			char *both = xasprintf("%s%s%s", careful ? careful : "", careful ? "; " : "", made);
			free(careful);
			free(made);
			careful = both;
		}
		/* Shown on the terminal and logged: it quotes paths and
		 * arguments of the sandbox's, so no control character and a
		 * bounded length. */
		a->careful = careful ? text_clean(careful, 1024) : NULL;
		free(careful);
		if (s->wpol.esc_mode == WK_ESC_DENY) {
			deny(s, a, "policy", "the policy refuses every request (escalation.mode "
			     "\"deny\")");
			return;
		}
		ask_someone(s, a, false);
		return;
	}
	for (int k = 0; k < WK_GRANT_KINDS; k++)
		for (size_t i = 0; i < a->req.grant.v[k].n; i++)
			strv_add(&a->given.v[k], a->req.grant.v[k].v[i]);

	/* 2. escalation.allow: the first rule for this very command decides,
	 * by what it grants. */
	for (size_t i = 0; i < s->wpol.esc_allow.n; i++) {
		const struct wk_cmdrule *r = &s->wpol.esc_allow.v[i];
		/* The name the program sees is part of the command: git
		 * reads ./git-clone (a link to git) as git clone, a
		 * multi-call binary picks its tool by it. */
		if (!ask_args_match(&r->argv, a->req.argv.v, a->req.argv.n) ||
		    strcmp(base_of(arg0), base_of(r->argv.v[0])) != 0 ||
		    !same_file(a->exe_fd, r->argv.v[0], arg0) || !rule_cwd_ok(r, a->cwd_fd))
			continue;
		a->rule = rule_text(r);
		char *more = wk_grant_covers(&r->grant, &a->req.grant);
		if (more) {
			denyf(s, a, "rule", "the rule grants less than was asked: %s is not in its "
			      "grant", more);
			free(more);
			return;
		}
		if (r->stdin)
			a->input_sb = false; /* passed on, as the rule says */
		approve(s, a, "rule");
		return;
	}
	/* 3. the mode. */
	if (s->wpol.esc_mode == WK_ESC_DENY) {
		deny(s, a, "policy", "the policy refuses every request (escalation.mode \"deny\")");
		return;
	}
	/* No one is asked about a grant that cannot be given (a rule's yes
	 * meets the same check where it runs: grant_run_plan). */
	char *bad = grant_check(s, &a->req.grant, NULL);
	if (bad) {
		deny(s, a, "error", bad);
		free(bad);
		return;
	}
	ask_someone(s, a, true);
}

/* A child the supervisor waits for by itself: the sandbox's init
 * (SANDBOX), a request's command or approver. */
static bool known_child(pid_t sandbox, pid_t pid)
{
	for (size_t i = 0; i < ASK_MAX; i++)
		if (asks[i].child == pid)
			return true;
	return pid == sandbox;
}

/* What the supervisor adopted (it is a subreaper: supervisor.c): the
 * processes approved commands left behind, in sessions of their own
 * (setsid -f, a daemon), up to MAX; *ZOMBIE, which have ended. Children
 * of ours: their pids, and so their process groups' ids, stay theirs
 * until reaped; an ended one still names the group of a chain that forks
 * and exits, whose live member is seldom caught alive. */
static size_t adopted(pid_t sandbox, pid_t *out, bool *zombie, size_t max)
{
	/* host: /proc */
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	pid_t self = getpid();
	size_t n = 0;
	struct dirent *de;
	while (n < max && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (pid <= 1 || *end || known_child(sandbox, (pid_t)pid))
			continue;
		char path[64], buf[512];
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		/* host: /proc/PID/stat */
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		const char *p = strrchr(buf, ')');
		long ppid = 0;
		char state = 0;
		if (p && sscanf(p + 1, " %c %ld", &state, &ppid) == 2 && ppid == self) {
			zombie[n] = state == 'Z';
			out[n++] = (pid_t)pid;
		}
	}
	closedir(d);
	return n;
}

/* SIG to an adopted process and to its whole process group, named by the
 * group id the process (ours, unreaped) still holds: a chain that forks
 * and exits in a loop stays in its group, and the kernel lets no fork
 * escape a signal to the group. */
static void signal_adopted(pid_t pid, int sig)
{
	pid_t g = getpgid(pid);
	if (g > 1)
		kill(-g, sig);
	kill(pid, sig);
}

/* The zombies among the adopted, reaped: oldest first, up to a child we
 * know, which its own watch reaps. In the session as requests come and
 * end, and at its end before each look at /proc: orphans do not pile up
 * (a fork chain leaves one a generation). */
static void reap_adopted(pid_t sandbox)
{
	for (int k = 0; k < 1000000; k++) {
		siginfo_t si;
		memset(&si, 0, sizeof si);
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid <= 0 ||
		    known_child(sandbox, si.si_pid))
			return;
		waitpid(si.si_pid, NULL, WNOHANG);
	}
}

/* Commands still running at the session's end get SIGHUP, as from a
 * terminal that hangs up, and so does what they left behind (adopted).
 * One that ignores it (nohup, a trap) would run on outside for a session
 * that is over, and hold its requester's output open: its process group
 * gets SIGTERM ASK_END_GRACE_MS later, and SIGKILL as long after that.
 * The commands are not reaped meanwhile, so their pids, and their
 * groups' ids, stay theirs; an adopted process found, alive or ended,
 * is reaped only after its group was signalled. */
#define ADOPTED_MAX 256
#define ADOPTED_SWEEP_MS 3000 /* SIGKILL rounds until none is left, this long at most */
static void end_commands(pid_t sandbox)
{
	static const int sigs[] = {SIGHUP, SIGTERM, SIGKILL};
	for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
		struct pollfd pf[ASK_MAX + ADOPTED_MAX];
		nfds_t n = 0, mine = 0;
		for (size_t i = 0; i < ASK_MAX; i++) {
			struct ask *a = &asks[i];
			if (a->st != A_RUNNING || a->child <= 1)
				continue;
			kill_group(a->child, sigs[k]);
			if (a->child_pidfd >= 0)
				pf[n++] = (struct pollfd){.fd = a->child_pidfd, .events = POLLIN};
		}
		mine = n;
		reap_adopted(sandbox); /* the dead so far: a long look at /proc else */
		pid_t left[ADOPTED_MAX];
		bool zombie[ADOPTED_MAX];
		size_t nl = adopted(sandbox, left, zombie, ADOPTED_MAX);
		for (size_t j = 0; j < nl; j++) {
			signal_adopted(left[j], sigs[k]);
			int fd = zombie[j] ? -1 : (int)syscall(SYS_pidfd_open, left[j], 0);
			if (fd >= 0)
				pf[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
		}
		long long until = now_ms() + ASK_END_GRACE_MS;
		for (nfds_t done = 0; sigs[k] != SIGKILL && done < n;) {
			long long left_ms = until - now_ms();
			if (left_ms <= 0)
				break;
			int r = poll(pf, n, (int)left_ms);
			if (r < 0 && errno != EINTR)
				break;
			for (nfds_t j = 0; r > 0 && j < n; j++)
				if (pf[j].fd >= 0 && pf[j].revents) {
					if (j >= mine)
						close(pf[j].fd);
					pf[j].fd = -1; /* ended: poll skips it */
					done++;
				}
		}
		for (nfds_t j = mine; j < n; j++)
			if (pf[j].fd >= 0)
				close(pf[j].fd);
		if (!n && !nl)
			return;
	}
	/* Then SIGKILL, round after round, until no one is left: what they
	 * forked meanwhile is adopted in turn. */
	long long until = now_ms() + ADOPTED_SWEEP_MS;
	for (int empty = 0; empty < 3 && now_ms() < until;) {
		reap_adopted(sandbox);
		pid_t left[ADOPTED_MAX];
		bool zombie[ADOPTED_MAX];
		size_t nl = adopted(sandbox, left, zombie, ADOPTED_MAX);
		empty = nl ? 0 : empty + 1;
		for (size_t j = 0; j < nl; j++)
			signal_adopted(left[j], SIGKILL);
		struct timespec ts = {0, 5 * 1000000L};
		nanosleep(&ts, NULL);
	}
	reap_adopted(sandbox);
}

/* After every command of the session has ended: what the grants' commands
 * made beneath their writable roots that runs code later, moved aside. */
static void grant_guards_check(const struct session *s)
{
	for (size_t i = 0; i < n_guards; i++) {
		struct grant_guard *g = &guards[i];
		struct strv now = {0};
		if (!autorun_places(&g->roots, s->homes, &now))
			warnmsg("WARNING: a granted path holds too many git directories or config "
				"includes to check them all for what the grant's command planted: "
				"review them before running git there");
		struct policy within = {0};
		within.write = g->roots;
		for (size_t j = 0; j < now.n; j++) {
			struct stat st;
			/* host: a place beneath a granted root, as autorun.c found it */
			if (!strv_contains(&g->before, now.v[j]) && lstat(now.v[j], &st) == 0)
				plan_quarantine(&within, now.v[j], s->session_id ? s->session_id : "0");
		}
		strv_free(&now);
		strv_free(&g->roots);
		strv_free(&g->before);
	}
	n_guards = 0;
}

void ask_session_over(struct session *s)
{
	if (init_done)
		end_commands(s->child);
}

void ask_finish(struct session *s)
{
	if (!init_done)
		return;
	/* The session is over: the commands' requesters are gone. */
	for (size_t i = 0; i < ASK_MAX; i++)
		if (asks[i].st == A_RUNNING && asks[i].ctty >= 0) {
			pty_cmd_end(s, NULL, false);
			asks[i].ctty = -1;
		}
	end_commands(s->child);
	grant_guards_check(s);
	for (size_t i = 0; i < ASK_MAX; i++) {
		struct ask *a = &asks[i];
		switch (a->st) {
		case A_FREE:
			break;
		case A_RUNNING:
			a->child = 0;
			conclude(s, a, "approved", a->by, "the session ended while it ran");
			break;
		case A_REAPING:
			slot_free(a);
			break;
		default:
			conclude(s, a, "denied", "cancelled", "the session ended");
			break;
		}
	}
	for (size_t i = 0; i < ASK_MAX; i++)
		if (asks[i].st != A_FREE)
			slot_free(&asks[i]);
	wk_wset_free(&wset);
	wset_done = false;
	flood_summary(s);
	budget_summary(s);
	if (w_timer)
		session_unwatch(w_timer);
	w_timer = NULL;
	close_fd(&timer_fd);
	alink_close(s);
}
