/* The permission bits' answer (lib/dac.c): which class applies, and
 * whether it grants each mode. */
#include "config.h"
#include "tap.h"

#include <unistd.h>

#include "dac.h"

static bool allows(unsigned mode, uid_t fu, gid_t fg, uid_t u, gid_t g, const gid_t *gs, size_t n,
		   int want)
{
	struct stat st = {.st_mode = S_IFREG | mode, .st_uid = fu, .st_gid = fg};
	return wk_dac_allows(&st, u, g, gs, n, 65534, want);
}

int main(void)
{
	gid_t groups[] = {20, 42};
	/* The owner's bits, and only they, for the owner. */
	ok(allows(0600, 1000, 0, 1000, 1000, NULL, 0, R_OK | W_OK), "owner rw- grants rw");
	ok(!allows(0600, 1000, 0, 1000, 1000, NULL, 0, X_OK), "owner rw- refuses x");
	ok(!allows(0066, 1000, 1000, 1000, 1000, NULL, 0, R_OK), "owner ---: refused, whatever the group's and others' bits");
	ok(allows(0400, 1000, 0, 1000, 1000, NULL, 0, R_OK), "owner r-- grants r");
	ok(!allows(0400, 1000, 0, 1000, 1000, NULL, 0, R_OK | W_OK), "owner r-- refuses rw: all of the mask");
	ok(allows(0100, 1000, 0, 1000, 1000, NULL, 0, X_OK), "owner --x grants x");
	ok(allows(0200, 1000, 0, 1000, 1000, NULL, 0, W_OK), "owner -w- grants w");
	/* The group's, for its members: the primary group or another. */
	ok(allows(0640, 0, 42, 1000, 1000, groups, 2, R_OK), "a member by a supplementary group reads 0640");
	ok(!allows(0640, 0, 42, 1000, 1000, groups, 1, R_OK), "not a member: others' bits");
	ok(allows(0640, 0, 1000, 1000, 1000, NULL, 0, R_OK), "a member by the primary group");
	ok(!allows(0640, 0, 1000, 1000, 1000, NULL, 0, W_OK), "group r-- refuses w");
	ok(!allows(0604, 0, 1000, 1000, 1000, NULL, 0, R_OK), "group ---: refused, whatever the others' bits");
	ok(allows(0020, 0, 42, 1000, 1000, groups, 2, W_OK), "group -w- grants w");
	ok(allows(0010, 0, 42, 1000, 1000, groups, 2, X_OK), "group --x grants x");
	/* Others'. */
	ok(allows(0644, 0, 0, 1000, 1000, NULL, 0, R_OK), "others r-- grant r");
	ok(!allows(0644, 0, 0, 1000, 1000, NULL, 0, W_OK), "others r-- refuse w");
	ok(allows(01777, 0, 0, 1000, 1000, NULL, 0, W_OK | X_OK), "a sticky 1777 directory: wx");
	ok(!allows(0755, 0, 0, 1000, 1000, NULL, 0, W_OK | X_OK), "root's 0755: no w");
	ok(allows(0001, 0, 0, 1000, 1000, NULL, 0, X_OK), "others --x grant x");
	ok(allows(0002, 0, 0, 1000, 1000, NULL, 0, W_OK), "others -w- grant w");
	ok(allows(0644, 0, 0, 1000, 1000, NULL, 0, 0), "nothing asked: granted");
	/* A group the user namespace does not map shows as 65534, the
	 * file's and the user's alike: it proves no membership, and a file
	 * of such a group may be the user's group's. */
	gid_t unmapped[] = {65534};
	ok(allows(0604, 0, 65534, 1000, 1000, unmapped, 1, R_OK), "unknown group: the others' r grants");
	ok(allows(0640, 0, 65534, 1000, 1000, NULL, 0, R_OK), "unknown group: the group's r grants");
	ok(!allows(0600, 0, 65534, 1000, 1000, unmapped, 1, R_OK), "unknown group, neither class: refused");
	ok(!allows(0640, 0, 42, 1000, 1000, unmapped, 1, R_OK), "65534 among the user's groups is no membership");
	ok(!allows(0460, 1000, 65534, 1000, 1000, NULL, 0, W_OK), "the owner's bits alone, whatever the group");
	/* Closed for good: the bits refuse r and w (and x, a directory),
	 * no ACL, not the user's to chmod, and the user not root. */
	struct stat shadow = {.st_mode = S_IFREG | 0640, .st_uid = 0, .st_gid = 42};
	ok(wk_dac_closed(&shadow, 1000, 1000, NULL, 0, false), "0640 root:shadow is closed to a user");
	ok(!wk_dac_closed(&shadow, 1000, 1000, groups, 2, false), "not to a member of its group");
	ok(!wk_dac_closed(&shadow, 0, 0, NULL, 0, false), "nothing is closed to root");
	ok(!wk_dac_closed(&shadow, 1000, 1000, NULL, 0, true), "an ACL may open it");
	struct stat mine = {.st_mode = S_IFDIR, .st_uid = 1000, .st_gid = 1000};
	ok(!wk_dac_closed(&mine, 1000, 1000, NULL, 0, false), "the user's own mode-000 directory: theirs to chmod");
	struct stat link = {.st_mode = S_IFLNK | 0777, .st_uid = 0};
	ok(!wk_dac_closed(&link, 1000, 1000, NULL, 0, false), "a link is no object");
	struct stat wo = {.st_mode = S_IFREG | 0602, .st_uid = 0, .st_gid = 0};
	ok(!wk_dac_closed(&wo, 1000, 1000, NULL, 0, false), "writable by others: not closed");
	struct stat ro = {.st_mode = S_IFREG | 0604, .st_uid = 0, .st_gid = 0};
	ok(!wk_dac_closed(&ro, 1000, 1000, NULL, 0, false), "readable by others: not closed");
	struct stat sx = {.st_mode = S_IFDIR | 0701, .st_uid = 0, .st_gid = 0};
	ok(!wk_dac_closed(&sx, 1000, 1000, NULL, 0, false), "a directory others may search: not closed");
	struct stat fx = {.st_mode = S_IFREG | 0701, .st_uid = 0, .st_gid = 0};
	ok(wk_dac_closed(&fx, 1000, 1000, NULL, 0, false), "a file others may only run: closed (x is no way in)");
	struct stat d0 = {.st_mode = S_IFDIR | 0700, .st_uid = 0, .st_gid = 0};
	ok(wk_dac_closed(&d0, 1000, 1000, NULL, 0, false), "root's 0700 directory is closed to a user");
	return done_testing();
}
