/* libwicket-preload, the reporting half: is this failure the sandbox's
 * doing, and if so, one line to the session's diagnostics stream.
 *
 * The session's rules arrive in WICKET_RULES (the format, and the code
 * that reads it: lib/rules.h). The variable is copied into a static arena
 * on the first failure (not before: a process that never fails pays
 * nothing) and read from there; without WICKET_RULES, or when it
 * does not fit, the shim says nothing at all.
 *
 * Destination: the supervisor, over the control socket WICKET_FD (one
 * JSON packet; the supervisor prints the line and keeps the denial for
 * `wicket why`), else fd 2. WICKET_DIAG=stderr writes the line to fd 2
 * itself (the supervisor still hears of it, quietly); WICKET_DIAG=off
 * prints nothing (ditto). One send or write per denial, built on the
 * stack.
 *
 * Nothing here allocates, uses stdio or takes a lock: a failing call can
 * come from a signal handler, a vfork child or any thread. */
#undef _FORTIFY_SOURCE
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ackpage.h"
#include "classify.h"
#include "dac.h"
#include "denialpkt.h"
#include "diag.h"
#include "fdguard.h"
#include "netfmt.h"
#include "fdpass.h"
#include "fdspec.h"
#include "pathlex.h"
#include "rules.h"

/* ---- configuration, taken once ---------------------------------------- */

#define ARENA_SIZE 65536

enum { CFG_UNSET, CFG_BUSY, CFG_READY };
enum { OUT_DEFAULT, OUT_STDERR, OUT_OFF };

static char arena[ARENA_SIZE];
static _Atomic int cfg_state = CFG_UNSET;
static bool cfg_ok; /* rules present and fit in the arena */
static int cfg_out;
static struct fdspec cfg_ctl, cfg_ack;

struct cfg {
	const char *rules; /* NULL: stay silent */
	int out;
	struct fdspec ctl; /* WICKET_FD; fd -1 when unset or malformed */
	struct fdspec ack; /* WICKET_ACK_FD, the same */
};

static int parse_out(const char *s)
{
	if (s && strcmp(s, "off") == 0)
		return OUT_OFF;
	if (s && strcmp(s, "stderr") == 0)
		return OUT_STDERR;
	return OUT_DEFAULT;
}

/* The first failure copies the environment into static storage. A thread
 * that finds another one copying (or a vfork child that died copying)
 * reads the environment directly: the same text, just not kept. */
static void get_cfg(struct cfg *c)
{
	int st = atomic_load_explicit(&cfg_state, memory_order_acquire);
	int unset = CFG_UNSET;
	if (st == CFG_UNSET &&
	    atomic_compare_exchange_strong_explicit(&cfg_state, &unset, CFG_BUSY,
						    memory_order_acq_rel, memory_order_acquire)) {
		const char *r = getenv("WICKET_RULES");
		size_t n = r ? strlen(r) : 0;
		cfg_ok = r && n < sizeof arena;
		if (cfg_ok)
			memcpy(arena, r, n + 1);
		cfg_out = parse_out(getenv("WICKET_DIAG"));
		fdspec_parse(getenv("WICKET_FD"), &cfg_ctl);
		fdspec_parse(getenv("WICKET_ACK_FD"), &cfg_ack);
		atomic_store_explicit(&cfg_state, CFG_READY, memory_order_release);
		st = CFG_READY;
	}
	if (st == CFG_READY) {
		c->rules = cfg_ok ? arena : NULL;
		c->out = cfg_out;
		c->ctl = cfg_ctl;
		c->ack = cfg_ack;
		return;
	}
	const char *r = getenv("WICKET_RULES");
	c->rules = r && strlen(r) < sizeof arena ? r : NULL;
	c->out = parse_out(getenv("WICKET_DIAG"));
	fdspec_parse(getenv("WICKET_FD"), &c->ctl);
	fdspec_parse(getenv("WICKET_ACK_FD"), &c->ack);
}

/* ---- the rules (lib/rules.c) ------------------------------------------ */

