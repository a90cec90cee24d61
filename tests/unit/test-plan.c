#include "config.h"
#include "base/session.h"
#include "cli/policycmd.h"
#include "plan/plan.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "careful.h"
#include "classify.h"
#include "path.h"
#include "rules.h"

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

	/* The default policy is the built-in JSON (policies/NAME.json). */
	struct wk_policy_ctx ctx = {
		.vars = {.cwd = "/work/ws", .home = "/home/u", .tmpdir = "/tmp", .runtime_dir = "/run/u"},
	};
	struct wk_policy wp;
	ok(wk_policy_load(&ctx, DEFAULT_POLICY, &wp) == 0, "the default policy loads");
	struct strv write = {0}, protect = {0}, hide = {0};
	for (size_t i = 0; i < wp.write.n; i++)
		strv_add(&write, wp.write.v[i].path);
	for (size_t i = 0; i < wp.protect.n; i++)
		strv_add(&protect, wp.protect.v[i].path);
	for (size_t i = 0; i < wp.hide.n; i++)
		strv_add(&hide, wp.hide.v[i].path);
	is_str(wp.name, "workspace-write", "default policy name");
	ok(write.n == 1 && strcmp(write.v[0], "/work/ws") == 0, "workspace is the writable root");
	ok(wp.net == WK_NET_NONE, "network off by default");
	ok(strv_contains(&protect, "/work/ws/.git/hooks"), ".git/hooks protected");
	ok(strv_contains(&protect, "/work/ws/.git/config"), ".git/config protected");
	ok(strv_contains(&protect, "/work/ws/.git/commondir"), ".git/commondir protected");
	ok(strv_contains(&protect, "/work/ws/.git/config.worktree"), ".git/config.worktree protected");
	const char *hidden[] = {"/home/u/.ssh", "/home/u/.gnupg", "/home/u/.aws", "/home/u/.azure",
				"/home/u/.config/gcloud", "/home/u/.kube",
				"/home/u/.docker/config.json", "/home/u/.netrc",
				"/home/u/.git-credentials", "/home/u/.config/gh",
				"/home/u/.password-store", "/home/u/.local/share/keyrings", NULL};
	for (int i = 0; hidden[i]; i++)
		ok(strv_contains(&hide, hidden[i]), "%s hidden", hidden[i]);
	wk_policy_free(&wp);

	ok(wk_policy_load(&ctx, "read-only", &wp) == 0 && wp.write.n == 0,
	   "read-only has no writable root");
	wk_policy_free(&wp);

	/* Resolution: canonical paths, absent read/write skipped with a note,
	 * a writable host /tmp turns the private one off. */
	ctx.vars.cwd = "/tmp";
	ok(wk_policy_load(&ctx, DEFAULT_POLICY, &wp) == 0, "loads with cwd /tmp");
	struct policy pol;
	struct strv notes = {0};
	policy_resolve(&wp, &pol, &notes);
	ok(pol.sandbox && strv_contains(&pol.write, "/tmp") && !pol.private_tmp,
	   "/tmp writable: the host's, not a private one");
	ok(strv_contains(&pol.read, "/"), "read / resolved");
	ok(notes.n == 0, "nothing skipped");
	wk_policy_free(&wp);
	wk_policy_ctx_free(&ctx);
	const char *absent = "{\"filesystem\": {\"write\": [\"/nonexistent-wk/x\"]}}";
	ok(wk_policy_load_buffer(&ctx, "a.json", absent, strlen(absent), &wp) == 0, "loads");
	struct policy pol2;
	struct strv notes2 = {0};
	policy_resolve(&wp, &pol2, &notes2);
	ok(pol2.write.n == 0 && notes2.n == 1, "an absent write path is skipped");
	is_str(notes2.n ? notes2.v[0] : NULL,
	       "write /nonexistent-wk/x skipped: does not exist (a.json: /filesystem/write/0)",
	       "and noted");
	wk_policy_free(&wp);

	/* Where a pathname unix socket may be reached (unixnotify.c). */
	struct session us;
	memset(&us, 0, sizeof us);
	strv_add(&us.pol.write, "/work/ws");
	us.layers.mntns = true;
	us.plan.private_tmp = us.plan.cover_run = true;
	is_str(plan_unix_root(&us, "/work/ws/a/s.sock"), "/work/ws", "beneath a writable root");
	is_str(plan_unix_root(&us, "/tmp/s.sock"), "/tmp", "the private /tmp");
	ok(!plan_unix_root(&us, "/run/x/s.sock"), "the session's /run: a read-only cover, out of reach");
	strv_add(&us.plan.read_keep, "/tmp/host-x11");
	ok(!plan_unix_root(&us, "/tmp/host-x11/X0"), "a read root kept in the private /tmp: the host's");
	is_str(plan_unix_root(&us, "/tmp/host-x11b/s"), "/tmp", "beside it: the session's own");
	strv_free(&us.plan.read_keep);
	/* --socket: that very socket of the host's, kept in view; no other. */
	strv_add(&us.pol.sockets, "/run/user/1/agent.sock");
	is_str(plan_unix_root(&us, "/run/user/1/agent.sock"), "/run/user/1/agent.sock",
	       "a socket named by --socket");
	ok(!plan_unix_root(&us, "/run/user/1/other.sock"), "not its neighbour");
	strv_free(&us.pol.sockets);
	is_str(plan_unix_root(&us, "/dev/shm/s.sock"), "/dev/shm", "its own /dev/shm");
	ok(!plan_unix_root(&us, "/var/tmp/s.sock"), "/var/tmp: out of reach");
	ok(!plan_unix_root(&us, "/work/wsx/s.sock"), "a sibling with a common prefix: out of reach");
	ok(!plan_unix_root(&us, "/"), "/ itself: out of reach");
	us.plan.private_tmp = us.plan.cover_run = false;
	ok(!plan_unix_root(&us, "/tmp/s.sock") && !plan_unix_root(&us, "/run/s.sock"),
	   "the host's /tmp and /run (not the session's): out of reach");
	us.layers.mntns = false;
	us.fallback_tmp = "/tmp/wicket-abc";
	is_str(plan_unix_root(&us, "/tmp/wicket-abc/s.sock"), "/tmp/wicket-abc",
	       "without a mount namespace: the session's own tmp directory");
	ok(!plan_unix_root(&us, "/dev/shm/s.sock"), "without a mount namespace: the host's /dev/shm");
	us.fallback_tmp = NULL;
	strv_free(&us.pol.write);

	/* The session's table (plan_fstable): the one the shim gets, the one
	 * the supervisor explains with, the one Landlock's rules and
	 * `wicket ask`'s writable set are made from. */
	struct session ts;
	memset(&ts, 0, sizeof ts);
	ts.pol.sandbox = true;
	strv_add(&ts.pol.read, "/");
	strv_add(&ts.pol.write, "/work/ws");
	strv_add(&ts.pol.protect, "/work/ws/.git/hooks");
	strv_add(&ts.pol.protect, "/work/ws/.git/absent");
	strv_add(&ts.pol.hide, "/home/u/.ssh");
	strv_add(&ts.plan.protect, "/work/ws/.git/hooks");
	strv_add(&ts.plan.hide, "/home/u/.ssh");
	strv_add(&ts.plan.read_keep, "/tmp/.X11-unix");
	strv_add(&ts.plan.pins, "/work/ws/.git");
	ts.layers.mntns = true;
	ts.plan.private_tmp = true;
	struct wk_fstable t;
	struct wk_fsmatch m;
	plan_fstable(&ts, &t);
	ok(wk_classify(&t, "/tmp/x", &m) == WK_FS_WRITABLE, "table: the private /tmp is writable");
	ok(wk_classify(&t, "/dev/shm/x", &m) == WK_FS_WRITABLE, "table: so is /dev/shm");
	ok(wk_classify(&t, "/tmp/.X11-unix/X0", &m) == WK_FS_READ_ONLY && m.kind == RULE_KEEP,
	   "table: a kept host directory is read-only");
	ok(wk_classify(&t, "/work/ws/.git/hooks/x", &m) == WK_FS_PROTECTED,
	   "table: a protected path");
	ok(wk_classify(&t, "/work/ws/.git/absent", &m) == WK_FS_PROTECTED,
	   "table: an absent protected path too (the shim and `wicket why` name it)");
	ok(wk_classify(&t, "/home/u/.ssh/id", &m) == WK_FS_HIDDEN, "table: a hidden path");
	ok(wk_classify(&t, "/run/x", &m) == WK_FS_READ_ONLY, "table: /run is read-only");
	plan_fstable_free(&t);
	struct wk_wset ws;
	plan_wset(&ts, &ws);
	ok(strv_contains(&ws.roots, "/work/ws") && strv_contains(&ws.roots, "/tmp") &&
	   strv_contains(&ws.roots, "/dev/shm") && ws.roots.n == 3, "wset: the table's writable roots");
	ok(strv_contains(&ws.ro, "/work/ws/.git/hooks") && ws.ro.n == 1 &&
	   strv_contains(&ws.keep, "/tmp/.X11-unix") && ws.keep.n == 1,
	   "wset: read-only the protected paths that exist; the kept directories apart");
	ok(wk_wset_writable(&ws, "/work/ws/.git/absent") && !wk_wset_writable(&ws, "/tmp/.X11-unix/p"),
	   "wset: an absent protected path can be created; a kept directory cannot be written");
	ok(strv_contains(&ws.fixed, "/work/ws/.git"), "wset: pinned ancestors are fixed");
	wk_wset_free(&ws);
	/* A writable root inside a kept directory (--read /tmp/X/proj
	 * --write /tmp/X/proj/out): what is in it is the sandbox's to write,
	 * and the host's file outside (red team 6, F4). */
	strv_add(&ts.pol.write, "/tmp/X/proj/out");
	strv_add(&ts.plan.read_keep, "/tmp/X/proj");
	plan_wset(&ts, &ws);
	ok(wk_wset_writable(&ws, "/tmp/X/proj/out/evil.sh") && !wk_wset_writable(&ws, "/tmp/X/proj/a"),
	   "wset: a writable root inside a kept directory stays writable, the rest of it does not");
	wk_wset_free(&ws);
	/* Landlock (ABI 9) decides unix sockets: the private /tmp holds a
	 * kept host directory, so none in /tmp is reachable. */
	is_str(plan_unix_root(&ts, "/tmp/s.sock"), "/tmp", "ABI 8: /tmp beside a kept directory");
	ts.layers.landlock_abi = 9;
	ok(!plan_unix_root(&ts, "/tmp/s.sock"), "ABI 9: none in a /tmp that holds a kept directory");
	is_str(plan_unix_root(&ts, "/work/ws/s.sock"), "/work/ws", "ABI 9: the workspace still");
	/* Without a mount namespace nothing is covered, protected or kept. */
	ts.layers.mntns = false;
	ts.fallback_tmp = "/tmp/wicket-abc";
	plan_fstable(&ts, &t);
	ok(wk_classify(&t, "/work/ws/.git/hooks/x", &m) == WK_FS_WRITABLE &&
	   wk_classify(&t, "/home/u/.ssh/id", &m) == WK_FS_READ_ONLY &&
	   wk_classify(&t, "/tmp/wicket-abc/f", &m) == WK_FS_WRITABLE &&
	   wk_classify(&t, "/tmp/f", &m) == WK_FS_READ_ONLY,
	   "no mount namespace: no protection, no cover, the session's tmp directory writable");
	plan_fstable_free(&t);
	ts.fallback_tmp = NULL;
	ts.pol.sandbox = false;
	plan_wset(&ts, &ws);
	ok(wk_wset_writable(&ws, "/etc/passwd"), "no sandbox: everything is writable");
	wk_wset_free(&ws);

	/* Shared spaces: a root that is one, or holds one, is refused. */
	struct strv shared = {0};
	strv_add(&shared, "/tmp");
	strv_add(&shared, "/var/tmp");
	strv_add(&shared, "/home/me");
	is_str(plan_shared_in(&shared, "/tmp"), "/tmp", "/tmp itself");
	is_str(plan_shared_in(&shared, "/var"), "/var/tmp", "an ancestor of /var/tmp");
	is_str(plan_shared_in(&shared, "/"), "/tmp", "/ holds them all");
	is_str(plan_shared_in(&shared, "/home"), "/home/me", "an ancestor of the home");
	ok(plan_shared_in(&shared, "/home/me/proj") == NULL, "a project in the home is not shared");
	ok(plan_shared_in(&shared, "/tmp/ws") == NULL, "a directory of its own under /tmp is not");
	ok(plan_shared_in(&shared, "/home/mel") == NULL, "a sibling with the same prefix is not");
	strv_free(&shared);

	/* A home's .config, ~/bin, ~/.local/bin and the PATH's directories
	 * inside it (existing or not) are shared; PATH's others are not. */
	/* Under the prefix tests/mutate removes after its mutants (one that
	 * crashes never gets to the rmdir below), as test-planner's trees. */
	const char *prefix = getenv("WICKET_PLANNER_PREFIX");
	char tmpl[200];
	snprintf(tmpl, sizeof tmpl, "%sXXXXXX",
		 prefix && strncmp(prefix, "/tmp/", 5) == 0 && strlen(prefix) < 150 ? prefix
											: "/tmp/wicket-test-plan-");
	char *home = mkdtemp(tmpl);
	ok(home != NULL, "a home made");
	if (home) {
		const char *homes[] = {home, NULL};
		char *path = xasprintf("/usr/bin:%s/tools/bin::rel/bin:%s", home, home);
		struct strv sh = {0}, onp = {0};
		plan_shared_spaces(homes, NULL, path, &sh, &onp);
		char *lb = path_join(home, ".local/bin"), *b = path_join(home, "bin");
		char *tb = path_join(home, "tools/bin"), *cfg = path_join(home, ".config");
		char *local = path_join(home, ".local"), *tools = path_join(home, "tools");
		ok(strv_contains(&onp, lb) && strv_contains(&onp, b) && strv_contains(&onp, tb),
		   "~/.local/bin, ~/bin and a PATH directory of the home are on PATH");
		ok(onp.n == 3, "nothing else is (not /usr/bin, a relative entry, the home itself)");
		ok(strv_contains(&sh, cfg) && !strv_contains(&onp, cfg), "~/.config is shared");
		is_str(plan_shared_in(&sh, local), lb, "~/.local holds ~/.local/bin");
		is_str(plan_shared_in(&sh, tools), tb, "~/tools holds ~/tools/bin");
		is_str(plan_shared_in(&sh, home), home, "the home itself comes first");
		free(lb);
		free(b);
		free(tb);
		free(cfg);
		free(local);
		free(tools);
		free(path);
		strv_free(&sh);
		strv_free(&onp);
		rmdir(home);
	}
	return done_testing();
}
