/* See dac.h. */
#include "config.h"
#include "dac.h"

#include <unistd.h>

bool wk_dac_allows(const struct stat *st, uid_t uid, gid_t gid, const gid_t *groups,
		   size_t ngroups, int mode)
{
	unsigned shift = 0;
	if (st->st_uid == uid) {
		shift = 6;
	} else {
		bool member = st->st_gid == gid;
		for (size_t i = 0; i < ngroups && !member; i++)
			member = groups[i] == st->st_gid;
		if (member)
			shift = 3;
	}
	unsigned want = (mode & R_OK ? 4u : 0u) | (mode & W_OK ? 2u : 0u) | (mode & X_OK ? 1u : 0u);
	return (((unsigned)st->st_mode >> shift) & want) == want;
}
