/* What the kernel can enforce, found out before anything is forked.
 * probe_kernel() is cheap (a few syscalls and /proc reads) and runs on
 * every start; `wicket doctor` adds real trial runs of each namespace. */
#include "config.h"
#include "base/session.h"
#include "base/setupfail.h"
#include "base/user.h"
#include "child/mounts.h"
#include "cli/probe.h"
#include "cli/userconfig.h"
#include "plan/layers.h"
#include "supervisor/netnotify.h"
#include "base/landlock_compat.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

/* Read a small integer from a /proc file; -1 if absent or unreadable. */
static long read_proc_long(const char *path)
{
	char buf[32];
	if (read_text_at(AT_FDCWD, path, buf, sizeof buf) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

static bool have_cap_sys_admin(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[2];
	if (syscall(SYS_capget, &hdr, data) < 0)
		return false;
	return data[0].effective & (1U << CAP_SYS_ADMIN);
}

/* Our own AppArmor label, to tell whether contrib/apparmor's profile (which
 * grants "userns,") is the one confining us. */
static bool confined_by_wicket_profile(void)
{
	char buf[256];
	ssize_t n = read_text_at(AT_FDCWD, "/proc/self/attr/apparmor/current", buf, sizeof buf);
	if (n < 0)
		n = read_text_at(AT_FDCWD, "/proc/self/attr/current", buf, sizeof buf);
	if (n <= 0)
		return false;
	return strncmp(buf, "wicket", 6) == 0;
}

/* True when the comma-separated LIST holds the word W. */
static bool list_has(const char *list, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = list; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (strncmp(p, w, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	}
	return false;
}

/* WICKET_PRETEND_MISSING=namespaces,landlock,landlock-net,seccomp makes the
 * probe report those features as absent (landlock-net: Landlock without
 * its TCP rules, as before ABI 4), so the fail-closed refusal and
 * --best-effort can be tested on a capable machine. It can only take
 * capability away: the refusal logic still runs on the result. */
static void pretend_missing(struct kernel_info *k)
{
	const char *p = getenv("WICKET_PRETEND_MISSING");
	if (!p || !*p)
		return;
	if (list_has(p, "namespaces")) {
		k->userns = false;
		k->root_admin = false;
		k->userns_why = "namespaces pretended missing (WICKET_PRETEND_MISSING)";
		k->userns_fix = "unset WICKET_PRETEND_MISSING";
	}
	if (list_has(p, "landlock")) {
		k->landlock_abi = 0;
		k->landlock_errno = EOPNOTSUPP;
	}
	if (list_has(p, "landlock-net") && k->landlock_abi > 3)
		k->landlock_abi = 3;
	if (list_has(p, "seccomp"))
		k->seccomp = false;
}

void probe_kernel(struct kernel_info *k)
{
	memset(k, 0, sizeof *k);
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(k->release, sizeof k->release, "%s", u.release);

	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, WK_LL_CREATE_RULESET_VERSION);
	k->landlock_abi = abi > 0 ? (int)abi : 0;
	k->landlock_errno = abi > 0 ? 0 : errno;

	k->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 &&
		     access("/proc/sys/kernel/seccomp/actions_avail", F_OK) == 0;

	k->seccomp_notify = k->seccomp && netnotify_kernel_ok();

	/* mount_setattr with a bad fd: EBADF means the call exists. */
	errno = 0;
	syscall(SYS_mount_setattr, -1, "", 0, NULL, 0);
	k->mount_api = errno != ENOSYS;

	k->root_admin = geteuid() == 0 && have_cap_sys_admin();
	k->apparmor_restrict = read_proc_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1;

	k->userns = true;
	if (read_proc_long("/proc/sys/user/max_user_namespaces") == 0) {
		k->userns = false;
		k->userns_why = "user namespaces are disabled (user.max_user_namespaces = 0)";
		k->userns_fix = "sudo sysctl -w user.max_user_namespaces=15000";
	} else if (read_proc_long("/proc/sys/kernel/unprivileged_userns_clone") == 0) {
		k->userns = false;
		k->userns_why = "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)";
		k->userns_fix = "sudo sysctl -w kernel.unprivileged_userns_clone=1";
	} else if (k->apparmor_restrict && !k->root_admin && !confined_by_wicket_profile()) {
		k->userns = false;
		k->userns_why = "AppArmor restricts unprivileged user namespaces "
				"(kernel.apparmor_restrict_unprivileged_userns = 1)";
		k->userns_fix = "install the profile from contrib/apparmor (see contrib/apparmor/README.md): "
				"sudo install -m 644 contrib/apparmor/wicket /etc/apparmor.d/ && "
				"sudo apparmor_parser -r /etc/apparmor.d/wicket";
	}
	pretend_missing(k);
}

/* ---- wicket doctor ---------------------------------------------------- */

/* Try one namespace kind for real in a throwaway child. */
static int trial_ns(int flags, bool try_mount)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	pid_t pid = (pid_t)syscall(SYS_clone, (unsigned long)(flags | SIGCHLD), NULL, NULL, NULL, 0);
	if (pid < 0)
		return errno;
	if (pid == 0) {
		if ((flags & CLONE_NEWUSER) && ns_write_id_maps(uid, gid) < 0)
			_exit(100 + (setup_err.err & 0x3f));
		if (try_mount && mount("tmpfs", "/tmp", "tmpfs", 0, "size=4k") < 0)
			_exit(100 + (errno & 0x3f));
		_exit(0);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) >= 100)
		return WEXITSTATUS(st) - 100;
	return EIO;
}

