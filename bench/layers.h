/* The kernel layers of a session, applied by bench programs without
 * wicket (layers.c): bench/layerwrap applies one alone, bench/floor all
 * of them after its namespaces. Each function reports a failure on
 * stderr and exits with 125. */
#ifndef WICKET_BENCH_LAYERS_H
#define WICKET_BENCH_LAYERS_H

#include <linux/types.h>

void layers_die(const char *what) __attribute__((__noreturn__));
/* A Landlock ruleset handling HANDLED_FS, network and scopes as a session
 * in network mode none has them (ABI 6 or later); a rule in it; the
 * ruleset applied to this thread and closed. */
int layers_ruleset(__u64 handled_fs);
void layers_rule(int rs, const char *path, __u64 access);
void layers_restrict(int rs);
/* The rules of FILE, made by run-bench from strace of a session: a line
 * "fs HEX", then "rule HEX PATH" per rule; applied as they are. */
void layers_landlock_file(const char *file);
/* wicket's seccomp program for the default policy (the "unix" one of
 * network mode none, launcher/child/seccomp-bpf.h). LISTENER 0: loaded
 * without a listener, its referrals fail with ENOSYS; returns -1.
 * LISTENER 1: loaded with SECCOMP_FILTER_FLAG_NEW_LISTENER, as a session
 * does; returns the listener. no_new_privs must be set. */
int layers_seccomp(int listener);

#endif
