/* WICKET_FD, WICKET_STATUS_FD and WICKET_ACK_FD: a descriptor the
 * supervisor hands the sandbox, as "FD:DEV:INO" (the number, and the
 * identity of what it held then, so a number reused since is told
 * apart), or a bare "FD", taken unchecked. Written by control.c, read
 * by the shim (preload/diag.c, preload/fdguard.c), `wicket why` and
 * `wicket ask`. Nothing here allocates or uses stdio: the shim runs it
 * in signal handlers and vfork children. */
#ifndef WICKET_FDSPEC_H
#define WICKET_FDSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct fdspec {
	int fd;       /* -1: none */
	bool checked; /* DEV:INO given */
	unsigned long long dev, ino;
};

/* Room for the longest text, with its NUL. */
#define FDSPEC_LEN 64

/* "FD:DEV:INO" for FD, whose fstat is ST, into BUF: its length. */
size_t fdspec_format(char buf[FDSPEC_LEN], int fd, const struct stat *st);

/* The whole of S (NULL: unset) as a spec into OUT; false (OUT->fd -1,
 * the rest zero) for anything else: signs, spaces, a missing part,
 * trailing text, a number past INT_MAX - 1. */
bool fdspec_parse(const char *s, struct fdspec *out);

/* ST (fstat of the descriptor now) is what SP names. */
bool fdspec_same(const struct fdspec *sp, const struct stat *st);

/* SP's descriptor when it is open, a socket, and the one named; else -1.
 * errno as it was. */
int fdspec_socket(const struct fdspec *sp);

#endif
