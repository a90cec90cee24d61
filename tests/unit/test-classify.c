/* classify (lib/classify.c): every rule kind and each layer's decision,
 * on the text the shim reads and on the array the launcher builds, which
 * must agree. */
#include "config.h"
#include "tap.h"
#include "classify.h"
#include "rules.h"

#include <string.h>

/* The session of a workspace /w with git's hooks protected, ~/.ssh
 * hidden (and a key inside it, hidden twice), the private /tmp with the
 * host's X11 directory kept in it, /dev/shm, "/" readable. */
static const struct wk_fsrule session[] = {
	{RULE_READ, "/"},
	{RULE_WRITE, "/w"},
	{RULE_WRITE, "/w/sub/nested"},
	{RULE_WRITE, "/tmp"},
	{RULE_WRITE, "/dev/shm"},
	{RULE_KEEP, "/tmp/.X11-unix"},
	{RULE_PROTECT, "/w/.git/hooks"},
	{RULE_PROTECT, "/w/.git/hooks/pre-commit"},
	{RULE_PROTECT, "/etc/outside"},
	{RULE_HIDE, "/home/u/.ssh/id"},
	{RULE_HIDE, "/home/u/.ssh"},
	{RULE_HIDE, "/w/secret"},
};
#define N_SESSION (sizeof session / sizeof *session)

static char text[4096];

