#!/usr/bin/env bats
# The inline programs are single-quoted on purpose.
# shellcheck disable=SC2016
# A fifth red team's findings, each judged outside the sandbox.
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

setup() {
	esc_setup
	PWNED=$OUT/pwned
	export XDG_STATE_HOME=$OUT/state
}

teardown() {
	escape_cleanup
	common_teardown
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
	if (cd "$WS/proj" && [ -e "$home/.cargo/config" ]); then
		echo "ESCAPE: a ~/.cargo/config planted through a deep way to /proc/self/cwd stayed"
		false
	fi
}

@test "redteam5: an absent protected path re-aimed through /proc/self/cwd past PATH_MAX of links does not stay" {
	mkdir -p "$WS/proj"
	printf '{"extends": "workspace-write", "filesystem": {"protect": ["%s/sub/x"]}}\n' "$WS" >"$OUT/absent.json"
	sbx_opts --policy "$OUT/absent.json" -- bash -c "$DEEP"'
		mkdir -p proj/s2 && echo planted >proj/s2/x && deep_link sub /proc/self/cwd/s2 && echo planted'
	assert_line planted
	if (cd "$WS/proj" && [ -e "$WS/sub/x" ]); then
		echo "ESCAPE: a protected path made through a deep way to /proc/self/cwd stayed"
		false
	fi
}

@test "redteam5: \$XDG_CONFIG_HOME in the workspace, its parent moved and re-aimed through /proc/self/cwd, keeps no planted config" {
	local cfg=$WS/x/cfg
	mkdir -p "$cfg/git" "$WS/proj"
	aged
	XDG_CONFIG_HOME=$cfg sbx bash -c 'mv x x2 && mkdir -p proj/x2/cfg/git && echo "[core]" >proj/x2/cfg/git/config &&
		ln -s /proc/self/cwd/x2 x && echo planted'
	if (cd "$WS/proj" && [ -e "$cfg/git/config" ]); then
		echo "ESCAPE: a git config planted through a parent re-aimed through /proc/self/cwd stayed"
		false
	fi
}

@test "redteam5: an absent protected path re-aimed through /proc/self/cwd with a decoy where the end runs does not stay" {
	mkdir -p "$WS/proj"
	printf '{"extends": "workspace-write", "filesystem": {"protect": ["%s/sub/x"]}}\n' "$WS" >"$OUT/absent.json"
	# A harmless x where the session (and the end) runs, the real one in
	# proj: the end finds one there, and moves that one aside.
	sbx_opts --policy "$OUT/absent.json" -- sh -c 'mkdir -p s2 proj/s2 && echo decoy >s2/x &&
		echo planted >proj/s2/x && ln -s /proc/self/cwd/s2 sub'
	if (cd "$WS/proj" && [ -e "$WS/sub/x" ]); then
		echo "ESCAPE: a protected path made through /proc/self/cwd, with a decoy, stayed"
		false
	fi
}

@test "redteam5: a tool's directory re-aimed through /proc/self/cwd with a decoy where the end runs does not stay live" {
	local home=$OUT/home
	mkdir -p "$home" "$WS/proj"
	ln -s "$OUT/nowhere" "$WS/c"
	ln -s "$WS/c" "$home/.cargo"
	aged
	HOME=$home sbx sh -c 'mkdir -p x proj/x && echo "# decoy" >x/config && echo "[alias]" >proj/x/config &&
		ln -sfn /proc/self/cwd/x c'
	if (cd "$WS/proj" && [ -e "$home/.cargo/config" ]); then
		echo "ESCAPE: a ~/.cargo/config planted through /proc/self/cwd, with a decoy, stayed"
		false
	fi
}

@test "redteam5: a place's missing directory made a link through /proc/self/cwd, with a decoy where the end runs, does not stay" {
	mkdir -p "$WS/proj"
	aged
	XDG_CONFIG_HOME=$WS sbx sh -c 'ln -s /proc/self/cwd/z zsh && mkdir -p z proj/z && echo : >z/.zshenv &&
		echo "touch $1" >proj/z/.zshenv' _ "$PWNED"
	if (cd "$WS/proj" && [ -e "$WS/zsh/.zshenv" ]); then
		echo "ESCAPE: a zsh/.zshenv planted through /proc/self/cwd, with a decoy, stayed"
		false
	fi
}

@test "redteam5: an absent protected path re-aimed through /dev/fd/../cwd does not stay" {
	mkdir -p "$WS/proj"
	printf '{"extends": "workspace-write", "filesystem": {"protect": ["%s/sub/x"]}}\n' "$WS" >"$OUT/absent.json"
	sbx_opts --policy "$OUT/absent.json" -- sh -c 'mkdir -p proj/s2 && echo planted >proj/s2/x &&
		ln -s s3 sub && ln -s /dev/fd/../cwd/s2 s3'
	if (cd "$WS/proj" && [ -e "$WS/sub/x" ]); then
		echo "ESCAPE: a protected path made through /dev/fd/../cwd stayed"
		false
	fi
}
