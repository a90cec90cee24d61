#ifndef WICKET_CLI_PROBE_H
#define WICKET_CLI_PROBE_H

#include "base/session.h"

/* probe.c */
void probe_kernel(struct kernel_info *k);
int cmd_doctor(int argc, char **argv);
/* Inside a sandboxed wicket session (its variables, and a seccomp filter
 * on this process): COMMAND ("run", "doctor") is refused, saying so. */
void refuse_inside_session(const char *command);

#endif
