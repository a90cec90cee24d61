/* Network refusals the preload shim cannot see: static binaries, Go
 * programs, raw system calls. The seccomp filter's notify programs
 * (seccomp-rules.c) turn each network call they refuse into a user
 * notification; the supervisor receives it here, answers EPERM itself and
 * prints the same line the shim would:
 *
 *   sandbox: network blocked: socket ipv4/tcp (curl[42])
 *
 * The listener. The command loads its filter with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER right before execve, and the
 * supervisor takes it with pidfd_getfd while the command waits, then the
 * command closes its copy: the command never holds it across exec, since
 * whoever holds it can answer "continue" and let the call through. The
 * command tells the supervisor the descriptor's number with write(2) on
 * a socket pair made before the clone (with SO_PASSCRED the kernel adds
 * the writer's pid, in the supervisor's pid namespace), and waits for
 * its answer. Not with sendmsg(SCM_RIGHTS): the "unix" programs refer
 * every sendmsg to the listener, which no one would be reading yet. For
 * that moment the process is made dumpable (pidfd_getfd needs ptrace
 * access; it shares init's memory, which is not dumpable otherwise), and
 * no process of the sandbox runs yet. The kernel
 * gives a filter tree one listener; the notify programs refuse the flag
 * that makes one, so the sandbox cannot install a filter of its own whose
 * "continue" would win over ours (see deny_listeners in seccomp-rules.c).
 *
 * Answers. EPERM for a network call: what the filter refers here is
 * refused, and the supervisor only says so. The
 * address of a refused Fast Open send is read from the caller's memory
 * for the message alone, and only believed when SECCOMP_IOCTL_NOTIF_ID_VALID
 * says the call is still the one notified. If the listener goes away
 * (the supervisor died), the kernel fails those calls with ENOSYS:
 * still refused.
 *
 * Where the supervisor decides unix sockets (Landlock ABI < 9),
 * unixnotify.c's own thread reads the listener, makes the unix sockets'
 * calls, and hands the rest here, to the relay loop (handle_notif).
 *
 * Bounds. A bounded number of notifications per wake-up, so a flood
 * cannot starve the relay loop; each reported (process, object) once,
 * remembered in a fixed ring; /proc and memory reads of fixed size; a
 * task that died meanwhile (ENOENT) is dropped quietly.
 *
 * Where the kernel cannot give a listener (before 5.0, or wicket itself
 * runs under a filter that has one: EBUSY) the command loads the plain
 * programs, whose refusals fail with EPERM as before, and the shim is told
 * to report them itself: never a weaker filter. */
#include "config.h"
#include "base/session.h"
#include "base/setupfail.h"
#include "child/seccomp.h"
#include "supervisor/control.h"
#include "supervisor/netnotify.h"
#include "supervisor/notifyutil.h"
#include "supervisor/unixnotify.h"
#include "supervisor/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fdpass.h"
#include "netfmt.h"
#include "rules.h"

#define NOTIFS_PER_WAKE 16   /* then the relay loop gets its turn */
#define SEEN_MAX 256         /* (process, object) pairs remembered */
#define NOTIF_BUF 512        /* room for the kernel's struct seccomp_notif */

/* --- the object of a refused call (pure) --------------------------------- */

static const char *family_name(int f, char *buf, size_t sz)
{
	switch (f) {
	case AF_UNIX: return "unix";
	case AF_INET: return "ipv4";
	case AF_INET6: return "ipv6";
	case AF_NETLINK: return "netlink";
	case AF_PACKET: return "packet";
	case AF_VSOCK: return "vsock";
	case AF_KEY: return "key";
	case AF_ALG: return "alg";
	case AF_XDP: return "xdp";
	case AF_CAN: return "can";
	case AF_BLUETOOTH: return "bluetooth";
	case AF_TIPC: return "tipc";
	case AF_RDS: return "rds";
	case AF_APPLETALK: return "appletalk";
	case AF_IPX: return "ipx";
	case AF_AX25: return "ax25";
	case AF_X25: return "x25";
	default:
		snprintf(buf, sz, "family %d", f);
		return buf;
	}
}

/* "tcp", "udp", "raw" as the shim says them for inet sockets (from the
 * type), but by protocol where TCP or UDP would be wrong: the ports mode
 * refuses MPTCP, SCTP, UDP-Lite and ICMP sockets, which Landlock's TCP
 * rules do not cover. */