struct ns_kind {
	const char *name;
	int flag;
	bool mount;
};

static const struct ns_kind ns_kinds[] = {
	{"user", CLONE_NEWUSER, false}, {"mount", CLONE_NEWNS, true},
	{"pid", CLONE_NEWPID, false},   {"network", CLONE_NEWNET, false},
	{"ipc", CLONE_NEWIPC, false},
};

/* A seccomp filter on this process ("Seccomp: 2"): every sandboxed
 * session puts one on all it runs; a full-access session none. */
static bool seccomp_filtered(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	char line[256];
	bool on = false;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "Seccomp:", 8) == 0)
			on = atoi(line + 8) == 2;
	fclose(f);
	return on;
}

void refuse_inside_session(const char *command)
{
	/* Only the message depends on this, never what is enforced: inside a
	 * session the namespaces are refused whatever this decides. A session
	 * whose variables were cleared (env -i) is still known by the
	 * session's own wicket, bound at WK_SESSION_BIN in every session. */
	const char *sid = getenv("WICKET_SESSION");
	if (!seccomp_filtered())
		return;
	if (!sid && access(WK_SESSION_BIN "/wicket", F_OK) != 0)
		return;
	if (!sid)
		sid = "(its variables cleared)";
	const char *pol = getenv("WICKET_POLICY");
	if (strcmp(command, "doctor") == 0)
		die("doctor: this is wicket session %s (policy %s): its sandbox is what a program here "
		    "can use, not what the machine can; run 'wicket doctor' outside the session "
		    "(or 'wicket why' here)", sid, pol ? pol : "?");
	die("%s: this is already wicket session %s (policy %s), and a session cannot start "
	    "another (its sandbox forbids making namespaces); run it outside the session, "
	    "in another terminal or after 'exit'", command, sid, pol ? pol : "?");
}

