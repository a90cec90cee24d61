#ifndef WICKET_SUPERVISOR_PROXY_H
#define WICKET_SUPERVISOR_PROXY_H

#include "base/session.h"

/* proxy.c: network mode "domains". proxy_plan before the clone;
 * proxy_child_listen in init once it is in the sandbox's network
 * namespace (loopback up, the listeners made and sent out); proxy_start
 * in the supervisor once the command runs (a thread of its own serves
 * them; refusals come to the relay loop through a watch); proxy_finish
 * at the end. proxy_env_vars: the variables the command gets,
 * NULL-terminated "NAME=value". */
void proxy_plan(struct session *s);
int proxy_child_listen(struct session *s);
void proxy_parent_close(struct session *s);
void proxy_start(struct session *s, bool started); /* STARTED false: nothing served */
void proxy_finish(struct session *s);
const char *const *proxy_env_vars(void);
/* The value of NO_PROXY (and no_proxy) in the sandbox: the sandbox's
 * own loopback names the policy does not allow (malloc'd); NULL: none. */
char *proxy_no_proxy(const struct policy *pol);

#endif
