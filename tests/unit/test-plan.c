#include "config.h"
#include "sandbox.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static void pins(const char *root, const char *path, const char *want)
{
	struct strv out = {0};
	plan_pins(root, path, &out);
	char buf[512] = "";
	for (size_t i = 0; i < out.n; i++) {
		if (i)
			strcat(buf, " ");
		strcat(buf, out.v[i]);
	}
	is_str(buf, want, "pins %s in %s", path, root);
	strv_free(&out);
}

int main(void)
{
	pins("/w", "/w/.git/hooks", "/w/.git");
	pins("/w", "/w/a/b/c", "/w/a /w/a/b");
	pins("/w", "/w/x", "");
	pins("/w", "/w", "");
	pins("/w", "/other/x", "");
	pins("/", "/a/b", "/a");

	struct policy p;
	policy_default(&p, "/work/ws", "/home/u", false);
	is_str(p.name, "workspace-write", "default policy name");
	ok(p.write.n == 1 && strcmp(p.write.v[0], "/work/ws") == 0, "workspace is the writable root");
	ok(p.net == NET_NONE, "network off by default");
	ok(p.private_tmp, "private /tmp by default");
	ok(strv_contains(&p.protect, "/work/ws/.git/hooks"), ".git/hooks protected");
	ok(strv_contains(&p.protect, "/work/ws/.git/config"), ".git/config protected");
	ok(strv_contains(&p.protect, "/work/ws/.git/commondir"), ".git/commondir protected");
	ok(strv_contains(&p.protect, "/work/ws/.git/config.worktree"), ".git/config.worktree protected");
	const char *hidden[] = {"/home/u/.ssh", "/home/u/.gnupg", "/home/u/.aws", "/home/u/.azure",
				"/home/u/.config/gcloud", "/home/u/.kube",
				"/home/u/.docker/config.json", "/home/u/.netrc",
				"/home/u/.git-credentials", "/home/u/.config/gh",
				"/home/u/.password-store", "/home/u/.local/share/keyrings", NULL};
	for (int i = 0; hidden[i]; i++)
		ok(strv_contains(&p.hide, hidden[i]), "%s hidden", hidden[i]);

	struct policy r;
	policy_default(&r, "/work/ws", "/home/u", true);
	is_str(r.name, "read-only", "read-only policy name");
	ok(r.write.n == 0, "read-only has no writable root");
	return done_testing();
}
