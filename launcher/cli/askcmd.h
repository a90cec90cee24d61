#ifndef WICKET_CLI_ASKCMD_H
#define WICKET_CLI_ASKCMD_H

#include "base/session.h"

/* askcmd.c: the `wicket ask` client */
int cmd_ask(int argc, char **argv);
/* Exit codes of `wicket ask` besides the command's own (wicket(1)). */
#define ASK_EXIT_DENIED 122      /* a rule, the approver or the person said no */
#define ASK_EXIT_UNANSWERED 123  /* no one to ask, or no answer in time */

#endif
