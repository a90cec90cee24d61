/* The sandbox as the launcher sees it: a resolved policy, a plan of what
 * each kernel layer will get, and the functions that apply the layers in
 * the child. The order of application is fixed in supervisor.c. */
#ifndef WICKET_SANDBOX_H
#define WICKET_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "policy.h"
#include "util.h"

/* The policy a session gets when none is named. */
#define DEFAULT_POLICY "workspace-write"

/* Where every session finds the wicket that started it (first in PATH):
 * a read-only bind of the supervisor's executable on the session's own
 * /run, or, without a mount namespace, a directory of the supervisor's
 * outside the writable roots (main.c). */
#define WK_SESSION_BIN "/run/wicket/bin"

enum net_mode { NET_NONE, NET_FULL, NET_PORTS, NET_DOMAINS };

/* Network mode "domains": the supervisor's proxies listen on these ports
 * of 127.0.0.1 inside the sandbox's own network namespace (proxy.c); the
 * sandbox may connect to these TCP ports and no other. */
#define PROXY_HTTP_PORT 3128
#define PROXY_SOCKS_PORT 1080

struct port_list {
	unsigned short *v;
	size_t n;
};

/* A policy after resolution: every path absolute and canonical. */
struct policy {
	const char *name;
	bool sandbox;           /* false: full access, no layer at all */
	struct strv read;       /* existing, canonical readable roots ("/": all) */
	struct strv write;      /* existing, canonical, writable roots */
	struct strv protect;    /* read-only inside writable roots */
	struct strv keep_name;  /* directories inside writable roots that must keep
				 * their names (user-config entries): pinned */
	struct strv hide;       /* covered with an empty, unreadable mount */
	enum net_mode net;
	struct port_list connect; /* NET_PORTS: TCP ports connect() may reach */
	struct port_list bind;    /* NET_PORTS: TCP ports bind() may take */
	bool udp;               /* NET_PORTS: UDP sockets, any port (all or nothing) */
	/* NET_DOMAINS: name patterns, addresses named (canonical text),
	 * names fixed to an address ("NAME=ADDRESS"); see wk_policy. The
	 * connect list above holds the proxy's ports, bind none, udp false:
	 * inside the namespace the layers enforce it as they do "ports". */
	struct strv domains_allow, domains_deny, allow_addresses, hosts;
	bool private_tmp;       /* /tmp is a fresh per-session tmpfs */
	char tmp_size[WK_TMP_SIZE_MAX]; /* its size limit, and /dev/shm's */
	struct strv env_unset;  /* glob patterns of variables removed */
	struct strv env_set;    /* NAME=value set in the command's environment */
};

/* The modes enforced by TCP port: Landlock's connect and bind rules,
 * seccomp's TCP-only program ("ports" on the host's network, "domains"
 * inside the namespace, reaching only the proxy). */
static inline bool net_by_port(enum net_mode m)
{
	return m == NET_PORTS || m == NET_DOMAINS;
}

/* What the kernel on this machine can do (probe.c). */
struct kernel_info {
	char release[128];
	int landlock_abi;          /* 0: no Landlock */
	int landlock_errno;        /* why not, when 0 */
	bool seccomp;              /* seccomp filter mode available */
	bool root_admin;           /* euid 0 holding CAP_SYS_ADMIN */
	bool userns;               /* unprivileged user namespaces look usable */
	const char *userns_why;    /* human reason when !userns */
	const char *userns_fix;    /* what to do about it */
	bool apparmor_restrict;    /* kernel.apparmor_restrict_unprivileged_userns=1 */
	bool mount_api;            /* open_tree/move_mount/mount_setattr */
	bool seccomp_notify;       /* user notifications, pidfd_getfd, openat2 */
};

/* Which layers a session gets: decided before fork, never silently. */
struct layers {
	bool userns;   /* create a user namespace (non-root) */
	bool mntns;    /* private mount namespace with the read-only view */
	bool pidns;
	bool netns;
	bool ipcns;
	int landlock_abi;
	bool seccomp;
	bool unsandboxed; /* full access: no layer at all, said out loud */
};

