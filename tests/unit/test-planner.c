/* The planner (launcher/plan/plan.c) on a real tree: from a resolved
 * policy to the mount plan (writable roots, pins, protected, hidden and
 * kept paths, what is watched because it is absent), the refusals, and
 * what happens after the session to what it made (plan_check_absent).
 * Nothing is mounted. Each refusal runs in a child (die exits 125). The
 * mutation check (tests/mutate plan) runs this file with test-plan.c. */
#include "config.h"
#include "base/session.h"
#include "plan/plan.h"
#include "base/mountops.h"
#include "tap.h"

#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "careful.h"
#include "classify.h"
#include "rules.h"
#include "path.h"

static char D[256]; /* the tree, canonical */

static char *at(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static int k;
	char *b = bufs[k++ % 8];
	snprintf(b, PATH_MAX, "%s/%s", D, rel);
	return b;
}

static void mkdirs(const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", D, rel);
	for (char *c = p + strlen(D) + 1;; c++) {
		char keep = *c;
		if (keep != '/' && keep != '\0')
			continue;
		*c = '\0';
		mkdir(p, 0755);
		*c = keep;
		if (!keep)
			break;
	}
}

static void touch(const char *rel)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
}

static void fresh(struct session *s)
{
	memset(s, 0, sizeof *s);
	s->pol.name = "test";
	s->pol.sandbox = true;
	s->pol.private_tmp = true;
	s->layers.mntns = true;
	s->workspace = at("ws");
	strv_add(&s->pol.read, "/");
}

static char err[8192];

static int setgroups_none(void)
{
	return setgroups(0, NULL);
}

/* FN(S) in a child, its stderr into err; the exit status. */
static int in_child(void (*fn)(struct session *), struct session *s)
{
	int p[2];
	if (pipe(p) < 0)
		abort();
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 2);
		fn(s);
		_exit(0);
	}
	close(p[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < sizeof err && (r = read(p[0], err + n, sizeof err - 1 - n)) > 0)
		n += (size_t)r;
	err[n] = '\0';
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static bool refused(void (*fn)(struct session *), struct session *s, const char *says)
{
	int st = in_child(fn, s);
	if (st != 125 || !strstr(err, says)) {
		printf("#   status %d, said: %s\n", st, err);
		return false;
	}
	return true;
}

static const char *joined(const struct strv *v)
{
	static char b[8192];
	b[0] = '\0';
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			strcat(b, " ");
		strcat(b, v->v[i]);
	}
	return b;
}

/* The names in DIR (relative) that start with PREFIX. */
static int named(const char *dir, const char *prefix)
{
	DIR *d = opendir(at(dir));
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return n;
}

static void base_writes(void)
{
	struct session s;
	fresh(&s);
	strv_add(&s.pol.write, at("ws/deep/er"));
	strv_add(&s.pol.write, at("ws"));
	strv_add(&s.pol.write, at("ws/deep"));
	strv_add(&s.pol.write, at("ws"));
	snprintf(s.pol.tmp_size, sizeof s.pol.tmp_size, "%s", "64m");
	plan_build_base(&s);
	char want[PATH_MAX * 3];
	snprintf(want, sizeof want, "%s %s %s", at("ws"), at("ws/deep"), at("ws/deep/er"));
	is_str(joined(&s.plan.write), want, "writable roots once each, parents first");
	ok(s.plan.private_tmp && strcmp(s.plan.tmp_size, "64m") == 0, "/tmp private, its size");
	struct stat st;
	bool run = stat("/run", &st) == 0 && S_ISDIR(st.st_mode);
	ok(s.plan.cover_run == run && s.plan.self_bin == run, "/run covered when it is a directory");
	/* What is kept under the cover of /run: files only, resolved there. */
	bool files = true;
	for (size_t i = 0; i < s.plan.run_keep.n; i++)
		files = files && path_is_under(s.plan.run_keep.v[i], "/run") &&
			stat(s.plan.run_keep.v[i], &st) == 0 && S_ISREG(st.st_mode);
	ok(files, "kept under /run: regular files there (%zu)", s.plan.run_keep.n);
	s.pol.private_tmp = false;
	plan_build_base(&s);
	ok(!s.plan.private_tmp && s.plan.write.n == 3, "a shared /tmp; built again from scratch");
}

static void build_base(struct session *s)
{
	plan_build_base(s);
}

static void base_refusals(void)
{
	struct session s;
	fresh(&s);
	strv_add(&s.pol.write, "/");
	ok(refused(build_base, &s, "refusing to make / writable"), "/ writable: refused");
	const char *own[] = {"/proc", "/dev/shm", "/sys/fs"};
	for (size_t i = 0; i < 3; i++) {
		fresh(&s);
		strv_add(&s.pol.write, own[i]);
		ok(refused(build_base, &s, "are the sandbox's own"), "%s writable: refused", own[i]);
	}
	fresh(&s);
	strv_add(&s.pol.write, "/procx");
	ok(in_child(build_base, &s) == 0, "/procx is not /proc");
	/* Shared spaces: one, or one inside; on PATH; allowed knowingly. */
	fresh(&s);
	strv_add(&s.shared, at("shared"));
	strv_add(&s.pol.write, at("shared"));
	ok(refused(build_base, &s, "it is a space other programs share"), "a shared space: refused");
	fresh(&s);
	strv_add(&s.shared, at("shared"));
	strv_add(&s.pol.write, D);
	ok(refused(build_base, &s, "it holds"), "a root holding a shared space: refused, naming it");
	strv_add(&s.shared_path, at("shared"));
	ok(refused(build_base, &s, "a directory on PATH"), "one on PATH: said so");
	s.allow_shared = true;
	ok(in_child(build_base, &s) == 0, "--allow-shared-write: accepted");
	fresh(&s);
	strv_add(&s.shared, at("shared"));
	strv_add(&s.pol.write, at("ws"));
	ok(in_child(build_base, &s) == 0, "a root beside a shared space: accepted");
}

