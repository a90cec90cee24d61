#include "config.h"
#include "sandbox.h"
#include "tap.h"

#include <errno.h>
#include <string.h>

static int count_containing(const struct strv *sv, const char *needle)
{
	int n = 0;
	for (size_t i = 0; i < sv->n; i++)
		n += strstr(sv->v[i], needle) != NULL;
	return n;
}

int main(void)
{
	struct kernel_info k;
	memset(&k, 0, sizeof k);
	k.landlock_abi = 7;
	k.seccomp = true;
	k.mount_api = true;
	k.userns = true;

	struct strv g = {0};
	layers_gaps(&k, true, NET_NONE, &g);
	ok(g.n == 0, "full kernel: no gaps (%zu)", g.n);
	strv_free(&g);

	k.userns = false;
	k.userns_why = "AppArmor restricts unprivileged user namespaces";
	k.userns_fix = "install contrib/apparmor";
	layers_gaps(&k, false, NET_NONE, &g);
	ok(count_containing(&g, "no mount namespace") == 1, "missing mntns named");
	ok(count_containing(&g, "AppArmor") >= 1, "the reason is named");
	ok(count_containing(&g, "contrib/apparmor") >= 1, "the fix is named");
	ok(count_containing(&g, "no pid namespace") == 1, "missing pidns named");
	strv_free(&g);

	k.userns = true;
	k.landlock_abi = 0;
	k.landlock_errno = EOPNOTSUPP;
	layers_gaps(&k, true, NET_NONE, &g);
	ok(g.n == 1 && count_containing(&g, "no Landlock") == 1, "missing Landlock named");
	ok(count_containing(&g, "lsm=") == 1, "Landlock fix names the boot parameter");
	strv_free(&g);

	k.landlock_abi = 5;
	layers_gaps(&k, true, NET_FULL, &g);
	ok(count_containing(&g, "abstract unix") == 1, "old ABI with network: abstract sockets");
	strv_free(&g);
	layers_gaps(&k, true, NET_NONE, &g);
	ok(g.n == 0, "old ABI without network: the netns isolates abstract sockets");
	strv_free(&g);

	k.landlock_abi = 7;
	k.seccomp = false;
	layers_gaps(&k, true, NET_NONE, &g);
	ok(count_containing(&g, "no seccomp") == 1, "missing seccomp named");
	strv_free(&g);
	return done_testing();
}
