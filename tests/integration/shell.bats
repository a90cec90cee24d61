#!/usr/bin/env bats
# `wicket` and `wicket shell`: the user's shell in the sandbox, from a pipe
# and interactively on a terminal.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

teardown() {
	if [ -n "${TMUX_SOCK:-}" ] && [ -S "$TMUX_SOCK" ]; then
		tmux -S "$TMUX_SOCK" kill-server 2>/dev/null || true
	fi
	it_teardown
}

# shell_in WS ARGS...: `wicket ARGS...` in WS (bounded), stdin passed on.
shell_in() {
	local ws=$1
	shift
	(cd "$ws" && bounded 60 "$WICKET" "$@")
}

@test "bare 'wicket' runs \$SHELL in the sandbox, reading commands from a pipe; its exit status is wicket's" {
	local ws out
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	run --separate-stderr bounded 60 bash -c 'cd "$1" && echo "echo \$WICKET_POLICY; pwd; touch in-ws; touch \"$2/outside\" 2>/dev/null || echo outside-denied; exit 3" | SHELL=/bin/bash "$WICKET"' _ "$ws" "$out"
	assert_equal "$status" 3
	assert_equal "$output" "workspace-write
$ws
outside-denied"
	[ -f "$ws/in-ws" ]
	[ ! -e "$out/outside" ]
}

@test "'wicket shell' is the same, and takes the run options (-r, -C)" {
	local ws other
	ws=$(mk_workspace)
	track "$ws"
	other=$(mk_workspace)
	track "$other"
	run --separate-stderr bounded 60 bash -c 'cd "$1" && echo "echo \$WICKET_POLICY; pwd; touch new 2>/dev/null || echo ro; exit 4" | SHELL=/bin/bash "$WICKET" shell -r -C "$2"' _ "$ws" "$other"
	assert_equal "$status" 4
	assert_equal "$output" "read-only
$other
ro"
	[ ! -e "$other/new" ]
	run --separate-stderr bounded 60 bash -c 'cd "$1" && echo "echo \$WICKET_POLICY; touch shell-made" | SHELL=/bin/bash "$WICKET" shell' _ "$ws"
	assert_equal "$status" 0
	assert_equal "$output" workspace-write
	[ -f "$ws/shell-made" ]
}

@test "bare 'wicket' with options only (e.g. wicket -r) starts the shell" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr bounded 60 bash -c 'cd "$1" && echo "echo \$WICKET_POLICY; exit 5" | SHELL=/bin/bash "$WICKET" -r' _ "$ws"
	assert_equal "$status" 5
	assert_equal "$output" read-only
}

@test "the shell is \$SHELL when it is an absolute executable path" {
	local ws want
	ws=$(mk_workspace)
	track "$ws"
	[ -x /bin/dash ] || skip "no /bin/dash on this machine to tell shells apart"
	want=$(realpath /bin/dash)
	run --separate-stderr bounded 60 bash -c 'cd "$1" && echo "readlink /proc/\$\$/exe" | SHELL=/bin/dash "$WICKET" shell' _ "$ws"
	assert_equal "$status" 0
	assert_equal "$output" "$want"
}