static void build_late(struct session *s)
{
	plan_build_base(s);
	plan_build_late(s);
}

static void late(void)
{
	struct session s;
	fresh(&s);
	strv_add(&s.pol.write, at("ws"));
	/* Hidden: existing ones resolved, once; absent ones in a root watched. */
	strv_add(&s.pol.hide, at("ws/secret"));
	strv_add(&s.pol.hide, at("ws/secret"));
	strv_add(&s.pol.hide, at("ws/link-to-secret"));
	strv_add(&s.pol.hide, at("ws/not-yet"));
	strv_add(&s.pol.hide, at("elsewhere/not-yet"));
	strv_add(&s.pol.hide, at("outside/secret"));
	/* Protected: existing in a root (pinned), outside one (nothing to
	 * do), absent in a root (watched), absent elsewhere, twice. */
	strv_add(&s.pol.protect, at("ws/.git/hooks"));
	strv_add(&s.pol.protect, at("ws/.git/hooks"));
	strv_add(&s.pol.protect, at("outside/conf"));
	strv_add(&s.pol.protect, at("ws/.git/config"));
	strv_add(&s.pol.protect, at("outside/absent"));
	strv_add(&s.pol.protect, at("outside-link/x"));
	/* User-config entries: an existing directory (pinned), one not
	 * there yet (watched), one reached through a link (the user's, left). */
	strv_add(&s.pol.keep_name, at("ws/proj/sub"));
	strv_add(&s.pol.keep_name, at("ws/newproj"));
	strv_add(&s.pol.keep_name, at("ws/newproj"));
	strv_add(&s.pol.keep_name, at("ws/via-link/newproj"));
	strv_add(&s.pol.keep_name, at("ws/proj-link"));
	strv_add(&s.pol.keep_name, at("outside/entry"));
	strv_add(&s.pol.keep_name, at("ws/inlink/newdir"));
	strv_add(&s.pol.keep_name, at("ws/afile"));
	plan_build_base(&s);
	plan_build_late(&s);
	char want[PATH_MAX * 4];
	snprintf(want, sizeof want, "%s %s", at("ws/secret"), at("outside/secret"));
	is_str(joined(&s.plan.hide), want, "hidden: what exists, resolved, once");
	snprintf(want, sizeof want, "%s %s", at("ws/not-yet"), at("ws/.git/config"));
	is_str(joined(&s.plan.absent_protect), want,
	       "watched: absent hidden and protected paths in a writable root");
	is_str(joined(&s.plan.protect), at("ws/.git/hooks"), "protected: in a writable root, once");
	bool sorted = true;
	for (size_t i = 1; i < s.plan.pins.n; i++)
		sorted = sorted && strlen(s.plan.pins.v[i - 1]) <= strlen(s.plan.pins.v[i]);
	ok(s.plan.pins.n == 3 && strv_contains(&s.plan.pins, at("ws/.git")) &&
	   strv_contains(&s.plan.pins, at("ws/proj")) && strv_contains(&s.plan.pins, at("ws/proj/sub")) &&
	   sorted, "pinned: their ancestors in the root, shortest first: %s", joined(&s.plan.pins));
	is_str(joined(&s.plan.absent_entry), at("ws/newproj"),
	       "an entry not there yet: watched, once; one behind a link is the user's");
	/* A writable root inside a hidden path: refused. */
	fresh(&s);
	strv_add(&s.pol.write, at("ws/secret/inner"));
	strv_add(&s.pol.hide, at("ws/secret"));
	ok(refused(build_late, &s, "lies inside the hidden path"), "a root in a hidden path: refused");
	/* A protected path through a link in a writable root: refused. */
	fresh(&s);
	strv_add(&s.pol.write, at("ws"));
	strv_add(&s.pol.protect, at("ws/proj-link/x"));
	ok(refused(build_late, &s, "goes through the symlink"), "protected through a link in a root: "
	   "refused");
	/* Through a link outside the roots that leads into one: not the
	 * session's to re-aim, and no part after it is a link: kept. */
	fresh(&s);
	strv_add(&s.pol.write, at("ws"));
	strv_add(&s.pol.protect, at("link-to-ws/proj/x"));
	ok(in_child(build_late, &s) == 0, "protected through a link outside the roots into one: kept %s",
	   err);
	fresh(&s);
	strv_add(&s.pol.write, at("ws"));
	char *longp = xasprintf("%s/%0*d", at("ws"), PATH_MAX, 0);
	strv_push(&s.pol.protect, longp);
	ok(refused(build_late, &s, "protected path too long"), "a protected path too long: refused");
	fresh(&s);
	strv_add(&s.pol.write, at("ws"));
	longp = xasprintf("%s/", at("ws"));
	size_t l0 = strlen(longp);
	longp = realloc(longp, PATH_MAX + 1);
	memset(longp + l0, 'a', PATH_MAX - l0);
	longp[PATH_MAX] = '\0';
	strv_push(&s.pol.protect, longp);
	ok(refused(build_late, &s, "protected path too long"), "one of exactly PATH_MAX bytes: refused");
}