int cmd_doctor(int argc, char **argv)
{
	bool json = false;
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			printf("Usage: wicket doctor [--json]\n"
			       "Show what this kernel can enforce and what each built-in mode gets here,\n"
			       "and the user configuration (the policy it picks for this directory).\n");
			return 0;
		default:
			die("doctor: unknown option '%s' (try 'wicket doctor --help')", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die("doctor: unexpected argument '%s'", argv[optind]);
	refuse_inside_session("doctor");

	struct kernel_info k;
	probe_kernel(&k);
	int base = k.root_admin ? 0 : CLONE_NEWUSER;
	int ns_err[sizeof ns_kinds / sizeof ns_kinds[0]];
	for (size_t i = 0; i < sizeof ns_kinds / sizeof ns_kinds[0]; i++)
		ns_err[i] = trial_ns(base | ns_kinds[i].flag, ns_kinds[i].mount);
	bool ns_ok = ns_err[1] == 0 && ns_err[2] == 0;

	/* What each mode gets: the same gap analysis the launcher uses. Then
	 * what a policy gets that uses a feature the built-in modes do not:
	 * network "ports" (Landlock TCP rules), "domains" (the proxy, in a
	 * network namespace) or a "read" list. */
	struct {
		const char *mode, *key; /* in the text, in the JSON */
		enum net_mode net;
		bool read_all;
		struct policy pol;
	} modes[] = {
		{"workspace-write", "workspace-write", NET_NONE, true, {0}},
		{"read-only", "read-only", NET_NONE, true, {0}},
		{"workspace-write --net full", "workspace-write --net full", NET_FULL, true, {0}},
		{"network \"ports\"", "network_ports", NET_PORTS, true, {0}},
		{"network \"domains\"", "network_domains", NET_DOMAINS, true, {0}},
		{"a \"read\" list", "read_list", NET_NONE, false, {0}},
	};
	const size_t nmodes = 3, nall = sizeof modes / sizeof modes[0];
	for (size_t i = 0; i < nall; i++) {
		struct policy *p = &modes[i].pol;
		p->name = modes[i].mode;
		p->sandbox = true;
		p->net = modes[i].net;
		p->private_tmp = true;
		strv_add(&p->read, modes[i].read_all ? "/" : "/usr");
	}

	/* The user configuration, and what it picks here (the current
	 * directory as the workspace). */
	struct userconfig ucfg;
	bool cfg_ok = userconfig_load(&ucfg, user_home());
	char *cwd = getcwd(NULL, 0);
	char *here = cwd ? realpath(cwd, NULL) : NULL;
	free(cwd);
	const struct userconfig_entry *pick = cfg_ok && here ? userconfig_pick(&ucfg, here) : NULL;
	int rc = cfg_ok ? 0 : EXIT_WICKET;

	if (json) {
		json_t *o = json_object();
		json_t *cf = json_pack("{s:s?, s:b, s:I}", "file", ucfg.file, "found", ucfg.found,
				       "directories", (json_int_t)ucfg.n);
		json_t *errs = json_array();
		for (size_t i = 0; i < ucfg.errors.n; i++)
			json_array_append_new(errs, json_string(ucfg.errors.v[i]));
		json_object_set_new(cf, "errors", errs);
		json_object_set_new(cf, "here", json_string(here ? here : ""));
		json_object_set_new(cf, "policy", json_string(pick ? pick->policy : DEFAULT_POLICY));
		json_object_set_new(cf, "entry", pick ? json_integer((json_int_t)pick->index) : json_null());
		json_object_set_new(o, "config", cf);
		json_object_set_new(o, "kernel", json_string(k.release));
		json_object_set_new(o, "landlock_abi", json_integer(k.landlock_abi));
		if (!k.landlock_abi)
			json_object_set_new(o, "landlock_error", json_string(strerror(k.landlock_errno)));
		json_object_set_new(o, "seccomp", json_boolean(k.seccomp));
		json_object_set_new(o, "mount_api", json_boolean(k.mount_api));
		json_object_set_new(o, "root", json_boolean(k.root_admin));
		json_object_set_new(o, "apparmor_restrict_unprivileged_userns",
				    json_boolean(k.apparmor_restrict));
		json_t *ns = json_object();
		for (size_t i = 0; i < sizeof ns_kinds / sizeof ns_kinds[0]; i++)
			json_object_set_new(ns, ns_kinds[i].name,
					    ns_err[i] ? json_string(strerror(ns_err[i])) : json_true());
		json_object_set_new(o, "namespaces", ns);
		if (!k.userns && !k.root_admin) {
			json_object_set_new(o, "userns_problem", json_string(k.userns_why));
			json_object_set_new(o, "userns_fix", json_string(k.userns_fix));
		}
		json_t *m = json_object(), *pf = json_object();
		for (size_t i = 0; i < nall; i++) {
			struct strv gaps = {0};
			layers_gaps_policy(&k, ns_ok, &modes[i].pol, &gaps);
			json_t *arr = json_array();
			for (size_t g = 0; g < gaps.n; g++)
				json_array_append_new(arr, json_string(gaps.v[g]));
			json_t *one = json_object();
			json_object_set_new(one, "enforced", json_boolean(gaps.n == 0));
			json_object_set_new(one, "weaker", arr);
			json_object_set_new(i < nmodes ? m : pf, modes[i].key, one);
			strv_free(&gaps);
		}
		json_object_set_new(o, "modes", m);
		json_object_set_new(o, "policies_with", pf);
		char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		puts(s);
		free(s);
		json_decref(o);
		userconfig_free(&ucfg);
		free(here);
		return rc;
	}

	printf("kernel:        %s\n", k.release);
	if (k.landlock_abi)
		printf("landlock:      ABI %d\n", k.landlock_abi);
	else
		printf("landlock:      unavailable (%s)\n", strerror(k.landlock_errno));
	printf("seccomp:       %s\n", k.seccomp ? "yes" : "no");
	printf("mount API:     %s\n", k.mount_api ? "yes" : "no (Linux 5.12 or newer needed)");
	printf("running as:    %s\n", k.root_admin ? "root (no user namespace needed)" : "unprivileged user");
	printf("apparmor userns restriction: %s\n", k.apparmor_restrict ? "on" : "off");
	for (size_t i = 0; i < sizeof ns_kinds / sizeof ns_kinds[0]; i++)
		printf("namespace %-8s %s\n", ns_kinds[i].name,
		       ns_err[i] ? strerror(ns_err[i]) : "yes");
	if (!k.userns && !k.root_admin)
		printf("problem:       %s\nfix:           %s\n", k.userns_why, k.userns_fix);
	for (size_t i = 0; i < nall; i++) {
		struct strv gaps = {0};
		layers_gaps_policy(&k, ns_ok, &modes[i].pol, &gaps);
		printf("%s %s: %s\n", i < nmodes ? "mode" : "policy with", modes[i].mode,
		       gaps.n ? "weaker here (refused unless --best-effort):" : "fully enforced");
		for (size_t g = 0; g < gaps.n; g++)
			printf("  - %s\n", gaps.v[g]);
		strv_free(&gaps);
	}
	if (!ucfg.file)
		printf("config:        none (no home directory)\n");
	else if (!ucfg.found)
		printf("config:        %s: none\n", ucfg.file);
	else if (!cfg_ok)
		printf("config:        %s: INVALID, no session starts until it is fixed:\n", ucfg.file);
	else
		printf("config:        %s: %zu director%s\n", ucfg.file, ucfg.n,
		       ucfg.n == 1 ? "y" : "ies");
	for (size_t i = 0; i < ucfg.errors.n; i++)
		printf("  - %s\n", ucfg.errors.v[i]);
	if (cfg_ok && here)
		printf("policy here:   %s (%s%s%s)\n", pick ? pick->policy : DEFAULT_POLICY,
		       pick ? pick->where : "the default", pick ? ": " : "", pick ? pick->path : "");
	userconfig_free(&ucfg);
	free(here);
	return rc;
}