/* "s 1": seccomp's network refusals are the supervisor's to report. */
static bool supervisor_reports(const char *rules)
{
	return rules_is(rules, RULE_SUPERVISOR, "1");
}

/* ---- paths, on the stack ---------------------------------------------- */

#define PBUF 4096

/* The path an fd refers to, when it is a path (not "pipe:[...]"), and
 * names the file still: not a removed file's, nor a memfd's
 * ("/memfd:NAME (deleted)", the acknowledgement page's among them), which
 * no rule is about. */
static bool fd_path(int fd, char *out, size_t outsz)
{
	char link[40] = "/proc/self/fd/";
	netfmt_uint(link + 14, (unsigned long long)fd);
	ssize_t n = readlink(link, out, outsz - 1);
	if (n <= 0 || (size_t)n >= outsz - 1 || out[0] != '/')
		return false;
	out[n] = '\0';
	static const char gone[] = " (deleted)";
	struct stat st;
	if ((size_t)n >= sizeof gone - 1 && strcmp(out + n - (sizeof gone - 1), gone) == 0 &&
	    fstat(fd, &st) == 0 && st.st_nlink == 0)
		return false;
	return true;
}

/* The last few parent directories resolved, lexical -> canonical (or
 * "none such"): a
 * compiler's search of its include path fails many opens in the same few
 * directories, and a storm of denials is usually in one. Diagnostics
 * only: a directory renamed or relinked since is named as it was. One
 * writer or reader at a time, by a try-lock (a thread or signal handler
 * that finds it taken just resolves again). */
#define PCACHE_N 16
#define PCACHE_LEN 512
static struct {
	char lex[PCACHE_LEN], canon[PCACHE_LEN];
} pcache[PCACHE_N];
static unsigned pcache_next;
static atomic_flag pcache_busy = ATOMIC_FLAG_INIT;

/* 1: LEX resolves to CANON; -1: LEX does not exist (as a directory); 0:
 * not remembered. */
static int parent_cached(const char *lex, char *canon, size_t canonsz)
{
	if (atomic_flag_test_and_set_explicit(&pcache_busy, memory_order_acquire))
		return 0;
	int hit = 0;
	for (size_t i = 0; i < PCACHE_N && !hit; i++)
		if (pcache[i].lex[0] && strcmp(pcache[i].lex, lex) == 0 &&
		    strlen(pcache[i].canon) < canonsz) {
			strcpy(canon, pcache[i].canon);
			hit = canon[0] ? 1 : -1;
		}
	atomic_flag_clear_explicit(&pcache_busy, memory_order_release);
	return hit;
}

/* CANON "": LEX is no directory. */
static void parent_remember(const char *lex, const char *canon)
{
	if (strlen(lex) >= PCACHE_LEN || strlen(canon) >= PCACHE_LEN ||
	    atomic_flag_test_and_set_explicit(&pcache_busy, memory_order_acquire))
		return;
	unsigned i = pcache_next++ % PCACHE_N;
	strcpy(pcache[i].lex, lex);
	strcpy(pcache[i].canon, canon);
	atomic_flag_clear_explicit(&pcache_busy, memory_order_release);
}

/* The absolute form of PATH relative to DIRFD, lexically normalised, with
 * its parent directory resolved through the kernel when it can be opened
 * (so a path through a symlinked directory matches the canonical rules). */