static void read_keep(void)
{
	struct session s;
	fresh(&s);
	s.pol.read.n = 0;
	strv_add(&s.pol.read, at("kept"));
	strv_add(&s.pol.read, at("kept/inner"));
	strv_add(&s.pol.read, at("ws"));
	strv_add(&s.pol.read, at("absent"));
	strv_add(&s.pol.read, "/usr");
	strv_add(&s.pol.write, at("ws"));
	s.workspace = at("rows");
	plan_build_base(&s);
	bool tmp = path_is_under(D, "/tmp");
	plan_read_keep(&s);
	char want[PATH_MAX * 2];
	snprintf(want, sizeof want, "%s %s", at("kept"), at("rows"));
	is_str(joined(&s.plan.read_keep), tmp ? want : "",
	       "kept in the private /tmp: existing read roots, the outermost, and a read-only "
	       "workspace; not a writable one");
	plan_read_keep(&s);
	is_str(joined(&s.plan.read_keep), tmp ? want : "", "idempotent");
	ok(!tmp || strv_contains(&s.plan.pins, D), "their ancestors in /tmp pinned");
	struct mount_plan p = {.private_tmp = true};
	ok(plan_covered(&p, "/tmp/x") && !plan_covered(&p, "/tmp") && !plan_covered(&p, "/tmpx") &&
	   !plan_covered(&p, "/run/x"), "covered: beneath the private /tmp");
	p.private_tmp = false;
	p.cover_run = true;
	ok(plan_covered(&p, "/run/x") && !plan_covered(&p, "/run") && !plan_covered(&p, "/tmp/x"),
	   "covered: beneath /run when covered");
	p.private_tmp = false;
	p.read_keep.n = 0;
	strv_add(&p.read_keep, "/tmp/a/b");
	plan_pin_kept(&p);
	ok(p.pins.n == 0, "a shared /tmp: nothing kept, nothing pinned");
	p.private_tmp = true;
	strv_add(&p.read_keep, "/tmp/c/d/e");
	plan_pin_kept(&p);
	is_str(joined(&p.pins), "/tmp/a /tmp/c /tmp/c/d", "every kept root's ancestors, shortest first");
}

static void check_absent(struct session *s)
{
	plan_check_absent(&s->pol, &s->plan, "SID");
}

static const char *qpath;
static char *deep_planted;
static void quarantine_one(struct session *s)
{
	plan_quarantine(&s->pol, qpath, "SID");
}

/* As a user (nobody, when the test runs as root): a planted file in a
 * directory of the session's that it made read-only (.git 0555) is still
 * moved aside, and the directory's mode put back. */
