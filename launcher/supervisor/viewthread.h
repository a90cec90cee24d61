/* The supervisor's view thread: where every look at a path the sandbox
 * gave is made (lib/view.h's runner), with the sandbox's own rights. */
#ifndef WICKET_SUPERVISOR_VIEWTHREAD_H
#define WICKET_SUPERVISOR_VIEWTHREAD_H

/* Starts the thread: no capabilities, no new privileges and RULESET
 * (the session's Landlock ruleset as init built it, or -1: none) on
 * itself alone, and makes it lib/view.c's runner. Where that cannot be
 * done, every look fails (EACCES): never one with more rights. */
void viewthread_start(int ruleset);

#endif