static const char *inet_proto(int type, int proto)
{
	switch (type & 0xf) {
	case SOCK_STREAM:
		return proto == IPPROTO_MPTCP ? "mptcp" : proto == IPPROTO_SCTP ? "sctp" : "tcp";
	case SOCK_DGRAM:
		return proto == IPPROTO_UDPLITE ? "udplite" :
		       proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6 ? "icmp" : "udp";
	case SOCK_RAW:
		return "raw";
	case SOCK_SEQPACKET:
		return proto == IPPROTO_SCTP ? "sctp" : "seqpacket";
	default:
		return "socket";
	}
}

static const char *type_name(int type)
{
	switch (type & 0xf) {
	case SOCK_STREAM: return "stream";
	case SOCK_DGRAM: return "dgram";
	case SOCK_RAW: return "raw";
	case SOCK_SEQPACKET: return "seqpacket";
	case SOCK_RDM: return "rdm";
	case SOCK_PACKET: return "packet";
	default: return "socket";
	}
}

/* "1.2.3.4:80" or "[::1]:80" from the address at ADDR (LEN bytes); 0 when
 * it is not a whole inet address. */
static size_t endpoint(char *o, const void *addr, size_t len)
{
	sa_family_t fam;
	if (!addr || len < sizeof fam)
		return 0;
	memcpy(&fam, addr, sizeof fam);
	if (fam == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in a;
		memcpy(&a, addr, sizeof a);
		size_t n = netfmt_ipv4(o, (const unsigned char *)&a.sin_addr);
		return n + (size_t)sprintf(o + n, ":%u", ntohs(a.sin_port));
	}
	if (fam == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 a;
		memcpy(&a, addr, sizeof a);
		o[0] = '[';
		size_t n = 1 + netfmt_ipv6(o + 1, a.sin6_addr.s6_addr);
		return n + (size_t)sprintf(o + n, "]:%u", ntohs(a.sin6_port));
	}
	return 0;
}

size_t netnotify_object(char *o, size_t osz, long nr, const uint64_t *args, const void *addr,
			size_t addrlen)
{
	char fb[32];
	int n;
	if (nr == SYS_socket || nr == SYS_socketpair) {
		/* The kernel reads these arguments as int. */
		int fam = (int)args[0], type = (int)args[1], proto = (int)args[2];
		const char *op = nr == SYS_socket ? "socket" : "socketpair";
		if (fam == AF_INET || fam == AF_INET6)
			n = snprintf(o, osz, "%s %s/%s", op, family_name(fam, fb, sizeof fb),
				     inet_proto(type, proto));
		else
			n = snprintf(o, osz, "%s %s/%s", op, family_name(fam, fb, sizeof fb),
				     type_name(type));
	} else if (nr == SYS_sendto || nr == SYS_sendmsg || nr == SYS_sendmmsg) {
		/* TCP Fast Open: a connection that no Landlock rule sees. */
		const char *op = nr == SYS_sendto ? "sendto" : nr == SYS_sendmsg ? "sendmsg" : "sendmmsg";
		char ep[NETFMT_IPV6_MAX + 16];
		if (endpoint(ep, addr, addrlen))
			n = snprintf(o, osz, "%s %s/tcp", op, ep);
		else
			n = snprintf(o, osz, "%s with MSG_FASTOPEN", op);
	} else {
		n = snprintf(o, osz, "system call %ld", nr);
	}
	return n < 0 ? 0 : (size_t)n < osz ? (size_t)n : osz - 1;
}

/* --- is it wanted, can the kernel do it ---------------------------------- */

static int notif_size, resp_size; /* the kernel's, from SECCOMP_GET_NOTIF_SIZES */

/* WICKET_PRETEND_MISSING (see probe.c) may name seccomp-notify. */
static bool pretend_missing(void)
{
	const char *p = getenv("WICKET_PRETEND_MISSING");
	for (size_t k = strlen("seccomp-notify"); p && *p; p += strcspn(p, ","), p += *p == ',')
		if (strncmp(p, "seccomp-notify", k) == 0 && (p[k] == ',' || p[k] == '\0'))
			return true;
	return false;
}

