/* Network mode "domains": the supervisor's allow-list proxy.
 *
 * The sandbox has a network namespace of its own with loopback alone.
 * init, still privileged there and before the command exists, brings
 * loopback up and makes two listening sockets on 127.0.0.1 (HTTP on
 * PROXY_HTTP_PORT, SOCKS5 on PROXY_SOCKS_PORT), sends them to the
 * supervisor and closes its copies: the command can neither take the
 * ports first nor hold the listeners, and no process of wicket runs
 * inside. Landlock lets the command connect to those two ports and no
 * other, and bind none; seccomp keeps it to TCP.
 *
 * The supervisor serves them from a thread of its own (epoll, every
 * socket non-blocking), so the relay loop (terminal, control socket)
 * never waits on the network. A request names a host; the proxy decides
 * by the policy's patterns (lib/netdomain.c), resolves the name outside
 * in a short-lived thread (c-ares; at most PROXY_LOOKUPS at once),
 * refuses addresses that are loopback, link-local, private, unique
 * local, or the host's own unless the policy names them, and connects to
 * exactly an address it checked: there is no second lookup, so a name
 * that changes its answer (DNS rebinding) gains nothing. Bytes then move
 * between the two sockets through a pipe each way with splice(), never
 * copied through the supervisor's memory.
 *
 * Bounds: PROXY_CONNS connections (more are closed at once), a request
 * head of WK_HTTP_HEAD_MAX bytes read within PROXY_HEAD_MS of the
 * accept (slow clients are cut off), name lookups and connects within
 * their own time limits; each refusal is one report to the relay loop
 * (a ring of PROXY_REPORTS), which prints it, records it for `wicket
 * why` and audits it. Connections allowed are not audited one by one: a
 * package manager makes thousands, which would spend the session's audit
 * budget before a refusal came.
 *
 * Names are resolved with c-ares, not getaddrinfo: the launcher is linked
 * statically, and a static glibc's getaddrinfo loads the NSS modules of
 * the glibc it was built with at run time, which another glibc on the
 * host would break. c-ares reads /etc/hosts and asks the name servers of
 * /etc/resolv.conf itself (the order of /etc/nsswitch.conf's hosts line);
 * other NSS sources (mDNS, myhostname) are not asked. */
#include "config.h"
#include "base/session.h"
#include "base/setupfail.h"
#include "supervisor/ask.h"
#include "supervisor/control.h"
#include "supervisor/events.h"
#include "supervisor/proxy.h"
#include "supervisor/pty.h"
#include "supervisor/watch.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "netfmt.h"
#include "grant.h"
#include "netdomain.h"
#include "utf8.h"
#include "proxyparse.h"
#include "util.h"

#include <ares.h>

#define PROXY_CONNS 64
#define PROXY_HEAD_MS 10000    /* the request, from the accept */
#define PROXY_LOOKUP_MS 15000  /* a name lookup */
#define PROXY_CONNECT_MS 10000 /* the connect outside */
#define PROXY_LOOKUPS 8        /* lookups at once; more wait */
#define PROXY_ADDRS 8          /* addresses of a name tried */
#define PROXY_REPORTS 64       /* reports waiting for the relay loop */
#define PROXY_WHO 200          /* refusals whose process is looked up in /proc */
#define PROXY_SHOW_MS 500      /* a refusal waits this long, at most, for its line */
#define PROXY_QUESTIONS 8      /* names asked about at once; more are refused */
#define PROXY_KEPT 256         /* names allowed or refused for the session */
#define PIPE_CAP 65536          /* a pipe's default size, and the least it has */
/* The size asked for each pipe: more bytes a splice, fewer system calls a
 * gigabyte. 64 connections of two such pipes stay far below the kernel's
 * per-user budget of pipe pages (fs.pipe-user-pages-soft, 64 MiB), past
 * which new pipes would get one page each. */
#define PIPE_WANT (256 * 1024)
#define PUMP_ROUNDS 64         /* splices per event and direction: no connection starves the rest */

#define XSTR(x) STR(x)
#define STR(x) #x
#define HTTP_URL "http://127.0.0.1:" XSTR(PROXY_HTTP_PORT)
#define SOCKS_URL "socks5h://127.0.0.1:" XSTR(PROXY_SOCKS_PORT)

static const char *const env_vars[] = {
	"HTTP_PROXY=" HTTP_URL,	 "HTTPS_PROXY=" HTTP_URL,  "ALL_PROXY=" SOCKS_URL,
	"http_proxy=" HTTP_URL,	 "https_proxy=" HTTP_URL,  "all_proxy=" SOCKS_URL, NULL,
};

const char *const *proxy_env_vars(void)
{
	return env_vars;
}

char *proxy_no_proxy(const struct policy *pol)
{
	/* The sandbox's own loopback is not the host's: nothing to proxy,
	 * unless the policy allows the name, which then means the host's
	 * (reached by the proxy's rules: allow_addresses), or the address
	 * itself (allow_addresses, a grant's --net 127.0.0.1:PORT: a URL
	 * that names it means the host's service). Left in NO_PROXY, an
	 * allowed "localhost" or 127.0.0.1 would go to the sandbox's own
	 * loopback and the program be blamed for not using the proxy. */
	/* ::1 also in brackets, as a URL writes it: Python's urllib compares
	 * NO_PROXY with the URL's host as written ("[::1]"), curl with the
	 * address. */
	static const char *const local[][2] = {
		{"localhost", "localhost"}, {"127.0.0.1", "127.0.0.1"}, {"::1", "::1,[::1]"}};
	char *list = xstrdup("");
	for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
		if (strv_contains(&pol->domains_allow, local[i][0]) ||
		    strv_contains(&pol->allow_addresses, local[i][0]))
			continue;
		char *l = xasprintf("%s%s%s", list, list[0] ? "," : "", local[i][1]);
		free(list);
		list = l;
	}
	if (!list[0]) {
		free(list);
		return NULL;
	}
	return list;
}

/* --- in init ---------------------------------------------------------------- */

void proxy_plan(struct session *s)
{
	s->proxy_sock[0] = s->proxy_sock[1] = -1;
	if (s->pol.net != NET_DOMAINS)
		return;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->proxy_sock) < 0)
		die_errno("socketpair");
}