static bool abs_path(int dirfd, const char *path, char *out, size_t outsz)
{
	size_t n;
	if (!path || !*path) {
		if (dirfd == AT_FDCWD)
			return getcwd(out, outsz) != NULL;
		return fd_path(dirfd, out, outsz);
	}
	if (path[0] == '/') {
		n = 0;
	} else {
		if (dirfd == AT_FDCWD) {
			if (!getcwd(out, outsz) || out[0] != '/')
				return false;
		} else if (!fd_path(dirfd, out, outsz)) {
			return false;
		}
		n = strlen(out);
		if (n + 1 >= outsz)
			return false;
		out[n++] = '/';
	}
	size_t pl = strlen(path);
	if (n + pl >= outsz)
		return false;
	memcpy(out + n, path, pl + 1);
	pathlex_normalize(out);

	/* The parent, canonical: an O_PATH open needs no permission on the
	 * directory itself, and neither Landlock nor the shim sees it. */
	char *slash = strrchr(out, '/');
	if (slash == out || !slash)
		return true;
	*slash = '\0';
	char canon[PBUF];
	int hit = parent_cached(out, canon, sizeof canon);
	bool ok = hit > 0;
	if (!hit) {
		int fd = (int)syscall(SYS_openat, AT_FDCWD, out, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT || errno == ENOTDIR)
				parent_remember(out, "");
			*slash = '/';
			return true;
		}
		ok = fd_path(fd, canon, sizeof canon) && !strstr(canon, " (deleted)");
		syscall(SYS_close, fd);
		if (ok)
			parent_remember(out, canon);
	}
	*slash = '/';
	if (!ok)
		return true;
	size_t cl = strlen(canon), tl = strlen(slash);
	if (cl == 1)
		cl = 0; /* "/" + "/name" */
	if (cl + tl >= outsz)
		return true;
	memmove(out + cl, slash, tl + 1);
	memcpy(out, canon, cl);
	return true;
}

/* The parent directory of the absolute PATH, into OUT. */
static void parent_of(const char *path, char *out, size_t outsz)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash && slash != path ? (size_t)(slash - path) : 1;
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, path, n);
	out[n] = '\0';
}

/* ---- once per (kind, object) per process ------------------------------ */

#define SEEN_SLOTS 1024
static _Atomic uint64_t seen[SEEN_SLOTS];