static bool kernel_notifies(void)
{
	static int cached = -1;
	if (cached < 0) {
		struct seccomp_notif_sizes sz;
		cached = !pretend_missing() &&
			 syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) == 0 &&
			 sz.seccomp_notif >= sizeof(struct seccomp_notif) &&
			 sz.seccomp_notif <= NOTIF_BUF &&
			 sz.seccomp_notif_resp >= sizeof(struct seccomp_notif_resp) &&
			 sz.seccomp_notif_resp <= NOTIF_BUF;
		if (cached) {
			notif_size = sz.seccomp_notif;
			resp_size = sz.seccomp_notif_resp;
		}
	}
	return cached;
}

bool netnotify_kernel_ok(void)
{
	/* The supervisor's side of deciding unix sockets: pidfd_getfd and
	 * openat2 (Linux 5.6); a bad descriptor says the call exists. */
	if (!kernel_notifies())
		return false;
	errno = 0;
	syscall(SYS_pidfd_getfd, -1, -1, 0);
	if (errno == ENOSYS)
		return false;
	errno = 0;
	syscall(SYS_openat2, -1, "", NULL, 0); /* host: no path, a probe of the call */
	return errno != ENOSYS;
}

bool netnotify_wanted(const struct session *s)
{
	if (!s->pol.sandbox || !s->layers.seccomp)
		return false;
	/* To decide unix sockets (before Landlock ABI 9: enforcement, with
	 * or without diagnostics); to explain the filter's network refusals,
	 * where there are any and diagnostics are on. */
	if (!netnotify_unix(s) && (s->pol.net == NET_FULL || !s->diagnostics))
		return false;
	/* The supervisor's descriptors must be out of the sandbox's reach:
	 * its /proc/PID/fd is hidden by the pid namespace's own /proc, and
	 * refused by Landlock (no ptrace access out of a domain). With
	 * neither, a process of the same user could open the listener there. */
	if (!s->layers.pidns && !s->layers.landlock_abi)
		return false;
	return kernel_notifies();
}

/* --- handing the listener over ------------------------------------------- */

static int pair[2] = {-1, -1}; /* [0] the supervisor's end, [1] the command's */
static int listener = -1;
static struct watch *lwatch;
static enum denial_show show = DENIAL_PRINT;