int proxy_child_listen(struct session *s)
{
	if (s->proxy_sock[1] < 0)
		return 0;
	close(s->proxy_sock[0]);
	/* Never on the host's loopback (layers_decide refuses the mode
	 * without a namespace; this is the second lock). */
	if (!s->layers.netns)
		return setup_fail(STAGE_NETNS, EPERM, "the proxy needs the sandbox's own network");
	/* The loopback is up: init brought it up on joining (supervisor.c). */
	static const unsigned short ports[2] = {PROXY_HTTP_PORT, PROXY_SOCKS_PORT};
	int l[2] = {-1, -1};
	for (int i = 0; i < 2; i++) {
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(ports[i]),
					.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		/* No SO_REUSEPORT: no other socket may share the port. */
		l[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (l[i] < 0 || bind(l[i], (struct sockaddr *)&a, sizeof a) < 0 ||
		    listen(l[i], 128) < 0) {
			int e = errno;
			close(l[0]);
			if (l[1] >= 0)
				close(l[1]);
			return setup_fail(STAGE_NETNS, e, "the proxy's listener on 127.0.0.1:%u",
					  ports[i]);
		}
	}
	ssize_t n = fdpass_send(s->proxy_sock[1], "L", 1, l, 2, 0);
	int e = errno;
	close(l[0]);
	close(l[1]);
	close(s->proxy_sock[1]);
	s->proxy_sock[1] = -1;
	if (n != 1)
		return setup_fail(STAGE_NETNS, e, "send the proxy's listeners");
	return 0;
}

void proxy_parent_close(struct session *s)
{
	if (s->proxy_sock[1] >= 0)
		close(s->proxy_sock[1]);
	s->proxy_sock[1] = -1;
}

/* --- the proxy thread --------------------------------------------------------- */

enum cstate { C_FREE, C_HEAD, C_SOCKS, C_ASKING, C_WAIT, C_RESOLVING, C_CONNECTING, C_SPLICE };

struct lookup {
	char name[WK_NAME_MAX + 1];
	struct wk_addr addr[PROXY_ADDRS];
	size_t n;
	const char *err; /* why there are no addresses (static text), NULL: none */
	int conn;       /* the connection waiting, -1: none any more (proxy thread's) */
	unsigned gen;
};

struct dir {
	int pipe[2];
	size_t cap; /* the pipe's size */
	size_t n;   /* bytes in the pipe */
	bool eof;   /* the source said so */
	bool shut;  /* the destination was told (SHUT_WR) */
	bool full;  /* the pipe or the destination took no more: wait for the pipe to drain */
	bool hold;  /* the source is not read: only the pipe is emptied */
};

struct conn {
	enum cstate st;
	bool socks, greeted;
	unsigned gen;
	int cfd, sfd;
	uint32_t cev, sev; /* what epoll watches of each */
	long long deadline;
	uint16_t peer_port;
	struct wk_http_parser *hp;
	struct wk_http_req *req;
	unsigned char sb[600];
	size_t sl;
	struct wk_target t;
	char obj[WK_NAME_MAX + 64];
	char why[WK_NAME_MAX + 64]; /* what allowed it, for the event stream */
	char *early; /* for the server before anything else */
	size_t early_len;
	struct lookup *lk;
	unsigned long qtoken; /* C_ASKING: the question it waits for */
	/* A tunnel to a name: what the client sends first is held here
	 * until its TLS server name is checked (gate_up). After a TLS
	 * ClientHello the client is not read until the server's first bytes
	 * (sh) say whether it asks for another hello (await): a TLS 1.3
	 * HelloRetryRequest, after which the next hello is checked too
	 * (retried). */
	bool gate_up, await, retried, hello_eof;
	unsigned char *hello;
	size_t hello_len;
	unsigned char sh[WK_TLS_SERVER_HEAD];
	size_t sh_len;
	struct wk_addr addr[PROXY_ADDRS];
	size_t naddr, ai;
	struct dir up, down; /* client to server, server to client */
};

struct report {
	unsigned long question; /* not a decision: a question to ask (ask_net) */
	bool allowed;
	int proxy;
	long pid, host_pid;
	char comm[32];
	char obj[WK_NAME_MAX + 64];
	char reason[160];
	char name[WK_NAME_MAX + 1];
	char addr[NETFMT_IPV6_MAX];
};

static struct session *sess;
static pthread_t thread;
static bool running;
static int ep = -1, stop_fd = -1, listeners[2] = {-1, -1};
static int lk_sock[2] = {-1, -1};
static int report_pipe[2] = {-1, -1};
static struct watch *report_watch;
static struct conn conns[PROXY_CONNS];
static unsigned lookups_running, who_budget = PROXY_WHO;
static struct wk_addr *allowed_addrs, *own_addrs;
static size_t n_allowed, n_own;

static pthread_mutex_t report_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t report_cv;
static struct report reports[PROXY_REPORTS];
static size_t n_reports, reports_dropped;
/* Reports queued and reports the relay loop has written out: a refusal
 * waits (briefly) for its line before the client hears the answer, so
 * the line is not cut into the client's own message on a shared stderr. */
static unsigned long reports_queued, reports_shown;
static bool reports_closed;
static size_t dropped_total; /* reports not queued in the session (relay loop's) */

enum { TAG_HTTP, TAG_SOCKS, TAG_STOP, TAG_LOOKUP, TAG_ANSWER, TAG_CONN };

/* Questions about names not in the allowed domains, asked in the relay
 * loop (ask_net); one at a time per name, the connections to it waiting
 * (C_ASKING). The answers that hold for the session are kept (the proxy
 * thread's alone): a name allowed, or refused by the person or the
 * approver, is not asked about again. */
struct question {
	unsigned long token; /* 0: free */
	char name[WK_NAME_MAX + 1];
	int origin;          /* the connection that asked, and its generation */
	unsigned origin_gen;
};
struct answer {
	unsigned long token;
	enum pty_answer answer;
	bool settled; /* it holds for the rest of the session */
	char reason[200];
};
static struct question questions[PROXY_QUESTIONS];
static unsigned long last_token;
static struct strv kept_allowed, kept_refused;
static int answer_pipe[2] = {-1, -1};

static uint64_t tag(int i, bool server)
{
	return TAG_CONN + (uint64_t)i * 2 + (server ? 1 : 0);
}

/* The process in the sandbox whose socket came from PEER_PORT to the
 * proxy's port PORT: its pid as the sandbox sees it, and name. The
 * socket's inode from the namespace's TCP table, then the sandbox's
 * processes (those in its pid namespace) searched for it. */
static void who(uint16_t peer_port, unsigned port, struct report *r)
{
	snprintf(r->comm, sizeof r->comm, "?");
	if (!sess->child || !who_budget)
		return;
	who_budget--;
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/net/tcp", (int)sess->child);
	/* host: /proc of init, our child */
	FILE *f = fopen(p, "re");
	if (!f)
		return;
	char line[256];
	unsigned long inode = 0;
	while (!inode && fgets(line, sizeof line, f)) {
		unsigned la, lp, ra, rp;
		unsigned long ino;
		if (sscanf(line, " %*d: %8X:%4X %8X:%4X %*X %*X:%*X %*X:%*X %*X %*d %*d %lu", &la, &lp,
			   &ra, &rp, &ino) == 5 &&
		    lp == peer_port && rp == port)
			inode = ino;
	}
	fclose(f);
	if (!inode)
		return;
	char want[64];
	snprintf(want, sizeof want, "socket:[%lu]", inode);
	/* host: /proc */
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *de;
	unsigned budget = 20000; /* descriptors looked at */
	long found = 0;
	while (!found && budget && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (pid <= 0 || *end)
			continue;
		struct stat st;
		snprintf(p, sizeof p, "/proc/%ld/ns/pid", pid);
		/* host: /proc/PID/ns/pid */
		if (stat(p, &st) < 0 || st.st_ino != sess->pidns_ino || st.st_dev != sess->pidns_dev)
			continue;
		snprintf(p, sizeof p, "/proc/%ld/fd", pid);
		/* host: /proc/PID/fd of a process of the sandbox's pid namespace */
		DIR *fd = opendir(p);
		struct dirent *fe;
		while (fd && !found && budget && (fe = readdir(fd))) {
			long fdn = strtol(fe->d_name, &end, 10);
			if (fdn < 0 || *end || fe->d_name[0] == '\0')
				continue;
			budget--;
			char lp[96], link[64];
			snprintf(lp, sizeof lp, "/proc/%ld/fd/%ld", pid, fdn);
			/* host: a /proc/PID/fd link, read, never followed */
			ssize_t n = readlink(lp, link, sizeof link - 1);
			if (n > 0 && (link[n] = '\0', strcmp(link, want) == 0))
				found = pid;
		}
		if (fd)
			closedir(fd);
	}
	closedir(d);
	if (!found)
		return;
	r->host_pid = found;
	r->pid = found;
	snprintf(p, sizeof p, "/proc/%ld/comm", found);
	/* host: /proc/PID/{comm,status} */
	f = fopen(p, "re");
	if (f) {
		if (fgets(r->comm, sizeof r->comm, f))
			r->comm[strcspn(r->comm, "\n")] = '\0';
		fclose(f);
	}
	snprintf(p, sizeof p, "/proc/%ld/status", found);
	/* host: /proc/PID/{comm,status} */
	f = fopen(p, "re");
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "NSpid:", 6) == 0) {
			char *last = strrchr(line, '\t');
			if (last)
				r->pid = strtol(last + 1, NULL, 10);
		}
	if (f)
		fclose(f);
}

/* Queued for the relay loop: its sequence number, or 0 when the queue
 * is full (counted, and said as a number). */
static unsigned long report(const struct report *r)
{
	pthread_mutex_lock(&report_mu);
	bool kept = n_reports < PROXY_REPORTS;
	if (kept)
		reports[n_reports++] = *r;
	else
		reports_dropped++;
	unsigned long seq = ++reports_queued;
	pthread_mutex_unlock(&report_mu);
	char b = 1;
	if (write(report_pipe[1], &b, 1) < 0) {
		/* Full: the relay loop has a wake-up pending already. */
	}
	return kept ? seq : 0;
}

/* Wait until the relay loop has written report SEQ out, PROXY_SHOW_MS at
 * most: a stopped terminal must not stall the proxy. 0: none to wait for. */
