/* Small helpers shared by the launcher and the preload shim.
 * Everything here is pure or only touches stderr; no sandbox logic. */
#ifndef WICKET_UTIL_H
#define WICKET_UTIL_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>
#include <stdnoreturn.h>

/* Exit codes of DESIGN §8. */
enum {
	EXIT_WICKET = 125,      /* wicket itself failed: bad option, policy, kernel */
	EXIT_NOEXEC = 126,      /* command found but not executable */
	EXIT_NOTFOUND = 127,    /* command not found */
};

/* What a process ended with, as a shell reports it and wicket exits with:
 * its exit status, or 128 + the signal that ended it (from a wait status
 * ST, or the signal SIG itself); EXIT_WICKET for a status that is
 * neither. */
int exit_code_of(int st);
static inline int exit_code_of_signal(int sig)
{
	return 128 + sig;
}

/* Program name used as the prefix of every message ("wicket"). */
extern const char *wicket_progname;

noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void die_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void die_code(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void warnmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Called before each message goes out (NULL: none): the supervisor's
 * line break when stderr stands in the middle of the command's line. */
extern void (*wk_before_message)(void);

/* All N bytes of P to FD, through short writes and EINTR; false when a
 * write failed first. Async-signal-safe. */
bool write_all(int fd, const void *p, size_t n);
/* Remove the directory PATH and everything in it, never following a
 * symbolic link at any level (each entry is removed relative to its
 * directory's descriptor). Best effort: what cannot go stays. */
void rm_tree(const char *path);
/* A directory stream from the start of DFD, on a duplicate (DFD stays the
 * caller's); NULL on failure. */
DIR *opendir_dup(int dfd);
/* This program's executable (/proc/self/exe) as a path in BUF (SIZE
 * bytes); false when it cannot be read whole. */
bool self_exe(char *buf, size_t size);
/* What descriptor FD of this process names (/proc/self/fd/FD) in BUF
 * (SIZE bytes); false when it cannot be read whole. */
bool path_of_fd(int fd, char *buf, size_t size);
/* The canonical path of REL taken from the directory of this program's
 * executable (a build tree keeps the shim and the hooks there), when it
 * exists; else NULL. */
char *self_relative(const char *rel);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* N bytes of P appended to the growing buffer *B (*LEN used of *CAP). */
void bytes_add(char **b, size_t *len, size_t *cap, const void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* For clang's analyzer (tests/analyze), each allocator stands for the
 * libc call it wraps: a call into another file is opaque to it, and so
 * would be every path that forgets to free what one returned. */
#if defined(__clang_analyzer__) && !defined(WK_UTIL_C)
#include <stdlib.h>
#include <string.h>
static inline void *wk_an_alloc(void *p)
{
	if (!p)
		abort();
	return p;
}
static inline char *wk_an_asprintf(const char *fmt, ...)
{
	(void)fmt;
	return (char *)wk_an_alloc(strdup(""));
}
#define xmalloc(n) wk_an_alloc(malloc(n))
#define xcalloc(n, size) wk_an_alloc(calloc(n, size))
#define xrealloc(p, n) wk_an_alloc(realloc(p, n))
#define xstrdup(s) ((char *)wk_an_alloc(strdup(s)))
static inline char *wk_an_vasprintf(const char *fmt, va_list ap)
{
	(void)fmt, (void)ap;
	return (char *)wk_an_alloc(strdup(""));
}
#define xasprintf wk_an_asprintf
#define xvasprintf wk_an_vasprintf
#endif

/* A growable NULL-terminated vector of owned strings. */
struct strv {
	char **v;
	size_t n, cap;
};
void strv_push(struct strv *sv, char *owned);
void strv_add(struct strv *sv, const char *s);
bool strv_contains(const struct strv *sv, const char *s);
void strv_free(struct strv *sv);

/* Parse a whole decimal number in [min, max]; false on anything else. */
bool parse_long(const char *s, long min, long max, long *out);

/* One read(2) of the small text file PATH (relative to the directory
 * DIR, or AT_FDCWD) into BUF of SIZE bytes, NUL-terminated (BUF is "" on
 * any failure). The bytes read (0 if the read failed), or -1 if the file
 * could not be opened. For /proc and /sys entries. */
ssize_t read_text_at(int dir, const char *path, char *buf, size_t size);

/* CLOCK_MONOTONIC in milliseconds. */
long long now_ms(void);
/* CLOCK_MONOTONIC MS milliseconds from now: a deadline for
 * pthread_cond_timedwait on a condition variable of that clock. */
struct timespec monotonic_after_ms(long ms);

#endif