/* Mount plan, computed in the supervisor (plan.c) and executed in the child
 * (mounts.c). All paths canonical. */
struct mount_plan {
	struct strv write;        /* writable roots, bound read-write */
	struct strv pins;         /* ancestors of protected paths, bound to themselves */
	struct strv protect;      /* bound read-only over themselves (existing) */
	struct strv hide;         /* existing paths to cover */
	struct strv run_keep;     /* regular files under /run kept visible */
	struct strv read_keep;    /* read roots under /tmp or /run, kept visible read-only */
	struct strv absent_protect; /* protected paths that did not exist at start */
	struct strv absent_entry; /* user-config entries' directories that did not */
	bool private_tmp;
	bool cover_run;
	/* The supervisor's own executable, read-only at WK_SESSION_BIN/wicket
	 * (on the session's /run, so only with cover_run). */
	bool self_bin;
	char tmp_size[WK_TMP_SIZE_MAX]; /* tmpfs size= of /tmp and /dev/shm, each */
};

/* What happens to one of the command's fds 0..2 (stdio.c). */
enum stdio_kind { STDIO_PASS, STDIO_REOPEN_FILE, STDIO_REOPEN_DEV, STDIO_RELAY,
		  STDIO_PTY /* the session's own terminal (pty.c) */ };

struct stdio_fix {
	enum stdio_kind kind;
	char path[4096];          /* file or device to reopen in the sandbox view */
	int flags;                /* access mode for a device */
	dev_t dev;                /* identity of a reopened file */
	ino_t ino;
	off_t offset;
	int relay_rd, relay_wr;   /* pipe for a relayed output */
	bool share;               /* stderr shares stdout's pipe (2>&1) */
};

/* When stdin is a terminal the command gets a pty of its own (pty.c). */
struct pty_plan {
	bool on;
	bool input;               /* the supervisor reads the real terminal (raw) */
	int tty_fd;               /* which of fds 0..2 is the real terminal */
	int sock[2];              /* init -> supervisor: the master, once, before the exec */
};

/* A descriptor the supervisor's relay loop polls besides the command's
 * output (stdio.c): READY runs when poll reports EVENTS (or an error). */
struct session;
struct watch {
	int fd;
	short events;
	void (*ready)(struct session *s, struct watch *w, short revents);
	void *data;
};
#define WK_MAX_WATCH 64

