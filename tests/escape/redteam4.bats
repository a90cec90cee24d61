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

# And a fifth red team's findings, each judged outside the sandbox.
#  1. The end's look for a way through /proc (plan_way_through_proc)
#     gave up, as "no way through /proc", where the path it had resolved
#     so far grew past PATH_MAX: the kernel has no such bound on where a
#     path leads (only on each name and link), so a link in the workspace
#     aimed at a deep directory chain that ends in a link through
#     /proc/self/cwd kept a tool's place, or a protected path missing at
#     the start, live for a program started in another directory.
#  2. A protected path missing at the start, reached through a link the
#     session aimed through /proc/self/cwd, with a harmless file left at
#     it where the end runs: plan_check_absent moved that one aside and
#     never looked at the way, so the real one stayed for a program in
#     another directory. (A tool's place with such a decoy held.)
#  (Held: a place's missing directory made such a link, with a decoy;
#  a protected path's way through /dev/fd/../cwd behind a relative link.)
#  (Held: a place's directory, plain and unchanged, reached anew by
#  moving its parent and linking the old name through /proc/self/cwd:
#  the parent is pinned, EBUSY.)

load ../lib/common
load escape_helpers

setup() { esc_planted_setup; }
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
	gone_from_proj "$home/.cargo/config" "a ~/.cargo/config planted through /proc/self/cwd"
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
	gone_from_proj "$WS/zsh/.zshenv" "a zsh/.zshenv planted in \$XDG_CONFIG_HOME through /proc/self/cwd"
}

@test "redteam4: an absent protected path reached through a link the session aims through /proc/self/cwd does not stay" {
	mkdir -p "$WS/proj"
	absent_policy
	sbx_opts --policy "$OUT/absent.json" -- sh -c 'ln -s /proc/self/cwd/s2 sub && mkdir -p proj/s2 &&
		echo planted >proj/s2/x'
	# What a program in proj, outside, finds at the protected path.
	gone_from_proj "$WS/sub/x" "a protected path made through /proc/self/cwd"
}

# deep_link LINK TARGET (in the sandbox, in the workspace's top): LINK, a
# relative link to a directory chain d/ 25 names deep (over 5000 bytes
# resolved, each link's text under PATH_MAX), whose last entry is a link
# to TARGET.
DEEP='n=$(printf "%0200d" 0); a=; i=0; while [ $i -lt 12 ]; do a="$a$n/"; i=$((i+1)); done
deep_link() { mkdir -p "d/$a" && (cd "d/$a" && mkdir -p "$a$n" && cd "$a$n" && ln -s "$2" p) &&
	(cd "d/$a" && ln -sfn "$a$n/p" m) && ln -sfn "d/${a}m" "$1"; }'

@test "redteam5: a tool's directory re-aimed through /proc/self/cwd past PATH_MAX of links does not stay live" {
	local home=$OUT/home
	mkdir -p "$home" "$WS/proj"
	ln -s "$OUT/nowhere" "$WS/c"
	ln -s "$WS/c" "$home/.cargo"
	aged
	HOME=$home sbx bash -c "$DEEP"'
		mkdir -p proj/x && echo "[alias]" >proj/x/config && deep_link c /proc/self/cwd/x && echo planted'
	assert_line planted
	gone_from_proj "$home/.cargo/config" "a ~/.cargo/config planted through a deep way to /proc/self/cwd"
}

@test "redteam5: an absent protected path re-aimed through /proc/self/cwd past PATH_MAX of links does not stay" {
	mkdir -p "$WS/proj"
	absent_policy
	sbx_opts --policy "$OUT/absent.json" -- bash -c "$DEEP"'
		mkdir -p proj/s2 && echo planted >proj/s2/x && deep_link sub /proc/self/cwd/s2 && echo planted'
	assert_line planted
	gone_from_proj "$WS/sub/x" "a protected path made through a deep way to /proc/self/cwd"
}

@test "redteam5: \$XDG_CONFIG_HOME in the workspace, its parent moved and re-aimed through /proc/self/cwd, keeps no planted config" {
	local cfg=$WS/x/cfg
	mkdir -p "$cfg/git" "$WS/proj"
	aged
	XDG_CONFIG_HOME=$cfg sbx bash -c 'mv x x2 && mkdir -p proj/x2/cfg/git && echo "[core]" >proj/x2/cfg/git/config &&
		ln -s /proc/self/cwd/x2 x && echo planted'
	gone_from_proj "$cfg/git/config" "a git config planted through a parent re-aimed through /proc/self/cwd"
}

@test "redteam5: an absent protected path re-aimed through /proc/self/cwd with a decoy where the end runs does not stay" {
	mkdir -p "$WS/proj"
	absent_policy
	# A harmless x where the session (and the end) runs, the real one in
	# proj: the end finds one there, and moves that one aside.
	sbx_opts --policy "$OUT/absent.json" -- sh -c 'mkdir -p s2 proj/s2 && echo decoy >s2/x &&
		echo planted >proj/s2/x && ln -s /proc/self/cwd/s2 sub'
	gone_from_proj "$WS/sub/x" "a protected path made through /proc/self/cwd, with a decoy,"
}

@test "redteam5: a tool's directory re-aimed through /proc/self/cwd with a decoy where the end runs does not stay live" {
	local home=$OUT/home
	mkdir -p "$home" "$WS/proj"
	ln -s "$OUT/nowhere" "$WS/c"
	ln -s "$WS/c" "$home/.cargo"
	aged
	HOME=$home sbx sh -c 'mkdir -p x proj/x && echo "# decoy" >x/config && echo "[alias]" >proj/x/config &&
		ln -sfn /proc/self/cwd/x c'
	gone_from_proj "$home/.cargo/config" "a ~/.cargo/config planted through /proc/self/cwd, with a decoy,"
}

@test "redteam5: a place's missing directory made a link through /proc/self/cwd, with a decoy where the end runs, does not stay" {
	mkdir -p "$WS/proj"
	aged
	XDG_CONFIG_HOME=$WS sbx sh -c 'ln -s /proc/self/cwd/z zsh && mkdir -p z proj/z && echo : >z/.zshenv &&
		echo "touch $1" >proj/z/.zshenv' _ "$PWNED"
	gone_from_proj "$WS/zsh/.zshenv" "a zsh/.zshenv planted through /proc/self/cwd, with a decoy,"
}

@test "redteam5: an absent protected path re-aimed through /dev/fd/../cwd does not stay" {
	mkdir -p "$WS/proj"
	absent_policy
	sbx_opts --policy "$OUT/absent.json" -- sh -c 'mkdir -p proj/s2 && echo planted >proj/s2/x &&
		ln -s s3 sub && ln -s /dev/fd/../cwd/s2 s3'
	gone_from_proj "$WS/sub/x" "a protected path made through /dev/fd/../cwd"
}