static void report_wait(unsigned long seq)
{
	if (!seq)
		return;
	struct timespec until = monotonic_after_ms(PROXY_SHOW_MS);
	pthread_mutex_lock(&report_mu);
	while (reports_shown < seq && !reports_closed)
		if (pthread_cond_timedwait(&report_cv, &report_mu, &until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&report_mu);
}

static void conn_close(int i)
{
	struct conn *c = &conns[i];
	if (c->cfd >= 0)
		close(c->cfd);
	if (c->sfd >= 0)
		close(c->sfd);
	struct dir *ds[2] = {&c->up, &c->down};
	for (int k = 0; k < 2; k++)
		for (int j = 0; j < 2; j++)
			if (ds[k]->pipe[j] >= 0)
				close(ds[k]->pipe[j]);
	if (c->lk)
		c->lk->conn = -1; /* the lookup's thread still has it; freed when it answers */
	free(c->hp);
	free(c->req);
	free(c->early);
	free(c->hello);
	unsigned gen = c->gen;
	memset(c, 0, sizeof *c);
	c->gen = gen + 1;
	c->st = C_FREE;
	c->cfd = c->sfd = -1;
	c->up.pipe[0] = c->up.pipe[1] = c->down.pipe[0] = c->down.pipe[1] = -1;
}

/* A short answer to the client, then the connection closed. The answer
 * fits an empty socket buffer; if it does not go, the close says enough. */
static void answer_close(int i, const void *msg, size_t len)
{
	if (len && send(conns[i].cfd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* the client is gone */
	}
	conn_close(i);
}

static void http_error(int i, int status, const char *text)
{
	const char *phrase = status == 400   ? "Bad Request"
			     : status == 403 ? "Forbidden"
			     : status == 408 ? "Request Timeout"
			     : status == 431 ? "Request Header Fields Too Large"
			     : status == 501 ? "Not Implemented"
			     : status == 502 ? "Bad Gateway"
			     : status == 503 ? "Service Unavailable"
			     : status == 504 ? "Gateway Timeout"
			     : status == 505 ? "HTTP Version Not Supported"
					     : "Error";
	char body[512], msg[1024];
	int bl = snprintf(body, sizeof body, "wicket: %s\n", text);
	if (bl < 0 || (size_t)bl >= sizeof body)
		bl = (int)sizeof body - 1;
	int n = snprintf(msg, sizeof msg,
			 "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
			 "Connection: close\r\n\r\n%.*s",
			 status, phrase, bl, bl, body);
	answer_close(i, msg, n > 0 && (size_t)n < sizeof msg ? (size_t)n : 0);
}

static void socks_error(int i, int code)
{
	unsigned char r[10] = {5, (unsigned char)code, 0, 1};
	answer_close(i, r, code ? sizeof r : 0);
}

/* A report about connection I: what it asked for, and who asked. */
static void report_of(int i, int kind, struct report *r)
{
	struct conn *c = &conns[i];
	memset(r, 0, sizeof *r);
	r->proxy = kind;
	snprintf(r->obj, sizeof r->obj, "%s", c->obj[0] ? c->obj : "malformed proxy request");
	snprintf(r->name, sizeof r->name, "%s", c->t.host);
	who(c->peer_port, c->socks ? PROXY_SOCKS_PORT : PROXY_HTTP_PORT, r);
}

/* A "proxy" line of the event stream (events.h): connection I allowed
 * or refused, and why; PID: the requester's (0: not looked up). */
static void decision_event(int i, bool allowed, const char *why, const char *addr, long pid)
{
	if (!events_on())
		return;
	struct conn *c = &conns[i];
	json_t *o = json_object();
	json_object_set_new(o, "session", json_string(sess->session_id ? sess->session_id : ""));
	json_object_set_new(o, "decision", json_string(allowed ? "allowed" : "refused"));
	json_object_set_new(o, "host", wk_json_text(c->t.host));
	json_object_set_new(o, "port", json_integer(c->t.port));
	json_object_set_new(o, "request", wk_json_text(c->obj[0] ? c->obj :
						       "malformed proxy request"));
	json_object_set_new(o, "why", wk_json_text(why));
	if (addr && addr[0])
		json_object_set_new(o, "address", json_string(addr));
	if (pid > 0)
		json_object_set_new(o, "pid", json_integer(pid));
	events_emit("proxy", o);
}

/* The sandbox is refused: reported (line, `wicket why`, audit), then told. */
static void refuse(int i, int kind, const char *reason, const char *addr, int status, int socks)
{
	struct conn *c = &conns[i];
	struct report r;
	report_of(i, kind, &r);
	decision_event(i, false, reason, addr, r.pid);
	snprintf(r.reason, sizeof r.reason, "%s", reason);
	if (addr)
		snprintf(r.addr, sizeof r.addr, "%s", addr);
	report_wait(report(&r));
	char text[WK_NAME_MAX + 300];
	snprintf(text, sizeof text, "%s: %s", r.obj, reason);
	if (c->socks)
		socks_error(i, socks);
	else if (status)
		http_error(i, status, text);
	else
		conn_close(i); /* inside a tunnel: nothing to answer in */
}

/* What epoll watches of a descriptor: WATCHED marks one added (with no
 * events, epoll still reports its errors and hang-ups). */
#define WATCHED (1u << 30)
static void watch_fd(int fd, uint32_t *have, uint32_t want, uint64_t t)
{
	if (*have == (want | WATCHED))
		return;
	struct epoll_event ev = {.events = want, .data.u64 = t};
	if (epoll_ctl(ep, *have ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev) == 0)
		*have = want | WATCHED;
}

/* Move what can be moved one way; -1: the connection failed.
 *
 * Once the destination is full (or the pipe is), the source is not read
 * again until the pipe is empty: in the meantime its bytes gather in the
 * socket's receive queue, and the next splice takes them at once, up to
 * the pipe's size. Reading whatever had just arrived at every wake-up
 * instead moved a download in slices of a few KiB, with an epoll_wait
 * and a failing splice for each (20 times the system calls of a
 * blocking relay). A message that fits in the destination's buffer still
 * goes on at once: only a direction that is already waiting waits. */
static int pump_dir(int src, int dst, struct dir *d, bool *progress)
{
	for (int round = 0; round < PUMP_ROUNDS; round++) {
		bool moved = false;
		if (d->n) {
			ssize_t r = splice(d->pipe[0], NULL, dst, NULL, d->n,
					   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			if (r > 0) {
				d->n -= (size_t)r;
				if (!d->n)
					d->full = false;
				moved = true;
			} else if (r < 0 && errno != EAGAIN) {
				return -1;
			} else if (r < 0) {
				d->full = true; /* the destination is full */
			}
		}
		if (!d->eof && !d->full && !d->hold && d->n < d->cap) {
			ssize_t r = splice(src, NULL, d->pipe[1], NULL, d->cap - d->n,
					   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			if (r > 0) {
				d->n += (size_t)r;
				moved = true;
			} else if (r == 0) {
				d->eof = true;
				moved = true;
			} else if (errno != EAGAIN) {
				return -1;
			} else if (d->n) {
				/* Either the source is dry or the pipe is full (its
				 * slots, not its bytes): wait for the destination. */
				d->full = true;
			}
		}
		if (!moved)
			break;
		*progress = true;
	}
	if (d->eof && !d->n && !d->shut) {
		shutdown(dst, SHUT_WR);
		d->shut = true;
	}
	return 0;
}

/* Bytes into a direction's pipe, which has room for them (it is far
 * larger than a hello and holds at most one); -1: the connection was
 * closed. */
static int pipe_put(int i, struct dir *d, const void *b, size_t n)
{
	if (n && write(d->pipe[1], b, n) != (ssize_t)n) {
		conn_close(i);
		return -1;
	}
	d->n += n;
	return 0;
}

static int hello_release(int i);

/* The first bytes of a tunnel to a name: a TLS ClientHello must name
 * the server the tunnel was asked for (else an allowed name's address,
 * a CDN's say, would serve another site: domain fronting by SNI). Only
 * that hello goes on; the client's further bytes wait for the server's
 * answer (await), since after a HelloRetryRequest the client sends a
 * second hello (ChangeCipherSpec records may come first), checked alike.
 * What is not TLS passes unchecked (not after a retry request); it
 * reaches the checked address all the same. Returns -1 when the
 * connection was closed. */
static int gate(int i)
{
	struct conn *c = &conns[i];
	ssize_t n = 0;
	if (!c->hello_eof) {
		n = recv(c->cfd, c->hello + c->hello_len, WK_TLS_HELLO_MAX - c->hello_len,
			 MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			conn_close(i);
			return -1;
		}
		if (n > 0)
			c->hello_len += (size_t)n;
		c->hello_eof = n == 0;
	}
	size_t off = 0;
	while (c->retried && c->hello_len - off >= 6 && c->hello[off] == 0x14 &&
	       wk_tls_record_len(c->hello + off) == 6)
		off += 6; /* ChangeCipherSpec, for middleboxes */
	bool tls;
	char sni[WK_NAME_MAX + 1];
	const char *why = NULL;
	enum wk_parse r = wk_tls_sni(c->hello + off, c->hello_len - off, &tls, sni, sizeof sni, &why);
	if (r == WK_PARSE_MORE) {
		if (c->hello_eof || c->hello_len == WK_TLS_HELLO_MAX) {
			conn_close(i); /* gone in the middle of its hello */
			return -1;
		}
		return 0;
	}
	if (r == WK_PARSE_DONE && c->retried && !tls) {
		why = "not a TLS ClientHello after the server's HelloRetryRequest";
		r = WK_PARSE_BAD;
	}
	/* Another TLS record first (an alert, application data): a server
	 * may skip it and take the hello behind, unchecked. */
	if (r == WK_PARSE_DONE && !tls && c->hello_len > off && c->hello[off] >= 0x14 &&
	    c->hello[off] <= 0x18) {
		why = "a TLS record before the ClientHello";
		r = WK_PARSE_BAD;
	}
	if (r == WK_PARSE_BAD) {
		refuse(i, PROXY_BAD, why, NULL, 0, 0);
		return -1;
	}
	if (tls && sni[0] && strcmp(sni, c->t.host) != 0) {
		char reason[WK_NAME_MAX + 64];
		snprintf(reason, sizeof reason, "the TLS server name %s is not the name asked for",
			 sni);
		snprintf(c->t.host, sizeof c->t.host, "%s", sni);
		refuse(i, PROXY_SNI, reason, NULL, 0, 0);
		return -1;
	}
	/* The hello goes on; after a first one the rest waits (await). */
	size_t fwd = tls ? off + wk_tls_record_len(c->hello + off) : c->hello_len;
	if (pipe_put(i, &c->up, c->hello, fwd) < 0)
		return -1;
	memmove(c->hello, c->hello + fwd, c->hello_len - fwd);
	c->hello_len -= fwd;
	c->gate_up = false;
	c->await = tls && !c->retried;
	c->up.hold = c->await;
	if (!c->await)
		return hello_release(i);
	c->sh_len = 0;
	return 0;
}

/* What the client sent beyond its hello goes on; the client is read
 * from now on. */
static int hello_release(int i)
{
	struct conn *c = &conns[i];
	if (pipe_put(i, &c->up, c->hello, c->hello_len) < 0)
		return -1;
	free(c->hello);
	c->hello = NULL;
	c->hello_len = 0;
	c->up.hold = false;
	c->up.eof = c->hello_eof;
	return 0;
}

/* After the client's first ClientHello: the server's first bytes, read
 * here, say whether it asks for another hello. */
static int await_reply(int i)
{
	struct conn *c = &conns[i];
	ssize_t n = recv(c->sfd, c->sh + c->sh_len, sizeof c->sh - c->sh_len, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
		conn_close(i);
		return -1;
	}
	if (n > 0)
		c->sh_len += (size_t)n;
	bool hrr;
	if (wk_tls_hrr(c->sh, c->sh_len, &hrr) == WK_PARSE_MORE)
		return 0;
	if (pipe_put(i, &c->down, c->sh, c->sh_len) < 0)
		return -1;
	c->await = false;
	if (!hrr)
		return hello_release(i);
	c->retried = true;
	c->gate_up = true;
	return gate(i);
}

static void pump(int i, uint32_t events)
{
	struct conn *c = &conns[i];
	bool progress = false;
	if (c->gate_up && gate(i) < 0)
		return;
	if (c->await) {
		/* The hello to the server, what was for the client to it; the
		 * client waits, the server is read here. */
		c->down.hold = true;
		if (pump_dir(c->cfd, c->sfd, &c->up, &progress) < 0 ||
		    pump_dir(c->sfd, c->cfd, &c->down, &progress) < 0) {
			conn_close(i);
			return;
		}
		c->down.hold = false;
		if (!c->up.n && await_reply(i) < 0)
			return;
	}
	if (c->gate_up || c->await) {
		bool reading = c->gate_up && !c->hello_eof;
		if (c->gate_up && pump_dir(c->sfd, c->cfd, &c->down, &progress) < 0) {
			conn_close(i);
			return;
		}
		if ((events & (EPOLLERR | EPOLLHUP)) && !progress) {
			conn_close(i);
			return;
		}
		watch_fd(c->cfd, &c->cev, (reading ? EPOLLIN : 0) | (c->down.n ? EPOLLOUT : 0),
			 tag(i, false));
		watch_fd(c->sfd, &c->sev,
			 (c->await ? (c->up.n ? EPOLLOUT : EPOLLIN)
				   : !c->down.eof && !c->down.full ? EPOLLIN : 0),
			 tag(i, true));
		return;
	}
	if (pump_dir(c->cfd, c->sfd, &c->up, &progress) < 0 ||
	    pump_dir(c->sfd, c->cfd, &c->down, &progress) < 0 ||
	    (c->up.shut && c->down.shut) || ((events & EPOLLERR) && !progress) ||
	    ((events & EPOLLHUP) && !progress)) {
		conn_close(i);
		return;
	}
	watch_fd(c->cfd, &c->cev,
		 (!c->up.eof && !c->up.full ? EPOLLIN : 0) | (c->down.n ? EPOLLOUT : 0),
		 tag(i, false));
	watch_fd(c->sfd, &c->sev,
		 (!c->down.eof && !c->down.full ? EPOLLIN : 0) | (c->up.n ? EPOLLOUT : 0),
		 tag(i, true));
}

static int pipe_open(struct dir *d)
{
	if (pipe2(d->pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		return -1;
	int sz = fcntl(d->pipe[1], F_SETPIPE_SZ, PIPE_WANT);
	d->cap = sz >= PIPE_CAP ? (size_t)sz : PIPE_CAP;
	return 0;
}

static void connected(int i)
{
	struct conn *c = &conns[i];
	if (pipe_open(&c->up) < 0 || pipe_open(&c->down) < 0) {
		if (c->socks)
			socks_error(i, WK_SOCKS_FAILURE);
		else
			http_error(i, 503, "the proxy is out of descriptors");
		return;
	}
	/* A tunnel to a name waits for the client's first bytes (gate). */
	c->gate_up = (c->socks || c->req->connect) && c->t.family == 0;
	if (c->gate_up) {
		c->hello = malloc(WK_TLS_HELLO_MAX);
		if (!c->hello || c->early_len > WK_TLS_HELLO_MAX) {
			conn_close(i);
			return;
		}
		memcpy(c->hello, c->early, c->early_len);
		c->hello_len = c->early_len;
	} else if (c->early_len &&
		   write(c->up.pipe[1], c->early, c->early_len) != (ssize_t)c->early_len) {
		/* Both pipes are empty and far larger than what goes in first. */
		conn_close(i);
		return;
	} else {
		c->up.n = c->early_len;
	}
	free(c->early);
	c->early = NULL;
	static const char ok_http[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	static const unsigned char ok_socks[10] = {5, 0, 0, 1};
	const void *ok = c->socks ? (const void *)ok_socks : c->req->connect ? ok_http : NULL;
	size_t okl = c->socks ? sizeof ok_socks : c->req->connect ? sizeof ok_http - 1 : 0;
	if (okl && write(c->down.pipe[1], ok, okl) != (ssize_t)okl) {
		conn_close(i);
		return;
	}
	c->down.n = okl;
	free(c->hp);
	free(c->req);
	c->hp = NULL;
	c->req = NULL;
	c->st = C_SPLICE;
	c->deadline = 0;
	pump(i, 0);
}

/* A relay sends what it got at once: Nagle's wait for an ACK would add a
 * round trip to every small write the two ends make. */
static void nodelay(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void connect_next(int i)
{
	struct conn *c = &conns[i];
	for (; c->ai < c->naddr; c->ai++) {
		if (c->sfd >= 0) {
			close(c->sfd);
			c->sfd = -1;
			c->sev = 0;
		}
		const struct wk_addr *a = &c->addr[c->ai];
		struct sockaddr_storage ss;
		socklen_t sl;
		memset(&ss, 0, sizeof ss);
		if (a->family == AF_INET) {
			struct sockaddr_in *in = (struct sockaddr_in *)&ss;
			in->sin_family = AF_INET;
			in->sin_port = htons(c->t.port);
			memcpy(&in->sin_addr, a->a, 4);
			sl = sizeof *in;
		} else {
			struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
			in6->sin6_family = AF_INET6;
			in6->sin6_port = htons(c->t.port);
			memcpy(&in6->sin6_addr, a->a, 16);
			sl = sizeof *in6;
		}
		c->sfd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (c->sfd < 0)
			continue;
		nodelay(c->sfd);
		/* Exactly the address checked: no name is looked up again. */
		if (connect(c->sfd, (struct sockaddr *)&ss, sl) == 0) {
			connected(i);
			return;
		}
		if (errno == EINPROGRESS) {
			c->st = C_CONNECTING;
			c->deadline = now_ms() + PROXY_CONNECT_MS;
			watch_fd(c->sfd, &c->sev, EPOLLOUT, tag(i, true));
			watch_fd(c->cfd, &c->cev, 0, tag(i, false));
			return;
		}
	}
	if (c->socks)
		socks_error(i, WK_SOCKS_REFUSED);
	else
		http_error(i, 502, "cannot connect");
}

/* Addresses of the target, each checked; then the connect. */
static void use_addresses(int i, const struct wk_addr *a, size_t n)
{
	struct conn *c = &conns[i];
	const char *why = NULL;
	char first[NETFMT_IPV6_MAX] = "";
	c->naddr = 0;
	for (size_t k = 0; k < n; k++) {
		const char *w = wk_addr_refusal(&a[k], allowed_addrs, n_allowed, own_addrs, n_own);
		if (!w) {
			c->addr[c->naddr++] = a[k];
		} else if (!why) {
			why = w;
			if (a[k].family == AF_INET)
				netfmt_ipv4(first, a[k].a);
			else
				netfmt_ipv6(first, a[k].a);
		}
	}
	if (!c->naddr) {
		char reason[128];
		snprintf(reason, sizeof reason, "resolves to %s (%s)", first, why ? why : "no address");
		refuse(i, PROXY_ADDRESS, reason, first, 403, WK_SOCKS_NOT_ALLOWED);
		return;
	}
	char addr[NETFMT_IPV6_MAX];
	if (c->addr[0].family == AF_INET)
		netfmt_ipv4(addr, c->addr[0].a);
	else
		netfmt_ipv6(addr, c->addr[0].a);
	decision_event(i, true, c->why[0] ? c->why : "allowed", addr, 0);
	c->ai = 0;
	connect_next(i);
}

struct lookup_wait {
	bool done;
	int status;
	struct ares_addrinfo *res;
};

static void lookup_answer(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
	(void)timeouts;
	struct lookup_wait *w = arg;
	w->done = true;
	w->status = status;
	w->res = res;
}

/* One name, on a channel of its own (c-ares channels are not shared
 * between threads here), driven with poll until it is answered or
 * PROXY_LOOKUP_MS is over: the thread ends, whatever the name servers
 * do. */
static void resolve(struct lookup *lk)
{
	ares_channel ch;
	struct ares_options opt = {.timeout = 3000, .tries = 2};
	if (ares_init_options(&ch, &opt, ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES) != ARES_SUCCESS) {
		lk->err = "the resolver could not start";
		return;
	}
	struct lookup_wait w = {0};
	struct ares_addrinfo_hints hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	ares_getaddrinfo(ch, lk->name, NULL, &hints, lookup_answer, &w);
	long long end = now_ms() + PROXY_LOOKUP_MS;
	while (!w.done) {
		long long left = end - now_ms();
		if (left <= 0)
			break;
		ares_socket_t socks[ARES_GETSOCK_MAXNUM];
		int bits = ares_getsock(ch, socks, ARES_GETSOCK_MAXNUM);
		struct pollfd pf[ARES_GETSOCK_MAXNUM];
		nfds_t np = 0;
		for (int k = 0; k < ARES_GETSOCK_MAXNUM; k++) {
			short ev = (short)((ARES_GETSOCK_READABLE(bits, k) ? POLLIN : 0) |
					   (ARES_GETSOCK_WRITABLE(bits, k) ? POLLOUT : 0));
			if (ev)
				pf[np++] = (struct pollfd){socks[k], ev, 0};
		}
		struct timeval tv, *tvp = ares_timeout(ch, NULL, &tv);
		long long ms = tvp ? (long long)tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000 : left;
		if (ms > left)
			ms = left;
		int n = poll(pf, np, (int)ms);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0) {
			ares_process_fd(ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD); /* timeouts */
			continue;
		}
		for (nfds_t k = 0; k < np && !w.done; k++)
			if (pf[k].revents)
				ares_process_fd(ch, pf[k].revents & (POLLIN | POLLERR | POLLHUP) ? pf[k].fd : ARES_SOCKET_BAD,
						pf[k].revents & POLLOUT ? pf[k].fd : ARES_SOCKET_BAD);
	}
	bool answered = w.done;
	ares_destroy(ch); /* an unanswered query is answered ARES_EDESTRUCTION */
	if (!answered)
		lk->err = "the name lookup took too long";
	else if (w.status != ARES_SUCCESS)
		lk->err = ares_strerror(w.status);
	for (struct ares_addrinfo_node *ai = w.res ? w.res->nodes : NULL; ai && lk->n < PROXY_ADDRS;
	     ai = ai->ai_next) {
		struct wk_addr *a = &lk->addr[lk->n];
		if (ai->ai_family == AF_INET) {
			a->family = AF_INET;
			memcpy(a->a, &((struct sockaddr_in *)(void *)ai->ai_addr)->sin_addr, 4);
			lk->n++;
		} else if (ai->ai_family == AF_INET6) {
			a->family = AF_INET6;
			memcpy(a->a, &((struct sockaddr_in6 *)(void *)ai->ai_addr)->sin6_addr, 16);
			lk->n++;
		}
	}
	if (w.res)
		ares_freeaddrinfo(w.res);
}

#ifdef WICKET_STATIC
/* The static launcher is linked with --wrap for these two (configure.ac):
 * c-ares refers to them, and glibc's would load NSS modules at run time.
 * Neither is reached: lookups name no service, and nothing calls
 * ares_getnameinfo. Were one reached, "no such service" is the answer. */
struct servent *__wrap_getservbyname(const char *name, const char *proto);
int __wrap_getservbyport_r(int port, const char *proto, struct servent *ret, char *buf,
			   size_t len, struct servent **result);

struct servent *__wrap_getservbyname(const char *name, const char *proto)
{
	(void)name, (void)proto;
	return NULL;
}

int __wrap_getservbyport_r(int port, const char *proto, struct servent *ret, char *buf,
			   size_t len, struct servent **result)
{
	(void)port, (void)proto, (void)ret, (void)buf, (void)len;
	*result = NULL;
	return 0;
}
#endif

static void *lookup_main(void *arg)
{
	struct lookup *lk = arg;
	resolve(lk);
	/* lk_sock[1] is never closed (proxy_finish), so this cannot land on
	 * a descriptor reused for something else; a proxy gone refuses it. */
	if (send(lk_sock[1], &lk, sizeof lk, MSG_NOSIGNAL) != (ssize_t)sizeof lk)
		free(lk);
	return NULL;
}

static void start_lookup(int i)
{
	struct conn *c = &conns[i];
	struct lookup *lk = calloc(1, sizeof *lk);
	if (!lk) {
		http_error(i, 503, "out of memory");
		return;
	}
	snprintf(lk->name, sizeof lk->name, "%s", c->t.host);
	lk->conn = i;
	lk->gen = c->gen;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 256 * 1024);
	pthread_t t;
	int e = pthread_create(&t, &at, lookup_main, lk);
	pthread_attr_destroy(&at);
	if (e) {
		free(lk);
		if (c->socks)
			socks_error(i, WK_SOCKS_FAILURE);
		else
			http_error(i, 503, "cannot look the name up now");
		return;
	}
	lookups_running++;
	c->lk = lk;
	c->st = C_RESOLVING;
	c->deadline = now_ms() + PROXY_LOOKUP_MS;
}

/* The policy's fixed address for a name ("hosts"), if any. */
static bool fixed_address(const char *name, struct wk_addr *a)
{
	size_t nl = strlen(name);
	for (size_t k = 0; k < sess->pol.hosts.n; k++) {
		const char *h = sess->pol.hosts.v[k];
		if (strncmp(h, name, nl) == 0 && h[nl] == '=') {
			memset(a, 0, sizeof *a);
			if (inet_pton(AF_INET, h + nl + 1, a->a) == 1)
				a->family = AF_INET;
			else if (inet_pton(AF_INET6, h + nl + 1, a->a) == 1)
				a->family = AF_INET6;
			return a->family != 0;
		}
	}
	return false;
}

static bool name_kept(const struct strv *v, const char *name)
{
	for (size_t k = 0; k < v->n; k++)
		if (strcmp(v->v[k], name) == 0)
			return true;
	return false;
}

static void proceed(int i);

/* A name not in the allowed domains: asked about (ask_net), the
 * connection waiting; a name already asked about waits for that answer. */
static void ask_about(int i)
{
	struct conn *c = &conns[i];
	struct question *q = NULL;
	for (int k = 0; k < PROXY_QUESTIONS && !q; k++)
		if (questions[k].token && strcmp(questions[k].name, c->t.host) == 0)
			q = &questions[k];
	if (!q) {
		for (int k = 0; k < PROXY_QUESTIONS && !q; k++)
			if (!questions[k].token)
				q = &questions[k];
		if (!q) {
			refuse(i, PROXY_UNLISTED,
			       "not in the allowed domains; too many names asked about at once", NULL,
			       403, WK_SOCKS_NOT_ALLOWED);
			return;
		}
		q->token = ++last_token;
		snprintf(q->name, sizeof q->name, "%s", c->t.host);
		q->origin = i;
		q->origin_gen = c->gen;
		struct report r;
		report_of(i, PROXY_UNLISTED, &r);
		r.question = q->token;
		if (!report(&r)) {
			q->token = 0;
			refuse(i, PROXY_UNLISTED,
			       "not in the allowed domains; too many questions at once", NULL, 403,
			       WK_SOCKS_NOT_ALLOWED);
			return;
		}
	}
	c->qtoken = q->token;
	c->st = C_ASKING;
	c->deadline = 0; /* the question has its own */
}

/* Answers from the relay loop (proxy_answer, below). */
static void answers_read(void)
{
	struct answer an;
	while (read(answer_pipe[0], &an, sizeof an) == (ssize_t)sizeof an) {
		struct question *q = NULL;
		for (int k = 0; k < PROXY_QUESTIONS && !q; k++)
			if (questions[k].token == an.token)
				q = &questions[k];
		if (!q)
			continue;
		an.reason[sizeof an.reason - 1] = '\0';
		struct strv *keep = !an.settled ? NULL : an.answer == PTY_NO ? &kept_refused
									 : &kept_allowed;
		if (keep && keep->n < PROXY_KEPT && !name_kept(keep, q->name))
			strv_add(keep, q->name);
		struct question was = *q;
		q->token = 0; /* free: a connection asked anew makes a new one */
		for (int i = 0; i < PROXY_CONNS; i++) {
			struct conn *c = &conns[i];
			if (c->st != C_ASKING || c->qtoken != was.token)
				continue;
			c->qtoken = 0;
			bool origin = i == was.origin && c->gen == was.origin_gen;
			if (an.answer == PTY_SESSION || (an.answer == PTY_YES && origin)) {
				snprintf(c->why, sizeof c->why, "allowed by an answer (%s)",
					 an.answer == PTY_SESSION ? "for the session" : "once");
				proceed(i);
			}
			else if (an.answer == PTY_NO)
				refuse(i, PROXY_UNLISTED, an.reason, NULL, 403, WK_SOCKS_NOT_ALLOWED);
			else
				ask_about(i); /* "once" was for another connection */
		}
	}
}

/* The answer to a question (ask_net), in the relay loop. */
static void proxy_answer(unsigned long token, enum pty_answer answer, bool settled,
			 const char *reason)
{
	if (!running || answer_pipe[1] < 0)
		return;
	struct answer an = {.token = token, .answer = answer, .settled = settled};
	snprintf(an.reason, sizeof an.reason, "%s", reason ? reason : "not in the allowed domains");
	/* At most ASK_MAX answers are ever pending: the pipe holds them. */
	if (write(answer_pipe[1], &an, sizeof an) != (ssize_t)sizeof an)
		warnmsg("the proxy: an answer was lost: %s", strerror(errno));
}

/* C->t refused: its port is not one the session reaches RULE on (a
 * grant's HOST:PORT, grant.h). */
static void port_refuse(int i, const char *rule)
{
	char reason[WK_NAME_MAX + 64];
	snprintf(reason, sizeof reason, "port %u is not one allowed for %s",
		 (unsigned)conns[i].t.port, rule);
	refuse(i, PROXY_DENIED, reason, NULL, 403, WK_SOCKS_NOT_ALLOWED);
}

/* C->t's port, for a target allowed by RULE (a pattern): true, or
 * refused here when the session reaches RULE on other ports only. */
static bool port_allowed(int i, const char *rule)
{
	if (wk_grant_port_ok(sess->pol.port_limits.v, sess->pol.port_limits.n, rule,
			     conns[i].t.port))
		return true;
	port_refuse(i, rule);
	return false;
}

/* A complete request for C->t: decided, then resolved or refused. */
static void decide(int i)
{
	struct conn *c = &conns[i];
	char tt[WK_NAME_MAX + 16];
	wk_target_text(&c->t, tt, sizeof tt);
	snprintf(c->obj, sizeof c->obj, "%s %s", c->socks || c->req->connect ? "CONNECT" : c->req->method,
		 tt);
	watch_fd(c->cfd, &c->cev, 0, tag(i, false));
	c->why[0] = '\0';
	if (c->t.family) {
		struct wk_addr a = {.family = c->t.family};
		memcpy(a.a, c->t.addr, sizeof a.a);
		if (!wk_addr_in(&a, allowed_addrs, n_allowed)) {
			refuse(i, PROXY_RAW_IP, "an address, not a name", NULL, 403, WK_SOCKS_NOT_ALLOWED);
			return;
		}
		/* The port limits of the entries that allowed it (an IPv4
		 * address matches its v4-mapped form too), each by its own
		 * canonical text, never the target's. */
		bool port_ok = false;
		char rule[NETFMT_IPV6_MAX] = "?";
		for (size_t k = 0; k < n_allowed && !port_ok; k++) {
			char text[NETFMT_IPV6_MAX];
			if (!wk_addr_in(&a, &allowed_addrs[k], 1))
				continue;
			if (allowed_addrs[k].family == AF_INET)
				netfmt_ipv4(text, allowed_addrs[k].a);
			else
				netfmt_ipv6(text, allowed_addrs[k].a);
			if (!wk_addr_canonical(text, 0, rule, sizeof rule))
				continue;
			port_ok = wk_grant_port_ok(sess->pol.port_limits.v, sess->pol.port_limits.n,
						   rule, c->t.port);
		}
		if (!port_ok) {
			port_refuse(i, rule);
			return;
		}
		snprintf(c->why, sizeof c->why, "the address is in the allowed addresses (%s)", rule);
		use_addresses(i, &a, 1);
		return;
	}
	const char *which;
	enum wk_domain_verdict v = wk_domain_decide(
		c->t.host, (const char *const *)sess->pol.domains_allow.v, sess->pol.domains_allow.n,
		(const char *const *)sess->pol.domains_deny.v, sess->pol.domains_deny.n, &which);
	if (v == WK_DOMAIN_DENIED) {
		char reason[WK_NAME_MAX + 40];
		snprintf(reason, sizeof reason, "on the deny list (%s)", which);
		refuse(i, PROXY_DENIED, reason, NULL, 403, WK_SOCKS_NOT_ALLOWED);
		return;
	}
	if (v == WK_DOMAIN_ALLOWED && !port_allowed(i, which))
		return;
	if (v == WK_DOMAIN_ALLOWED)
		snprintf(c->why, sizeof c->why, "in the allowed domains (%s)", which);
	else
		snprintf(c->why, sizeof c->why, "allowed for the session by an answer");
	if (v == WK_DOMAIN_UNLISTED && !name_kept(&kept_allowed, c->t.host)) {
		if (name_kept(&kept_refused, c->t.host))
			refuse(i, PROXY_UNLISTED, "not in the allowed domains; refused for this session",
			       NULL, 403, WK_SOCKS_NOT_ALLOWED);
		else
			ask_about(i);
		return;
	}
	proceed(i);
}

/* An allowed name: its address, fixed or looked up. */
static void proceed(int i)
{
	struct conn *c = &conns[i];
	struct wk_addr fixed;
	if (fixed_address(c->t.host, &fixed)) {
		use_addresses(i, &fixed, 1);
		return;
	}
	if (lookups_running >= PROXY_LOOKUPS) {
		c->st = C_WAIT;
		return;
	}
	start_lookup(i);
}

static void lookup_done(void)
{
	struct lookup *lk;
	while (recv(lk_sock[0], &lk, sizeof lk, MSG_DONTWAIT) == (ssize_t)sizeof lk) {
		lookups_running--;
		int i = lk->conn;
		if (i >= 0 && conns[i].st == C_RESOLVING && conns[i].lk == lk && conns[i].gen == lk->gen) {
			conns[i].lk = NULL;
			if (lk->err || !lk->n)
				refuse(i, PROXY_UNRESOLVED, lk->err ? lk->err : "no address", NULL, 502,
				       WK_SOCKS_HOST_UNREACHABLE);
			else
				use_addresses(i, lk->addr, lk->n);
		}
		free(lk);
	}
	for (int i = 0; i < PROXY_CONNS && lookups_running < PROXY_LOOKUPS; i++)
		if (conns[i].st == C_WAIT)
			start_lookup(i);
}

static void read_http(int i)
{
	struct conn *c = &conns[i];
	char buf[4096];
	ssize_t n = recv(c->cfd, buf, sizeof buf, MSG_DONTWAIT);
	if (n <= 0) {
		if (n == 0 || errno != EAGAIN)
			conn_close(i);
		return;
	}
	size_t used;
	enum wk_parse r = wk_http_feed(c->hp, buf, (size_t)n, &used, c->req);
	if (r == WK_PARSE_MORE)
		return;
	if (r == WK_PARSE_BAD) {
		refuse(i, PROXY_BAD, c->req->why, NULL, c->req->status, 0);
		return;
	}
	c->t = c->req->target;
	size_t left = (size_t)n - used;
	size_t head = c->req->connect ? 0 : c->req->out_len;
	c->early = malloc(head + left + 1);
	if (!c->early) {
		http_error(i, 503, "out of memory");
		return;
	}
	memcpy(c->early, c->req->out, head);
	memcpy(c->early + head, buf + used, left);
	c->early_len = head + left;
	decide(i);
}

static void read_socks(int i)
{
	struct conn *c = &conns[i];
	if (c->sl == sizeof c->sb) {
		conn_close(i);
		return;
	}
	ssize_t n = recv(c->cfd, c->sb + c->sl, sizeof c->sb - c->sl, MSG_DONTWAIT);
	if (n <= 0) {
		if (n == 0 || errno != EAGAIN)
			conn_close(i);
		return;
	}
	c->sl += (size_t)n;
	size_t used = 0;
	const char *why = NULL;
	if (!c->greeted) {
		bool noauth;
		enum wk_parse r = wk_socks_greeting(c->sb, c->sl, &used, &why, &noauth);
		if (r == WK_PARSE_MORE)
			return;
		if (r == WK_PARSE_BAD) {
			static const unsigned char no[2] = {5, 0xff};
			if (noauth)
				answer_close(i, no, sizeof no);
			else
				refuse(i, PROXY_BAD, why, NULL, 400, 0);
			return;
		}
		static const unsigned char yes[2] = {5, 0};
		if (send(c->cfd, yes, sizeof yes, MSG_DONTWAIT | MSG_NOSIGNAL) != sizeof yes) {
			conn_close(i);
			return;
		}
		c->greeted = true;
		memmove(c->sb, c->sb + used, c->sl - used);
		c->sl -= used;
	}
	int reply;
	enum wk_parse r = wk_socks_request(c->sb, c->sl, &used, &c->t, &why, &reply);
	if (r == WK_PARSE_MORE)
		return;
	if (r == WK_PARSE_BAD) {
		refuse(i, PROXY_BAD, why, NULL, 400, reply);
		return;
	}
	c->early_len = c->sl - used;
	c->early = malloc(c->early_len + 1);
	if (!c->early) {
		conn_close(i);
		return;
	}
	memcpy(c->early, c->sb + used, c->early_len);
	decide(i);
}

static void accept_all(int which)
{
	for (;;) {
		struct sockaddr_in peer = {0};
		socklen_t pl = sizeof peer;
		int fd = accept4(listeners[which], (struct sockaddr *)&peer, &pl,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		int i = 0;
		while (i < PROXY_CONNS && conns[i].st != C_FREE)
			i++;
		if (i == PROXY_CONNS) {
			/* Full: closed at once, so the backlog holds nothing. */
			close(fd);
			continue;
		}
		struct conn *c = &conns[i];
		c->cfd = fd;
		nodelay(fd);
		c->socks = which == TAG_SOCKS;
		c->peer_port = ntohs(peer.sin_port);
		c->deadline = now_ms() + PROXY_HEAD_MS;
		if (!c->socks) {
			c->hp = calloc(1, sizeof *c->hp);
			c->req = calloc(1, sizeof *c->req);
			if (!c->hp || !c->req) {
				conn_close(i);
				continue;
			}
		}
		c->st = c->socks ? C_SOCKS : C_HEAD;
		watch_fd(fd, &c->cev, EPOLLIN, tag(i, false));
	}
}

static void expire(void)
{
	long long now = now_ms();
	for (int i = 0; i < PROXY_CONNS; i++) {
		struct conn *c = &conns[i];
		if (c->st == C_FREE || !c->deadline || c->deadline > now)
			continue;
		if (c->st == C_HEAD || c->st == C_SOCKS) {
			/* A slow or silent client: it had its time. */
			if (c->socks)
				conn_close(i);
			else
				http_error(i, 408, "the request took too long");
		} else if (c->st == C_CONNECTING) {
			c->ai++;
			connect_next(i);
		} else {
			if (c->socks)
				socks_error(i, WK_SOCKS_HOST_UNREACHABLE);
			else
				http_error(i, 504, "the name lookup took too long");
		}
	}
}

static void *proxy_main(void *arg)
{
	(void)arg;
	struct epoll_event evs[64];
	for (;;) {
		long long next = -1, now = now_ms();
		for (int i = 0; i < PROXY_CONNS; i++)
			if (conns[i].st != C_FREE && conns[i].deadline &&
			    (next < 0 || conns[i].deadline < next))
				next = conns[i].deadline;
		int timeout = next < 0 ? -1 : next <= now ? 0 : (int)(next - now + 1);
		int n = epoll_wait(ep, evs, 64, timeout);
		if (n < 0 && errno != EINTR)
			break;
		for (int k = 0; k < n; k++) {
			uint64_t t = evs[k].data.u64;
			if (t == TAG_STOP)
				return NULL;
			if (t == TAG_HTTP || t == TAG_SOCKS) {
				accept_all((int)t);
				continue;
			}
			if (t == TAG_LOOKUP) {
				lookup_done();
				continue;
			}
			if (t == TAG_ANSWER) {
				answers_read();
				continue;
			}
			int i = (int)((t - TAG_CONN) / 2);
			bool server = (t - TAG_CONN) % 2;
			struct conn *c = &conns[i];
			switch (c->st) {
			case C_HEAD:
				if (!server)
					read_http(i);
				break;
			case C_SOCKS:
				if (!server)
					read_socks(i);
				break;
			case C_CONNECTING:
				if (!server && (evs[k].events & (EPOLLERR | EPOLLHUP)))
					conn_close(i);
				else if (server) {
					int err = 0;
					socklen_t l = sizeof err;
					if (getsockopt(c->sfd, SOL_SOCKET, SO_ERROR, &err, &l) < 0 || err) {
						c->ai++;
						connect_next(i);
					} else {
						connected(i);
					}
				}
				break;
			case C_SPLICE:
				pump(i, evs[k].events);
				break;
			default:
				/* Waiting for a lookup or a connect: the client
				 * can only have gone (errors and hang-ups come
				 * unasked). */
				if (!server && (evs[k].events & (EPOLLERR | EPOLLHUP)))
					conn_close(i);
				break;
			}
		}
		expire();
	}
	return NULL;
}

/* --- the supervisor's side ------------------------------------------------------ */

/* Reports, in the relay loop: the line, `wicket why`, the audit log.
 * One line per (process, object); the rest are counted. */
static void on_reports(struct session *s, struct watch *w, short revents)
{
	(void)w;
	(void)revents;
	char drain[256];
	while (read(report_pipe[0], drain, sizeof drain) > 0)
		;
	static struct report got[PROXY_REPORTS];
	pthread_mutex_lock(&report_mu);
	size_t n = n_reports, dropped = reports_dropped;
	unsigned long upto = reports_queued;
	memcpy(got, reports, n * sizeof *got);
	n_reports = 0;
	reports_dropped = 0;
	pthread_mutex_unlock(&report_mu);
	static struct {
		long host_pid;
		char obj[WK_NAME_MAX + 64];
	} seen[256];
	static size_t n_seen;
	for (size_t k = 0; k < n; k++) {
		struct report *r = &got[k];
		if (r->question) {
			if (!running)
				continue; /* the session is over: no one waits for it */
			ask_net(s, &(struct net_question){.token = r->question, .host = r->name,
							  .request = r->obj, .comm = r->comm,
							  .pid = r->pid, .host_pid = r->host_pid,
							  .answer = proxy_answer});
			continue;
		}
		bool again = false;
		for (size_t j = 0; j < n_seen && !again; j++)
			again = seen[j].host_pid == r->host_pid && strcmp(seen[j].obj, r->obj) == 0;
		/* Audited once per (process, object), like the line. */
		if (!again)
			ask_audit_net(s, r->comm, r->host_pid, r->obj, r->allowed, r->reason);
		if (r->allowed)
			continue;
		if (!again && n_seen < sizeof seen / sizeof seen[0]) {
			seen[n_seen].host_pid = r->host_pid;
			snprintf(seen[n_seen].obj, sizeof seen[n_seen].obj, "%s", r->obj);
			n_seen++;
		}
		control_denial(s,
			       &(struct denial){.kind = "network", .object = r->obj, .comm = r->comm,
						.pid = r->pid, .host_pid = r->host_pid,
						.reason = r->reason, .proxy = r->proxy,
						.proxy_name = r->name[0] ? r->name : NULL,
						.proxy_addr = r->addr[0] ? r->addr : NULL},
			       again ? DENIAL_QUIET : DENIAL_PRINT);
	}
	/* Said once; the whole count at the end (proxy_finish). */
	if (dropped && !dropped_total)
		warnmsg("the proxy refuses more requests than it can report; the count comes at "
			"the end");
	dropped_total += dropped;
	/* Their clients wait for the answer, so write nothing meanwhile: the
	 * lines go out before it, not a few milliseconds into what they say. */
	control_lines_now();
	pthread_mutex_lock(&report_mu);
	reports_shown = upto;
	pthread_cond_broadcast(&report_cv);
	pthread_mutex_unlock(&report_mu);
}

static void parse_addrs(const struct strv *v, struct wk_addr **out, size_t *n)
{
	*out = calloc(v->n + 1, sizeof **out);
	*n = 0;
	for (size_t i = 0; *out && i < v->n; i++) {
		struct wk_addr *a = &(*out)[*n];
		if (inet_pton(AF_INET, v->v[i], a->a) == 1)
			a->family = AF_INET, (*n)++;
		else if (inet_pton(AF_INET6, v->v[i], a->a) == 1)
			a->family = AF_INET6, (*n)++;
	}
}

/* The host's own addresses: a name that resolves to one of them would
 * reach the host's services through the proxy. */
static void host_addrs(void)
{
	struct ifaddrs *ifs = NULL;
	size_t cap = 0;
	if (getifaddrs(&ifs) < 0)
		return;
	for (struct ifaddrs *f = ifs; f; f = f->ifa_next)
		cap++;
	own_addrs = calloc(cap + 1, sizeof *own_addrs);
	for (struct ifaddrs *f = ifs; own_addrs && f; f = f->ifa_next) {
		if (!f->ifa_addr)
			continue;
		struct wk_addr *a = &own_addrs[n_own];
		if (f->ifa_addr->sa_family == AF_INET) {
			a->family = AF_INET;
			memcpy(a->a, &((struct sockaddr_in *)f->ifa_addr)->sin_addr, 4);
			n_own++;
		} else if (f->ifa_addr->sa_family == AF_INET6) {
			a->family = AF_INET6;
			memcpy(a->a, &((struct sockaddr_in6 *)f->ifa_addr)->sin6_addr, 16);
			n_own++;
		}
	}
	freeifaddrs(ifs);
}

void proxy_start(struct session *s, bool started)
{
	if (!started || s->proxy_sock[0] < 0)
		return;
	char b;
	struct fdpass_in in;
	ssize_t n = fdpass_recv(s->proxy_sock[0], &b, 1, 2, 0, MSG_DONTWAIT, &in);
	close(s->proxy_sock[0]);
	s->proxy_sock[0] = -1;
	if (n != 1 || in.nfds != 2 || (in.flags & MSG_CTRUNC)) {
		fdpass_close(&in);
		warnmsg("the proxy's listeners did not arrive: the sandbox has no way out");
		return;
	}
	sess = s;
	listeners[0] = in.fds[0];
	listeners[1] = in.fds[1];
	for (int i = 0; i < PROXY_CONNS; i++) {
		memset(&conns[i], 0, sizeof conns[i]);
		conns[i].cfd = conns[i].sfd = -1;
		conns[i].up.pipe[0] = conns[i].up.pipe[1] = -1;
		conns[i].down.pipe[0] = conns[i].down.pipe[1] = -1;
	}
	parse_addrs(&s->pol.allow_addresses, &allowed_addrs, &n_allowed);
	host_addrs();
	/* Before any lookup's thread: it is not thread-safe. */
	if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
		die("the proxy: c-ares could not start");
	ep = epoll_create1(EPOLL_CLOEXEC);
	stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ep < 0 || stop_fd < 0 || socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, lk_sock) < 0 ||
	    pipe2(report_pipe, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    pipe2(answer_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		die_errno("the proxy");
	memset(questions, 0, sizeof questions);
	last_token = 0;
	struct epoll_event ev = {.events = EPOLLIN};
	ev.data.u64 = TAG_HTTP;
	epoll_ctl(ep, EPOLL_CTL_ADD, listeners[0], &ev);
	ev.data.u64 = TAG_SOCKS;
	epoll_ctl(ep, EPOLL_CTL_ADD, listeners[1], &ev);
	ev.data.u64 = TAG_STOP;
	epoll_ctl(ep, EPOLL_CTL_ADD, stop_fd, &ev);
	ev.data.u64 = TAG_LOOKUP;
	epoll_ctl(ep, EPOLL_CTL_ADD, lk_sock[0], &ev);
	ev.data.u64 = TAG_ANSWER;
	epoll_ctl(ep, EPOLL_CTL_ADD, answer_pipe[0], &ev);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&report_cv, &ca);
	pthread_condattr_destroy(&ca);
	reports_queued = reports_shown = 0;
	reports_closed = false;
	report_watch = session_watch(s, report_pipe[0], POLLIN, on_reports, NULL);
	if (!report_watch)
		die("the proxy: no room in the relay loop");
	/* The thread takes no signal: the supervisor's handlers run in the
	 * relay loop's thread, and a SIGPIPE from a splice stays blocked. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&thread, NULL, proxy_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e)
		die("the proxy: cannot start its thread: %s", strerror(e));
	running = true;
}

void proxy_finish(struct session *s)
{
	if (!running)
		return;
	uint64_t one = 1;
	pthread_mutex_lock(&report_mu);
	reports_closed = true; /* the relay loop no longer runs: nobody waits on it */
	pthread_cond_broadcast(&report_cv);
	pthread_mutex_unlock(&report_mu);
	if (write(stop_fd, &one, sizeof one) < 0)
		warnmsg("the proxy: cannot stop it: %s", strerror(errno));
	pthread_join(thread, NULL);
	running = false;
	on_reports(s, report_watch, 0); /* the last ones */
	if (dropped_total)
		warnmsg("the proxy refused %zu more requests than it could report", dropped_total);
	dropped_total = 0;
	session_unwatch(report_watch);
	for (int i = 0; i < PROXY_CONNS; i++)
		if (conns[i].st != C_FREE)
			conn_close(i);
	close(listeners[0]);
	close(listeners[1]);
	close(ep);
	close(stop_fd);
	close(lk_sock[0]);
	close(report_pipe[0]);
	close(report_pipe[1]);
	close(answer_pipe[0]);
	close(answer_pipe[1]);
	answer_pipe[0] = answer_pipe[1] = -1;
	strv_free(&kept_allowed);
	strv_free(&kept_refused);
	free(allowed_addrs);
	free(own_addrs);
}