struct session {
	struct wk_policy wpol;    /* the policy as loaded (rules, where they came from) */
	struct policy pol;        /* resolved for this session */
	struct mount_plan plan;
	struct layers layers;
	struct kernel_info kinfo;
	char *workspace;          /* canonical working directory */
	char **argv;              /* command to run */
	char *exec_path;          /* argv[0] resolved before forking */
	char **envp;              /* environment for the command */
	char *fallback_tmp;       /* per-session tmp dir when there is no mntns */
	char *bin_dir;            /* the directory of the session's `wicket` (PATH) */
	char *bin_made;           /* the one made outside for it, removed at the end */
	struct stdio_fix stdio[3];
	int offset_pipe[2];       /* init -> supervisor: final offset of a reopened stdin */
	struct pty_plan pty;      /* the command's own terminal (pty.c) */
	uid_t uid;                /* ids outside, taken before the user namespace */
	gid_t gid;
	/* Filled in by the supervisor after the clone, in parallel with the
	 * base mounts, and sent to init over late_pipe (see supervisor.c). */
	void (*late_prepare)(struct session *s);
	int late_pipe[2];
	char *session_id;
	bool diagnostics;         /* inject the preload shim (not --no-diagnostics) */
	char *shim_path;          /* NULL: no shim this session (diag.c) */
	int ctl_child;            /* the sandbox's end of the control socket (control.c) */
	dev_t pidns_dev;          /* the sandbox's pid namespace (layers.pidns), once it */
	ino_t pidns_ino;          /* exists; 0: none (who is inside, for ask.c) */
	struct strv cli_protect;  /* --protect paths, absolute (for `wicket why`) */
	struct strv cli_hide;     /* --hide paths, absolute (for `wicket why`) */
	struct strv shell_env;    /* NAME=value the shell's hooks need (shell.c) */
	bool shell_hooks;         /* the shell loads wicket's hooks */
	int status_fd;            /* denial count for the hooks, -1: none (control.c) */
	struct watch watch[WK_MAX_WATCH];
	bool best_effort;
	bool read_only;
	/* Shared spaces (plan.c): refused as writable roots unless allowed. */
	struct strv shared;
	struct strv shared_path;  /* those of them that are directories on PATH */
	bool allow_shared;        /* --allow-shared-write */
	const char *homes[3];     /* $HOME and the passwd home, NULL-terminated */
	/* The places that run code (autorun.c) as they were at the start. */
	struct strv autorun_start;
	struct timespec started;  /* wall clock before the command started */
	const char *approver;     /* --approver CMD (ask.c), NULL: the policy's */
	/* The shell's history of this session (history.c): a directory of
	 * the supervisor's, held open, and the user's file it goes into. */
	char *hist_dir;
	int hist_dirfd;
	char *hist_target;
	bool hist_zsh; /* the session file is zsh's (its format) */
	int proxy_sock[2];        /* init -> supervisor: the proxy's listeners (proxy.c) */
	pid_t child;              /* init, as the supervisor sees it (0: not yet) */
};

/* probe.c */
void probe_kernel(struct kernel_info *k);
int cmd_doctor(int argc, char **argv);
/* Inside a sandboxed wicket session (its variables, and a seccomp filter
 * on this process): COMMAND ("run", "doctor") is refused, saying so. */
void refuse_inside_session(const char *command);

/* layers.c: which layers, and every way the session would be weaker. */
void layers_gaps(const struct kernel_info *k, bool ns_ok, enum net_mode net, struct strv *out);
void layers_decide(struct session *s);
/* The gaps for a whole policy (layers_gaps: a sandboxed one reading "/");
 * layers_decide() uses this, reading pol.sandbox, pol.net and pol.read. */
void layers_gaps_policy(const struct kernel_info *k, bool ns_ok, const struct policy *pol,
			struct strv *out);
/* pol.read holds "/" (or pol is not resolved yet: no name). */
bool policy_reads_all(const struct policy *pol);
/* A resolved policy with "sandbox": false. */
bool policy_full_access(const struct policy *pol);

/* policycmd.c: loading JSON policies into the session's policy, and
 * `wicket policy`. */
void policy_ctx_init(struct wk_policy_ctx *ctx, const char *workspace, const char *home);
void policy_load_or_die(struct wk_policy_ctx *ctx, const char *name, struct wk_policy *wp);
void policy_resolve(const struct wk_policy *wp, struct policy *pol, struct strv *notes);
void policy_proxy_ports(struct policy *pol);
int cmd_policy(int argc, char **argv);
struct userconfig;
/* Every file a later session's policy depends on, into PROTECT: this
 * policy's chain, the user's wicket directory, and the chain of each
 * policy UCFG's entries name (loaded with a copy of PCTX). */
void policy_protect_sources(const struct wk_policy *wp, const struct userconfig *ucfg,
			    const struct wk_policy_ctx *pctx, struct strv *protect);

/* plan.c: policy resolution and the mount plan (no mounting). */
void plan_build_base(struct session *s);
void plan_build_late(struct session *s);
void plan_pins(const char *root, const char *path, struct strv *out);
void plan_pin_kept(struct mount_plan *plan);
const char *writable_root_of(const struct policy *pol, const char *path);
/* The root beneath which the sandbox may reach the unix socket at PATH
 * (canonical, in the sandbox's view): a writable root, the session's own
 * /tmp (but not a read root kept there) or /dev/shm; NULL: out of reach. */