void netnotify_prepare(struct session *s)
{
	if (!netnotify_wanted(s))
		return;
	int one = 1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0 ||
	    setsockopt(pair[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0)
		die_errno("socket pair for the seccomp listener");
}

/* The shim reads "s 1" (first of WICKET_RULES) as "the supervisor reports
 * seccomp's network refusals"; without a listener it must report them
 * itself. Edited in place: this runs between vfork and exec. */
static void shim_reports(char **envp)
{
	static const char key[] = "WICKET_RULES=";
	for (char **e = envp; e && *e; e++)
		if (strncmp(*e, key, sizeof key - 1) == 0)
			rules_supervisor_off(*e + sizeof key - 1);
}

/* Have the supervisor take the listener FD, and close it here. */
static int hand_over(int fd)
{
	ssize_t r;
	do
		r = write(pair[1], &fd, sizeof fd);
	while (r < 0 && errno == EINTR);
	char ack = 0;
	ssize_t k = -1;
	if (r == (ssize_t)sizeof fd) {
		do
			k = read(pair[1], &ack, 1);
		while (k < 0 && errno == EINTR);
	}
	int e = errno;
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* Never across exec (it is close-on-exec as well). */
	close(fd);
	/* The filter is in place and cannot be taken back: without a
	 * listener its referrals would fail with ENOSYS, unexplained. */
	if (k != 1 || ack != 'k')
		return setup_fail(STAGE_SECCOMP, k < 0 ? e : EIO,
				  "hand the seccomp listener to the supervisor");
	return 0;
}

int netnotify_seccomp(struct session *s)
{
	if (pair[1] < 0)
		return seccomp_apply(&s->pol, net_private_loopback(s), false, NULL);
	int fd = -1;
	/* Until the supervisor has the listener (hand_over). */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	if (seccomp_apply(&s->pol, net_private_loopback(s), netnotify_unix(s), &fd) < 0)
		return -1;
	if (fd < 0) {
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		/* No listener (wicket runs under a filter that has one, e.g.
		 * a container manager's: EBUSY): nothing would keep unix
		 * sockets outside the sandbox out of reach. */
		if (netnotify_unix(s)) {
			if (!s->best_effort)
				return setup_fail(STAGE_SECCOMP, EBUSY,
						  "no seccomp listener for the supervisor to keep "
						  "host unix sockets out of reach (wicket already runs "
						  "under a filter that has one); --best-effort runs "
						  "without");
			warnmsg("weaker sandbox: no seccomp listener (wicket runs under a filter "
				"that has one): pathname unix sockets outside the workspace are "
				"reachable");
		}
		shim_reports(s->envp);
		return 0;
	}
	return hand_over(fd);
}

void netnotify_child_close(void)
{
	if (pair[0] >= 0)
		close(pair[0]);
	pair[0] = -1;
}

void netnotify_init_close(void)
{
	if (pair[1] >= 0)
		close(pair[1]);
	pair[1] = -1;
}

/* --- the supervisor's side ----------------------------------------------- */

/* The destination of a refused Fast Open send, for the message only (it
 * decides nothing). A few dozen bytes of the caller's own memory; fails
 * quietly where ptrace access is refused. The one place the supervisor
 * touches memory the sandbox chose: a page of a file mapping whose
 * storage hangs (a stuck network or FUSE file system the sandbox can
 * read) would hold the supervisor, and with it this session, until the
 * read returns; no other session and no decision depends on it. */
static size_t fastopen_addr(const struct seccomp_notif *n, struct sockaddr_in6 *out)
{
	uint64_t ptr = 0, len = 0;
	if (n->data.nr == SYS_sendto) {
		ptr = n->data.args[4];
		len = (uint32_t)n->data.args[5];
	} else {
		/* sendmsg's msghdr, or the first of sendmmsg's mmsghdrs. */
		struct msghdr h;
		if (netnotify_peek((pid_t)n->pid, n->data.args[1], &h, sizeof h) != (ssize_t)sizeof h)
			return 0;
		ptr = (uintptr_t)h.msg_name;
		len = h.msg_namelen;
	}
	if (!ptr || !len)
		return 0;
	if (len > sizeof *out)
		len = sizeof *out;
	ssize_t r = netnotify_peek((pid_t)n->pid, ptr, out, (size_t)len);
	return r > 0 ? (size_t)r : 0;
}

/* Once per (process, object): the shim's rule, kept by the supervisor for
 * every process of the session in a fixed ring (an old pair may come
 * round again after SEEN_MAX others). */
static uint64_t seen[SEEN_MAX];
static size_t seen_next;

static bool first_time(long pid, const char *obj)
{
	uint64_t h = 1469598103934665603ULL;
	for (const unsigned char *p = (const unsigned char *)obj; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	h ^= (uint64_t)pid * 0x9e3779b97f4a7c15ULL;
	h |= 1;
	for (size_t i = 0; i < SEEN_MAX; i++)
		if (seen[i] == h)
			return false;
	seen[seen_next] = h;
	seen_next = (seen_next + 1) % SEEN_MAX;
	return true;
}

/* A network refusal, once per (process, object), to the session (and,
 * through unixnotify_start, unixnotify.c's). */
static void netnotify_report(struct session *s, long pid, long host_pid, const char *comm,
			     const char *obj)
{
	if (!first_time(host_pid, obj))
		return;
	control_denial(s, &(struct denial){.kind = "network", .object = obj, .comm = comm,
					   .pid = pid, .host_pid = host_pid}, show);
}

/* A network refusal (NOTIF, a struct seccomp_notif): said, and answered
 * EPERM. */
static void handle_notif(struct session *s, const void *notif)
{
	const struct seccomp_notif *n = notif;
	union {
		struct seccomp_notif_resp r;
		char b[NOTIF_BUF];
	} resp;
	bool native = true;
#ifdef NOTIFY_NATIVE_ARCH
	native = n->data.arch == NOTIFY_NATIVE_ARCH; /* others are killed by the filter */
#endif
	char obj[160] = "";
	struct netnotify_who w;
	bool known = false;
	if (native) {
		struct sockaddr_in6 addr;
		size_t alen = 0;
		/* The filter refers these calls here only with MSG_FASTOPEN. */
		if (n->data.nr == SYS_sendto || n->data.nr == SYS_sendmsg ||
		    n->data.nr == SYS_sendmmsg)
			alen = fastopen_addr(n, &addr);
		uint64_t args[6];
		for (int i = 0; i < 6; i++)
			args[i] = n->data.args[i];
		netnotify_object(obj, sizeof obj, n->data.nr, args, alen ? &addr : NULL, alen);
		known = netnotify_who((pid_t)n->pid, &w);
	}
	/* Still the call that was notified: the memory and /proc read above
	 * were the caller's, not those of a process that took its pid. */
	bool valid = ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) == 0;
	/* The line first, then the answer: it is on wicket's stderr before
	 * the refused call returns, after what the caller wrote before it
	 * and before what it writes next, as the shim's are (diag.c). */
	if (valid && native) {
		if (!known) {
			w.pid = w.host_pid = n->pid;
			strcpy(w.comm, "?");
		}
		netnotify_report(s, w.pid, w.host_pid, w.comm, obj);
		control_lines_out();
	}
	memset(&resp, 0, (size_t)resp_size);
	resp.r.id = n->id;
	resp.r.error = -EPERM;
	resp.r.val = 0;
	resp.r.flags = 0; /* refused: never SECCOMP_USER_NOTIF_FLAG_CONTINUE */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

static void handle_one(struct session *s)
{
	union {
		struct seccomp_notif n;
		char b[NOTIF_BUF];
	} req;
	memset(&req, 0, (size_t)notif_size);
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return; /* ENOENT: the caller is gone already */
	handle_notif(s, &req.n);
}

static void listener_close(void)
{
	session_unwatch_close(&lwatch, &listener);
}

static void listener_ready(struct session *s, struct watch *w, short revents)
{
	(void)w;
	bool more = revents & POLLIN;
	for (int i = 0; more && i < NOTIFS_PER_WAKE; i++) {
		handle_one(s);
		/* RECV waits for a notification: only ask when one is there. */
		struct pollfd p = {.fd = listener, .events = POLLIN};
		more = poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
	}
	/* POLLHUP: no task uses the filter any more, and none can again.
	 * (POLLERR is transient: a signal while the kernel took a lock.) */
	if (revents & POLLNVAL || ((revents & POLLHUP) && !more))
		listener_close();
}

/* The descriptor is a seccomp listener (not something else the sandbox
 * managed to put on the socket). */
static bool is_listener(int fd)
{
	char path[64], target[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	/* host: our own descriptor's link */
	ssize_t n = readlink(path, target, sizeof target - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:seccomp notify") == 0;
}

int netnotify_setup_fd(void)
{
	return listener < 0 ? pair[0] : -1;
}

void netnotify_take(struct session *s)
{
	(void)s;
	int theirs = -1;
	struct fdpass_in in;
	ssize_t r = fdpass_recv(pair[0], &theirs, sizeof theirs, 0, FDPASS_CREDS, MSG_DONTWAIT,
				&in);
	if (r < 0)
		return;
	pid_t pid = in.pid;
	int fd = -1;
	if (r == (ssize_t)sizeof theirs && theirs >= 0 && pid > 0) {
		int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (pfd >= 0) {
			fd = (int)syscall(SYS_pidfd_getfd, pfd, theirs, 0);
			close(pfd);
		}
		if (fd >= 0 && !is_listener(fd)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		listener = fd;
	char ack = fd >= 0 ? 'k' : 'n';
	do
		r = write(pair[0], &ack, 1);
	while (r < 0 && errno == EINTR);
}

void netnotify_start(struct session *s, bool started)
{
	if (!started || pair[0] < 0)
		return;
	close(pair[0]);
	netnotify_init_close();
	pair[0] = -1;
	if (listener < 0)
		return; /* no listener: the command loaded the plain filter */
	const char *d = getenv("WICKET_DIAG");
	show = !s->diagnostics || (d && strcmp(d, "off") == 0) ? DENIAL_QUIET : DENIAL_PRINT;
	/* Where the supervisor decides unix sockets, unixnotify.c's thread
	 * reads the listener and hands the rest back here. */
	static const struct unixnotify_up up = {netnotify_report, handle_notif};
	if (unixnotify_start(s, listener, resp_size, &up))
		return;
	lwatch = session_watch(s, listener, POLLIN, listener_ready, NULL);
	if (!lwatch) {
		/* Closed, the listener's calls fail with ENOSYS: refused still,
		 * but unexplained. */
		warnmsg("internal error: no room to watch the seccomp listener");
		listener_close();
	}
}

void netnotify_finish(struct session *s)
{
	unixnotify_finish(s);
	if (pair[0] >= 0)
		close(pair[0]);
	pair[0] = -1;
	netnotify_init_close();
	listener_close();
}
