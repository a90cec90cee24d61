/* Pathname unix sockets on kernels whose Landlock cannot mediate them
 * (LANDLOCK_ACCESS_FS_RESOLVE_UNIX is ABI 9): the supervisor decides
 * every connect() and every send that names a destination, and performs
 * the allowed ones itself. DESIGN §4: unix sockets outside the writable
 * roots and the session's private /tmp (DESIGN also names /run: the
 * session's /run is a read-only cover with no socket of its own) are
 * never reachable.
 *
 * The "unix" seccomp programs (seccomp-rules.c) send connect(), sendto()
 * with a destination, sendmsg() and sendmmsg() here as user
 * notifications. A filter sees registers only: the socket's family and
 * the address live in memory and in a descriptor table that another
 * thread of the sandbox can change between any check and the kernel's
 * own reading of them. So no call is ever let through with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE: the supervisor takes the caller's
 * socket (pidfd_getfd), reads the address and the data once into its own
 * memory, decides on what it read, and makes the call itself on the same
 * open socket, answering with its result.
 *
 * The decision for a pathname address: the path is resolved in the
 * caller's own view (its root and cwd, from /proc/PID/{root,cwd}), one
 * component at a time with O_PATH|O_NOFOLLOW, symlinks followed by hand
 * (at most 40) and every symlink on a proc file system refused, so that
 * /proc/self/root, /proc/1/root or /proc/self/fd/N lead nowhere (they
 * are magic links). What is checked is the canonical path of the
 * descriptor held at the end (beneath a writable root, the private /tmp
 * but not a read root kept in it, or /dev/shm: plan_unix_root), and what is connected to is that
 * same inode, as "/proc/self/fd/N" of the supervisor's O_PATH
 * descriptor. The sandbox cannot move a directory from outside the
 * allowed roots into them (it cannot write outside), so the path checked
 * stays true of the inode held.
 *
 * Everything else (abstract and unnamed addresses, other families, the
 * sends of stream sockets) is made by the supervisor as well, on its own
 * copy of the address, with the rules of the layers the call would have
 * met: Landlock's TCP port rules (mirrored in tcp_refused) and its scope
 * of abstract unix sockets (with no network namespace of its own the
 * supervisor cannot tell the sandbox's abstract sockets from the host's:
 * all are refused, EPERM, as Landlock's scope would for the host's).
 *
 * Refusal: EACCES, what Landlock gives where it mediates these sockets,
 * and the supervisor's line "sandbox: network blocked: connect
 * unix:/path (prog[pid])".
 *
 * Threads. One thread, the lane, reads the listener itself (blocking,
 * with the kernel's synchronous wake-up: the caller's CPU goes straight
 * to the lane and back) and makes the sends that name no destination
 * there and then, MSG_DONTWAIT: a message on a socket pair or a
 * connected socket costs one notification's round trip and the few calls
 * that take the socket and copy the message, and no hand-off to another
 * thread. Everything else (a connect, a send with an address, a send on
 * the control socket, a send that would block a blocking caller) goes to
 * a pool of WORKERS threads (started with its watchdog when the lane
 * first hands a job on): a connect() to a listener whose backlog is
 * full, or a datagram to a full queue, blocks (as long as the caller's
 * socket is blocking, up to its SO_SNDTIMEO). A bounded queue: when it is
 * full the lane waits (the callers wait in the kernel). What is not a
 * unix socket's call (a network refusal) goes to the relay loop, through
 * the same pipe as the denials. The relay loop never waits for either:
 * the lane closes what it took itself, and a close that waits (a
 * lingering socket in flight) holds up only the sandbox's own calls.
 * A send of the lane's on a blocking stream socket that the peer's
 * buffer takes only part of goes on in a worker, which sends the rest
 * and waits, as the kernel would have; one that can take nothing goes
 * to a worker whole.
 * When a caller is interrupted by a signal the kernel drops its
 * notification (SECCOMP_IOCTL_NOTIF_ID_VALID fails) and restarts or fails
 * the call; a watchdog thread sees that and interrupts the worker's call
 * with WAKE_SIG (a handler without SA_RESTART). The workers touch no
 * state of the session's but what they read of its plan, which nothing
 * changes while they run; denials go to the relay loop through a pipe.
 *
 * What differs for the peer: the connection or the datagram comes from
 * the supervisor's process, so SO_PEERCRED and SCM_CREDENTIALS show the
 * supervisor's pid and ids (the same user's, but for a root session, where
 * they are root's and the sandbox's are root without capabilities).
 * Explicit SCM_CREDENTIALS are refused (EPERM: the supervisor does not
 * vouch for the sandbox's pid); SCM_RIGHTS are passed on, each descriptor
 * taken from the caller with pidfd_getfd. */
#include "config.h"
#include "base/session.h"
#include "plan/plan.h"
#include "supervisor/closer.h"
#include "supervisor/control.h"
#include "supervisor/notifyutil.h"
#include "supervisor/unixnotify.h"
#include "supervisor/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "path.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#define WORKERS 8
#define QUEUE_MAX 64
#define MAX_LINKS 40
#define STREAM_CHUNK (256u << 10)   /* a stream send takes this much at a time */
#define DGRAM_MAX (4u << 20)        /* a larger datagram: EMSGSIZE */
#define CONTROL_MAX 65536           /* ancillary data read from the caller */
#define IOV_MAX_K 1024              /* the kernel's UIO_MAXIOV */
#define WATCH_MS 50                 /* the watchdog's period */
#define ROOM_WAIT_MS 1000           /* for the closer's room (closer.h), at most */
#define MAGIC_LINK 100000           /* resolve(): a path through a magic link */

struct job {
	uint64_t id;
	bool lane;   /* the lane's attempt: never waits, may hand it on */
	pid_t tid;   /* the calling thread, as the supervisor sees it */
	int nr;
	uint64_t args[6];
	size_t sent; /* of a blocking stream send the lane began: bytes already sent, with
		      * the ancillary data; the worker sends the rest, waiting */
};

static struct job queue[QUEUE_MAX];
static size_t q_head, q_len;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t q_room = PTHREAD_COND_INITIALIZER; /* the lane waits for room */
static pthread_t lane_thread;
static bool lane_started;
static atomic_bool lane_done;
static struct worker {
	pthread_t t;
	bool started;
	bool busy;        /* under mu */
	uint64_t id;      /* the notification it works on */
} workers[WORKERS];
static pthread_t watchdog;
static pthread_cond_t watchdog_cv;    /* stopping: the watchdog ends now, not a period later */
static bool watchdog_started;
static atomic_bool stopping;
static int lfd = -1;                  /* the workers' own copy of the listener */
static int resp_size;
static int report[2] = {-1, -1};      /* workers -> relay loop */
static struct watch *report_watch;
static const struct session *sess;
static struct unixnotify_up up;       /* netnotify.c, which drives this */
static bool started;

/* A packet for the session's control socket, sent by the sandbox with
 * sendmsg: handed to control.c as the kernel would have, with the
 * caller's pid and a pidfd of it (a send of the supervisor's own would
 * carry the supervisor's credentials instead). */
