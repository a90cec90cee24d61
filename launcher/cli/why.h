#ifndef WICKET_CLI_WHY_H
#define WICKET_CLI_WHY_H

#include "base/session.h"

int cmd_why(int argc, char **argv);
/* The control socket named by $WICKET_FD when it is still the one the
 * supervisor handed down, else -1 (why.c). */
int control_socket_fd(void);

#endif
