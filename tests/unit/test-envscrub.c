#include "config.h"
#include "envscrub.h"
#include "policy.h"
#include "tap.h"

static const char *const pats[] = {"*_TOKEN", "AWS_*", NULL};

int main(void)
{
	const char *secret[] = {"GITHUB_TOKEN", "NPM_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE",
				"MY_SECRET", "DB_PASSWORD", "OPENAI_API_KEY", "SSH_AUTH_SOCK",
				"github_token", "ANTHROPIC_API_KEY", "DBUS_SESSION_BUS_ADDRESS",
				"STRIPE_SECRET_KEY", "GOOGLE_APPLICATION_CREDENTIALS",
				/* issue 13 */
				"DATABASE_URL", "REPLICA_DATABASE_URL", "PGPASSWORD", "MYSQL_PWD",
				"GITHUB_PAT", "PASSWORD", "PRIVATE_KEY", "SECRET_KEY_BASE", "OPENAI_KEY",
				"SLACK_WEBHOOK_URL", "OP_SESSION_my", "OP_SESSION_team_x", NULL};
	const char *plain[] = {"PATH", "HOME", "TERM", "LANG", "EDITOR", "SHELL", "USER",
			       "LD_LIBRARY_PATH", "XDG_RUNTIME_DIR", "TOKENIZERS_PARALLELISM",
			       "PWD", "OLDPWD", "MANPATH", "PKG_CONFIG_PATH", "DISPLAY", "KEYTIMEOUT",
			       "HOMEPAGE_URL", "OPTIND", NULL};
	/* The patterns of the built-in policies (policies/read-only.json). */
	struct wk_policy_ctx ctx = {.vars = {.cwd = "/w", .home = "/h", .tmpdir = "/tmp",
					     .runtime_dir = "/r"}};
	struct wk_policy wp;
	ok(wk_policy_load(&ctx, "read-only", &wp) == 0 && wp.env_unset.n > 0,
	   "the built-in patterns load");
	const char *const *defaults = (const char *const *)wp.env_unset.v;
	for (int i = 0; secret[i]; i++)
		ok(envscrub_match(secret[i], defaults), "%s is scrubbed", secret[i]);
	for (int i = 0; plain[i]; i++)
		ok(!envscrub_match(plain[i], defaults), "%s is kept", plain[i]);

	ok(glob_match_ci("*_TOKEN", "X_TOKEN"), "glob suffix");
	ok(!glob_match_ci("*_TOKEN", "X_TOKENS"), "glob suffix is anchored");
	ok(glob_match_ci("A*B*C", "AxxBxxBxC"), "glob backtracks");
	ok(!glob_match_ci("A*B*C", "AxxBxxBx"), "glob fails without C");
	ok(glob_match_ci("a?c", "ABC"), "? and case folding");
	ok(glob_match_ci("*", ""), "star matches empty");
	ok(!glob_match_ci("", "x"), "empty pattern matches only empty");
	char a[] = "PATH=/bin", b[] = "GH_TOKEN=x", c[] = "AWS_REGION=eu", d[] = "HOME=/h",
	     e[] = "NOEQUALS";
	char *env[] = {a, b, c, d, e, NULL};
	int removed = envscrub_filter(env, pats);
	ok(removed == 2, "filter removed %d (want 2)", removed);
	is_str(env[0], "PATH=/bin", "order kept 0");
	is_str(env[1], "HOME=/h", "order kept 1");
	is_str(env[2], "NOEQUALS", "entry without = kept");
	ok(env[3] == NULL, "terminated");

	char f[] = "WICKET_FD=9", g[] = "WICKET_FD_X=1", h[] = "WICKET_FD=10", i2[] = "WICKET_F=2",
	     j[] = "PATH=/bin";
	char *env2[] = {f, g, h, i2, j, NULL};
	size_t n = env_unset(env2, "WICKET_FD");
	ok(n == 3, "env_unset left %zu (want 3)", n);
	is_str(env2[0], "WICKET_FD_X=1", "a longer name is another variable");
	is_str(env2[1], "WICKET_F=2", "a shorter name is another variable");
	is_str(env2[2], "PATH=/bin", "others kept, in order");
	ok(env2[3] == NULL, "env_unset terminates");
	n = env_unset(env2, "PATH=/usr/bin");
	ok(n == 2 && env2[2] == NULL, "a NAME=value argument unsets NAME");
	return done_testing();
}