struct packet {
	bool too_large;  /* more than the supervisor reads: refused there */
	char *buf;
	size_t len;
	pid_t sender;
	int pidfd;
	int fds[4];
	int nfds;
	/* The closer's room reserved for FDS (closer.h) until the relay loop
	 * has taken the packet: descriptors posted and not yet taken count
	 * against the supervisor's bound however far behind the loop is. */
	size_t reserved;
};

/* What the lane or a worker tells the relay loop: a denial to report,
 * a control packet, or a notification that is not a unix socket's. */
struct report_rec {
	bool denial;
	bool other;
	struct seccomp_notif notif;
	long pid, host_pid;
	char comm[64];
	char obj[200];
	struct packet *pkt;
};
static dev_t ctl_dev;    /* the sandbox's end of the control socket */
static ino_t ctl_ino;
static bool ctl_known;

static void wake(int sig)
{
	(void)sig; /* only to interrupt a worker's blocking call */
}

static int wake_sig(void)
{
	return SIGRTMIN + 3;
}

/* --- reading the caller ---------------------------------------------------- */

static bool valid(uint64_t id)
{
	return ioctl(lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* What one call's handling has read of the caller's memory. A small read
 * (a msghdr, an iovec array, an address) takes up to PEEK_SPAN bytes on
 * either side of it as well, within the page or two it lies in: what a
 * program keeps beside it (the iovecs and often the data of a msghdr on
 * its stack) is then copied from there, not read by another
 * process_vm_readv (each checks ptrace access again, the costliest part
 * of a message after the round trip itself). As before, what is decided
 * on and sent is the supervisor's copy, never the caller's memory read
 * again, however that memory changes meanwhile. The pages are those of
 * the bytes asked for, so the wider read faults nothing in that the
 * narrow one would not; what it copies besides stays in this buffer. */
#define PEEK_SPAN 1024
#define PEEK_SMALL 512   /* a read up to this size takes its neighbours */
#define PEEK_CHUNKS 2
#define PAGE 4096u       /* at least the page size: only bounds the span */
struct peek {
	pid_t tid;
	size_t n;
	struct {
		uint64_t at;
		size_t len;
		char b[2 * PEEK_SPAN + PEEK_SMALL];
	} c[PEEK_CHUNKS];
};

/* The bytes [ADDR, ADDR+LEN) in what P has read already, or NULL. */
static const char *peek_find(const struct peek *p, uint64_t addr, size_t len)
{
	for (size_t i = 0; i < p->n; i++)
		if (addr >= p->c[i].at && len <= p->c[i].len &&
		    addr - p->c[i].at <= p->c[i].len - len)
			return p->c[i].b + (addr - p->c[i].at);
	return NULL;
}

static bool read_all(struct peek *p, uint64_t addr, void *buf, size_t len)
{
	if (!len)
		return true;
	const char *have = peek_find(p, addr, len);
	if (have) {
		memcpy(buf, have, len);
		return true;
	}
	if (len > PEEK_SMALL || p->n == PEEK_CHUNKS || addr > UINT64_MAX - len - PAGE)
		return netnotify_peek(p->tid, addr, buf, len) == (ssize_t)len;
	uint64_t end = addr + len, lo = addr & ~(uint64_t)(PAGE - 1),
		 hi = (end + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	if (addr - lo > PEEK_SPAN)
		lo = addr - PEEK_SPAN;
	if (hi - end > PEEK_SPAN)
		hi = end + PEEK_SPAN;
	/* Within the pages of the bytes asked for: a short read means those
	 * bytes are not all there. */
	ssize_t got = netnotify_peek(p->tid, lo, p->c[p->n].b, (size_t)(hi - lo));
	if (got < (ssize_t)(end - lo))
		return false;
	p->c[p->n].at = lo;
	p->c[p->n].len = (size_t)got;
	memcpy(buf, p->c[p->n++].b + (addr - lo), len);
	return true;
}

/* The caller's fsuid, fsgid and groups (the host's numbers), from
 * /proc/TID/status. */
struct creds {
	uid_t uid;
	gid_t gid;
	gid_t groups[64];
	size_t ngroups;
};

static bool creds_of(pid_t tid, struct creds *c)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	/* host: /proc of the thread the kernel named */
	if (read_text_at(AT_FDCWD, path, buf, sizeof buf) <= 0)
		return false;
	bool u = false, g = false;
	c->ngroups = 0;
	for (char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned long v[4];
		if (strncmp(l, "Uid:", 4) == 0 &&
		    sscanf(l + 4, "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]) == 4) {
			c->uid = (uid_t)v[3];
			u = true;
		} else if (strncmp(l, "Gid:", 4) == 0 &&
			   sscanf(l + 4, "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]) == 4) {
			c->gid = (gid_t)v[3];
			g = true;
		} else if (strncmp(l, "Groups:", 7) == 0) {
			char *p = l + 7, *e;
			while (c->ngroups < sizeof c->groups / sizeof c->groups[0]) {
				unsigned long x = strtoul(p, &e, 10);
				if (e == p || (*e != ' ' && *e != '\n' && *e != '\0'))
					break;
				c->groups[c->ngroups++] = (gid_t)x;
				p = e;
			}
		}
	}
	return u && g;
}

/* A permission as the kernel would check it for the caller, by the mode
 * bits alone (the sandbox holds no capability, and a supervisor running
 * as root must not lend it its own): USER_BIT is S_IWUSR for writing the
 * socket, S_IXUSR for searching a directory on the way to it. */
static bool may(const struct stat *st, const struct creds *c, mode_t user_bit)
{
	if (st->st_uid == c->uid)
		return st->st_mode & user_bit;
	bool in_group = st->st_gid == c->gid;
	for (size_t i = 0; !in_group && i < c->ngroups; i++)
		in_group = c->groups[i] == st->st_gid;
	return st->st_mode & (in_group ? user_bit >> 3 : user_bit >> 6);
}

/* --- resolving a path in the caller's view ------------------------------ */

static int reopen_canon(int root, const char *canon)
{
	if (!canon[0])
		return fcntl(root, F_DUPFD_CLOEXEC, 3);
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
					  RESOLVE_NO_MAGICLINKS};
	/* host: beneath the caller's own root, the path walked with its rights */
	return (int)syscall(SYS_openat2, root, canon + 1, &how, sizeof how);
}

/* Resolve PATH (absolute, in the view whose root is ROOT) to a descriptor
 * in *FD, its canonical path in CANON ("" for "/"), looking into each
 * directory only if C may search it. -errno on failure. */
static int resolve(int root, const char *path, const struct creds *c, char *canon, size_t csz,
		   int *fd)
{
	char rest[2 * PATH_MAX], tmp[2 * PATH_MAX], link[PATH_MAX];
	if (strlen(path) >= sizeof rest)
		return -ENAMETOOLONG;
	strcpy(rest, path);
	canon[0] = '\0';
	int dir = reopen_canon(root, canon), links = 0;
	if (dir < 0)
		return -errno;
	char *p = rest;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		char *comp = p;
		p += strcspn(p, "/");
		if (*p)
			*p++ = '\0';
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			char *slash = strrchr(canon, '/');
			if (slash)
				*slash = '\0';
			close(dir);
			if ((dir = reopen_canon(root, canon)) < 0)
				return -errno;
			continue;
		}
		struct stat ds;
		if (fstat(dir, &ds) < 0 || !may(&ds, c, S_IXUSR)) {
			close(dir);
			return -EACCES;
		}
		/* host: connect's emulation walks beneath the caller's own root, O_PATH, with the caller's permissions */
		int f = openat(dir, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (f < 0 || fstat(f, &st) < 0) {
			int e = errno;
			if (f >= 0)
				close(f);
			close(dir);
			return -e;
		}
		if (S_ISLNK(st.st_mode)) {
			struct statfs sf;
			ssize_t n = -1;
			/* A proc file system's links are magic (they name an
			 * object, not a path, and may lead out of the view):
			 * never followed, a refusal (MAGIC_LINK). */
			if (fstatfs(f, &sf) < 0 || sf.f_type == PROC_SUPER_MAGIC) {
				close(f);
				close(dir);
				return -MAGIC_LINK;
			}
			if (++links <= MAX_LINKS)
				/* host: a link of that walk, read through its descriptor */
				n = readlinkat(f, "", link, sizeof link - 1);
			close(f);
			if (n <= 0) {
				close(dir);
				return -ELOOP;
			}
			link[n] = '\0';
			if (snprintf(tmp, sizeof tmp, "%s/%s", link, p) >= (int)sizeof tmp) {
				close(dir);
				return -ENAMETOOLONG;
			}
			strcpy(rest, tmp);
			p = rest;
			if (link[0] == '/') {
				canon[0] = '\0';
				close(dir);
				if ((dir = reopen_canon(root, canon)) < 0)
					return -errno;
			}
			continue;
		}
		size_t cl = strlen(canon);
		if (cl + 1 + strlen(comp) >= csz) {
			close(f);
			close(dir);
			return -ENAMETOOLONG;
		}
		canon[cl] = '/';
		strcpy(canon + cl + 1, comp);
		close(dir);
		dir = f;
	}
	*fd = dir;
	return 0;
}

/* The absolute path the caller means by the sun_path PATH (relative ones
 * from its cwd). */
static bool absolute_of(pid_t tid, const char *path, char *out, size_t osz)
{
	if (path[0] == '/')
		return snprintf(out, osz, "%s", path) < (int)osz;
	char link[64], cwd[PATH_MAX];
	snprintf(link, sizeof link, "/proc/%d/cwd", (int)tid);
	/* host: /proc/TID/cwd's name, looked at beneath the caller's root */
	ssize_t n = readlink(link, cwd, sizeof cwd - 1);
	if (n <= 0)
		return false;
	cwd[n] = '\0';
	if (cwd[0] != '/' || (n > 10 && strcmp(cwd + n - 10, " (deleted)") == 0))
		return false;
	return snprintf(out, osz, "%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, path) < (int)osz;
}

/* --- the decision ---------------------------------------------------------- */

enum verdict { V_PASS, V_PATH, V_REFUSE };

struct addr {
	struct sockaddr_storage a;
	socklen_t len;
	char shown[PATH_MAX + 8];  /* "unix:/path" for a report */
	int held;                  /* V_PATH: the O_PATH descriptor */
};

/* Landlock's TCP rules (security/landlock/net.c), where this session has
 * them: a TCP connect to an inet address whose port no rule allows is
 * refused. Returns 0 or the errno. */
static int tcp_refused(int sock, const struct addr *a)
{
	const struct session *s = sess;
	if (!net_tcp_by_landlock(s))
		return 0;
	int type = 0, proto = 0;
	socklen_t l = sizeof type;
	if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &l) < 0 || type != SOCK_STREAM)
		return 0;
	l = sizeof proto;
	if (getsockopt(sock, SOL_SOCKET, SO_PROTOCOL, &proto, &l) < 0 || proto != IPPROTO_TCP)
		return 0;
	if (a->len < sizeof(sa_family_t))
		return EINVAL;
	unsigned port;
	if (a->a.ss_family == AF_INET) {
		if (a->len < sizeof(struct sockaddr_in))
			return EINVAL;
		port = ntohs(((const struct sockaddr_in *)&a->a)->sin_port);
	} else if (a->a.ss_family == AF_INET6) {
		if (a->len < 24) /* SIN6_LEN_RFC2133 */
			return EINVAL;
		port = ntohs(((const struct sockaddr_in6 *)&a->a)->sin6_port);
	} else {
		return 0;
	}
	if (net_by_port(s->pol.net))
		for (size_t i = 0; i < s->pol.connect.n; i++)
			if (s->pol.connect.v[i] == port)
				return 0;
	return EACCES;
}

/* Decide the address A for a call on SOCK (family FAM) by the thread
 * TID; CHECK_PATH: a pathname decides (connect, or a datagram send).
 * *ERR: the refusal's errno. */
static enum verdict decide(pid_t tid, int sock, int fam, bool connecting, bool check_path,
			   struct addr *a, int *err)
{
	a->held = -1;
	a->shown[0] = '\0';
	if (fam != AF_UNIX) {
		if (connecting && (fam == AF_INET || fam == AF_INET6) && (*err = tcp_refused(sock, a)))
			return V_REFUSE;
		return V_PASS;
	}
	const struct sockaddr_un *un = (const struct sockaddr_un *)&a->a;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	if (a->len <= off || un->sun_family != AF_UNIX)
		return V_PASS; /* unnamed, AF_UNSPEC or not unix: the kernel's answer */
	if (un->sun_path[0] == '\0') {
		/* Abstract: in a network namespace of its own, only the
		 * sandbox's; on the host's, Landlock's scope (ABI 6) keeps
		 * the sandbox to its own, which the supervisor cannot tell. */
		if (sess->layers.netns || sess->layers.landlock_abi < 6)
			return V_PASS;
		size_t n = a->len - off - 1;
		snprintf(a->shown, sizeof a->shown, "unix:@%.*s", (int)(n > 100 ? 100 : n),
			 un->sun_path + 1);
		for (char *c = a->shown; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		*err = EPERM;
		return V_REFUSE;
	}
	if (!check_path)
		return V_PASS;
	char path[sizeof un->sun_path + 1];
	size_t n = a->len - off;
	memcpy(path, un->sun_path, n);
	path[n] = '\0'; /* the kernel's own reading: up to the first NUL */
	char abs[PATH_MAX];
	if (!absolute_of(tid, path, abs, sizeof abs)) {
		*err = ENOENT;
		return V_REFUSE;
	}
	snprintf(a->shown, sizeof a->shown, "unix:%s", abs);
	char rootp[64], canon[PATH_MAX];
	snprintf(rootp, sizeof rootp, "/proc/%d/root", (int)tid);
	/* host: /proc/TID/root of the thread the kernel named */
	int root = open(rootp, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		*err = ENOENT;
		a->shown[0] = '\0';
		return V_REFUSE;
	}
	int fd = -1;
	struct creds c = {0};
	int r = creds_of(tid, &c) ? resolve(root, abs, &c, canon, sizeof canon, &fd) : -EACCES;
	close(root);
	if (r == -MAGIC_LINK) {
		*err = EACCES;
		return V_REFUSE;
	}
	if (r < 0) {
		/* What the kernel would say (no such file, a loop). */
		*err = -r;
		a->shown[0] = '\0';
		return V_REFUSE;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		close(fd);
		*err = ECONNREFUSED; /* the kernel's answer for a non-socket */
		a->shown[0] = '\0';
		return V_REFUSE;
	}
	if (!plan_unix_root(sess, canon[0] ? canon : "/")) {
		close(fd);
		*err = EACCES;
		return V_REFUSE;
	}
	if (!may(&st, &c, S_IWUSR)) {
		close(fd);
		*err = EACCES; /* an ordinary permission error: not the sandbox's */
		a->shown[0] = '\0';
		return V_REFUSE;
	}
	/* The inode checked, by a name the supervisor resolves to it. */
	struct sockaddr_un *o = (struct sockaddr_un *)&a->a;
	memset(o, 0, sizeof *o);
	o->sun_family = AF_UNIX;
	int k = snprintf(o->sun_path, sizeof o->sun_path, "/proc/self/fd/%d", fd);
	a->len = (socklen_t)(off + (size_t)k + 1);
	a->held = fd;
	return V_PATH;
}

/* --- making the call ------------------------------------------------------- */

/* One attempt of CALL until it is not interrupted, or the caller is gone
 * (false). */
#define RETRY(id, r, call)                                                        \
	for (;;) {                                                                \
		(r) = (call);                                                     \
		if ((r) >= 0 || errno != EINTR)                                   \
			break;                                                    \
		if (atomic_load(&stopping) || !valid(id)) {                       \
			errno = EINTR;                                            \
			break;                                                    \
		}                                                                 \
	}

static bool do_connect(const struct job *j, int sock, const struct addr *a, long *ret)
{
	long r;
	RETRY(j->id, r, connect(sock, (const struct sockaddr *)&a->a, a->len));
	if (r < 0 && errno == EINTR)
		return false;
	*ret = r < 0 ? -errno : 0;
	return true;
}

/* The data of IOV (N entries of the caller's) into BUF (at most MAX
 * bytes; *LEN what was read, *TOTAL what the caller gave), and with it,
 * in the same call where it fits, CLEN bytes at the caller's CADDR into
 * CTL (the ancillary data; none when CLEN is 0). */
static int read_iov(struct peek *pk, uint64_t iov_addr, size_t n, size_t max, bool whole,
		    char **buf, size_t *len, size_t *total_out, uint64_t caddr, char *ctl,
		    size_t clen)
{
	if (n > IOV_MAX_K)
		return -EMSGSIZE;
	struct iovec *v = calloc(n + 1, sizeof *v);
	if (!v || (n && !read_all(pk, iov_addr, v, n * sizeof *v))) {
		free(v);
		return v ? -EFAULT : -ENOMEM;
	}
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].iov_len > SSIZE_MAX - total) {
			free(v);
			return -EINVAL;
		}
		total += v[i].iov_len;
	}
	*total_out = total;
	if (total > max) {
		if (whole) {
			free(v);
			return -EMSGSIZE;
		}
		total = max;
	}
	*buf = malloc(total ? total : 1);
	if (!*buf) {
		free(v);
		return -ENOMEM;
	}
	/* The caller's pieces cut to TOTAL, and the ancillary data, read in
	 * one call (each call checks ptrace access again). */
	size_t got = 0, m = 0;
	for (size_t i = 0; i < n && got < total; i++) {
		size_t k = v[i].iov_len < total - got ? v[i].iov_len : total - got;
		v[m].iov_base = v[i].iov_base;
		v[m++].iov_len = k;
		got += k;
	}
	struct iovec local[2] = {{*buf, total}, {ctl, clen}};
	size_t want = total;
	bool ctl_apart = clen && m + 1 > IOV_MAX_K;
	if (clen && !ctl_apart) {
		v[m].iov_base = (void *)(uintptr_t)caddr;
		v[m++].iov_len = clen;
		want += clen;
	}
	/* All of it beside what was read already (a message on the
	 * caller's stack): copied from there; else one read. */
	bool near = true;
	for (size_t i = 0; near && i < m; i++)
		near = !v[i].iov_len || peek_find(pk, (uintptr_t)v[i].iov_base, v[i].iov_len);
	if (near && ctl_apart)
		near = peek_find(pk, caddr, clen) != NULL;
	bool ok = true;
	if (near) {
		for (size_t i = 0, at = 0; i < m; i++) {
			size_t k = v[i].iov_len;
			char *to = at < total ? *buf + at : ctl + (at - total);
			if (k)
				memcpy(to, peek_find(pk, (uintptr_t)v[i].iov_base, k), k);
			at += k;
		}
		if (ctl_apart)
			memcpy(ctl, peek_find(pk, caddr, clen), clen);
	} else {
		ok = !want || process_vm_readv(pk->tid, local, want > total ? 2 : 1, v, m, 0) ==
				      (ssize_t)want;
		if (ok && ctl_apart)
			ok = read_all(pk, caddr, ctl, clen);
	}
	free(v);
	if (!ok) {
		free(*buf);
		*buf = NULL;
		return -EFAULT;
	}
	*len = total;
	return 0;
}