const char *plan_unix_root(const struct session *s, const char *path);
/* The session's rules as classify (lib/classify.h) takes them: what the
 * kernel enforces for it (plan.c). Pointers into the session; free with
 * plan_fstable_free. diag_env writes the same table for the shim. */
struct wk_fstable;
void plan_fstable(const struct session *s, struct wk_fstable *t);
void plan_fstable_free(struct wk_fstable *t);
void plan_check_absent(const struct policy *pol, const struct mount_plan *plan,
		       const char *session_id);
/* Move PATH, which the session created, aside
 * (PATH.quarantined-by-wicket-ID-RANDOM, never replacing anything), when its
 * parent lies in one of POL's writable roots; if it cannot be moved, a
 * non-directory is removed, a directory is warned about. */
void plan_quarantine(const struct policy *pol, const char *path, const char *session_id);
bool plan_in_writable_root(const struct policy *pol, const char *path);
/* BUF (LEN bytes) gets up to 16 random hex digits, NUL-terminated. */
void random_hex(char *buf, size_t len);
/* The shared spaces, canonical: /tmp, /var/tmp, /dev/shm, /run,
 * RUNTIME_DIR, HOMES (NULL-terminated) and their .config, and the
 * directories on PATH inside a home (PATH_ENV's, ~/bin, ~/.local/bin),
 * those also in ON_PATH; plan_shared_in: the one ROOT is or contains,
 * or NULL (pure). */
void plan_shared_spaces(const char *const *homes, const char *runtime_dir, const char *path_env,
			struct strv *out, struct strv *on_path);
const char *plan_shared_in(const struct strv *shared, const char *root);

/* autorun.c: where the user's own tools run code from later (git hooks
 * and config, shell and desktop startup files), in the writable roots
 * ROOTS (canonical); HOMES NULL-terminated. Appended to OUT, lexical,
 * existing or not. autorun_check_new moves aside those the session
 * created (after it ended; s->autorun_start: those of the start). */
/* false: too many to list (git directories, config includes) */
bool autorun_git_places(const struct strv *roots, const char *const *homes, struct strv *out);
bool autorun_startup_places(const struct strv *roots, const char *const *homes, struct strv *out);
bool autorun_places(const struct strv *roots, const char *const *homes, struct strv *out);
void autorun_check_new(const struct session *s, const char *const *homes);
/* The .git entries (directories, files, symlinks) the session made deeper
 * in a writable root, moved aside: after a session that made directories
 * or names (or could have, unwatched), a bounded walk of the roots. */
void autorun_check_nested(const struct session *s);
struct wk_wset;
void plan_wset(const struct session *s, struct wk_wset *w);

/* The character devices the sandbox offers from the host's /dev (bound
 * into its own /dev; reopened for stdio; named in Landlock rules when
 * there is no mount namespace). One list, so the three agree. */
struct dev_node {
	const char *name;
	unsigned maj, min;
};
extern const struct dev_node wk_dev_nodes[];
#define WK_N_DEV_NODES 6

/* mounts.c, run by the supervisor: plan->read_keep from pol.read (after
 * plan_build_base, which sets private_tmp and cover_run; idempotent). */
bool plan_covered(const struct mount_plan *plan, const char *path);
void plan_read_keep(struct session *s);

/* mounts.c: executed by the child in its new namespaces. */
int ns_write_id_maps(uid_t uid, gid_t gid);
int mounts_base(const struct mount_plan *plan);
int mounts_finish(const struct mount_plan *plan, const char *workspace);
int mounts_proc(void);

/* landlock.c */
int landlock_build(const struct session *s);   /* returns ruleset fd or -1 */
int landlock_enforce(int ruleset_fd);

/* seccomp.c: load the filter. LISTENER non-NULL: the notify program
 * (network refusals to a listener; UNIX_SOCKS: and unix socket connects
 * and sends), *LISTENER its listener, or -1 when the kernel gave none and
 * the plain program was loaded instead. */
