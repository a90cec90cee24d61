/* See dac.h. */
#include "config.h"
#include "dac.h"

#include <unistd.h>

bool wk_dac_allows(const struct stat *st, uid_t uid, gid_t gid, const gid_t *groups,
		   size_t ngroups, gid_t unknown, int mode)
{
	unsigned want = (mode & R_OK ? 4u : 0u) | (mode & W_OK ? 2u : 0u) | (mode & X_OK ? 1u : 0u);
	unsigned bits = (unsigned)st->st_mode;
	if (st->st_uid == uid)
		return ((bits >> 6) & want) == want;
	bool group_grants = ((bits >> 3) & want) == want, other_grants = (bits & want) == want;
	if (st->st_gid == unknown)
		return group_grants || other_grants;
	bool member = st->st_gid == gid;
	for (size_t i = 0; i < ngroups && !member; i++)
		member = groups[i] == st->st_gid;
	return member ? group_grants : other_grants;
}

bool wk_dac_closed(const struct stat *st, uid_t uid, gid_t gid, const gid_t *groups,
		   size_t ngroups, bool acl)
{
	if (uid == 0 || acl || S_ISLNK(st->st_mode) || st->st_uid == uid)
		return false;
	/* No group is unknown outside the user namespace: (gid_t)-1 names none. */
	const gid_t none = (gid_t)-1;
	if (wk_dac_allows(st, uid, gid, groups, ngroups, none, R_OK) ||
	    wk_dac_allows(st, uid, gid, groups, ngroups, none, W_OK))
		return false;
	return !S_ISDIR(st->st_mode) || !wk_dac_allows(st, uid, gid, groups, ngroups, none, X_OK);
}