/* A descriptor taken from the caller, closed: by the lane itself (a
 * close that waits holds up only the sandbox's own calls), by the closer
 * for a worker (closer.h). */
static void drop_fd(bool lane, int fd)
{
	if (lane)
		close(fd);
	else
		closer_close(fd);
}

/* The caller's ancillary data (CTL, LEN bytes, read) for a send of ours:
 * SCM_RIGHTS with the caller's descriptors taken over (kept in FDS for
 * closing), SCM_CREDENTIALS refused. A worker reserves room for them
 * with the closer first (adding to *RESERVED, which it gives back once
 * they are the closer's); the lane closes them itself. */
static int take_control(bool lane, int pidfd, int fam, char *ctl, size_t len, int *fds,
			size_t *nfds, size_t maxfds, size_t *reserved)
{
	struct msghdr m = {.msg_control = ctl, .msg_controllen = len};
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_len < CMSG_LEN(0) || c->cmsg_len > len)
			return -EINVAL;
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS)
			return -EPERM;
		if (c->cmsg_type != SCM_RIGHTS)
			continue;
		if (fam != AF_UNIX)
			return -EINVAL;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (*nfds + k > maxfds)
			return -ETOOMANYREFS;
		if (!lane && !closer_reserve(k, ROOM_WAIT_MS))
			return -ENOBUFS;
		if (!lane)
			*reserved += k;
		for (size_t i = 0; i < k; i++) {
			int theirs, ours;
			memcpy(&theirs, CMSG_DATA(c) + i * sizeof(int), sizeof theirs);
			ours = (int)syscall(SYS_pidfd_getfd, pidfd, theirs, 0);
			if (ours < 0)
				return errno == EBADF ? -EBADF : -errno;
			fds[(*nfds)++] = ours;
			memcpy(CMSG_DATA(c) + i * sizeof(int), &ours, sizeof ours);
		}
	}
	return 0;
}

