#ifndef WICKET_SUPERVISOR_CONTROL_H
#define WICKET_SUPERVISOR_CONTROL_H

#include "base/session.h"

/* control.c: the control socket (DESIGN §6), the session's denials, the
 * summary line and the state `wicket why` reads after the session. */
struct denial {
	const char *kind;    /* "write", "read", "network" */
	const char *object;  /* path, or "connect 127.0.0.1:8080/tcp" */
	const char *what;    /* "open for writing" (NULL for the network) */
	const char *comm;
	long pid;            /* as the sandbox sees it, shown */
	long host_pid;       /* as the supervisor sees it (0: unknown) */
	pid_t sender;        /* the report's sender, by its credentials (0: unknown) */
	/* The process's arguments (NUL-separated, ARGS_LEN bytes), read
	 * while its pid was known to be its own; NULL: read by host_pid,
	 * which the caller keeps from being reused (a pending seccomp
	 * notification). For the advice only. */
	const char *args;
	size_t args_len;
	/* The proxy's refusals (proxy.c): why, on the line after the
	 * object; and what `wicket why` offers (enum proxy_refusal). */
	const char *reason;
	int proxy;
	const char *proxy_name; /* the name refused, or the name that resolved */
	const char *proxy_addr; /* the address refused (PROXY_ADDRESS) */
};
enum proxy_refusal { PROXY_NOT = 0, PROXY_UNLISTED, PROXY_DENIED, PROXY_ADDRESS, PROXY_RAW_IP,
		     PROXY_BAD, PROXY_UNRESOLVED, PROXY_SNI };
/* Warm sessions (warm.c): HOOK tells which exec a process belongs to (0:
 * none), kept with each denial it reports and in its record ("exec"). */
void control_exec_hook(unsigned long long (*hook)(pid_t host_pid));
/* And which execs take their own event lines (wicket exec --events):
 * WANTS asked before a denial is explained for one, LINE given each line. */
/* What the sandbox has sent on the control socket, handled now (a warm
 * exec's end waits for its reports: a process that did not wait for its
 * line may have ended before its report was read). */
void control_catch_up(struct session *s);
void control_exec_events(bool (*wants)(unsigned long long exec),
			 void (*line)(unsigned long long exec, const char *text));
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
/* SENDER, SENDER_PIDFD: see ask.h. */
extern int control_out_fd;
/* stdio.c, after each copy into the file the lines go to: whether that
 * file now stands at the start of a line (held lines go then). */
void control_relay_wrote(bool at_line_start);
/* stdio.c's copy, while it runs (NULL after): CATCH_UP copies what the
 * command wrote so far before a line of ours goes into the file. */
void control_relay_catch_up(void (*catch_up)(void));
/* Queued lines out now (the proxy's, whose client waits), unless held. */
void control_lines_now(void);
/* Queued lines out now, held or not, each on a line of its own: before
 * the refused call they answer returns (the shim's acknowledged
 * reports, seccomp's notifications). */
void control_lines_out(void);
#define WK_MAX_DENIALS 100   /* distinct denials kept for `wicket why` */

#endif