@test "without a usable \$SHELL the passwd shell is used (fallback /bin/sh)" {
	local ws want pwsh sh
	ws=$(mk_workspace)
	track "$ws"
	pwsh=$(getent passwd "$(id -u)" | cut -d: -f7)
	if [[ $pwsh == /* ]]; then want=$(realpath "$pwsh"); else want=$(realpath /bin/sh); fi
	printf 'echo not a shell\n' >"$ws/not-executable"
	chmod 644 "$ws/not-executable"
	for sh in /nonexistent/shell relative-sh "$ws/not-executable" ""; do
		run --separate-stderr bounded 60 bash -c 'cd "$1" && echo "readlink /proc/\$\$/exe" | SHELL="$2" "$WICKET" shell' _ "$ws" "$sh"
		assert_equal "$status" 0
		assert_equal "SHELL='$sh' -> $output" "SHELL='$sh' -> $want"
	done
	run --separate-stderr bounded 60 bash -c 'cd "$1" && echo "readlink /proc/\$\$/exe" | env -u SHELL "$WICKET"' _ "$ws"
	assert_equal "$status" 0
	assert_equal "$output" "$want"
}

@test "'wicket shell CMD' is refused: exit 125, one 'wicket:' line, nothing started" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr bounded 60 bash -c 'cd "$1" && echo "touch started" | SHELL=/bin/bash "$WICKET" shell touch x' _ "$ws"
	assert_equal "$status" 125
	assert_equal "$output" ""
	one_wicket_line
	[ ! -e "$ws/started" ] && [ ! -e "$ws/x" ]
}

# ---- interactive ------------------------------------------------------------

# pane_wait TEXT [TENTHS]: until the tmux pane shows TEXT (fixed string).
pane_wait() {
	local text=$1 n=${2:-100} i
	for ((i = 0; i < n; i++)); do
		tmux -S "$TMUX_SOCK" capture-pane -p -S - -t wk >"$BATS_TEST_TMPDIR/pane" 2>/dev/null || true
		grep -qF -- "$text" "$BATS_TEST_TMPDIR/pane" && return 0
		sleep 0.1
	done
	echo "timed out waiting for '$text'; the pane shows:" >&2
	cat "$BATS_TEST_TMPDIR/pane" >&2
	return 1
}

# pane_wait_re REGEX [TENTHS]: until the pane has a line matching REGEX (ERE).
pane_wait_re() {
	local re=$1 n=${2:-50} i
	for ((i = 0; i < n; i++)); do
		tmux -S "$TMUX_SOCK" capture-pane -p -S - -t wk >"$BATS_TEST_TMPDIR/pane" 2>/dev/null || true
		grep -qE -- "$re" "$BATS_TEST_TMPDIR/pane" && return 0
		sleep 0.1
	done
	pane_has "$re"
}

# wait_running REGEX: a process whose command line matches REGEX exists
# (up to 10 s), so a keystroke meant for it does not reach the shell first.
wait_running() {
	local i
	for ((i = 0; i < 100; i++)); do
		pgrep -f -- "$1" >/dev/null && return 0
		sleep 0.1
	done
	echo "no process matches $1" >&2
	return 1
}

# pane_has REGEX: the last capture has a line matching REGEX (ERE).
pane_has() {
	grep -qE -- "$1" "$BATS_TEST_TMPDIR/pane" && return 0
	echo "no line matches '$1'; the pane shows:" >&2
	cat "$BATS_TEST_TMPDIR/pane" >&2
	return 1
}

# pane_send TEXT: type TEXT and Enter.
pane_send() { tmux -S "$TMUX_SOCK" send-keys -t wk -l -- "$1" && tmux -S "$TMUX_SOCK" send-keys -t wk Enter; }

@test "interactive bash on a terminal: prompt, job control (Ctrl-Z, bg, jobs, kill %N, Ctrl-C), exit status" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	local ws home d
	ws=$(mk_workspace)
	track "$ws"
	home=$(mk_outside)
	track "$home"
	d=$(mk_outside)
	track "$d"
	printf 'PS1="wk\\$ "\nunset HISTFILE\n' >"$home/.bashrc"
	TMUX_SOCK=$BATS_TEST_TMPDIR/tmux.sock
	tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -s wk -x 160 -y 50 \
		"cd '$ws' && env HOME='$home' SHELL=/bin/bash TERM=xterm '$WICKET'; echo \"rc=\$?\" >'$d/rc'" 3>&-
	local server
	server=$(tmux -S "$TMUX_SOCK" display-message -p -t wk '#{pid}')
	[ -n "$server" ] && _WK_STARTED+=("$server")

	pane_wait 'wk$'
	pane_send 'echo "policy=$WICKET_POLICY"'
	pane_wait 'policy=workspace-write'
	pane_send 'echo via-dev-tty >/dev/tty'
	pane_wait 'via-dev-tty'

	# Ctrl-Z stops the foreground job; bg resumes it.
	pane_send 'echo fg-start; sleep 100'
	pane_wait 'fg-start'
	wait_running '^sleep 100$'
	tmux -S "$TMUX_SOCK" send-keys -t wk C-z
	pane_wait 'Stopped                 sleep 100'
	pane_send 'bg; echo bg-done'
	pane_wait 'bg-done'
	# A background job started with &.
	pane_send 'sleep 200 &'
	pane_send 'jobs; echo jobs-done'
	pane_wait 'jobs-done'
	pane_has '^\[1\]-? +Running +sleep 100 &'
	pane_has '^\[2\]\+ +Running +sleep 200 &'
	pane_send 'kill %1 %2; wait; jobs; echo "sleeps-left=$(ps -eo args= | grep -c "^sleep [12]00$")"'
	# Both jobs are gone (bash's own "Terminated" notice after 'wait' is
	# printed or not depending on when its SIGCHLD arrives, so it is not
	# what this checks).
	pane_wait 'sleeps-left=0'

	# Ctrl-C interrupts the foreground job, not the shell.
	pane_send 'echo int-start; sleep 100'
	pane_wait 'int-start'
	wait_running '^sleep 100$'
	tmux -S "$TMUX_SOCK" send-keys -t wk C-c
	pane_send 'echo "after-int=$?"'
	pane_wait 'after-int=130'

	pane_send 'exit 7'
	wait_for_file "$d/rc" 100
	assert_equal "$(cat "$d/rc")" "rc=7"
	run ! grep -qiE 'no job control|cannot set terminal process group|Inappropriate ioctl' "$BATS_TEST_TMPDIR/pane"
}
