/* How the layer code reports a failure in the child (setupfail.c). The
 * lowest module of the launcher: caps.c, landlock.c, mounts.c, seccomp.c,
 * stdio.c, pty.c and netnotify.c report through it, and supervisor.c
 * sends what they reported to the supervisor (and explains it), so the
 * layers need not know the supervisor. */
#ifndef WICKET_SETUPFAIL_H
#define WICKET_SETUPFAIL_H

/* Child setup failures are reported to the supervisor as one of these. */
struct setup_error {
	int stage;
	int err;
	char detail[256];
};

enum setup_stage {
	STAGE_NONE,
	STAGE_USERNS_MAP,
	STAGE_MOUNT,
	STAGE_PROC,
	STAGE_CAPS,
	STAGE_NNP,
	STAGE_LANDLOCK,
	STAGE_SECCOMP,
	STAGE_CHDIR,
	STAGE_EXEC,
	STAGE_NETNS,
	STAGE_STDIO,
};

/* Set by the layer code on failure so the supervisor can explain it. */
extern struct setup_error setup_err;
/* Fills setup_err (DETAIL from FMT) and returns -1. */
int setup_fail(int stage, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
