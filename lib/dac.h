/* The file permission bits' answer (DAC), as the kernel gives it to a
 * process without capabilities: which class of ST's mode applies to the
 * ids, and whether it grants MODE. Pure; the shim asks it where a
 * read-only mount answers before the permissions do (preload/diag.c). */
#ifndef WICKET_DAC_H
#define WICKET_DAC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* MODE: R_OK, W_OK, X_OK or'ed. The owner's bits alone for the owner,
 * the group's for a member (GID or one of GROUPS), the others' for the
 * rest; ACLs are not known here. UNKNOWN is the id a user namespace
 * shows for every group it does not map (the overflow gid): as a file's
 * group it may be any, so either class's bits grant, and among GROUPS it
 * proves nothing. */
bool wk_dac_allows(const struct stat *st, uid_t uid, gid_t gid, const gid_t *groups,
		   size_t ngroups, gid_t unknown, int mode);

/* ST is closed to the user outside, for good: neither read nor written
 * (a directory: nor searched) by the bits, with no ACL (ACL true: one
 * that may grant), and not the user's to open up (theirs to chmod).
 * Root (UID 0) is refused nothing. A symbolic link is no object. */
bool wk_dac_closed(const struct stat *st, uid_t uid, gid_t gid, const gid_t *groups,
		   size_t ngroups, bool acl);

#endif
