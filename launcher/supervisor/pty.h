#ifndef WICKET_SUPERVISOR_PTY_H
#define WICKET_SUPERVISOR_PTY_H

#include "base/session.h"
#include "supervisor/ptyfilter.h"

/* pty.c: the session's own terminal. Its life is stdio's (stdio.h), and
 * only stdio.c calls these: pty_plan in stdio_plan (it marks the fds that
 * become the pty STDIO_PTY); pty_child_open in init (stdio_apply),
 * returning the slave; pty_child_ctty in the command (stdio_command);
 * pty_parent_close in stdio_parent_close; pty_start once the command runs
 * (raw mode, relay watches: stdio_start); pty_drain in the relay loop
 * after the command ended (ms to wait for more output, -1: done);
 * pty_finish restores the terminal (stdio_finish). */
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
struct pty_alt {
	bool on;            /* a full-screen program has the alternate screen */
	unsigned char st;   /* where in a sequence the last byte left off */
	unsigned param;     /* the parameter being read */
	bool set;           /* the sequence so far names the alternate screen */
};
size_t pty_alt_feed(struct pty_alt *a, const char *in, size_t n);
/* Pure: follows a terminal's output for where it leaves the cursor: MID
 * when printable text came after the last CR or LF (escape sequences and
 * strings are no text; ESC may be split across calls). */
struct pty_col {
	bool mid;
	unsigned char esc;
};
void pty_col_feed(struct pty_col *c, const char *in, size_t n);
/* After the session's terminal is given back: the command's output on it
 * stopped in the middle of a line (so a line of ours starts with one);
 * pty_line_ended: one was written. */
bool pty_midline(void);
void pty_line_ended(void);
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
/* What is asked: to run a command outside (y/N), or in a sandbox of its
 * own, on a grant (y/N), or to let the proxy connect to a host (y: once,
 * s: for the session, N). */
enum pty_ask { PTY_ASK_RUN, PTY_ASK_GRANT, PTY_ASK_HOST };
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

#endif