/* The same rules as WICKET_RULES, with "l 1" when LANDLOCK. */
static void encode(const struct wk_fsrule *v, size_t n, bool landlock)
{
	size_t len = 0;
	text[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len = rules_put(text, sizeof text, len, v[i].kind, v[i].path);
	if (landlock)
		len = rules_put(text, sizeof text, len, RULE_UNIX, "1");
}

static bool rule_is(const struct wk_fsmatch *m, char kind, const char *rule)
{
	if (!rule)
		return m->rule == NULL;
	return m->kind == kind && m->rule && m->len == strlen(rule) &&
	       memcmp(m->rule, rule, m->len) == 0;
}

/* PATH gets verdict WANT by rule KIND RULE, in both forms. */
static void verdict(const struct wk_fsrule *v, size_t n, const char *path,
		    enum wk_fs_verdict want, char kind, const char *rule)
{
	struct wk_fstable arr = {.v = v, .n = n}, txt = {.text = text};
	struct wk_fsmatch ma, mt;
	encode(v, n, false);
	enum wk_fs_verdict a = wk_classify(&arr, path, &ma), t = wk_classify(&txt, path, &mt);
	ok(a == want && rule_is(&ma, kind, rule), "%s: %s by %c %s (array)", path,
	   wk_fs_verdict_name(want), kind ? kind : '-', rule ? rule : "nothing");
	if (a != want || !rule_is(&ma, kind, rule))
		printf("#   got %s by %c %.*s\n", wk_fs_verdict_name(a), ma.kind ? ma.kind : '-',
		       (int)ma.len, ma.rule ? ma.rule : "");
	ok(t == want && rule_is(&mt, kind, rule), "%s: the same from WICKET_RULES", path);
}

/* A unix socket at PATH is reachable (by ROOT) or not, in both forms. */
static void sock(const struct wk_fsrule *v, size_t n, bool landlock, const char *path,
		 const char *root)
{
	struct wk_fstable arr = {.v = v, .n = n, .landlock_unix = landlock}, txt = {.text = text};
	struct wk_fsmatch ma, mt;
	encode(v, n, landlock);
	bool a = wk_classify_unix(&arr, path, &ma), t = wk_classify_unix(&txt, path, &mt);
	ok(a == (root != NULL) && rule_is(&ma, RULE_WRITE, root), "unix %s%s: %s", path,
	   landlock ? " (Landlock)" : "", root ? root : "out of reach");
	ok(t == (root != NULL) && rule_is(&mt, RULE_WRITE, root), "unix %s%s: the same from "
	   "WICKET_RULES", path, landlock ? " (Landlock)" : "");
}

int main(void)
{
	const struct wk_fsrule *s = session;
	size_t n = N_SESSION;

	/* A process's own files under /proc. */
	ok(wk_proc_own_file("/proc/self/oom_score_adj"), "/proc/self/FILE");
	ok(wk_proc_own_file("/proc/thread-self/attr/current"), "/proc/thread-self/FILE");
	ok(wk_proc_own_file("/proc/2/oom_score_adj"), "/proc/PID/FILE");
	ok(wk_proc_own_file("/proc/1234/task/1235/comm"), "/proc/PID/task/TID/FILE");
	ok(!wk_proc_own_file("/proc/self/"), "/proc/self/ itself: no file");
	ok(!wk_proc_own_file("/proc/thread-self/"), "/proc/thread-self/ itself: no file");
	ok(!wk_proc_own_file("/proc/12/"), "/proc/PID/ itself: no file");
	ok(!wk_proc_own_file("/proc/12"), "/proc/PID: no file");
	ok(!wk_proc_own_file("/proc/sys/vm/overcommit_memory"), "/proc/sys: not a process's");
	ok(!wk_proc_own_file("/proc//x"), "no pid");
	ok(!wk_proc_own_file("/proc/1x/oom_score_adj"), "not a pid");
	ok(!wk_proc_own_file("/proc/selfx/a"), "not self");
	ok(!wk_proc_own_file("/proc/self"), "/proc/self alone");
	ok(!wk_proc_own_file("/procx/self/a"), "not /proc");
	ok(!wk_proc_own_file("/proc/self/fd/3"), "fd/N: another file");
	ok(!wk_proc_own_file("/proc/12/map_files/1-2"), "map_files: another file");
	ok(!wk_proc_own_file("/proc/self/root/etc/passwd"), "root/: another file");
	ok(!wk_proc_own_file("/proc/self/cwd"), "cwd: another file");
	ok(!wk_proc_own_file("/proc/self/exe"), "exe: another file");
	ok(!wk_proc_own_file("/proc/1/task/1/fd/1"), "a thread's fd/N: another file");
	ok(wk_proc_own_file("/proc/self/fdinfo/3"), "fdinfo: its own");
	ok(wk_proc_own_file("/proc/self/cwdx"), "a name that only starts like cwd");
	ok(wk_proc_own_file("/proc/1/task/x/fd/1"), "task/ without a TID: taken as its own");
	ok(wk_proc_own_file("/proc/1/task//fd/1"), "task// without a TID: taken as its own");
	ok(!wk_proc_own_file("/home/proc/self/a"), "not at the root");
	ok(!wk_proc_own_file("/proc/"), "/proc/ alone");

	/* Hidden: the cover wins over everything, the outermost names it. */
	verdict(s, n, "/home/u/.ssh", WK_FS_HIDDEN, RULE_HIDE, "/home/u/.ssh");
	verdict(s, n, "/home/u/.ssh/id", WK_FS_HIDDEN, RULE_HIDE, "/home/u/.ssh");
	verdict(s, n, "/home/u/.ssh/known_hosts", WK_FS_HIDDEN, RULE_HIDE, "/home/u/.ssh");
	verdict(s, n, "/w/secret/key", WK_FS_HIDDEN, RULE_HIDE, "/w/secret");
	verdict(s, n, "/home/u/.sshx", WK_FS_READ_ONLY, RULE_READ, "/");

	/* Writable: the nearest root names it. */
	verdict(s, n, "/w", WK_FS_WRITABLE, RULE_WRITE, "/w");
	verdict(s, n, "/w/a/b", WK_FS_WRITABLE, RULE_WRITE, "/w");
	verdict(s, n, "/w/sub/nested/f", WK_FS_WRITABLE, RULE_WRITE, "/w/sub/nested");
	verdict(s, n, "/wx/f", WK_FS_READ_ONLY, RULE_READ, "/");
	verdict(s, n, "/dev/shm/x", WK_FS_WRITABLE, RULE_WRITE, "/dev/shm");
	verdict(s, n, "/tmp/f", WK_FS_WRITABLE, RULE_WRITE, "/tmp");

	/* Protected, in a writable root: the nearest protection, its root. */
	verdict(s, n, "/w/.git/hooks", WK_FS_PROTECTED, RULE_PROTECT, "/w/.git/hooks");
	verdict(s, n, "/w/.git/hooks/post-merge", WK_FS_PROTECTED, RULE_PROTECT, "/w/.git/hooks");
	verdict(s, n, "/w/.git/hooks/pre-commit", WK_FS_PROTECTED, RULE_PROTECT,
		"/w/.git/hooks/pre-commit");
	verdict(s, n, "/w/.git/hooksx", WK_FS_WRITABLE, RULE_WRITE, "/w");
	struct wk_fsmatch m;
	struct wk_fstable arr = {.v = s, .n = n};
	ok(wk_classify(&arr, "/w/.git/hooks/x", &m) == WK_FS_PROTECTED && m.root &&
	   m.root_len == 2 && memcmp(m.root, "/w", 2) == 0, "a protected path names its root");
	/* Outside every writable root a protection changes nothing. */
	verdict(s, n, "/etc/outside/f", WK_FS_READ_ONLY, RULE_READ, "/");

	/* Kept: the host's directory in the private /tmp is read-only. */
	verdict(s, n, "/tmp/.X11-unix/X0", WK_FS_READ_ONLY, RULE_KEEP, "/tmp/.X11-unix");
	verdict(s, n, "/tmp/.X11-unixb", WK_FS_WRITABLE, RULE_WRITE, "/tmp");

	/* A writable root inside a kept directory, and a kept one inside
	 * that: the nearest of each decides, and names the verdict. */
	static const struct wk_fsrule layered[] = {
		{RULE_READ, "/"}, {RULE_WRITE, "/tmp"}, {RULE_KEEP, "/tmp/a"},
		{RULE_WRITE, "/tmp/a/b"}, {RULE_KEEP, "/tmp/a/b/c"},
	};
	size_t nl = sizeof layered / sizeof *layered;
	verdict(layered, nl, "/tmp/a/f", WK_FS_READ_ONLY, RULE_KEEP, "/tmp/a");
	verdict(layered, nl, "/tmp/a/b/f", WK_FS_WRITABLE, RULE_WRITE, "/tmp/a/b");
	verdict(layered, nl, "/tmp/a/b/c/f", WK_FS_READ_ONLY, RULE_KEEP, "/tmp/a/b/c");
	/* Protections inside protections: the nearest names it. */
	static const struct wk_fsrule prot[] = {
		{RULE_WRITE, "/w"}, {RULE_PROTECT, "/w/p"}, {RULE_PROTECT, "/w/p/q"},
	};
	verdict(prot, 3, "/w/p/q/f", WK_FS_PROTECTED, RULE_PROTECT, "/w/p/q");
	verdict(prot, 3, "/w/p/f", WK_FS_PROTECTED, RULE_PROTECT, "/w/p");

	/* Readable roots without "/": Landlock refuses the rest. */
	static const struct wk_fsrule narrow[] = {
		{RULE_READ, "/usr"}, {RULE_READ, "/usr/lib/x"}, {RULE_WRITE, "/w"},
	};
	size_t nn = sizeof narrow / sizeof *narrow;
	verdict(narrow, nn, "/usr/bin/ls", WK_FS_READ_ONLY, RULE_READ, "/usr");
	verdict(narrow, nn, "/usr/lib/x/y", WK_FS_READ_ONLY, RULE_READ, "/usr/lib/x");
	verdict(narrow, nn, "/etc/passwd", WK_FS_UNREADABLE, 0, NULL);
	verdict(narrow, nn, "/usrx", WK_FS_UNREADABLE, 0, NULL);
	verdict(narrow, nn, "/w/f", WK_FS_WRITABLE, RULE_WRITE, "/w");
	verdict(narrow, 0, "/w/f", WK_FS_UNREADABLE, 0, NULL);

	/* Unix sockets: writable roots only, never the host's kept ones. */
	sock(s, n, false, "/w/s.sock", "/w");
	sock(s, n, false, "/w/sub/nested/s", "/w/sub/nested");
	sock(s, n, false, "/tmp/s.sock", "/tmp");
	sock(s, n, false, "/dev/shm/s", "/dev/shm");
	sock(s, n, false, "/tmp/.X11-unix/X0", NULL);
	sock(s, n, false, "/run/user/1000/bus", NULL);
	sock(s, n, false, "/var/tmp/s", NULL);
	sock(s, n, false, "/wx/s", NULL);
	sock(s, n, false, "/", NULL);
	/* Landlock (ABI 9) grants the whole /tmp or none of it: with the
	 * host's directory kept in it, none. Other roots are unchanged, and
	 * /run (the session's read-only cover) is out of reach on any ABI. */
	sock(s, n, true, "/tmp/s.sock", NULL);
	sock(s, n, true, "/tmp/.X11-unix/X0", NULL);
	sock(s, n, true, "/w/s.sock", "/w");
	sock(s, n, true, "/dev/shm/s", "/dev/shm");
	sock(s, n, true, "/run/s.sock", NULL);
	static const struct wk_fsrule nokeep[] = {{RULE_READ, "/"}, {RULE_WRITE, "/tmp"}};
	sock(nokeep, 2, true, "/tmp/s.sock", "/tmp");

	/* Names for messages. */
	is_str(wk_fs_verdict_name(WK_FS_HIDDEN), "hidden", "a verdict's name");
	return done_testing();
}