/* Whether the caller's send would wait (FLAGS its own, SOCK its socket). */
static bool caller_blocks(int sock, int flags)
{
	int fl = fcntl(sock, F_GETFL);
	return !(flags & MSG_DONTWAIT) && fl >= 0 && !(fl & O_NONBLOCK);
}

/* A send of the caller's: its msghdr (H, the name already decided in A,
 * NULL: none), with its data and ancillary data read into ours. The
 * lane's never waits: *HAND_ON when it would have to, nothing answered
 * and nothing sent, or the first J->sent bytes of a stream message. */
static bool do_send(struct job *j, struct peek *pk, int pidfd, int sock, int fam, int type,
		    const struct msghdr *h, const struct addr *a, int flags, long *ret,
		    bool *hand_on)
{
	char *data = NULL, *ctl = NULL;
	size_t dlen = 0, total = 0;
	int fds[253];
	size_t nfds = 0, reserved = 0;
	long r;
	bool stream = type == SOCK_STREAM;
	/* The ancillary data is read with the data (and was sent with the
	 * first part of a send the lane began). */
	size_t clen = h->msg_controllen <= CONTROL_MAX && !j->sent ? h->msg_controllen : 0;
	if (clen && !(ctl = malloc(clen)))
		return *ret = -ENOMEM, true;
	r = read_iov(pk, (uintptr_t)h->msg_iov, h->msg_iovlen,
		     stream || j->lane ? STREAM_CHUNK : DGRAM_MAX,
		     !stream || j->lane, &data, &dlen, &total, (uintptr_t)h->msg_control, ctl, clen);
	if (r == -EMSGSIZE && j->lane) {
		/* More than the lane takes: a worker's, which knows the type. */
		free(ctl);
		*hand_on = true;
		*ret = 0;
		return false;
	}
	if (r == 0 && h->msg_controllen > CONTROL_MAX && !j->sent)
		r = -ENOBUFS;
	else if (r == 0 && clen)
		/* The lane does not ask the family: the kernel refuses
		 * SCM_RIGHTS on any other socket itself (EINVAL). */
		r = take_control(j->lane, pidfd, j->lane ? AF_UNIX : fam, ctl, clen, fds, &nfds,
				 sizeof fds / sizeof fds[0], &reserved);
	bool answered = true;
	size_t skip = j->sent < dlen ? j->sent : dlen;
	if (r == 0 && j->sent && skip == dlen) {
		r = (long)j->sent; /* the rest is gone from its memory: what was sent */
		answered = true;
	} else if (r == 0) {
		struct iovec iov = {data + skip, dlen - skip};
		struct msghdr m = {.msg_name = a ? (void *)&a->a : NULL,
				   .msg_namelen = a ? a->len : 0,
				   .msg_iov = &iov, .msg_iovlen = 1,
				   .msg_control = ctl, .msg_controllen = ctl ? h->msg_controllen : 0};
		/* SIGPIPE would be the supervisor's: raised for the caller below. */
		int lane_fl = j->lane ? MSG_DONTWAIT : 0;
		RETRY(j->id, r, sendmsg(sock, &m, flags | lane_fl | MSG_NOSIGNAL));
		if (r < 0 && errno == EINTR) {
			answered = false;
		} else if (r < 0 && j->lane && (errno == EAGAIN || errno == EWOULDBLOCK) &&
			   caller_blocks(sock, flags)) {
			answered = false;
			*hand_on = true;
		} else if (r >= 0 && j->lane && (size_t)r < dlen && caller_blocks(sock, flags)) {
			/* Part of a stream message, for a caller that would
			 * wait for the rest (a short count there would be
			 * news to most programs): a worker sends the rest. */
			answered = false;
			*hand_on = true;
			j->sent = (size_t)r;
		} else if (r >= 0 && j->sent) {
			r += (long)j->sent;
		} else if (r < 0 && j->sent) {
			r = (long)j->sent; /* the part sent stands, as the kernel's would */
		} else if (r < 0) {
			r = -errno;
			if (r == -EPIPE && !(flags & MSG_NOSIGNAL) && valid(j->id)) {
				/* Still blocked in the call: the thread id is its own. */
				syscall(SYS_tgkill, netnotify_tgid(j->tid), j->tid, SIGPIPE);
			}
		}
	}
	for (size_t i = 0; i < nfds; i++)
		drop_fd(j->lane, fds[i]); /* the sandbox's */
	closer_unreserve(reserved);
	free(data);
	free(ctl);
	*ret = r;
	return answered;
}

