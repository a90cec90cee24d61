/* The session as every phase of the launcher sees it: a resolved policy,
 * the plan of what each kernel layer will get, and the state the
 * supervisor keeps (one struct, as minijail keeps one). Each module's
 * functions are declared in its own header next to it (HACKING.md). */
#ifndef WICKET_SESSION_H
#define WICKET_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "policy.h"
#include "util.h"
#include "base/landlockops.h"
#include "base/mountops.h"

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
	/* NET_DOMAINS: "HOST:PORT" (grant.h's net items): a name pattern or
	 * address of the lists above reached on those ports only. */
	struct strv port_limits;
	/* Host unix sockets the command may connect to (--socket: a grant's),
	 * canonical; each also a read root, so that it is in view. */
	struct strv sockets;
	bool private_tmp;       /* /tmp is a fresh per-session tmpfs */
	char tmp_size[WK_TMP_SIZE_MAX]; /* its size limit, and /dev/shm's */
	struct strv env_unset;  /* glob patterns of variables removed */
	struct strv env_set;    /* NAME=value set in the command's environment */
};

/* The modes with port lists: "ports" on the host's network, enforced by
 * Landlock's connect and bind rules and seccomp's TCP-only program;
 * "domains", whose connect list holds the proxy's ports, inside a
 * namespace of its own (net_private_loopback below). */
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
	struct strv dac_closed;   /* hidden paths the user can neither read nor write
				   * outside, nor change (plan_build_late): covered,
				   * and refusing them is an ordinary error */
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
	bool takes_fds; /* reading it takes the sandbox's descriptors (closer.h) */
};
#define WK_MAX_WATCH 64

struct session {
	struct wk_policy wpol;    /* the policy as loaded (rules, where they came from) */
	struct policy pol;        /* resolved for this session */
	struct mount_plan plan;
	struct mount_ops mount_base; /* the plan's base, as the child executes it (plan.c) */
	struct landlock_ops landlock; /* the Landlock ruleset, as the child adds it (llplan.c) */
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
	/* Then, once init has the plan: what only the user is told (a
	 * warning), made while init finishes the view. */
	void (*late_notes)(const struct session *s);
	int late_pipe[2];
	char *session_id;
	bool diagnostics;         /* inject the preload shim (not --no-diagnostics) */
	char *shim_path;          /* NULL: no shim this session (diag.c) */
	int ctl_child;            /* the sandbox's end of the control socket (control.c) */
	/* A warm session (warm.c): its name, the directory of its socket
	 * (held), the server's end of its socket and the pipe `session
	 * start` waits on; -1 and NULL in any other session. */
	const char *warm_name;
	int warm_dirfd, warm_child, warm_ready;
	dev_t pidns_dev;          /* the sandbox's pid namespace (layers.pidns), once it */
	ino_t pidns_ino;          /* exists; 0: none (who is inside, for ask.c) */
	struct strv cli_protect;  /* --protect paths, absolute (for `wicket why`) */
	struct strv cli_hide;     /* --hide paths, absolute (for `wicket why`) */
	struct strv shell_env;    /* NAME=value the shell's hooks need (shell.c) */
	bool shell_hooks;         /* the shell loads wicket's hooks */
	int status_fd;            /* denial count for the hooks, -1: none (control.c) */
	int ack_fd;               /* the acknowledgement page, -1: none (control.c) */
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
	struct strv autorun_git_start; /* those of them git reads (hooks, config...) */
	struct timespec started;  /* wall clock before the command started */
	const char *approver;     /* --approver CMD (ask.c), NULL: the policy's */
	int approver_fd;          /* --approver-fd/--approver-socket (approverlink.c), or -1 */
	/* The options that plan this session again from the host, for the
	 * sandbox of a grant (ask.c): `wicket run` and these, the grant's,
	 * "--" and the command; NAME=VALUE of each --env, passed in the
	 * environment, not on a command line others can read. */
	struct strv rerun, rerun_env;
	char *rerun_chain; /* the policy's sources, one a line (WICKET_GRANT_CHAIN) */
	/* This session is the sandbox of a grant of session GRANT_OF: it
	 * asks for nothing more (ask.c), and says nothing of its own start. */
	const char *grant_of;
	/* Where the command starts: the workspace; a grant's, the asker's
	 * cwd (the supervisor starts its wicket there, checked to be the same
	 * directory outside as in the sandbox). */
	const char *start_dir;
	/* The shell's history of this session (history.c): a directory of
	 * the supervisor's, held open, and the user's file it goes into. */
	char *hist_dir;
	int hist_dirfd;
	char *hist_target;
	bool hist_zsh; /* the session file is zsh's (its format) */
	int proxy_sock[2];        /* init -> supervisor: the proxy's listeners (proxy.c) */
	pid_t child;              /* init, as the supervisor sees it (0: not yet) */
	/* The sandbox's view of the file system (lib/view.h), once the
	 * command runs: its root, through which every path the sandbox
	 * names is looked at, and its mount namespace, held so that the
	 * view stays whole until the supervisor is done (-1: none yet). */
	int view_root;
	int view_ns;
	int view_sock[2];         /* init -> supervisor: those two (supervisor.c) */
};

/* Modes "none" and "domains" in a network namespace of the sandbox's
 * own (layers.netns is decided for those two only): its loopback is up
 * and private, and nothing else is reachable (in "domains", only the
 * proxy's listeners lead out, through the supervisor). There the
 * namespace is the wall, so the command may bind, listen and connect on
 * that loopback over TCP (seccomp's "loopback" program), and
 * Landlock's TCP rules stay off: a server a test starts on 127.0.0.1 or
 * ::1 works. Without the namespace ("none" where none can be made),
 * Landlock's TCP rules and seccomp's AF_UNIX-only program hold as in
 * "ports". */
static inline bool net_private_loopback(const struct session *s)
{
	return s->layers.netns && (s->pol.net == NET_NONE || s->pol.net == NET_DOMAINS);
}

/* Whether Landlock handles TCP bind and connect (ABI 4): "ports" on the
 * host's network, and "none" without a namespace of its own. */
static inline bool net_tcp_by_landlock(const struct session *s)
{
	return s->layers.landlock_abi >= 4 && !net_private_loopback(s) &&
	       (s->pol.net == NET_NONE || net_by_port(s->pol.net));
}

#endif