int seccomp_apply(const struct policy *pol, bool unix_socks, int *listener);

/* netnotify.c: the supervisor reports the network refusals of programs
 * the shim cannot see, received as seccomp user notifications, and hands
 * unix socket connects and sends to unixnotify.c. */
bool netnotify_kernel_ok(void);  /* notifications, pidfd_getfd, openat2 */
bool netnotify_wanted(const struct session *s);  /* pure but for a cached probe */
void netnotify_prepare(struct session *s);       /* supervisor, before the clone */
void netnotify_child_close(void);                /* child, after the clone */
/* The command, right before exec: seccomp_apply, the notify program when
 * the session wants it, and its listener sent to the supervisor. */
int netnotify_seccomp(struct session *s);
void netnotify_init_close(void);                 /* init, once the command runs */
/* Supervisor, while the command is set up: NETNOTIFY_SETUP_FD (-1: none)
 * readable means the command waits for netnotify_take to take its
 * listener. */
int netnotify_setup_fd(void);
void netnotify_take(struct session *s);
void netnotify_start(struct session *s);         /* supervisor, once the command runs */
void netnotify_finish(struct session *s);
/* The object of a refused call NR with ARGS (ADDR: a Fast Open send's
 * destination, ADDRLEN bytes, or NULL): "socket ipv4/tcp",
 * "sendto 1.2.3.4:443/tcp". Pure. */
size_t netnotify_object(char *o, size_t osz, long nr, const uint64_t *args, const void *addr,
			size_t addrlen);

/* unixnotify.c: the supervisor decides pathname unix sockets (Landlock
 * ABI < 9) and makes the allowed connects and sends itself. NOTIF: a
 * struct seccomp_notif. UP: what it calls back in netnotify.c, which
 * drives it (so it needs nothing of netnotify.c's itself): REPORT a
 * network refusal, once per (process, object), to the session; RESUME
 * reading the listener, once a worker is free. */
struct unixnotify_up {
	void (*report)(struct session *s, long pid, long host_pid, const char *comm,
		       const char *obj);
	void (*resume)(void);
};
void unixnotify_start(struct session *s, int listener, int resp_size,
		      const struct unixnotify_up *up);
bool unixnotify_takes(const struct session *s, const void *notif);
bool unixnotify_full(void);
bool unixnotify_submit(const void *notif);
void unixnotify_finish(struct session *s);

/* caps.c */
int caps_drop_bounding(void);
int caps_drop_all(void);

/* stdio.c */
void stdio_plan(struct session *s);
int stdio_apply(struct session *s, int *keep_stdin);
void stdio_parent_close(struct session *s);
bool stdio_has_relay(const struct session *s);
int stdio_relay_wait(struct session *s, pid_t child, int *status);
void stdio_finish(struct session *s);

/* pty.c: the session's own terminal. pty_plan runs in stdio_plan (it
 * marks the fds that become the pty STDIO_PTY); pty_child_open in init
 * (stdio_apply), returning the slave; pty_child_ctty in the command;
 * pty_start in the supervisor once the command runs (raw mode, relay
 * watches); pty_drain in the relay loop after the command ended (ms to
 * wait for more output, -1: done); pty_finish restores the terminal. */
void pty_plan(struct session *s);
int pty_child_open(struct session *s);
int pty_child_ctty(const struct session *s);
void pty_parent_close(struct session *s);
void pty_start(struct session *s, bool started);
int pty_drain(struct session *s);
/* Before the supervisor writes a line of its own (a denial): what the
 * command wrote to its pty before is taken into the relay first, so the
 * line comes after it, and waits if that took the alternate screen. */
void pty_catch_up(void);
void pty_finish(struct session *s);
/* The end-of-session reset (pty_finish's) on another terminal FD: a
 * second terminal the command's output was relayed to (stdio.c). */