static void packet_free(struct packet *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nfds; i++)
		closer_close(p->fds[i]);
	closer_unreserve(p->reserved);
	if (p->pidfd >= 0)
		close(p->pidfd);
	free(p->buf);
	free(p);
}

static bool post(const struct report_rec *r)
{
	/* A full pipe drops it: a denial's line (the refusal stands), or a
	 * control packet (the caller hears EAGAIN). */
	ssize_t w;
	do
		w = write(report[1], r, sizeof *r);
	while (w < 0 && errno == EINTR);
	return w == (ssize_t)sizeof *r;
}

/* The lane's pidfds of the threads that called last (PIDFD_THREAD ones
 * only, which name one thread: a process's would name another's table
 * once the thread is gone). A thread's pidfd names it and nothing else:
 * while it lives, its id is its own, so the thread behind a notification
 * with that id is that thread; once it is gone, pidfd_getfd fails with
 * ESRCH (a thread that is exiting but not yet released keeps its id,
 * and has no descriptors). Only the lane uses them. */
#define PIDFDS 16
static struct {
	pid_t tid;
	int fd;
} pidfds[PIDFDS];
static size_t pidfd_next;

static void pidfd_forget(pid_t tid)
{
	for (size_t i = 0; i < PIDFDS; i++)
		if (pidfds[i].tid == tid && pidfds[i].fd > 0) {
			close(pidfds[i].fd);
			pidfds[i].tid = 0;
			pidfds[i].fd = 0;
		}
}

/* A pidfd of J's caller, or -1 when it is gone. A new one is checked to
 * be the caller's (the notification still pending once it is open: the
 * id was not another's). *CACHED: the lane keeps it (not to be closed). */
static int caller_pidfd(const struct job *j, bool *cached)
{
	*cached = false;
	if (j->lane)
		for (size_t i = 0; i < PIDFDS; i++)
			if (pidfds[i].tid == j->tid && pidfds[i].fd > 0) {
				*cached = true;
				return pidfds[i].fd;
			}
	bool thread = true;
	int pidfd = (int)syscall(SYS_pidfd_open, j->tid, PIDFD_THREAD);
	if (pidfd < 0) {
		thread = false;
		pidfd = (int)syscall(SYS_pidfd_open, netnotify_tgid(j->tid), 0);
	}
	if (pidfd < 0 || !valid(j->id)) {
		if (pidfd >= 0)
			close(pidfd);
		return -1;
	}
	if (j->lane && thread) {
		size_t i = pidfd_next++ % PIDFDS;
		if (pidfds[i].fd > 0)
			close(pidfds[i].fd);
		pidfds[i].tid = j->tid;
		pidfds[i].fd = pidfd;
		*cached = true;
	}
	return pidfd;
}

/* The caller's sendmsg (H, FLAGS) on the control socket: the packet to
 * the relay loop. Returns the bytes taken or -errno. */