static void as_user(struct session *s)
{
	(void)s;
	if (getuid() == 0) {
		if (setgroups_none() < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
	}
	struct policy pol;
	memset(&pol, 0, sizeof pol);
	strv_add(&pol.write, at("user/ws"));
	plan_quarantine(&pol, at("user/ws/.git/hooks-planted"), "SID");
	plan_quarantine(&pol, at("user/ws/open/planted"), "SID");
	/* More closed directories on the way than are recorded (64): the
	 * rest stay closed, nothing is written past the record. */
	plan_quarantine(&pol, deep_planted, "SID");
}

/* As a user (nobody, when the test runs as root), the hidden paths: all
 * covered; marked closed (no line for refusing them) only the one the
 * user can neither open nor own, by its canonical name and as written
 * (through a link); not the user's own mode-000 one, nor a readable one. */
static void closed_as_user(struct session *s)
{
	if (getuid() == 0 && (setgroups_none() < 0 || setgid(65534) < 0 || setuid(65534) < 0))
		_exit(3);
	plan_build_base(s);
	plan_build_late(s);
	const struct strv *h = &s->plan.hide, *c = &s->plan.dac_closed;
	int bad = 0;
	if (!strv_contains(h, at("closed/secret")) || !strv_contains(h, at("closed/mine")) ||
	    !strv_contains(h, at("closed/open")))
		bad |= 4;
	if (!strv_contains(c, at("closed/secret")) || !strv_contains(c, at("closed/alias")))
		bad |= 8;
	if (strv_contains(c, at("closed/mine")) || strv_contains(c, at("closed/open")) || c->n != 2)
		bad |= 16;
	_exit(bad);
}

static void closed(void)
{
	if (getuid() != 0) {
		ok(1, "# skip hidden paths closed to a user: making a file of another owner needs root");
		return;
	}
	mkdirs("closed");
	touch("closed/secret");
	touch("closed/mine");
	touch("closed/open");
	if (chmod(at("closed/secret"), 0600) < 0 || chmod(at("closed/mine"), 0) < 0 ||
	    chown(at("closed/mine"), 65534, 65534) < 0 || chmod(at("closed/open"), 0644) < 0 ||
	    symlink(at("closed/secret"), at("closed/alias")) < 0)
		abort();
	struct session s;
	fresh(&s);
	strv_add(&s.pol.write, at("ws"));
	strv_add(&s.pol.hide, at("closed/alias")); /* the secret by a link alone */
	strv_add(&s.pol.hide, at("closed/mine"));
	strv_add(&s.pol.hide, at("closed/open"));
	int r = in_child(closed_as_user, &s);
	ok(r == 0, "hidden paths, as a user: all covered; closed only what the user can neither open nor own");
	if (r)
		printf("#   status %d: %s\n", r, err);
	/* Root is refused nothing: none is closed to it. */
	fresh(&s);
	strv_add(&s.pol.write, at("ws"));
	strv_add(&s.pol.hide, at("closed/secret"));
	plan_build_base(&s);
	plan_build_late(&s);
	ok(strv_contains(&s.plan.hide, at("closed/secret")) && s.plan.dac_closed.n == 0,
	   "as root, nothing is closed");
}

static void user_dirs(void)
{
	char deep[PATH_MAX] = "user/ws/deep";
	for (int i = 0; i < 70; i++)
		strcat(deep, "/d");
	mkdirs(deep);
	strcat(deep, "/planted");
	touch(deep);
	deep_planted = xstrdup(at(deep));
	mkdirs("user/ws/.git");
	mkdirs("user/ws/open");
	touch("user/ws/.git/hooks-planted");
	touch("user/ws/open/planted");
	if (getuid() == 0) {
		char *c = xasprintf("chown -R 65534:65534 '%s'", at("user"));
		if (system(c) != 0)
			abort();
		free(c);
	}
	chmod(at("user/ws/.git"), 0555);
	/* Bottom up, each closed (as root this chmod is the owner's: nobody). */
	char *cut = deep_planted + strlen(deep_planted);
	while ((cut = strrchr(deep_planted, '/')) && strcmp(deep_planted, at("user/ws/deep")) != 0) {
		*cut = '\0';
		chmod(deep_planted, 0555);
	}
	free(deep_planted);
	deep_planted = xstrdup(at(deep));
	struct session s;
	fresh(&s);
	struct stat st;
	ok(in_child(as_user, &s) == 0 && access(at("user/ws/.git/hooks-planted"), F_OK) < 0 &&
	   named("user/ws/.git", "hooks-planted.quarantined-by-wicket-SID-") == 1,
	   "as a user: a file in a directory made read-only is still moved aside");
	ok(stat(at("user/ws/.git"), &st) == 0 && (st.st_mode & 07777) == 0555,
	   "and the directory's mode is put back (%o)", st.st_mode & 07777);
	ok(named("user/ws/open", "planted.quarantined-by-wicket-SID-") == 1 &&
	   stat(at("user/ws/open"), &st) == 0 && (st.st_mode & 07777) == 0755,
	   "one that was open stays as it was");
	chmod(at("user/ws/.git"), 0755);
	/* Open them again, so the tree can be removed. */
	char *c = xasprintf("chmod -R u+rwx '%s'", at("user/ws/deep"));
	if (system(c) != 0)
		printf("# could not open %s again\n", at("user/ws/deep"));
	free(c);
}

static void after(void)
{
	struct session s;
	fresh(&s);
	strv_add(&s.pol.write, at("ws"));
	strv_add(&s.pol.protect, at("ws/.git/config"));
	strv_add(&s.pol.protect, at("ws/.git/info/attributes"));
	strv_add(&s.pol.keep_name, at("ws/newproj"));
	strv_add(&s.pol.keep_name, at("ws/newer/proj"));
	plan_build_base(&s);
	plan_build_late(&s);
	ok(s.plan.absent_protect.n == 2 && s.plan.absent_entry.n == 2, "two watched, two entries");
	/* The session makes them: a planted config, a link for an entry's
	 * directory, a real directory for the other. */
	touch("ws/.git/config");
	if (symlink(at("outside"), at("ws/newproj")) < 0 || mkdir(at("ws/newer"), 0755) < 0 ||
	    mkdir(at("ws/newer/proj"), 0755) < 0)
		abort();
	ok(in_child(check_absent, &s) == 0 && strstr(err, "moved it to") &&
	   !strstr(err, "WARNING"), "what was moved aside is said");
	ok(access(at("ws/.git/config"), F_OK) < 0 && named("ws/.git", "config.quarantined-by-wicket-SID-") == 1,
	   "a planted protected file: moved aside, named with the session");
	ok(named("ws/.git/info", "attributes") == 0, "one still absent: nothing to move");
	struct stat lst;
	ok(lstat(at("ws/newproj"), &lst) < 0 && named("ws", "newproj.quarantined-by-wicket-SID-") == 1,
	   "a link made for an entry's directory: moved aside");
	ok(lstat(at("ws/newer/proj"), &lst) == 0 && S_ISDIR(lst.st_mode), "a real directory stays");
	/* What is not the session's to move: a parent outside every root. */
	touch("outside/planted");
	plan_quarantine(&s.pol, at("outside/planted"), "SID");
	ok(access(at("outside/planted"), F_OK) == 0, "outside the writable roots: left alone");
	touch("ws/planted");
	plan_quarantine(&s.pol, at("ws/planted"), "SID");
	ok(access(at("ws/planted"), F_OK) < 0 && named("ws", "planted.quarantined-by-wicket-SID-") == 1,
	   "inside one: moved aside");
	/* A name too long to take the suffix: removed; a directory, said. */
	char name[241];
	memset(name, 'n', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	char rel[300];
	snprintf(rel, sizeof rel, "ws/%s", name);
	touch(rel);
	qpath = at(rel);
	ok(in_child(quarantine_one, &s) == 0 && access(at(rel), F_OK) < 0 &&
	   strstr(err, "could not be moved aside") && strstr(err, "so it was removed"),
	   "a file that cannot be moved aside: removed, and said");
	mkdirs(rel);
	qpath = at(rel);
	ok(in_child(quarantine_one, &s) == 0 && access(at(rel), F_OK) == 0 &&
	   strstr(err, "could not be moved aside nor removed") && strstr(err, "File name too long"),
	   "a directory that cannot be: left, and said with why");
}

static void in_root(void)
{
	struct policy pol;
	memset(&pol, 0, sizeof pol);
	strv_add(&pol.write, at("ws"));
	ok(plan_in_writable_root(&pol, at("ws/a/b/c")), "an absent path in a root");
	ok(plan_in_writable_root(&pol, at("ws")), "the root itself");
	ok(!plan_in_writable_root(&pol, at("wsx/a")), "a sibling with a longer name");
	ok(!plan_in_writable_root(&pol, at("ws/proj-link/a/b")), "through a link to outside: not");
	ok(plan_in_writable_root(&pol, at("link-to-ws/a")), "through a link into it: yes");
	ok(!plan_in_writable_root(&pol, "/nonexistent-wicket/a"), "under an absent top: not");
	ok(!plan_in_writable_root(&pol, "/"), "/ is in no root");
	ok(writable_root_of(&pol, at("ws/x")) && !writable_root_of(&pol, at("outside/x")),
	   "writable_root_of");
	char h[32];
	random_hex(h, 17);
	ok(strlen(h) == 16 && strspn(h, "0123456789abcdef") == 16, "random_hex: 16 digits in 17");
	random_hex(h, 5);
	ok(strlen(h) == 4, "4 in 5");
	memset(h, 'Z', sizeof h);
	random_hex(h, 1);
	ok(h[0] == '\0' && h[1] == 'Z', "none in 1");
	memset(h, 'Z', sizeof h);
	random_hex(h, 0);
	ok(h[0] == 'Z', "nothing at all in 0");
	memset(h, 'Z', sizeof h);
	random_hex(h, 4);
	ok(strlen(h) == 2 && h[4] == 'Z', "2 in 4, nothing past it");
	random_hex(h, sizeof h);
	ok(strlen(h) == 16, "never more than 16");
	/* A root whose top does not exist yet (lexical). */
	struct policy top;
	memset(&top, 0, sizeof top);
	strv_add(&top.write, "/nonexistent-wicket");
	ok(plan_in_writable_root(&top, "/nonexistent-wicket/a/b"), "under an absent top root");
}

static void shared(void)
{
	struct strv out = {0}, onp = {0};
	const char *homes[] = {at("home"), at("no-home"), at("home-link"), at("home"), NULL};
	char exact[PATH_MAX + 1];
	snprintf(exact, sizeof exact, "%s/", at("home"));
	size_t el = strlen(exact);
	memset(exact + el, 'a', PATH_MAX - el);
	exact[PATH_MAX] = '\0';
	char *pathenv = xasprintf("relative:%s:%s/%0*d:%s", at("home/tools"), at("home"), PATH_MAX, 0,
				  exact);
	plan_shared_spaces(homes, "run-rel", pathenv, &out, &onp);
	free(pathenv);
	ok(strv_contains(&out, at("home")) && !strv_contains(&out, "run-rel"),
	   "homes resolved once; a relative runtime dir is none");
	size_t homes_n = 0;
	for (size_t i = 0; i < out.n; i++)
		homes_n += strcmp(out.v[i], at("home")) == 0;
	ok(homes_n == 1, "one home behind two names: once");
	char *rt = realpath("/tmp", NULL), *rv = realpath("/var/tmp", NULL);
	ok(rt && strv_contains(&out, rt) && (!rv || strv_contains(&out, rv)), "/tmp and /var/tmp are shared");
	free(rt);
	free(rv);
	ok(strv_contains(&onp, at("home/tools")) && onp.n == 3, "the PATH's directories in a home: "
	   "%s", joined(&onp));
}

static void table(void)
{
	struct session s;
	fresh(&s);
	strv_add(&s.pol.write, "/tmp");
	strv_add(&s.pol.write, at("ws"));
	strv_add(&s.pol.hide, at("ws/secret"));
	strv_add(&s.pol.hide, at("ws/not-yet"));
	plan_build_base(&s);
	plan_build_late(&s);
	struct wk_fstable t;
	plan_fstable(&s, &t);
	size_t tmps = 0, hides = 0;
	for (size_t i = 0; i < t.n; i++) {
		tmps += t.v[i].kind == RULE_WRITE && strcmp(t.v[i].path, "/tmp") == 0;
		hides += t.v[i].kind == RULE_HIDE;
	}
	ok(tmps == 1, "/tmp writable by the policy and private: one rule");
	struct wk_fsmatch m;
	ok(hides == 2 && wk_classify(&t, at("ws/not-yet/x"), &m) == WK_FS_HIDDEN &&
	   wk_classify(&t, at("ws/secret/x"), &m) == WK_FS_HIDDEN,
	   "hidden in the table: what exists, resolved, and what does not, as written; once each");
	plan_fstable_free(&t);
}

/* The index in OPS of the first op of KIND (with PATH, unless NULL), at
 * or after FROM; -1: none. */
static long find(const struct mount_ops *ops, enum mount_op_kind kind, const char *path, size_t from)
{
	for (size_t i = from; i < ops->n; i++)
		if (ops->v[i].kind == kind && (!path || (ops->v[i].path && strcmp(ops->v[i].path, path) == 0)))
			return (long)i;
	return -1;
}

static long last(const struct mount_ops *ops, enum mount_op_kind kind)
{
	long at = -1;
	for (size_t i = 0; i < ops->n; i++)
		if (ops->v[i].kind == kind)
			at = (long)i;
	return at;
}

static void ops(void)
{
	struct session s;
	fresh(&s);
	strv_add(&s.pol.write, at("ws/deep"));
	strv_add(&s.pol.write, at("ws"));
	strv_add(&s.pol.protect, at("ws/.git/hooks"));
	strv_add(&s.pol.hide, at("ws/secret"));
	s.pol.read.n = 0;
	strv_add(&s.pol.read, "/");
	strv_add(&s.pol.read, at("kept"));
	snprintf(s.pol.tmp_size, sizeof s.pol.tmp_size, "%s", "32m");
	plan_build_base(&s);
	plan_read_keep(&s);
	s.plan.cover_run = s.plan.self_bin = true; /* as on a host with /run */
	strv_add(&s.plan.run_keep, "/run/resolv.conf");
	plan_build_late(&s);
	struct mount_ops b, l;
	plan_mount_ops_base(&s.plan, &b);
	plan_mount_ops_late(&s.plan, s.workspace, &l);

	long freeze = find(&b, MOP_FREEZE, "/", 0);
	ok(b.n && b.v[0].kind == MOP_PRIVATE && freeze > 0, "base: propagation cut first, a freeze");
	bool before = true, after = true;
	for (size_t i = 0; i < b.n; i++) {
		enum mount_op_kind k = b.v[i].kind;
		if (k == MOP_CLONE || k == MOP_CLONE_RO || k == MOP_CLONE_SELF || k == MOP_HOLD_DEV)
			before = before && (long)i < freeze;
		if (k == MOP_TMPFS || k == MOP_DEV || k == MOP_RUN || k == MOP_ATTACH)
			after = after && (long)i > freeze;
	}
	ok(before, "every copy and the device nodes taken before the freeze");
	ok(after, "every mount of the session's own after it");
	/* Each attach takes a slot an earlier copy filled, of the same path. */
	bool slots = true;
	for (size_t i = 0; i < b.n; i++) {
		if (b.v[i].kind != MOP_ATTACH)
			continue;
		long src = -1;
		for (size_t j = 0; j < i; j++)
			if (b.v[j].slot == b.v[i].slot && b.v[j].kind != MOP_ATTACH)
				src = (long)j;
		slots = slots && src >= 0 && b.v[i].slot < b.slots &&
			(b.v[src].kind == MOP_CLONE_SELF ? strcmp(b.v[i].path, WK_SESSION_BIN "/wicket") == 0
							 : strcmp(b.v[src].path, b.v[i].path) == 0);
	}
	ok(slots, "each attach: the copy of its own path, made before");
	/* Each copy attached once; each op that names a path has one. */
	bool once = true, paths = true;
	for (size_t i = 0; i < b.n; i++) {
		enum mount_op_kind k = b.v[i].kind;
		if (k != MOP_PRIVATE && k != MOP_HOLD_DEV && k != MOP_CLONE_SELF)
			paths = paths && b.v[i].path && b.v[i].path[0] == '/';
		if (k != MOP_CLONE && k != MOP_CLONE_RO && k != MOP_CLONE_SELF)
			continue;
		int n = 0;
		for (size_t j = 0; j < b.n; j++)
			n += b.v[j].kind == MOP_ATTACH && b.v[j].slot == b.v[i].slot;
		once = once && n == 1;
	}
	ok(once && paths, "each copy attached exactly once; every path absolute");
	long tmp = find(&b, MOP_TMPFS, "/tmp", 0), run = find(&b, MOP_RUN, "/run", 0),
	     dev = find(&b, MOP_DEV, "/dev", 0);
	ok(tmp > 0 && strcmp(b.v[tmp].arg, "32m") == 0 && dev > 0 && strcmp(b.v[dev].arg, "32m") == 0,
	   "/tmp and /dev/shm: the policy's size");
	long kept = find(&b, MOP_ATTACH, at("kept"), 0), resolv = find(&b, MOP_ATTACH, "/run/resolv.conf", 0),
	     self = find(&b, MOP_ATTACH, WK_SESSION_BIN "/wicket", 0);
	ok(kept > tmp && resolv > run && self > run, "what is kept goes on top of the tmpfs that covers it");
	long ws = find(&b, MOP_ATTACH, at("ws"), 0), deep = find(&b, MOP_ATTACH, at("ws/deep"), 0);
	ok(ws > kept && deep > ws && deep == (long)b.n - 1, "writable roots last, parents first");
	long ro = find(&b, MOP_CLONE_RO, "/run/resolv.conf", 0), rk = find(&b, MOP_CLONE_RO, at("kept"), 0);
	ok(ro >= 0 && b.v[ro].optional && rk >= 0 && !b.v[rk].optional,
	   "a file under /run may be missing; a read root the policy names may not");

	long pin = last(&l, MOP_PIN), prot = find(&l, MOP_PROTECT, at("ws/.git/hooks"), 0),
	     rdev = find(&l, MOP_RDONLY, "/dev", 0), rrun = find(&l, MOP_RDONLY, "/run", 0),
	     hide = find(&l, MOP_HIDE, at("ws/secret"), 0);
	ok(pin >= 0 && prot > pin, "late: the pins before what they hold in place");
	ok(rdev > prot && rrun > prot && hide > rdev && hide > rrun && l.v[hide].from_run,
	   "our own tmpfs read-only, then the covers of secrets (from /run's empty file)");
	ok(l.v[l.n - 1].kind == MOP_CHDIR && strcmp(l.v[l.n - 1].path, s.workspace) == 0,
	   "into the workspace last");
	s.plan.cover_run = false;
	struct mount_ops l2;
	plan_mount_ops_late(&s.plan, s.workspace, &l2);
	ok(find(&l2, MOP_RDONLY, "/run", 0) < 0 && !l2.v[find(&l2, MOP_HIDE, NULL, 0)].from_run,
	   "without a /run of its own: no /run to freeze, the empty file from elsewhere");
	mount_ops_free(&l2);
	s.plan.private_tmp = false;
	s.plan.self_bin = false;
	struct mount_ops b2;
	plan_mount_ops_base(&s.plan, &b2);
	ok(find(&b2, MOP_TMPFS, NULL, 0) < 0 && find(&b2, MOP_CLONE_SELF, NULL, 0) < 0 &&
	   find(&b2, MOP_RUN, NULL, 0) < 0, "a shared /tmp, no /run cover: neither mounted");
	mount_ops_free(&b2);
	/* Nothing but wicket itself to copy: its copy is the first slot. */
	struct mount_plan only = {.cover_run = true, .self_bin = true};
	plan_mount_ops_base(&only, &b2);
	long cs = find(&b2, MOP_CLONE_SELF, NULL, 0), as = find(&b2, MOP_ATTACH, NULL, 0);
	ok(cs >= 0 && b2.v[cs].slot == 0 && as > cs && b2.v[as].slot == 0, "wicket alone: slot 0, attached");
	mount_ops_free(&b2);

	/* One codec: what init gets is what the supervisor made. */
	size_t len;
	char *bytes = mount_ops_encode(&l, &len);
	struct mount_ops d;
	bool same = mount_ops_decode(bytes, len, &d) && d.n == l.n && d.slots == l.slots;
	for (size_t i = 0; same && i < l.n; i++)
		same = d.v[i].kind == l.v[i].kind && d.v[i].slot == l.v[i].slot &&
		       d.v[i].optional == l.v[i].optional && d.v[i].from_run == l.v[i].from_run &&
		       !d.v[i].arg == !l.v[i].arg && strcmp(d.v[i].path, l.v[i].path) == 0;
	ok(same, "the late ops decode as they were encoded");
	mount_ops_free(&d);
	char *b3 = mount_ops_encode(&b, &len);
	size_t blen = len;
	same = mount_ops_decode(b3, len, &d) && d.n == b.n && d.slots == b.slots &&
	       strcmp(d.v[find(&d, MOP_TMPFS, NULL, 0)].arg, "32m") == 0;
	for (size_t i = 0; same && i < b.n; i++)
		same = d.v[i].kind == b.v[i].kind && d.v[i].slot == b.v[i].slot &&
		       d.v[i].optional == b.v[i].optional && !d.v[i].path == !b.v[i].path &&
		       (!b.v[i].path || strcmp(d.v[i].path, b.v[i].path) == 0);
	ok(same, "so do the base ops, slots (the first is 0) and arguments");
	mount_ops_free(&d);
	/* Cut anywhere, or a byte changed to a kind that is none: refused. */
	bool refused_all = true;
	for (size_t cut = 0; cut < blen; cut++)
		if (mount_ops_decode(b3, cut, &d)) {
			refused_all = false;
			mount_ops_free(&d);
		}
	ok(refused_all, "a plan cut short is refused, wherever it is cut");
	char *bad = xmalloc(blen);
	memcpy(bad, b3, blen);
	bad[4] = (char)MOP_KINDS;
	ok(!mount_ops_decode(bad, blen, &d), "an unknown kind is refused");
	bad[4] = 0;
	ok(!mount_ops_decode(bad, blen, &d), "kind 0 is none");
	bad[4] = b3[4];
	bad[5] = 16;
	ok(!mount_ops_decode(bad, blen, &d), "unknown flags are refused");
	free(bad);
	/* The edges: an op with nothing after it, the last slot, the most ops. */
	struct mount_ops e = {0};
	mount_ops_add(&e, (struct mount_op){.kind = MOP_PRIVATE, .slot = -1});
	char *eb = mount_ops_encode(&e, &len);
	ok(mount_ops_decode(eb, len, &d) && d.n == 1 && d.v[0].slot == -1 && !d.v[0].path,
	   "a last op without strings");
	mount_ops_free(&d);
	free(eb);
	e.v[0].kind = MOP_ATTACH;
	e.v[0].path = "/x";
	e.v[0].slot = 65535;
	eb = mount_ops_encode(&e, &len);
	ok(mount_ops_decode(eb, len, &d) && d.v[0].slot == 65535, "slot 65535");
	mount_ops_free(&d);
	free(eb);
	e.v[0].slot = 65536;
	eb = mount_ops_encode(&e, &len);
	ok(!mount_ops_decode(eb, len, &d), "slot 65536 is past any plan");
	free(eb);
	mount_ops_free(&e);
	for (int i = 0; i < 65536; i++)
		mount_ops_add(&e, (struct mount_op){.kind = MOP_PRIVATE, .slot = -1});
	eb = mount_ops_encode(&e, &len);
	ok(mount_ops_decode(eb, len, &d) && d.n == 65536, "65536 ops");
	mount_ops_free(&d);
	free(eb);
	mount_ops_add(&e, (struct mount_op){.kind = MOP_PRIVATE, .slot = -1});
	eb = mount_ops_encode(&e, &len);
	ok(!mount_ops_decode(eb, len, &d), "65537 are past any plan");
	free(eb);
	mount_ops_free(&e);
	char hb[64] = {0};
	uint32_t huge = 1u << 30;
	memcpy(hb, &huge, sizeof huge);
	ok(!mount_ops_decode(hb, sizeof hb, &d), "a count past any plan is refused");
	huge = 11;
	memcpy(hb, &huge, sizeof huge);
	ok(!mount_ops_decode(hb, sizeof hb, &d), "a count more than the bytes can hold is refused");
	char *extra = xmalloc(blen + 1);
	memcpy(extra, b3, blen);
	extra[blen] = 'x';
	ok(!mount_ops_decode(extra, blen + 1, &d), "bytes after the last op are refused");
	free(extra);
	free(b3);
	free(bytes);
	ok(strcmp(mount_op_name(MOP_HIDE), "hide") == 0 && strcmp(mount_op_name(MOP_KINDS), "?") == 0 &&
	   strcmp(mount_op_name(0), "?") == 0 && strcmp(mount_op_name(MOP_PRIVATE), "private") == 0,
	   "names");
	mount_ops_free(&b);
	mount_ops_free(&l);
}

static void wset(void)
{
	struct session s;
	fresh(&s);
	strv_add(&s.pol.write, at("ws"));
	strv_add(&s.pol.protect, at("ws/.git/hooks"));
	plan_build_base(&s);
	plan_build_late(&s);
	struct wk_wset w;
	plan_wset(&s, &w);
	ok(strv_contains(&w.roots, at("ws")) && strv_contains(&w.ro, at("ws/.git/hooks")) &&
	   strv_contains(&w.fixed, at("ws/.git")), "wset: roots, read-only, pinned");
	s.layers.mntns = false;
	plan_wset(&s, &w);
	ok(w.fixed.n == 0, "without a mount namespace nothing is pinned");
	s.pol.sandbox = false;
	plan_wset(&s, &w);
	ok(w.roots.n == 1 && strcmp(w.roots.v[0], "/") == 0, "no sandbox: /");
}

/* plan_way_through_proc: whether a way, links followed, enters /proc,
 * and which links on it lie in a writable root; then plan_check_absent
 * moving such a link aside for an absent protected path. */
static void check_absent_pw(struct session *s)
{
	plan_check_absent(&s->pol, &s->plan, "SID");
}

static void way_through_proc(void)
{
	mkdirs("pw/ws/d");
	struct strv roots = {0}, links = {0};
	strv_add(&roots, at("pw/ws"));
	char c[16], to[16];
	bool made = symlink("/proc/self/cwd", at("pw/ws/tocwd")) == 0 &&
		    symlink("tocwd", at("pw/ws/rel")) == 0 &&
		    symlink(at("pw/ws/tocwd"), at("pw/out")) == 0 && symlink("d", at("pw/ws/tod")) == 0 &&
		    symlink("l2", at("pw/ws/l1")) == 0 && symlink("l1", at("pw/ws/l2")) == 0 &&
		    symlink("/proc/self/cwd/pw-nothing-here", at("pw/ws/q")) == 0;
	/* A chain of exactly 40 links (the walk's bound) ending in /proc. */
	for (int i = 1; made && i <= 40; i++) {
		snprintf(c, sizeof c, "pw/ws/c%d", i);
		snprintf(to, sizeof to, "c%d", i + 1);
		made = symlink(i < 40 ? to : "/proc/self", at(c)) == 0;
	}
	ok(made, "the links");
	ok(plan_way_through_proc(&roots, at("pw/ws/tocwd/x"), &links) &&
	   strcmp(joined(&links), at("pw/ws/tocwd")) == 0, "into /proc by a link in the root: it, named");
	strv_free(&links);
	ok(plan_way_through_proc(&roots, at("pw/ws/rel/x"), &links) && links.n == 2 &&
	   strv_contains(&links, at("pw/ws/rel")) && strv_contains(&links, at("pw/ws/tocwd")),
	   "a relative link to one: both named (%s)", joined(&links));
	strv_free(&links);
	ok(plan_way_through_proc(&roots, at("pw/out/x"), &links) &&
	   strcmp(joined(&links), at("pw/ws/tocwd")) == 0,
	   "a link outside the roots to one in it: only the root's named (%s)", joined(&links));
	strv_free(&links);
	ok(!plan_way_through_proc(&roots, at("pw/ws/tod/x"), &links), "a link to a directory: not /proc");
	strv_free(&links);
	ok(plan_way_through_proc(&roots, at("pw/ws/d/../tocwd/x"), &links), "\"..\" on the way taken");
	strv_free(&links);
	ok(plan_way_through_proc(&roots, at("pw/ws/tod/../tod/../tocwd/x"), &links) && links.n == 2,
	   "a link passed twice: named once (%s)", joined(&links));
	strv_free(&links);
	ok(!plan_way_through_proc(&roots, at("pw/ws/l1/x"), &links), "a loop of links: ends, not /proc");
	strv_free(&links);
	ok(plan_way_through_proc(&roots, at("pw/ws/c1/x"), &links) && links.n == 40,
	   "forty links to /proc: followed to the end");
	strv_free(&links);
	ok(plan_way_through_proc(&roots, "/proc/self/cwd", &links) && links.n == 0,
	   "/proc itself, no link: /proc, none named");
	strv_free(&links);
	ok(!plan_way_through_proc(&roots, at("pw/ws/d/none"), &links) && links.n == 0,
	   "no link: not /proc, none named");
	strv_free(&links);
	/* One byte short of what the walk keeps, and exactly that: the
	 * first ends at the missing part, the second is not known. */
	char *longp = xasprintf("%s/", at("pw/ws"));
	size_t l0 = strlen(longp);
	longp = realloc(longp, PATH_MAX + 1);
	memset(longp + l0, 'a', PATH_MAX - 1 - l0);
	longp[PATH_MAX - 1] = '\0';
	ok(!plan_way_through_proc(&roots, longp, &links), "a way that fits: walked, not /proc");
	strv_free(&links);
	longp[PATH_MAX - 1] = 'a';
	longp[PATH_MAX] = '\0';
	ok(plan_way_through_proc(&roots, longp, &links), "a way too long to walk: taken for /proc");
	strv_free(&links);
	free(longp);
	/* An absent protected path whose way the session aimed through
	 * /proc: the root's link on it moved aside. */
	struct session s;
	memset(&s, 0, sizeof s);
	strv_add(&s.pol.write, at("pw/ws"));
	strv_add(&s.plan.absent_protect, at("pw/ws/q/x"));
	struct stat st;
	ok(in_child(check_absent_pw, &s) == 0 && lstat(at("pw/ws/q"), &st) < 0 &&
	   named("pw/ws", "q.quarantined-by-wicket-SID-") == 1,
	   "an absent protected path through a /proc link: the link moved aside");
	strv_free(&roots);
}

int main(void)
{
	/* Under /tmp: the private /tmp's kept roots are part of the plan. */
	const char *prefix = getenv("WICKET_PLANNER_PREFIX");
	char tmpl[200], real[PATH_MAX];
	snprintf(tmpl, sizeof tmpl, "%sXXXXXX",
		 prefix && strncmp(prefix, "/tmp/", 5) == 0 && strlen(prefix) < 150 ? prefix
											: "/tmp/wicket-planner.");
	if (!mkdtemp(tmpl) || !realpath(tmpl, real) || strlen(real) >= sizeof D)
		return 1;
	strcpy(D, real);
	chmod(D, 0755); /* for the part that runs as nobody */
	mkdirs("ws/.git/hooks");
	mkdirs("ws/.git/info");
	mkdirs("ws/secret");
	mkdirs("ws/proj/sub");
	mkdirs("ws/deep/er");
	mkdirs("outside");
	mkdirs("shared");
	mkdirs("kept/inner");
	mkdirs("rows");
	mkdirs("home/tools");
	mkdirs("home/.local/bin");
	mkdirs("home/bin");
	mkdirs("wsx");
	touch("outside/conf");
	touch("outside/secret");
	touch("ws/afile");
	if (symlink(at("ws/proj"), at("ws/inlink")) < 0 ||
	    symlink(at("ws/secret"), at("ws/link-to-secret")) < 0 ||
	    symlink(at("outside"), at("ws/proj-link")) < 0 ||
	    symlink(at("outside"), at("ws/via-link")) < 0 ||
	    symlink(at("outside"), at("outside-link")) < 0 ||
	    symlink(at("ws"), at("link-to-ws")) < 0 || symlink(at("home"), at("home-link")) < 0)
		return 1;
	base_writes();
	base_refusals();
	late();
	read_keep();
	after();
	in_root();
	shared();
	user_dirs();
	closed();
	table();
	ops();
	wset();
	way_through_proc();
	char *rm = xasprintf("rm -rf '%s'", D);
	if (system(rm) != 0)
		printf("# could not remove %s\n", D);
	free(rm);
	return done_testing();
}
