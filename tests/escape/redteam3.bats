#!/usr/bin/env bats
# The inline programs are single-quoted on purpose.
# shellcheck disable=SC2016
# A third red team's findings, each judged outside the sandbox.
#  1. A warm session's server is the sandbox's: an exec that stops it
#     (SIGSTOP to its parent) made `wicket session stop` wait forever,
#     the supervisor with it (SIGTERM is handed to the stopped server):
#     the end-of-session checks never ran, and killing the supervisor
#     left a planted repository's config live for the next git outside.
#  2. The shim kept quiet every refused write under /proc/PID/, taken as
#     a process's own file: through /proc/self/fd/N, a write to a host
#     file the sandbox may only read was refused without a word to the
#     user (no line, no count at the end).

load ../lib/common
bats_require_minimum_version 1.5.0

setup() {
	WS=$(mk_workspace)
	OUT=$(mk_outside)
	export XDG_STATE_HOME=$BATS_TEST_TMPDIR/state
	N=rt3w-$$-$BATS_TEST_NUMBER
}

teardown() {
	bounded 30 "$WICKET" session stop "$N" >/dev/null 2>&1 || true
	# A session that outlived its stop (the failure of test 1): its
	# processes, named by this test's own session name, by pid.
	local p
	for p in $(pgrep -f -x -- "$WICKET session start --name $N"); do
		kill -KILL "$p" 2>/dev/null || true
	done
	common_teardown
}

@test "redteam3: a stopped warm server does not keep session stop from its checks" {
	(cd "$WS" && bounded 60 "$WICKET" session start --name "$N")
	# A nested repository whose config runs a command on `git status`.
	run bounded 60 "$WICKET" exec "$N" --cwd "$WS" -- sh -c 'mkdir -p a/b && cd a/b && git init -q && git config core.fsmonitor "touch $1; false"' _ "$OUT/pwned" </dev/null
	assert_success
	[ -e "$WS/a/b/.git/config" ]
	# The server stopped; this exec never hears its end (until the session's).
	bounded 60 "$WICKET" exec "$N" --cwd "$WS" -- sh -c 'kill -STOP $PPID; touch stopped' \
		</dev/null >/dev/null 2>&1 &
	xpid=$!
	wait_for_file "$WS/stopped" 300
	# (its output to a file: a supervisor that never ends holds it)
	bounded 60 "$WICKET" session stop "$N" >"$BATS_TEST_TMPDIR/stop.out" 2>&1 || true
	wait "$xpid" || true
	# Judged outside: git run there later does not run the session's command.
	(cd "$WS/a/b" 2>/dev/null && bounded 30 git status >/dev/null 2>&1) || true
	[ ! -e "$OUT/pwned" ]
	[ ! -e "$WS/a/b/.git" ]
}

@test "redteam3: a write refused through /proc/self/fd/N is told, not kept quiet" {
	echo host >"$OUT/ro"
	cd "$WS"
	run bounded 60 "$WICKET" run -- sh -c 'exec 3<"$1"; echo x >/proc/self/fd/3' _ "$OUT/ro" </dev/null
	[ "$(cat "$OUT/ro")" = host ]
	assert_output --partial "write blocked"
	assert_output --partial "the sandbox blocked 1 write"
}