static long to_control(const struct job *j, struct peek *pk, int pidfd, const struct msghdr *h)
{
	struct packet *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	p->pidfd = -1;
	char *ctl = NULL;
	int fds[253];
	size_t nfds = 0, total = 0, reserved = 0;
	/* What the kernel would take (a datagram of up to DGRAM_MAX), and
	 * of it what the supervisor reads (control.c's PACKET_MAX). */
	long r = read_iov(pk, (uintptr_t)h->msg_iov, h->msg_iovlen, 65536, false, &p->buf,
			  &p->len, &total, 0, NULL, 0);
	if (r == 0 && total > DGRAM_MAX)
		r = -EMSGSIZE;
	if (r == 0 && h->msg_controllen) {
		if (h->msg_controllen > CONTROL_MAX)
			r = -ENOBUFS;
		else if (!(ctl = malloc(h->msg_controllen)) ||
			 !read_all(pk, (uintptr_t)h->msg_control, ctl, h->msg_controllen))
			r = ctl ? -EFAULT : -ENOMEM;
		else
			r = take_control(false, pidfd, AF_UNIX, ctl, h->msg_controllen, fds, &nfds,
					 sizeof fds / sizeof fds[0], &reserved);
	}
	free(ctl);
	for (size_t i = 0; i < nfds; i++) {
		if (r == 0 && i < 4)
			p->fds[p->nfds++] = fds[i];
		else
			closer_close(fds[i]);
	}
	/* The four kept stay reserved until the relay loop has taken them
	 * (packet_free), the rest are the closer's now. */
	p->reserved = reserved < (size_t)p->nfds ? reserved : (size_t)p->nfds;
	closer_unreserve(reserved - p->reserved);
	/* As the supervisor receives it: truncated, four descriptors. */
	p->too_large = total > p->len || nfds > 4;
	if (r == 0) {
		p->sender = netnotify_tgid(j->tid);
		p->pidfd = (int)syscall(SYS_pidfd_open, p->sender, 0);
		/* Once posted, the packet is the relay loop's (freed there). */
		long len = (long)total;
		struct report_rec rec = {.pkt = p};
		if (p->pidfd >= 0 && valid(j->id) && post(&rec))
			return len;
		r = -EAGAIN;
	}
	packet_free(p);
	return r;
}

static bool is_control(int sock)
{
	struct stat st;
	return ctl_known && fstat(sock, &st) == 0 && st.st_dev == ctl_dev && st.st_ino == ctl_ino;
}

static void answer(const struct job *j, long val)
{
	union {
		struct seccomp_notif_resp r;
		char b[512];
	} resp;
	memset(&resp, 0, (size_t)resp_size);
	resp.r.id = j->id;
	resp.r.flags = 0; /* never SECCOMP_USER_NOTIF_FLAG_CONTINUE */
	if (val < 0) {
		resp.r.error = (int)val;
		resp.r.val = -1;
	} else {
		resp.r.error = 0;
		resp.r.val = val;
	}
	ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

static const char *call_name(int nr)
{
	return nr == SYS_connect ? "connect" : nr == SYS_sendto ? "sendto"
	       : nr == SYS_sendmsg ? "sendmsg" : "sendmmsg";
}

/* Read the address (PTR, LEN of the caller's) into A. */
static int read_addr(struct peek *pk, uint64_t ptr, uint64_t len, struct addr *a)
{
	int l = (int)len; /* the kernel reads it as int */
	if (l < 0 || (size_t)l > sizeof a->a)
		return -EINVAL;
	memset(&a->a, 0, sizeof a->a);
	a->len = (socklen_t)l;
	if (l && !read_all(pk, ptr, &a->a, (size_t)l))
		return -EFAULT;
	return 0;
}

/* sendmmsg: the first message's msg_len written back, "one sent". */
static long mmsg_sent(const struct job *j, unsigned sent)
{
	uint64_t at = j->args[1] + sizeof(struct msghdr);
	struct iovec lv = {&sent, sizeof sent}, rv = {(void *)(uintptr_t)at, sizeof sent};
	return process_vm_writev(j->tid, &lv, 1, &rv, 1, 0) == sizeof sent ? 1 : -EFAULT;
}

/* The call J, answered; false when the lane hands it on to a worker
 * instead (nothing answered, nothing sent). */
static bool process(struct job *j)
{
	if (j->lane && j->nr != SYS_sendmsg && j->nr != SYS_sendmmsg)
		return false;
	long ret = 0;
	bool cached = false;
	int pidfd = caller_pidfd(j, &cached);
	if (pidfd < 0)
		return true; /* the caller is gone: no answer */
	struct peek pk; /* its buffers are written before they are read */
	pk.tid = j->tid;
	pk.n = 0;
	/* What a worker takes from the caller is closed by the closer:
	 * nothing while the closer is behind (closer.h); the caller may try
	 * again. The lane closes the socket it takes itself. */
	int sock = -1;
	bool room = !j->lane && closer_reserve(1, ROOM_WAIT_MS);
	if (!j->lane && !room)
		errno = ENOBUFS;
	else
		sock = (int)syscall(SYS_pidfd_getfd, pidfd, (int)j->args[0], 0);
	if (sock < 0 && errno == ESRCH && cached) {
		/* The lane's pidfd of a thread that is gone: the id is
		 * another's now, perhaps the caller's. */
		pidfd_forget(j->tid);
		cached = false;
		if ((pidfd = caller_pidfd(j, &cached)) < 0)
			return true;
		sock = (int)syscall(SYS_pidfd_getfd, pidfd, (int)j->args[0], 0);
	}
	int fam = 0, type = 0;
	socklen_t l = sizeof fam;
	struct addr a = {.held = -1};
	bool have_addr = false, answered = true, hand_on = false;
	struct report_rec rec = {0};
	if (sock < 0) {
		ret = errno == EBADF ? -EBADF : -errno;
		goto done;
	}
	/* The lane needs neither the type (it takes a message of up to
	 * STREAM_CHUNK whole, or hands it on; sendmsg says ENOTSOCK itself)
	 * nor the family (do_send). */
	l = sizeof type;
	if (!j->lane && getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &l) < 0) {
		ret = -ENOTSOCK;
		goto done;
	}
	l = sizeof fam;
	if (!j->lane)
		getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &fam, &l);
	struct msghdr h = {0};
	int flags = 0;
	int r = 0;
	if (j->nr == SYS_connect) {
		r = read_addr(&pk, j->args[1], j->args[2], &a);
		have_addr = true;
	} else if (j->nr == SYS_sendto) {
		flags = (int)j->args[3];
		h.msg_iov = NULL;
		r = read_addr(&pk, j->args[4], j->args[5], &a);
		have_addr = j->args[4] != 0;
	} else {
		/* sendmsg's msghdr, or the first of sendmmsg's (which then
		 * says it sent one message: a short count is sendmmsg's own). */
		flags = (int)(j->nr == SYS_sendmsg ? j->args[2] : j->args[3]);
		if (j->nr == SYS_sendmmsg && (unsigned)j->args[2] == 0) {
			ret = 0;
			goto done;
		}
		if (!read_all(&pk, j->args[1], &h, sizeof h)) {
			r = -EFAULT;
		} else if (h.msg_name && h.msg_namelen) {
			r = read_addr(&pk, (uintptr_t)h.msg_name, h.msg_namelen, &a);
			have_addr = true;
		}
	}
	if (r < 0) {
		ret = r;
		goto done;
	}
	bool ctl = j->nr != SYS_connect && is_control(sock);
	if (j->lane && (have_addr || ctl)) {
		/* A destination to decide, or a packet for the relay loop. */
		hand_on = true;
		answered = false;
		goto done;
	}
	int err = 0;
	enum verdict v = V_PASS;
	if (have_addr)
		v = decide(j->tid, sock, fam, j->nr == SYS_connect,
			   j->nr == SYS_connect || type == SOCK_DGRAM, &a, &err);
	if (v == V_REFUSE) {
		ret = -err;
		if (a.shown[0] && valid(j->id)) {
			struct netnotify_who w;
			rec.denial = true;
			if (!netnotify_who(j->tid, &w)) {
				w.pid = w.host_pid = j->tid;
				strcpy(w.comm, "?");
			}
			rec.pid = w.pid;
			rec.host_pid = w.host_pid;
			snprintf(rec.comm, sizeof rec.comm, "%s", w.comm);
			snprintf(rec.obj, sizeof rec.obj, "%s %s", call_name(j->nr), a.shown);
		}
		goto done;
	}
	if (j->nr == SYS_connect) {
		answered = do_connect(j, sock, &a, &ret);
	} else if (ctl) {
		/* Never a packet with the supervisor's own credentials on its
		 * own control socket (a sender the sandbox could pass for the
		 * supervisor): sendmsg's (and sendmmsg's first) as the
		 * caller's; an address there is not the kernel's way either. */
		if (j->nr == SYS_sendto)
			ret = -EISCONN;
		else
			ret = to_control(j, &pk, pidfd, &h);
		if (ret >= 0 && j->nr == SYS_sendmmsg)
			ret = mmsg_sent(j, (unsigned)ret);
	} else {
		if (j->nr == SYS_sendto) {
			/* One buffer, as an iovec of the caller's own memory. */
			struct iovec one = {(void *)(uintptr_t)j->args[1], (size_t)j->args[2]};
			char *data = NULL;
			size_t dlen = 0;
			bool stream = type == SOCK_STREAM;
			long rr = 0;
			if (one.iov_len > (stream ? STREAM_CHUNK : DGRAM_MAX) && !stream)
				rr = -EMSGSIZE;
			else
				dlen = one.iov_len > STREAM_CHUNK && stream ? STREAM_CHUNK : one.iov_len;
			if (rr == 0 && !(data = malloc(dlen ? dlen : 1)))
				rr = -ENOMEM;
			if (rr == 0 && !read_all(&pk, (uintptr_t)one.iov_base, data, dlen))
				rr = -EFAULT;
			if (rr == 0) {
				RETRY(j->id, rr, sendto(sock, data, dlen, flags | MSG_NOSIGNAL,
							have_addr ? (struct sockaddr *)&a.a : NULL,
							have_addr ? a.len : 0));
				if (rr < 0 && errno == EINTR) {
					answered = false;
				} else if (rr < 0) {
					rr = -errno;
					if (rr == -EPIPE && !(flags & MSG_NOSIGNAL) && valid(j->id))
						syscall(SYS_tgkill, netnotify_tgid(j->tid), j->tid,
							SIGPIPE);
				}
			}
			free(data);
			ret = rr;
		} else {
			answered = do_send(j, &pk, pidfd, sock, fam, type, &h, have_addr ? &a : NULL, flags,
					   &ret, &hand_on);
			if (answered && ret >= 0 && j->nr == SYS_sendmmsg)
				ret = mmsg_sent(j, (unsigned)ret);
		}
	}