static uint64_t hash_obj(char kind, const char *obj, pid_t pid)
{
	uint64_t h = 1469598103934665603ULL;
	h = (h ^ (unsigned char)kind) * 1099511628211ULL;
	for (const unsigned char *p = (const unsigned char *)obj; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	/* The pid is part of the key: a forked child is another process,
	 * which reports for itself, though it inherits the set. */
	h ^= (uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ULL;
	return h ? h : 1;
}

/* True the first time H is seen; also true when the set is full (a
 * process with more than SEEN_SLOTS distinct denials keeps reporting). */
static bool first_time(uint64_t h)
{
	size_t i = (size_t)(h % SEEN_SLOTS);
	for (size_t n = 0; n < SEEN_SLOTS; n++, i = (i + 1) % SEEN_SLOTS) {
		uint64_t v = atomic_load_explicit(&seen[i], memory_order_relaxed);
		if (v == h)
			return false;
		if (v != 0)
			continue;
		uint64_t expect = 0;
		if (atomic_compare_exchange_strong_explicit(&seen[i], &expect, h,
							    memory_order_relaxed,
							    memory_order_relaxed))
			return true;
		if (expect == h)
			return false;
	}
	return true;
}

/* ---- the line ---------------------------------------------------------- */

#define LINE_MAX_LEN 4000 /* below PIPE_BUF: one atomic write to a pipe */
#define OBJ_MAX 3600

struct line {
	char b[LINE_MAX_LEN + 8];
	size_t n;
};

static void add(struct line *l, const char *s)
{
	for (; *s && l->n < LINE_MAX_LEN; s++)
		l->b[l->n++] = *s;
}

/* An object (a path) with control characters made visible, cut at
 * OBJ_MAX bytes with "..." so the line stays one line and one write. */
static void add_obj(struct line *l, const char *s)
{
	size_t start = l->n;
	for (; *s && l->n < LINE_MAX_LEN; s++) {
		if (l->n - start >= OBJ_MAX) {
			add(l, "...");
			return;
		}
		unsigned char c = (unsigned char)*s;
		l->b[l->n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
}

/* The control socket, when WICKET_FD still names the launcher's: a
 * program that closed it may have reused the number for a socket of its
 * own, which must never receive our reports. -1 otherwise. */
static int ctl_fd(const struct cfg *c)
{
	return fdspec_socket(&c->ctl);
}

/* One write to fd 2, when it is open, never killing the program with
 * SIGPIPE when the reader is gone. */
static void emit(const char *b, size_t n)
{
	int fd = STDERR_FILENO;
	if (fcntl(fd, F_GETFD) < 0)
		return;
	struct pollfd pfd = {.fd = fd, .events = POLLOUT};
	if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLOUT))
		return;
	sigset_t pipe_set, old, pending;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	bool had_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
	bool masked = pthread_sigmask(SIG_BLOCK, &pipe_set, &old) == 0;
	ssize_t w;
	do
		w = write(fd, b, n);
	while (w < 0 && errno == EINTR);
	if (masked) {
		if (w < 0 && errno == EPIPE && !had_pending) {
			struct timespec zero = {0, 0};
			while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
				;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
}

/* The line on fd 2: "sandbox: KIND blocked: OBJ (WHAT by COMM[PID])", or
 * for the network "sandbox: network blocked: OBJ (COMM[PID])". */
static __attribute__((noinline)) void write_line(const char *kind, const char *obj,
						 const char *what, const char *comm, const char *num)
{
	struct line l;
	l.n = 0;
	add(&l, "sandbox: ");
	add(&l, kind);
	add(&l, " blocked: ");
	add_obj(&l, obj);
	add(&l, " (");
	if (what) {
		add(&l, what);
		add(&l, " by ");
	}
	add(&l, comm);
	add(&l, "[");
	add(&l, num);
	add(&l, "])");
	l.b[l.n++] = '\n';
	emit(l.b, l.n);
}

/* Milliseconds since T0 (CLOCK_MONOTONIC). */
static long ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Until FD has one of EVENTS, MS milliseconds after T0 at most: whether
 * it came. A signal does not end the wait. */
static bool wait_fd(int fd, short events, const struct timespec *t0, long ms)
{
	struct pollfd p = {.fd = fd, .events = events};
	for (long left = ms - ms_since(t0); left > 0; left = ms - ms_since(t0)) {
		int r = poll(&p, 1, (int)left);
		if (r > 0)
			return true;
		if (r == 0 || errno != EINTR)
			return false;
	}
	return false;
}

/* How long a report waits for the supervisor at most: for room on the
 * control socket, and, for a line the supervisor prints, for its word
 * that the line is out. So the line is on wicket's stderr before the
 * failing call returns: after what the program wrote before the call,
 * before what it writes next (its own complaint, the rest of its line),
 * however busy the machine is; and a storm of denials on a busy machine
 * is counted whole, not dropped because the socket was full. The bound
 * is a fail-safe, never reached while the supervisor runs: a process
 * whose supervisor did not answer in time waits for it no more. */
#define ACK_WAIT_MS 2000
static _Atomic bool ack_gave_up;

/* The acknowledgement page (lib/ackpage.h), mapped read-only at the
 * first report that waits, once a process (a fork keeps it, an exec maps
 * it again). ACK_NONE: no page (WICKET_ACK_FD unset, closed, or not the
 * supervisor's any more): then nothing waits. */
#define ACK_NONE ((struct ack_page *)1)
static _Atomic(struct ack_page *) ack_map;
static _Atomic uint32_t ack_count;

static const struct ack_page *ack_page(const struct cfg *c)
{
	struct ack_page *p = atomic_load_explicit(&ack_map, memory_order_acquire);
	if (p)
		return p == ACK_NONE ? NULL : p;
	struct stat st;
	struct ack_page *m = ACK_NONE;
	if (c->ack.fd >= 0 && fstat(c->ack.fd, &st) == 0 && fdspec_same(&c->ack, &st) &&
	    S_ISREG(st.st_mode) && st.st_size >= ACK_PAGE_SIZE) {
		void *v = mmap(NULL, ACK_PAGE_SIZE, PROT_READ, MAP_SHARED, c->ack.fd, 0);
		if (v != MAP_FAILED)
			m = v;
	}
	/* Another thread (or the code this signal handler interrupted) may
	 * have mapped it meanwhile: one mapping stays. */
	struct ack_page *none = NULL;
	if (!atomic_compare_exchange_strong_explicit(&ack_map, &none, m, memory_order_acq_rel,
						     memory_order_acquire)) {
		if (m != ACK_NONE)
			munmap(m, ACK_PAGE_SIZE);
		m = none;
	}
	return m == ACK_NONE ? NULL : m;
}

/* The report to the supervisor over the control socket: one packet
 * (lib/denialpkt.h), with a token to wait for: the supervisor puts it on
 * the acknowledgement page once it has taken the report (and written its
 * line, when it prints it). A report the shim says itself waits too: the
 * supervisor looks at the process while it reads the report (whose
 * command of a warm session it is, its arguments), which it cannot once
 * the process has ended. No descriptor is made or passed for it. */
static __attribute__((noinline)) void send_report(const struct cfg *c, int fd, const char *kind,
						  const char *obj, const char *what,
						  const char *comm, pid_t pid)
{
	char b[WK_DENIAL_MAX];
	struct wk_denial_pkt d = {
		.kind = kind,
		.object = obj,
		.what = what,
		.comm = comm,
		.pid = (long)pid,
		.show = c->out == OUT_OFF ? WK_DENIAL_QUIET :
			c->out == OUT_STDERR ? WK_DENIAL_SHOWN : WK_DENIAL_PRINT,
	};
	bool wait = !atomic_load(&ack_gave_up);
	const struct ack_page *page = wait && d.show != WK_DENIAL_QUIET ? ack_page(c) : NULL;
	/* Read before the packet goes: its acknowledgement comes after. */
	uint32_t start = 0;
	if (page && !atomic_load_explicit(&page->closed, memory_order_acquire)) {
		start = atomic_load_explicit(&page->done, memory_order_acquire);
		d.ack = ack_token(pid, atomic_fetch_add(&ack_count, 1));
	}
	size_t n = wk_denial_encode(b, sizeof b, &d);
	if (!n)
		return;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ssize_t w;
	bool full = false;
	for (;;) {
		w = send(fd, b, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w >= 0)
			break;
		if (errno == EINTR)
			continue;
		full = errno == EAGAIN || errno == EWOULDBLOCK;
		if (!full || !wait || !wait_fd(fd, POLLOUT, &t0, ACK_WAIT_MS))
			break;
	}
	/* Full all that time: the supervisor is stuck. */
	if (w < 0 && full && wait)
		atomic_store(&ack_gave_up, true);
	if (w >= 0 && d.ack) {
		struct timespec end = t0;
		end.tv_sec += ACK_WAIT_MS / 1000;
		end.tv_nsec += (ACK_WAIT_MS % 1000) * 1000000L;
		if (end.tv_nsec >= 1000000000L)
			end.tv_sec++, end.tv_nsec -= 1000000000L;
		if (ack_wait(page, start, d.ack, &end) == ACK_TIMEOUT)
			atomic_store(&ack_gave_up, true);
	}
}

/* A denial: to the supervisor, which prints the line (and remembers it
 * for `wicket why`); on fd 2 instead when the control socket is gone, or
 * as well with WICKET_DIAG=stderr. */
static void report(const struct cfg *c, const char *kind, const char *obj, const char *what)
{
	pid_t pid = getpid();
	if (!first_time(hash_obj(kind[0], obj, pid)))
		return;
	int fd = ctl_fd(c);
	if (fd < 0 && (c->out == OUT_OFF || fcntl(STDERR_FILENO, F_GETFD) < 0))
		return;
	char comm[17] = {0};
	if (prctl(PR_GET_NAME, comm, 0, 0, 0) < 0 || !comm[0])
		memcpy(comm, "?", 2);
	for (char *p = comm; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	char num[24];
	netfmt_uint(num, (unsigned long long)pid);
	if (fd >= 0)
		send_report(c, fd, kind, obj, what, comm, pid);
	if (c->out == OUT_STDERR || (fd < 0 && c->out == OUT_DEFAULT))
		write_line(kind, obj, what, comm, num);
}

/* ---- the shell's status read ------------------------------------------ */

/* How long a status read waits for the supervisor at most: it answers at
 * once unless it is stuck, and then the prompt must not be. */
#define SYNC_WAIT_MS 2000

/* The shell's hooks open /dev/fd/WICKET_STATUS_FD before each prompt to
 * read how many denials there have been. A report travels on the control
 * socket and the supervisor takes it when it next runs: without a wait,
 * the denial of the command that just ended could be counted only after
 * the prompt, and its block shown under the next command. So, first, one
 * "sync" packet with a reply socket: the socket keeps its packets in
 * order, so when the supervisor answers it has taken (counted, printed)
 * every report sent before, by any process of the session. Bounded; a
 * refusal to send (a flood filling the socket) skips the wait. */
void diag_status_sync(const char *num)
{
	unsigned long long n;
	struct fdspec sf;
	char *end;
	int e = errno;
	n = strtoull(num, &end, 10);
	if (end == num || *end || !fdspec_parse(getenv("WICKET_STATUS_FD"), &sf) ||
	    n != (unsigned long long)sf.fd || !fdguard_held(sf.fd))
		goto out;
	struct cfg c;
	get_cfg(&c);
	int fd = ctl_fd(&c), sv[2];
	if (fd < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		goto out;
	static const char msg[] = "{\"v\":1,\"type\":\"sync\"}";
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ssize_t w = fdpass_send(fd, msg, sizeof msg - 1, &sv[1], 1, MSG_DONTWAIT);
	close(sv[1]);
	/* The answer, or the supervisor's end closed: either will do. */
	if (w > 0)
		(void)wait_fd(sv[0], POLLIN, &t0, SYNC_WAIT_MS);
	close(sv[0]);
out:
	errno = e;
}

/* ---- file system -------------------------------------------------------- */

/* A hidden root that exists: an ENOENT beneath it may be the cover's
 * doing. One that does not exist hides nothing, and ENOENT is the truth. */
static bool exists_nofollow(const char *p)
{
	return faccessat(AT_FDCWD, p, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Would the file's own mode or owner refuse MODE on P anyway, outside
 * too? Landlock does not mediate faccessat(2); but a read-only mount
 * answers a write before the file's permissions (EROFS), so there the
 * permission bits are read (lib/dac.c). Root is refused nothing outside. */
static bool dac_refuses(const char *p, int mode)
{
	/* Root outside is refused nothing; inside it has no capabilities,
	 * so faccessat would say otherwise. */
	if (geteuid() == 0 || faccessat(AT_FDCWD, p, mode, AT_EACCESS) == 0)
		return false;
	if (errno == EACCES)
		return true;
	struct stat st;
	if (errno != EROFS || fstatat(AT_FDCWD, p, &st, 0) < 0)
		return false;
	/* An ACL may grant what the bits do not: not sure, so not refused. */
	if (getxattr(p, "system.posix_acl_access", NULL, 0) > 0)
		return false;
	gid_t groups[64];
	int n = getgroups(64, groups);
	/* 65534: the kernel's overflow gid, which it shows for every group
	 * the sandbox's user namespace does not map. */
	return !wk_dac_allows(&st, geteuid(), getegid(), groups, n > 0 ? (size_t)n : 0, 65534, mode);
}

/* A change of P's metadata (mode, owner, times, xattrs) that only its
 * owner may make (or, for times, whoever may write it): refused outside
 * too when neither. */
static bool meta_refuses(const char *p)
{
	struct stat st;
	if (geteuid() == 0 || fstatat(AT_FDCWD, p, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_uid == geteuid())
		return false;
	return dac_refuses(p, W_OK);
}

/* The verdict on one failed file system call: 0 not the sandbox, 'w'
 * write denial, 'r' read denial. P is the absolute path. What the
 * sandbox does to P is lib/classify.c's decision, the one `wicket why`
 * explains with; here only which error each layer gives, and whether the
 * file's own permissions would refuse the call anyway. */
static char blame(const char *rules, const char *p, int err, unsigned flags)
{
	char tmp[PBUF]; /* the hidden root, or the path checked with faccessat */
	bool write = flags & DF_WRITE;
	struct wk_fstable t = {.text = rules};
	struct wk_fsmatch m;
	enum wk_fs_verdict v = wk_classify(&t, p, &m);
	switch (err) {
	case EACCES:
	case EPERM:
	case EROFS:
	case ENOENT:
		break;
	case EXDEV:
		if (!(flags & DF_XDEV))
			return 0;
		break;
	case EBUSY:
		/* Renaming or removing the protected mount point itself. */
		if (!(flags & DF_BUSY) || v != WK_FS_PROTECTED || m.len != strlen(p))
			return 0;
		return 'w';
	default:
		return 0;
	}
	char kind = write ? 'w' : 'r';
	if (v == WK_FS_HIDDEN) {
		/* Under a hidden path: the cover answers EACCES (or EROFS) and
		 * an empty directory answers ENOENT. */
		if (m.len >= sizeof tmp)
			return 0;
		memcpy(tmp, m.rule, m.len);
		tmp[m.len] = '\0';
		if (err == ENOENT && (strcmp(tmp, p) == 0 || !exists_nofollow(tmp)))
			return 0;
		/* One the user is closed to outside too (RULE_HIDE_CLOSED):
		 * covered all the same, but an ordinary refusal. */
		if (rules_is(rules, RULE_HIDE_CLOSED, tmp))
			return 0;
		return kind;
	}
	if (err == ENOENT)
		return 0;
	if (write) {
		if (flags & DF_META) {
			/* Only read-only mounts refuse chmod, chown, times and
			 * xattrs; EPERM and EACCES are the file's owner's, and
			 * so is a change its owner alone could make. */
			if (err != EROFS || meta_refuses(p))
				return 0;
			return v == WK_FS_WRITABLE ? 0 : 'w';
		}
		if (v == WK_FS_WRITABLE)
			return 0; /* inside a writable root: an ordinary error */
		if (wk_proc_own_file(p))
			return 0; /* oom_score_adj and the like: see classify.h */
		if (err == EACCES || err == EROFS) {
			int mode = W_OK;
			const char *target = p;
			if ((flags & DF_PARENT) || !exists_nofollow(p)) {
				parent_of(p, tmp, sizeof tmp);
				target = tmp;
				mode = W_OK | X_OK;
			}
			if (dac_refuses(target, mode))
				return 0;
		}
		return 'w';
	}
	/* A read or an exec: only Landlock (beneath no read root) or a
	 * hidden path refuses it. */
	if (err != EACCES || v != WK_FS_UNREADABLE)
		return 0;
	if (dac_refuses(p, flags & DF_EXEC ? X_OK : R_OK))
		return 0;
	return 'r';
}

static char fs_verdict(const struct cfg *c, int dirfd, const char *path, int err, unsigned flags,
		       char *abs, size_t abssz)
{
	if (!c->rules || !abs_path(dirfd, path, abs, abssz))
		return 0;
	return blame(c->rules, abs, err, flags);
}

bool diag_fs_denied(int dirfd, const char *path, int err, unsigned flags)
{
	int saved = errno;
	struct cfg c;
	get_cfg(&c);
	char abs[PBUF];
	bool r = fs_verdict(&c, dirfd, path, err, flags, abs, sizeof abs) != 0;
	errno = saved;
	return r;
}

bool diag_fs(int dirfd, const char *path, int err, unsigned flags, const char *what)
{
	int saved = errno;
	struct cfg c;
	get_cfg(&c);
	char abs[PBUF];
	char k = 0;
	if (c.rules && abs_path(dirfd, path, abs, sizeof abs)) {
		if ((flags & DF_CREAT) && !exists_nofollow(abs) && errno == ENOENT) {
			what = "create";
			flags |= DF_PARENT;
		}
		k = blame(c.rules, abs, err, flags);
	}
	if (k)
		report(&c, k == 'w' ? "write" : "read", abs, what);
	errno = saved;
	return k != 0;
}

/* ---- network ------------------------------------------------------------- */

static const char *proto_of(int type)
{
	switch (type & 0xf) {
	case SOCK_STREAM:
		return "tcp";
	case SOCK_DGRAM:
		return "udp";
	case SOCK_RAW:
		return "raw";
	default:
		return "socket";
	}
}

void diag_socket(int domain, int type, int err)
{
	int saved = errno;
	struct cfg c;
	get_cfg(&c);
	if (!c.rules || (domain != AF_INET && domain != AF_INET6) || (err != EPERM && err != EACCES))
		goto out;
	if (err == EPERM && supervisor_reports(c.rules))
		goto out;
	int mode = rules_net(c.rules);
	/* none: no inet socket at all; ports: seccomp lets through TCP (and
	 * UDP when allowed) only, so whatever failed here was refused. */
	if (mode != RULES_NET_NONE && mode != RULES_NET_PORTS)
		goto out;
	char obj[64] = "socket ";
	strcat(obj, domain == AF_INET ? "ipv4/" : "ipv6/");
	strcat(obj, proto_of(type));
	report(&c, "network", obj, NULL);
out:
	errno = saved;
}

/* A pathname unix socket Landlock refused (ABI 9): out of reach by
 * lib/classify.c's decision, the one Landlock's rules are made with
 * (launcher/child/landlock.c); an EACCES within reach is the socket's own
 * permissions. */
static void diag_unix(const struct cfg *c, const char *op, const struct sockaddr *addr,
		      socklen_t len)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)addr;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	if (len <= off || !un->sun_path[0] || !rules_is(c->rules, RULE_UNIX, "1"))
		return;
	char path[sizeof un->sun_path + 1], abs[PBUF];
	size_t n = len - off < sizeof un->sun_path ? len - off : sizeof un->sun_path;
	memcpy(path, un->sun_path, n);
	path[n] = '\0';
	struct wk_fstable t = {.text = c->rules};
	if (!abs_path(AT_FDCWD, path, abs, sizeof abs) || wk_classify_unix(&t, abs, NULL))
		return;
	char obj[PBUF + 32];
	size_t k = strlen(op);
	memcpy(obj, op, k);
	memcpy(obj + k, " unix:", 6);
	memcpy(obj + k + 6, abs, strlen(abs) + 1);
	report(c, "network", obj, NULL);
}

void diag_net(const char *op, int fd, const struct sockaddr *addr, socklen_t len, int flags,
	      int err)
{
	int saved = errno;
	struct cfg c;
	get_cfg(&c);
	if (!c.rules || !addr || (err != EPERM && err != EACCES && err != ENETUNREACH))
		goto out;
	if (addr->sa_family == AF_UNIX) {
		if (err == EACCES)
			diag_unix(&c, op, addr, len);
		goto out;
	}
	unsigned port;
	char obj[128];
	size_t n = strlen(op);
	memcpy(obj, op, n);
	obj[n++] = ' ';
	if (addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)addr;
		n += netfmt_ipv4(obj + n, (const unsigned char *)&s4->sin_addr);
		port = ntohs(s4->sin_port);
	} else if (addr->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)addr;
		obj[n++] = '[';
		n += netfmt_ipv6(obj + n, s6->sin6_addr.s6_addr);
		obj[n++] = ']';
		port = ntohs(s6->sin6_port);
	} else {
		goto out;
	}
	int type = 0;
	socklen_t tl = sizeof type;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0)
		type = 0;
	int mode = rules_net(c.rules);
	bool tcp = (type & 0xf) == SOCK_STREAM;
	bool denied = false;
	if (mode == RULES_NET_NONE) {
		denied = true;
	} else if (mode == RULES_NET_PORTS && tcp && err != ENETUNREACH) {
		if (strcmp(op, "connect") == 0)
			denied = !rules_port(c.rules, RULE_CONNECT, port);
		else if (strcmp(op, "bind") == 0)
			denied = !rules_port(c.rules, RULE_BIND, port);
		else /* sendto/sendmsg: TCP Fast Open, refused on any port */
			denied = (flags & MSG_FASTOPEN) && err == EPERM &&
				 !supervisor_reports(c.rules);
	}
	if (!denied)
		goto out;
	obj[n++] = ':';
	n += netfmt_uint(obj + n, port);
	obj[n++] = '/';
	obj[n] = '\0';
	strcat(obj, type ? proto_of(type) : "ip");
	report(&c, "network", obj, NULL);
out:
	errno = saved;
}