void pty_reset_other(int fd);
/* Async-signal-safe: SIG from the real terminal (Ctrl-C, Ctrl-\\) to the
 * foreground of the session's pty when the supervisor does not read the
 * terminal (so the terminal made the signal, not a byte); false when
 * there is no such pty. */
bool pty_signal(int sig);
/* Pure: which of fds 0..2 get the pty (a bit each; 0: no pty): those on
 * the first of them that is a terminal; PTY_INPUT with them when the
 * supervisor reads that terminal (it is stdin, and wicket is not in its
 * background). And a copy of IN with each LF that has no CR before it
 * turned into CR LF (OUT has room for 2*N). */
struct pty_fdinfo {
	bool tty;
	dev_t rdev;
};
#define PTY_INPUT 8u
unsigned pty_choose(const struct pty_fdinfo fd[3], bool sandbox, bool background);
size_t pty_crlf(char *out, const char *in, size_t n);
/* Pure: follows a terminal's output for the alternate screen (ESC [ ? P h
 * and l with P among 1049, 1047, 47; more parameters may share the
 * sequence, which may be split across calls). Reads IN up to and
 * including the first sequence that changes ON, and returns how many
 * bytes that was (N when none did). */
/* What the command's output may not do to the real terminal, dropped
 * from the stream whole (pty_filter_feed): OSC 52 and 5522 (the
 * clipboard: what the person pastes next would be the sandbox's), OSC
 * 5113 and 1337 (kitty's file transfer, iTerm2's), and DCS strings that
 * pass bytes on past a multiplexer (tmux;) or command the terminal
 * (kitty's @kitty-cmd). The start of a sequence is held until it is
 * known (at most PTY_FILTER_HOLD bytes, across calls). */
#define PTY_FILTER_HOLD 16
struct pty_filter {
	unsigned char st;
	unsigned num, ndig;  /* an OSC's number so far, and its digits */
	unsigned char held[PTY_FILTER_HOLD];
	size_t nheld;
};
/* IN (N bytes) filtered into OUT, which has room for N + PTY_FILTER_HOLD;
 * returns the bytes written. */
size_t pty_filter_feed(struct pty_filter *f, const char *in, size_t n, char *out);
/* B (N bytes of output) can change a terminal's state: an escape
 * sequence or a character set switch in it. */
bool pty_can_change(const char *b, size_t n);
/* What the filter still holds (a sequence's start at the very end). */
size_t pty_filter_flush(struct pty_filter *f, char *out);

struct pty_alt {
	bool on;            /* a full-screen program has the alternate screen */
	unsigned char st;   /* where in a sequence the last byte left off */
	unsigned param;     /* the parameter being read */
	bool set;           /* the sequence so far names the alternate screen */
};
size_t pty_alt_feed(struct pty_alt *a, const char *in, size_t n);
/* The prompt of `wicket ask` on the real terminal: possible when the
 * session has its own pty and wicket is in the terminal's foreground.
 * pty_prompt pauses the relay, resets the terminal's state, flushes
 * typeahead, shows TEXT, ignores keys for a grace period, then asks, and
 * calls DONE with the answer (the relay resumed); false:
 * no terminal to ask on. pty_prompt_cancel takes the question back
 * (a timeout), saying NOTE, without calling DONE. */
bool pty_can_prompt(void);
/* FD is the session's own terminal (the pty's slave), where what is read
 * is what the person at the real terminal types. */
bool pty_is_session_tty(int fd);
/* An approved command on the session's terminal gets a pty of its own
 * (pty.c): pty_cmd_needed says whether keys are relayed (then it must);
 * pty_cmd_open gives the master (-1: none, one is in use) and its slave;
 * pty_cmd_start relays to it; pty_cmd_end when the command has ended. */
