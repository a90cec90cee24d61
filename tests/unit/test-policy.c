/* Unit tests of the policy loader: parsing, layering along "extends",
 * variables, and the exact text of the validation messages. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "tap.h"

static char tmpdir[] = "/tmp/wk-policy-test-XXXXXX";

static struct wk_policy_ctx ctx_for(void)
{
	static const char *search[2];
	static char dir[64];
	snprintf(dir, sizeof dir, "%s/search", tmpdir);
	search[0] = dir;
	search[1] = NULL;
	struct wk_policy_ctx c = {
		.vars = {.cwd = "/work/proj", .home = "/home/u", .tmpdir = "/tmp",
			 .runtime_dir = "/run/user/1000"},
		.search = search,
		.check_owner = true,
		.follow_files = true,
	};
	return c;
}

/* Parse JSON as "t.json"; return all errors joined by "\n" (or NULL). */
static char *errors_of(const char *json)
{
	struct wk_policy_ctx c = ctx_for();
	struct wk_policy p;
	int r = wk_policy_load_buffer(&c, "t.json", json, strlen(json), &p);
	char *out = NULL;
	if (r < 0) {
		size_t len = 1;
		for (size_t i = 0; i < c.errors.n; i++)
			len += strlen(c.errors.v[i]) + 1;
		out = calloc(1, len);
		for (size_t i = 0; i < c.errors.n; i++) {
			if (i)
				strcat(out, "\n");
			strcat(out, c.errors.v[i]);
		}
	} else {
		wk_policy_free(&p);
	}
	wk_policy_ctx_free(&c);
	return out;
}

static void write_file(const char *rel, const char *content, mode_t mode)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(content, f);
	fclose(f);
	chmod(path, mode);
}

static void expect_error(const char *json, const char *want, const char *what)
{
	char *got = errors_of(json);
	is_str(got, want, "error: %s", what);
	free(got);
}