done:
	if (a.held >= 0)
		close(a.held);
	if (sock >= 0)
		drop_fd(j->lane, sock);
	if (room)
		closer_unreserve(1);
	if (!cached)
		close(pidfd);
	if (answered)
		answer(j, ret);
	if (rec.denial)
		(void)post(&rec);
	return !hand_on;
}

static void *worker_main(void *arg)
{
	struct worker *me = arg;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, wake_sig());
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	for (;;) {
		pthread_mutex_lock(&mu);
		while (!q_len && !atomic_load(&stopping))
			pthread_cond_wait(&cv, &mu);
		if (atomic_load(&stopping)) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		struct job j = queue[q_head];
		q_head = (q_head + 1) % QUEUE_MAX;
		q_len--;
		pthread_cond_signal(&q_room);
		me->busy = true;
		me->id = j.id;
		pthread_mutex_unlock(&mu);
		j.lane = false;
		(void)process(&j);
		pthread_mutex_lock(&mu);
		me->busy = false;
		pthread_mutex_unlock(&mu);
	}
}

/* Interrupt the calls of workers whose caller is gone (or all, when
 * stopping), every WATCH_MS. */
static void *watchdog_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec until = monotonic_after_ms(WATCH_MS);
		pthread_mutex_lock(&mu);
		int rc = 0;
		while (!atomic_load(&stopping) && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&watchdog_cv, &mu, &until);
		pthread_mutex_unlock(&mu);
		if (atomic_load(&stopping))
			break;
		for (size_t i = 0; i < WORKERS; i++) {
			pthread_mutex_lock(&mu);
			bool busy = workers[i].busy;
			uint64_t id = workers[i].id;
			pthread_mutex_unlock(&mu);
			if (busy && !valid(id))
				pthread_kill(workers[i].t, wake_sig());
		}
	}
	return NULL;
}

/* --- the lane ----------------------------------------------------------------- */

/* A unix socket's call, for the lane or a worker (Fast Open in ports
 * mode stays a network refusal, netnotify.c's). */
static bool takes(const struct seccomp_notif *n)
{
	int nr = n->data.nr;
	if (nr != SYS_connect && nr != SYS_sendto && nr != SYS_sendmsg && nr != SYS_sendmmsg)
		return false;
#ifdef NOTIFY_NATIVE_ARCH
	if (n->data.arch != NOTIFY_NATIVE_ARCH)
		return false; /* killed by the filter: never notified */
#endif
	if (net_by_port(sess->pol.net) && !net_private_loopback(sess) && nr != SYS_connect) {
		uint64_t fl = nr == SYS_sendmsg ? n->data.args[2] : n->data.args[3];
		if ((int)fl & MSG_FASTOPEN)
			return false;
	}
	return true;
}

/* The workers and their watchdog, started by the lane when it first
 * hands a job on: most sessions never connect, send with an address or
 * block on a send, and a `true` should not pay for nine threads it never
 * uses. Only the lane starts them, so once the lane is joined
 * unixnotify_finish reads what started without a lock. The threads take
 * no signal but their own wake-up (the lane's mask has WAKE_SIG open).
 * False: no worker or no watchdog (the sandbox, running as the same
 * user, may have used up the processes a thread needs); tried again at
 * the next job. */