bool pty_cmd_needed(void);
/* PID (the supervisor's view) is in the session pty's foreground group. */
bool pty_foreground(pid_t pid);
int pty_cmd_open(int *slave_fd);
bool pty_cmd_start(struct session *s, int master);
bool pty_cmd_active(void);
/* Keys are held until Enter after a command ended by a signal. */
bool pty_cmd_held(void);
void pty_cmd_end(struct session *s, const char *note, bool hold);
/* What is asked: to run a command outside (y/N), or to let the proxy
 * connect to a host (y: once, s: for the session, N). */
enum pty_ask { PTY_ASK_RUN, PTY_ASK_HOST };
enum pty_answer { PTY_NO, PTY_YES, PTY_SESSION };
bool pty_prompt(struct session *s, const char *text, enum pty_ask kind,
		void (*done)(struct session *, enum pty_answer, void *), void *data);
void pty_prompt_cancel(struct session *s, const char *note);
/* The real terminal's columns and rows (0: unknown or none), for the
 * question's layout. */
unsigned pty_prompt_width(unsigned *rows);
/* NOTE on the real terminal, once, between what the command writes (the
 * terminal put in a known state first, as for a question); nothing when
 * there is no pty or a question is up. */
void pty_note(struct session *s, const char *note);

/* diag.c: the preload shim, the launcher's side: where it is, and the
 * environment that injects it and tells it the rules. */
void diag_plan(struct session *s);
size_t diag_env(const struct session *s, char **env, size_t w);

/* control.c: the control socket (DESIGN §6), the session's denials, the
 * summary line and the state `wicket why` reads after the session. */
struct denial {
	const char *kind;    /* "write", "read", "network" */
	const char *object;  /* path, or "connect 127.0.0.1:8080/tcp" */
	const char *what;    /* "open for writing" (NULL for the network) */
	const char *comm;
	long pid;            /* as the sandbox sees it, shown */
	long host_pid;       /* as the supervisor sees it (0: unknown) */
	/* The proxy's refusals (proxy.c): why, on the line after the
	 * object; and what `wicket why` offers (enum proxy_refusal). */
	const char *reason;
	int proxy;
	const char *proxy_name; /* the name refused, or the name that resolved */
	const char *proxy_addr; /* the address refused (PROXY_ADDRESS) */
};
enum proxy_refusal { PROXY_NOT = 0, PROXY_UNLISTED, PROXY_DENIED, PROXY_ADDRESS, PROXY_RAW_IP,
		     PROXY_BAD, PROXY_UNRESOLVED, PROXY_SNI };
void control_plan(struct session *s);        /* before net_early_start */
void control_status_plan(struct session *s); /* after shell_plan */
size_t control_env(const struct session *s, char **env, size_t w);
/* Record a denial for `wicket why`; PRINT its line and count it in the
 * summary, or count it only (SHOWN: printed by the shim), or neither. */
enum denial_show { DENIAL_PRINT, DENIAL_SHOWN, DENIAL_QUIET };
void control_denial(struct session *s, const struct denial *d, enum denial_show show);
void control_finish(struct session *s);
void control_init_close(struct session *s); /* init, once the command runs */
/* One packet from the sandbox with the NFDS descriptors that came with
 * it (each closed or kept); for the fuzzer, which also points
 * control_out_fd elsewhere. */
void control_handle(struct session *s, const char *buf, size_t len, pid_t sender,
		    int sender_pidfd, const int *fds, int nfds);
/* A packet too large (or with too many descriptors) to read: its reply
 * socket, if any, is told so; every descriptor is closed. */
void control_too_large(struct session *s, const int *fds, int nfds);
/* A packet's sender: the pid the kernel vouches for (SCM_CREDENTIALS),
 * and with it a pidfd of that process (SCM_PIDFD, Linux 6.5 and later),
 * or one of these. */
#define WK_PIDFD_NONE (-1) /* the kernel passes no pidfds: the pid alone */
#define WK_PIDFD_GONE (-2) /* it does, but none came: the sender is gone */
extern int control_out_fd;
/* stdio.c, after each copy into the file the lines go to: whether that
 * file now stands at the start of a line (held lines go then). */