static int has_path(const struct wk_rules *r, const char *path)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].path, path) == 0)
			return 1;
	return 0;
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	char sub[128];
	snprintf(sub, sizeof sub, "%s/search", tmpdir);
	mkdir(sub, 0755);

	/* --- built-ins --- */
	struct wk_policy_ctx c = ctx_for();
	struct wk_policy p;
	ok(wk_policy_load(&c, "workspace-write", &p) == 0, "workspace-write loads");
	ok(p.sandbox, "workspace-write is a sandbox");
	is_str(p.tmp_size, "25%", "tmp_size defaults to a quarter of RAM");
	{
		const char *good[] = {"1", "4096", "4k", "512M", "2g", "1%", "25%", "100%", NULL};
		const char *bad[] = {"", "0", "04k", "-1", "1.5g", "4x", "4kb", "101%", "0%",
				     "1234567890123", "g", "%", " 1g", NULL};
		for (int i = 0; good[i]; i++)
			ok(wk_tmp_size_ok(good[i]), "tmp_size \"%s\" is accepted", good[i]);
		for (int i = 0; bad[i]; i++)
			ok(!wk_tmp_size_ok(bad[i]), "tmp_size \"%s\" is refused", bad[i]);
	}
	ok(has_path(&p.write, "/work/proj"), "${cwd} is writable");
	ok(has_path(&p.read, "/"), "read / from read-only");
	ok(has_path(&p.hide, "/home/u/.ssh"), "~/.ssh hidden (inherited, ~ expanded)");
	ok(has_path(&p.protect, "/work/proj/.git/hooks"), ".git/hooks protected");
	ok(p.net == WK_NET_NONE, "network none");
	ok(p.chain.n == 2 && strcmp(p.chain.v[0], "built-in read-only") == 0 &&
		   strcmp(p.chain.v[1], "built-in workspace-write") == 0,
	   "chain is base first");
	ok(p.env_unset.n > 10, "secret patterns inherited");
	ok(p.esc_mode == WK_ESC_PROMPT && p.esc_timeout == 120, "escalation defaults");
	wk_policy_free(&p);

	ok(wk_policy_load(&c, "read-only", &p) == 0 && p.write.n == 0, "read-only writes nothing");
	wk_policy_free(&p);
	ok(wk_policy_load(&c, "workspace-write-strict", &p) == 0 &&
		   has_path(&p.protect, "/work/proj/.git") && has_path(&p.write, "/work/proj"),
	   "strict protects all of .git");
	wk_policy_free(&p);
	ok(wk_policy_load(&c, "full-access", &p) == 0 && !p.sandbox && p.net == WK_NET_FULL &&
		   p.hide.n == 0 && p.env_unset.n == 0,
	   "full-access: no sandbox, network, nothing hidden or scrubbed");
	wk_policy_free(&p);
	for (size_t i = 0; wk_builtins[i].name; i++) {
		ok(wk_policy_load(&c, wk_builtins[i].name, &p) == 0 && p.description &&
			   p.description[0],
		   "built-in %s loads and has a description", wk_builtins[i].name);
		wk_policy_free(&p);
	}
	wk_policy_ctx_free(&c);

	/* --- extends and layering --- */
	write_file("base.json",
		   "{\"extends\": \"workspace-write\", \"filesystem\": {\"write\": [\"${home}/.npm\"]},"
		   " \"env\": {\"set\": {\"A\": \"1\", \"B\": \"${cwd}/b\"}},"
		   " \"network\": {\"mode\": \"ports\", \"connect\": [5432]}}",
		   0644);
	write_file("child.json",
		   "{\"extends\": \"base.json\", \"description\": \"child\","
		   " \"env\": {\"set\": {\"A\": \"2\"}, \"unset\": [\"MY_*\"]},"
		   " \"network\": {\"connect\": [443, 5432], \"bind\": [8080], \"udp\": true}}",
		   0644);
	char child[256];
	snprintf(child, sizeof child, "%s/child.json", tmpdir);
	c = ctx_for();
	int r = wk_policy_load(&c, child, &p);
	ok(r == 0, "a chain of files loads");
	if (r < 0)
		for (size_t i = 0; i < c.errors.n; i++)
			printf("# %s\n", c.errors.v[i]);
	if (r == 0) {
		ok(p.chain.n == 4, "chain: read-only, workspace-write, base, child (%zu)", p.chain.n);
		ok(has_path(&p.write, "/work/proj") && has_path(&p.write, "/home/u/.npm"),
		   "write lists append along the chain");
		ok(p.net == WK_NET_PORTS && p.connect.n == 2 && p.connect.v[0] == 5432 &&
			   p.connect.v[1] == 443 && p.bind.n == 1 && p.bind.v[0] == 8080 && p.udp,
		   "ports append, duplicates dropped; the mode is inherited; udp set by the child");
		int a2 = 0, b = 0;
		for (size_t i = 0; i < p.env_set.n; i++) {
			a2 += strcmp(p.env_set.v[i], "A=2") == 0;
			b += strcmp(p.env_set.v[i], "B=/work/proj/b") == 0;
		}
		ok(a2 == 1 && b == 1 && p.env_set.n == 2, "env.set merges by name, the child wins");
		ok(strcmp(p.env_unset.v[p.env_unset.n - 1], "MY_*") == 0, "env.unset appends");
		is_str(p.description, "child", "description is replaced");
		wk_policy_free(&p);
	}
	wk_policy_ctx_free(&c);

	/* Unset, read is everything; set, it is what it says. */
	{
		struct wk_policy_ctx c2 = ctx_for();
		const char *j = "{\"filesystem\": {\"write\": [\"/w\"]}}";
		ok(wk_policy_load_buffer(&c2, "s.json", j, strlen(j), &p) == 0 && p.read.n == 1 &&
			   has_path(&p.read, "/"),
		   "a policy that sets no read (and extends none) reads \"/\"");
		wk_policy_free(&p);
		j = "{\"filesystem\": {\"read\": []}}";
		ok(wk_policy_load_buffer(&c2, "e.json", j, strlen(j), &p) == 0 && p.read.n == 0,
		   "an explicit empty read list stays empty");
		wk_policy_free(&p);
		wk_policy_ctx_free(&c2);
	}

	/* filesystem.read is the list that replaces. */
	write_file("narrow.json",
		   "{\"extends\": \"workspace-write\", \"filesystem\": {\"read\": [\"/usr\", \"${cwd}\"]}}",
		   0644);
	char narrow[256];
	snprintf(narrow, sizeof narrow, "%s/narrow.json", tmpdir);
	c = ctx_for();
	r = wk_policy_load(&c, narrow, &p);
	ok(r == 0 && p.read.n == 2 && !has_path(&p.read, "/") && has_path(&p.read, "/usr") &&
		   has_path(&p.read, "/work/proj") && has_path(&p.write, "/work/proj"),
	   "a child's read list replaces the inherited \"/\"; the rest still layers");
	if (r == 0)
		wk_policy_free(&p);
	wk_policy_ctx_free(&c);

	/* A user file that shadows a built-in and extends it by name. */
	write_file("search/workspace-write.json",
		   "{\"extends\": \"workspace-write\", \"filesystem\": {\"write\": [\"/srv/x\"]}}",
		   0644);
	c = ctx_for();
	r = wk_policy_load(&c, "workspace-write", &p);
	ok(r == 0 && has_path(&p.write, "/srv/x") && has_path(&p.write, "/work/proj") &&
		   p.chain.n == 3,
	   "NAME.json extending NAME refines the built-in");
	if (r == 0)
		wk_policy_free(&p);
	/* ...and the built-in workspace-write-strict still means the built-in. */
	r = wk_policy_load(&c, "workspace-write-strict", &p);
	ok(r == 0 && !has_path(&p.write, "/srv/x"), "built-ins extend built-ins only");
	if (r == 0)
		wk_policy_free(&p);
	wk_policy_ctx_free(&c);

	/* --- exact messages --- */
	expect_error("{\"filesystem\": {\"write\": [\"/a\", \"build\"]}}",
		     "t.json: /filesystem/write/1: relative path \"build\"; write an absolute path "
		     "or ${cwd}/build",
		     "relative path");
	expect_error("{\"filesystem\": {\"write\": [\"/a\", 3]}}",
		     "t.json: /filesystem/write/1: expected a path (a string), got an integer",
		     "non-string entry");
	expect_error("{\"filesystem\": {\"write\": \"/a\"}}",
		     "t.json: /filesystem/write: expected an array of paths, got a string",
		     "list expected");
	expect_error("{\"filesystm\": {}}",
		     "t.json: /filesystm: unknown key \"filesystm\"; did you mean \"filesystem\"?",
		     "unknown key with a suggestion");
	expect_error("{\"zzz\": 1}",
		     "t.json: /zzz: unknown key \"zzz\" (known here: extends, description, sandbox, "
		     "filesystem, network, env, escalation)",
		     "unknown key without a suggestion");
	expect_error("{\"network\": {\"mode\": \"some\"}}",
		     "t.json: /network/mode: unknown mode \"some\"; expected \"none\", \"full\", "
		     "\"ports\" or \"domains\"",
		     "bad network mode");
	/* Network mode "domains": names, patterns, addresses, fixed names. */
	{
		struct wk_policy_ctx dc = ctx_for();
		struct wk_policy dp;
		const char *j = "{\"network\": {\"mode\": \"domains\", \"allow\": [\"Pypi.org\", "
				"\"*.github.com\", \"pypi.org\"], \"deny\": [\"gist.github.com\"], "
				"\"allow_addresses\": [\"127.0.0.1\", \"::FFFF:10.0.0.1\"], "
				"\"hosts\": {\"Reg.Test.\": \"127.0.0.1\"}}}";
		ok(wk_policy_load_buffer(&dc, "t.json", j, strlen(j), &dp) == 0 &&
			   dp.net == WK_NET_DOMAINS && dp.domains_allow.n == 3 &&
			   dp.domains_deny.n == 1 && dp.allow_addresses.n == 2 &&
			   strcmp(dp.allow_addresses.v[1], "::ffff:10.0.0.1") == 0 && dp.hosts.n == 1 &&
			   strcmp(dp.hosts.v[0], "reg.test=127.0.0.1") == 0,
		   "domains: lists kept, addresses and names canonical");
		wk_policy_free(&dp);
		wk_policy_ctx_free(&dc);
	}
	expect_error("{\"network\": {\"mode\": \"domains\", \"allow\": [\"*\", \"*.com\", "
		     "\"10.0.0.1\", 5]}}",
		     "t.json: /network/allow/0: \"*\" is not a name or \"*.\" and a name: a bare '*' "
		     "would allow every name\n"
		     "t.json: /network/allow/1: \"*.com\" is not a name or \"*.\" and a name: a "
		     "wildcard over a whole top-level domain (name at least two labels after \"*.\")\n"
		     "t.json: /network/allow/2: \"10.0.0.1\" is an address: addresses go in "
		     "\"allow_addresses\"\n"
		     "t.json: /network/allow/3: expected a name (a string), got an integer",
		     "domains: bad patterns");
	expect_error("{\"network\": {\"mode\": \"domains\", \"allow_addresses\": "
		     "[\"10.0.0.0/8\"], \"hosts\": {\"a..b\": \"1.2.3.4\"}}}",
		     "t.json: /network/allow_addresses/0: \"10.0.0.0/8\" is not an IPv4 or IPv6 "
		     "address (one address each, no ranges)\n"
		     "t.json: /network/hosts/a..b: \"a..b\" is not a name: an empty label",
		     "domains: bad addresses and hosts");
	expect_error("{\"network\": {\"mode\": \"none\", \"allow\": [\"a.org\"]}}",
		     "t.json: names or addresses for the proxy are listed but the network mode is "
		     "\"none\"; they need \"mode\": \"domains\"",
		     "domains: lists without the mode");
	expect_error("{\"network\": {\"mode\": \"ports\", \"connect\": [70000]}}",
		     "t.json: /network/connect/0: port 70000 out of range (1-65535)",
		     "port out of range");
	expect_error("{\"network\": {\"mode\": \"ports\", \"bind\": [\"80\"]}}",
		     "t.json: /network/bind/0: expected a port number (an integer), got a string",
		     "port not a number");
	expect_error("{\"network\": {\"connect\": [443]}}",
		     "t.json: network ports are listed but the network mode is \"none\"; ports need "
		     "\"mode\": \"ports\"",
		     "ports without ports mode");
	expect_error("{\"filesystem\": {\"write\": [\"${home}/x\"], \"hide\": [\"~/x\"]}}",
		     "t.json: /filesystem/write/0: \"/home/u/x\" is writable, but t.json: "
		     "/filesystem/hide/0 hides it; a path cannot be both",
		     "write and hide contradict");
	expect_error("{\"filesystem\": {\"read\": [\"${nope}/x\"]}}",
		     "t.json: /filesystem/read/0: unknown variable ${nope} in \"${nope}/x\" (known: "
		     "${cwd}, ${home}, ${tmpdir}, ${runtime_dir})",
		     "unknown variable");
	expect_error("{\"filesystem\": {\"read\": [\"${cwd\"]}}",
		     "t.json: /filesystem/read/0: unterminated variable in \"${cwd\"",
		     "unterminated variable");
	expect_error("{\"filesystem\": {\"hide\": [\"~bob/.ssh\"]}}",
		     "t.json: /filesystem/hide/0: \"~bob/.ssh\": ~user is not supported; write "
		     "${home}/... or an absolute path",
		     "~user");
	expect_error("{\"filesystem\": {\"write\": [\"/a\"]},\n \"network\": {\"mode\": }}",
		     "t.json:2:22: syntax error: unexpected token near '}'", "syntax error");
	expect_error("{\"a\": 1, \"a\": 2}",
		     "t.json:1:12: syntax error: duplicate object key near '\"a\"'", "duplicate key");
	expect_error("[1]", "t.json: /: expected an object, got an array", "not an object");
	expect_error("{\"env\": {\"set\": {\"1X\": \"v\"}}}",
		     "t.json: /env/set/1X: \"1X\" is not a valid variable name", "bad env name");
	expect_error("{\"env\": {\"set\": {\"X\": 1}}}",
		     "t.json: /env/set/X: expected a string value, got an integer", "env value type");
	expect_error("{\"env\": {\"set\": {\"WICKET_POLICY\": \"x\"}}}",
		     "t.json: /env/set/WICKET_POLICY: WICKET_POLICY is set by wicket itself",
		     "reserved variable");
	expect_error("{\"escalation\": {\"mode\": \"approver\"}}",
		     "t.json: escalation mode \"approver\" needs \"approver\": the path of the "
		     "program that decides",
		     "approver without a program");
	expect_error("{\"escalation\": {\"timeout\": 0}}",
		     "t.json: /escalation/timeout: expected a number of seconds from 1 to 86400",
		     "timeout range");
	expect_error("{\"escalation\": {\"allow\": [[\"git\", 1]]}}",
		     "t.json: /escalation/allow/0/1: expected an argument (a string), got an integer",
		     "argv prefix entry");
	expect_error("{\"escalation\": {\"deny\": [\"rm\"]}}",
		     "t.json: /escalation/deny/0: expected a command: a non-empty array of strings "
		     "like [\"git\", \"status\"], or an object {\"argv\": [...], \"cwd\": "
		     "\"${cwd}\"}, got a string",
		     "argv rule shape");
	expect_error("{\"escalation\": {\"allow\": [[\"*\", \"x\"]]}}",
		     "t.json: /escalation/allow/0/0: the first element names the program; it cannot "
		     "be a wildcard",
		     "no wildcard program");
	expect_error("{\"escalation\": {\"allow\": [[\"git\", \"**\", \"x\"]]}}",
		     "t.json: /escalation/allow/0/1: \"**\" (any further arguments) can only be the "
		     "last element; write \"\\\\**\" for a literal **",
		     "rest form only last");
	expect_error("{\"escalation\": {\"allow\": [{\"argv\": [\"git\"], \"cwd\": \"rel\", "
		     "\"x\": 1}]}}",
		     "t.json: /escalation/allow/0/x: unknown key \"x\" (known here: argv, cwd, stdin, grant)\n"
		     "t.json: /escalation/allow/0/cwd: relative path \"rel\"; write an absolute path "
		     "or ${cwd}/rel",
		     "object rule: unknown key, relative cwd");
	expect_error("{\"escalation\": {\"allow\": [{\"cwd\": \"/\"}]}}",
		     "t.json: /escalation/allow/0/argv: expected a command: a non-empty array of "
		     "strings like [\"git\", \"status\"], or an object {\"argv\": [...], \"cwd\": "
		     "\"${cwd}\"}, got nothing (the key is missing)",
		     "object rule without argv");
	expect_error("{\"escalation\": {\"allow\": [{\"argv\": [\"git\"], \"grant\": "
		     "{\"write\": [\"rel\"]}}]}}",
		     "t.json: /escalation/allow/0/grant: --write rel: not an absolute path",
		     "a rule's grant: paths absolute");
	expect_error("{\"escalation\": {\"deny\": [{\"argv\": [\"git\"], \"grant\": {}}]}}",
		     "t.json: /escalation/deny/0/grant: \"grant\" belongs in an allow rule (a deny "
		     "rule refuses the command whatever it would be granted)",
		     "no grant in a deny rule");
	expect_error("{\"escalation\": {\"allow\": [{\"argv\": [\"wc\"], \"stdin\": 1}], "
		     "\"deny\": [{\"argv\": [\"rm\"], \"stdin\": true}]}}",
		     "t.json: /escalation/allow/0/stdin: expected true or false, got an integer\n"
		     "t.json: /escalation/deny/0/stdin: \"stdin\" belongs in an allow rule (a deny "
		     "rule refuses the command whatever its input)",
		     "object rule: stdin a boolean, and only in an allow rule");
	{
		struct wk_policy_ctx oc = ctx_for();
		struct wk_policy op;
		const char *j = "{\"escalation\": {\"allow\": [[\"git\", \"status\"], "
				"{\"argv\": [\"make\", \"*\"], \"cwd\": \"${cwd}/sub/..\", "
				"\"stdin\": true}]}}";
		int or = wk_policy_load_buffer(&oc, "t.json", j, strlen(j), &op);
		ok(or == 0 && op.esc_allow.n == 2 && !op.esc_allow.v[0].cwd &&
			   op.esc_allow.v[1].cwd && strcmp(op.esc_allow.v[1].cwd, "/work/proj") == 0 &&
			   op.esc_allow.v[1].argv.n == 2,
		   "object rule: argv and a cwd, expanded and normalised");
		ok(or == 0 && !op.esc_allow.v[0].stdin && op.esc_allow.v[1].stdin,
		   "object rule: \"stdin\": true, and off by default");
		if (or == 0)
			wk_policy_free(&op);
		wk_policy_ctx_free(&oc);
	}
	char want[512];
	snprintf(want, sizeof want,
		 "t.json: /extends: no policy named \"nosuch\" (searched %s/search, the "
		 "built-ins: full-access, read-only, workspace-write, workspace-write-strict)",
		 tmpdir);
	expect_error("{\"extends\": \"nosuch\"}", want, "unknown extends");
	expect_error("{\"sandbox\": false, \"filesystem\": {\"write\": [\"/a\"]}}",
		     "t.json: /sandbox: \"sandbox\": false means no sandbox at all; it cannot be "
		     "combined with filesystem rules or a network mode other than \"full\"",
		     "full access with rules");
	expect_error("{\"env\": {\"unset\": [\"A-B\"]}}",
		     "t.json: /env/unset/0: \"A-B\" is not a variable name pattern (letters, digits, "
		     "_, * and ?)",
		     "bad env.unset pattern");
	expect_error("{\"filesystem\": {\"write\": [\"/h/x/y\"], \"hide\": [\"/h/x\"]}}",
		     "t.json: /filesystem/write/0: \"/h/x/y\" is writable, but t.json: "
		     "/filesystem/hide/0 hides a parent of it; a path cannot be both",
		     "write inside hide");
	expect_error("{\"network\": {\"udp\": \"yes\"}}",
		     "t.json: /network/udp: expected true or false, got a string", "udp type");
	expect_error("{\"a~b/c\": 1}",
		     "t.json: /a~0b~1c: unknown key \"a~b/c\" (known here: extends, description, "
		     "sandbox, filesystem, network, env, escalation)",
		     "pointer escaping");

	/* Several errors are all reported. */
	char *all = errors_of("{\"filesystem\": {\"write\": [\"a\", \"b\"]}, \"network\": 3}");
	int lines = 0;
	for (char *q = all; q && *q; q++)
		lines += *q == '\n';
	ok(all && lines == 2, "three errors, all reported");
	free(all);

	/* --- cycles and files --- */
	write_file("a.json", "{\"extends\": \"b.json\"}", 0644);
	write_file("b.json", "{\"extends\": \"a.json\"}", 0644);
	char a[256];
	snprintf(a, sizeof a, "%s/a.json", tmpdir);
	c = ctx_for();
	ok(wk_policy_load(&c, a, &p) < 0 && c.errors.n == 1 && strstr(c.errors.v[0], "cycle"),
	   "an extends cycle is an error");
	if (c.errors.n)
		printf("# %s\n", c.errors.v[0]);
	wk_policy_ctx_free(&c);

	write_file("loose.json", "{}", 0666);
	char loose[256];
	snprintf(loose, sizeof loose, "%s/loose.json", tmpdir);
	c = ctx_for();
	ok(wk_policy_load(&c, loose, &p) < 0 && c.errors.n == 1 &&
		   strstr(c.errors.v[0], "writable by everyone (mode 0666); refusing it"),
	   "a world-writable policy is refused");
	wk_policy_ctx_free(&c);
	write_file("group.json", "{}", 0664);
	snprintf(loose, sizeof loose, "%s/group.json", tmpdir);
	c = ctx_for();
	ok(wk_policy_load(&c, loose, &p) < 0 && c.errors.n == 1 &&
		   strstr(c.errors.v[0], "writable by its group (mode 0664)"),
	   "a group-writable policy is refused");
	wk_policy_ctx_free(&c);

	ok(wk_policy_is_name("workspace-write") && !wk_policy_is_name("./x") &&
		   !wk_policy_is_name("x.json") && !wk_policy_is_name(".hidden") &&
		   !wk_policy_is_name("a/b"),
	   "names and files told apart");

	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		printf("# cleanup failed\n");
	return done_testing();
}
