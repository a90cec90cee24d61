#!/usr/bin/env bats
# The inline programs are single-quoted on purpose.
# shellcheck disable=SC2016
# A fourth red team's findings, each judged outside the sandbox.
#  1. A place of the list (~/.bashrc, ~/.cargo) reached through a link in
#     the workspace, which the session re-aims through /proc/self/cwd:
#     the end resolved the place with the supervisor's working directory,
#     the user's tool later with its own, so the end looked at one file
#     and the tool read another that the session planted. The same for
#     $XDG_CONFIG_HOME in the workspace, replaced by such a link, and
#     for a place whose directory, missing at the start, the session made
#     such a link: the end took it as unchanged (missing again).
#     Likewise a protected path missing at the start, reached through
#     such a link (plan_check_absent looked only where the end runs).
#  (Held: a nested .git file whose gitdir goes through /proc/self/cwd.)

load ../lib/common
load escape_helpers

setup() {
	esc_setup
	PWNED=$OUT/pwned
	export XDG_STATE_HOME=$OUT/state
}

teardown() {
	escape_cleanup
	common_teardown
}

@test "redteam4: a startup file linked through the workspace, re-aimed through /proc/self/cwd, does not stay live" {
	local home=$OUT/home
	# bash outside, started by the user in a directory of the workspace.
	linked_bashrc "$home" "$WS/proj"
	# The session (started in the workspace's top) leaves a harmless .r
	# where it runs and the real one where the user's tool will run.
	HOME=$home sbx sh -c 'echo : >"$2/.r" && echo "touch $1" >"$2/proj/.r" &&
		ln -sfn /proc/self/cwd/.r "$2/link"' _ "$PWNED" "$WS"
	bash_outside
	not_pwned "bash outside ran a .bashrc the session re-aimed through /proc/self/cwd"
}

@test "redteam4: a tool's directory linked through the workspace, re-aimed through /proc/self/cwd, does not stay live" {
	local home=$OUT/home
	mkdir -p "$home" "$WS/proj"
	ln -s "$OUT/nowhere" "$WS/c"
	ln -s "$WS/c" "$home/.cargo"
	aged
	# Nothing named x where the session starts: the end finds no
	# ~/.cargo/config; cargo run in proj would.
	HOME=$home sbx sh -c 'mkdir "$1/proj/x" && echo "[alias]" >"$1/proj/x/config" &&
		ln -sfn /proc/self/cwd/x "$1/c"' _ "$WS"
	if (cd "$WS/proj" && [ -e "$home/.cargo/config" ]); then
		echo "ESCAPE: a ~/.cargo/config planted through /proc/self/cwd stayed"
		false
	fi
}

@test "redteam4: a nested .git file naming its git directory through /proc/self/cwd does not stay live" {
	command -v git >/dev/null || skip "git is not installed"
	mkdir -p "$WS/sub" "$OUT/san"
	# Sanity: git outside takes a git directory named so.
	(cd "$OUT/san" && git init -q g2 && mv g2/.git g && rmdir g2 &&
		printf "[core]\n\tfsmonitor = \"touch %s; false\"\n" "$PWNED" >>g/config &&
		echo "gitdir: /proc/self/cwd/g" >.git &&
		env -i PATH=/usr/bin:/bin HOME="$OUT" GIT_CONFIG_NOSYSTEM=1 git status --short) >/dev/null 2>&1 || true
	[ -e "$PWNED" ]
	rm -f "$PWNED"
	git_outside() { (cd "$WS/sub" && env -i PATH=/usr/bin:/bin HOME="$OUT" GIT_CONFIG_NOSYSTEM=1 git status --short) >/dev/null 2>&1 || true; }
	aged
	sbx sh -c 'cd sub && git init -q g2 && mv g2/.git g && rmdir g2 &&
		printf "[core]\n\tfsmonitor = \"touch %s; false\"\n" "$1" >>g/config &&
		echo "gitdir: /proc/self/cwd/g" >.git' _ "$PWNED"
	git_outside
	not_pwned "git outside ran the fsmonitor of a git directory named through /proc/self/cwd"
}

@test "redteam4: \$XDG_CONFIG_HOME in the workspace, replaced by a link through /proc/self/cwd, keeps no planted config" {
	command -v curl >/dev/null || skip "curl is not installed"
	local cfg=$WS/cfg
	mkdir -p "$cfg" "$WS/proj"
	curl_outside() { (cd "$WS/proj" && env -i PATH=/usr/bin:/bin HOME="$OUT" XDG_CONFIG_HOME="$cfg" curl -s "file://$OUT/f" >/dev/null 2>&1) || true; }
	aged
	XDG_CONFIG_HOME=$cfg sbx sh -c 'mv cfg cfg.old && ln -s /proc/self/cwd/c2 cfg && mkdir -p proj/c2 &&
		printf "output = \"%s\"\n" "$1" >proj/c2/.curlrc' _ "$PWNED"
	curl_outside
	not_pwned "curl outside took a .curlrc planted through \$XDG_CONFIG_HOME re-aimed through /proc/self/cwd"
}

@test "redteam4: \$XDG_CONFIG_HOME as the workspace: a place's directory made a link through /proc/self/cwd does not stay" {
	mkdir -p "$WS/proj"
	aged
	# zsh/.zshenv (where a .zshenv points $ZDOTDIR) is missing at the
	# start, its directory too: the end finds it missing again where it
	# runs, not where the user's zsh will.
	XDG_CONFIG_HOME=$WS sbx sh -c 'ln -s /proc/self/cwd/z zsh && mkdir -p proj/z &&
		echo "touch $1" >proj/z/.zshenv' _ "$PWNED"
	if (cd "$WS/proj" && [ -e "$WS/zsh/.zshenv" ]); then
		echo "ESCAPE: a zsh/.zshenv planted in \$XDG_CONFIG_HOME through /proc/self/cwd stayed"
		false
	fi
}

@test "redteam4: an absent protected path reached through a link the session aims through /proc/self/cwd does not stay" {
	mkdir -p "$WS/proj"
	printf '{"extends": "workspace-write", "filesystem": {"protect": ["%s/sub/x"]}}\n' "$WS" >"$OUT/absent.json"
	sbx_opts --policy "$OUT/absent.json" -- sh -c 'ln -s /proc/self/cwd/s2 sub && mkdir -p proj/s2 &&
		echo planted >proj/s2/x'
	# What a program in proj, outside, finds at the protected path.
	if (cd "$WS/proj" && [ -e "$WS/sub/x" ]); then
		echo "ESCAPE: a protected path made through /proc/self/cwd stayed"
		false
	fi
}