void control_relay_wrote(bool at_line_start);
/* Queued lines out now (the proxy's, whose client waits), unless held. */
void control_lines_now(void);
#define WK_MAX_DENIALS 100   /* distinct denials kept for `wicket why` */
int cmd_why(int argc, char **argv);
/* The control socket named by $WICKET_FD when it is still the one the
 * supervisor handed down, else -1 (why.c). */
int control_socket_fd(void);

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
/* The /proc directory of a request's sender (pid and SENDER_PIDFD as
 * control_handle has them), or -1 when the sender is gone. */
int ask_requester_dir(pid_t pid, int sender_pidfd);
/* askcmd.c: the `wicket ask` client */
int cmd_ask(int argc, char **argv);
/* Exit codes of `wicket ask` besides the command's own (wicket(1)). */
#define ASK_EXIT_DENIED 122      /* a rule, the approver or the person said no */
#define ASK_EXIT_UNANSWERED 123  /* no one to ask, or no answer in time */

/* userconfig.c: $XDG_CONFIG_HOME/wicket/config.json, the policy per
 * directory. userconfig_load: false with c->errors (each naming the file
 * and the JSON pointer) on a bad file; no file is no error (found false).
 * userconfig_pick: the entry whose directory holds WORKSPACE (canonical),
 * the deepest; NULL: none. */
struct userconfig_entry {
	char *path;   /* canonical (or normalised, when it does not exist) */
	char *policy; /* a name, or a file path (relative: the config's directory) */
	char *where;  /* "FILE: /directories/N" */
	size_t index;
};
struct userconfig {
	char *file;   /* NULL: no home to find it in */
	bool found;
	struct userconfig_entry *entries;
	size_t n;
	struct strv errors;
};
char *wicket_config_dir(const char *home);
bool userconfig_load(struct userconfig *c, const char *home);
void userconfig_load_or_die(struct userconfig *c, const char *home);
const struct userconfig_entry *userconfig_pick(const struct userconfig *c, const char *workspace);
void userconfig_free(struct userconfig *c);

/* shell.c: the interactive shell and its hooks (s->argv, s->shell_env). */
struct passwd;
void shell_plan(struct session *s, const char *want, const struct passwd *pw);
/* The shell to start: --shell WANT (bash or zsh, from PATH), else $SHELL,
 * else the passwd entry's, else /bin/sh. Dies on a bad WANT. */
char *shell_path(const char *want, const struct passwd *pw);

/* history.c: the shell's history of the session. history_plan, before
 * the mount plan: a session file (a writable root) when the user's file
 * is not writable inside; history_merge, after the session: its new
 * lines, filtered, appended to the user's file. history_filter (pure):
 * the whole lines of IN (N bytes; the first one cut when PARTIAL_FIRST)
 * of printable text and not too long, one entry each, without the
 * shell's time stamps (*STAMPED: there were some), into OUT (room for
 * N); ZSH: IN is zsh's format, its entries of several lines dropped;
 * returns the length. */
void history_plan(struct session *s, const char *want, const struct passwd *pw);
void history_merge(struct session *s);
size_t history_filter(const char *in, size_t n, char *out, bool partial_first, bool zsh,
		      bool *stamped);

/* proxy.c: network mode "domains". proxy_plan before the clone;
 * proxy_child_listen in init once it is in the sandbox's network
 * namespace (loopback up, the listeners made and sent out); proxy_start
 * in the supervisor once the command runs (a thread of its own serves
 * them; refusals come to the relay loop through a watch); proxy_finish
 * at the end. proxy_env_vars: the variables the command gets,
 * NULL-terminated "NAME=value". */
void proxy_plan(struct session *s);
int proxy_child_listen(struct session *s);
void proxy_parent_close(struct session *s);
void proxy_start(struct session *s);
void proxy_finish(struct session *s);
const char *const *proxy_env_vars(void);

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

/* supervisor.c */
int session_run(struct session *s);
void net_early_start(const struct session *s);
void net_early_release(void);

#endif