static bool pool_start(void)
{
	if (watchdog_started && workers[0].started)
		return true;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (size_t i = 0; i < WORKERS; i++)
		if (!workers[i].started)
			workers[i].started =
				pthread_create(&workers[i].t, NULL, worker_main, &workers[i]) == 0;
	if (!watchdog_started)
		watchdog_started = pthread_create(&watchdog, NULL, watchdog_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return watchdog_started && workers[0].started;
}

/* J to the workers, once the queue has room (the caller waits in the
 * kernel meanwhile); false when stopping. */
static bool submit(const struct job *j)
{
	if (!pool_start()) {
		/* No pool: the lane does the job as a worker would, and the
		 * sandbox's other calls wait meanwhile (WAKE_SIG still ends
		 * a call of it at the end). */
		struct job w = *j;
		w.lane = false;
		(void)process(&w);
		return true;
	}
	pthread_mutex_lock(&mu);
	while (q_len >= QUEUE_MAX && !atomic_load(&stopping))
		pthread_cond_wait(&q_room, &mu);
	bool ok = !atomic_load(&stopping);
	if (ok) {
		queue[(q_head + q_len) % QUEUE_MAX] = *j;
		q_len++;
		pthread_cond_signal(&cv);
	}
	pthread_mutex_unlock(&mu);
	return ok;
}

/* R to the relay loop, once the pipe has room: a notification must not
 * be dropped (its caller would wait for ever). False when stopping. */
static bool post_wait(const struct report_rec *r)
{
	while (!atomic_load(&stopping)) {
		if (post(r))
			return true;
		if (errno != EAGAIN && errno != EINTR)
			return false;
		struct pollfd p = {.fd = report[1], .events = POLLOUT};
		(void)poll(&p, 1, -1); /* WAKE_SIG ends it when stopping */
	}
	return false;
}

static void *lane_main(void *arg)
{
	(void)arg;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, wake_sig());
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	union {
		struct seccomp_notif n;
		char b[512];
	} req;
	while (!atomic_load(&stopping)) {
		/* RECV waits for a notification (WAKE_SIG ends it). */
		memset(&req, 0, sizeof req);
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR)
				continue;
			if (errno != ENOENT)
				break;
			/* The caller is gone already, or every task that used
			 * the filter is (POLLHUP), when RECV no longer waits:
			 * none can use it again. */
			struct pollfd p = {.fd = lfd, .events = POLLIN};
			if (poll(&p, 1, 0) == 1 && (p.revents & POLLHUP) && !(p.revents & POLLIN))
				break;
			continue;
		}
		const struct seccomp_notif *n = &req.n;
		if (!takes(n)) {
			struct report_rec r = {.other = true, .notif = *n};
			(void)post_wait(&r);
			continue;
		}
		struct job j = {.id = n->id, .lane = true, .tid = (pid_t)n->pid, .nr = n->data.nr};
		for (int i = 0; i < 6; i++)
			j.args[i] = n->data.args[i];
		if (!process(&j))
			(void)submit(&j);
	}
	for (size_t i = 0; i < PIDFDS; i++)
		if (pidfds[i].fd > 0)
			close(pidfds[i].fd);
	atomic_store(&lane_done, true);
	return NULL;
}


/* --- the relay loop's side -------------------------------------------------- */

static void report_ready(struct session *s, struct watch *w, short revents)
{
	(void)w;
	(void)revents;
	struct report_rec r;
	for (int i = 0; i < QUEUE_MAX + WORKERS; i++) {
		ssize_t n = read(report[0], &r, sizeof r);
		if (n != (ssize_t)sizeof r)
			break;
		if (r.denial)
			up.report(s, r.pid, r.host_pid, r.comm, r.obj);
		if (r.other)
			up.other(s, &r.notif);
		if (r.pkt) {
			/* control_handle takes the descriptors; the pidfd stays ours. */
			if (r.pkt->too_large)
				control_too_large(s, r.pkt->fds, r.pkt->nfds);
			else
				control_handle(s, r.pkt->buf, r.pkt->len, r.pkt->sender,
					       r.pkt->pidfd, r.pkt->fds, r.pkt->nfds);
			r.pkt->nfds = 0;
			packet_free(r.pkt);
		}
	}
}

bool unixnotify_start(struct session *s, int listener, int rsize,
		      const struct unixnotify_up *u)
{
	if (!netnotify_unix(s))
		return false;
	sess = s;
	up = *u;
	resp_size = rsize;
	struct stat st;
	if (s->ctl_child >= 0 && fstat(s->ctl_child, &st) == 0) {
		ctl_dev = st.st_dev;
		ctl_ino = st.st_ino;
		ctl_known = true;
	}
	if ((lfd = fcntl(listener, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    pipe2(report, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    !(report_watch = session_watch(s, report[0], POLLIN, report_ready, NULL)))
		die_errno("start deciding unix sockets");
	/* The caller's CPU switches to the lane and back, instead of
	 * waking it wherever (Linux 6.6; before, the ordinary wake-up). */
	(void)ioctl(lfd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = wake; /* no SA_RESTART: the blocking call returns EINTR */
	sigaction(wake_sig(), &sa, NULL);
	/* The threads take no signal of the supervisor's (forwarded to the
	 * command by the main thread) but their own wake-up. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* The workers and the watchdog: when first needed (pool_start). */
	pthread_condattr_t ca;
	bool cv_made = pthread_condattr_init(&ca) == 0 &&
		       pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
		       pthread_cond_init(&watchdog_cv, &ca) == 0;
	lane_started = cv_made && pthread_create(&lane_thread, NULL, lane_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!lane_started)
		die("cannot start the threads that decide unix sockets");
	started = true;
	return true;
}

/* The thread T joined, interrupted (a signal ends what it waits in) for
 * as long as DONE says it has not finished, or BUSY that it is still in
 * a call; false: still in a call no signal ends, after 2 s. The join
 * itself waits, not a fixed sleep: the lane usually ends by itself as
 * the sandbox's last task goes, and a session's end should not wait a
 * whole period for it. */
static bool interrupt_join(pthread_t t, atomic_bool *done, bool *busy)
{
	for (int k = 0; k < 200; k++) {
		bool out;
		if (done) {
			out = atomic_load(done);
		} else {
			pthread_mutex_lock(&mu);
			out = !*busy;
			pthread_mutex_unlock(&mu);
		}
		if (!out)
			pthread_kill(t, wake_sig());
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 10 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (pthread_timedjoin_np(t, NULL, &until) == 0)
			return true;
	}
	return false;
}

void unixnotify_finish(struct session *s)
{
	if (!started)
		return;
	bool stuck = false;
	atomic_store(&stopping, true);
	pthread_mutex_lock(&mu);
	pthread_cond_broadcast(&cv);
	pthread_cond_broadcast(&q_room);
	pthread_cond_broadcast(&watchdog_cv);
	pthread_mutex_unlock(&mu);
	/* The lane first: it alone starts the workers and the watchdog, so
	 * after it is joined WORKERS[].STARTED and WATCHDOG_STARTED stay as
	 * they are. A lane that cannot be interrupted may still start them:
	 * then nothing more is joined or closed. */
	if (!interrupt_join(lane_thread, &lane_done, NULL))
		return; /* its descriptors stay: it may still use them */
	if (watchdog_started)
		pthread_join(watchdog, NULL);
	for (size_t i = 0; i < WORKERS; i++) {
		if (!workers[i].started)
			continue;
		/* A worker still in a call: interrupted until it is out (a
		 * call no signal ends, on a hung file system: left to exit). */
		if (!interrupt_join(workers[i].t, NULL, &workers[i].busy))
			stuck = true;
	}
	if (stuck)
		return; /* its descriptors stay: it may still use them */
	/* What the workers posted before they stopped (a denial, a control
	 * packet of a process that has since exited) is still in the pipe:
	 * handled now, not lost with it. */
	report_ready(s, NULL, 0);
	if (report_watch)
		session_unwatch(report_watch);
	report_watch = NULL;
	close(report[0]);
	close(report[1]);
	report[0] = report[1] = -1;
	close(lfd);
	lfd = -1;
	started = false;
}
