#!/usr/bin/env bats
# The supervisor's descriptors (WICKET_FD, WICKET_STATUS_FD) survive programs
# that close what they inherited (DESIGN §6, preload/README.md "Keeping
# the supervisor's descriptors"). tests/preload/fdprobe.c makes the calls;
# most tests run it under the shim without the launcher, a SOCK_SEQPACKET
# socket at descriptor 200 named by WICKET_FD; the last ones go through
# `wicket run`.

load ../lib/common
load preload_helpers
bats_require_minimum_version 1.5.0

FDPROBE=$WICKET_TEST_BINDIR/preload/fdprobe

setup() {
	need_shim || return 1
	[ -x "$FDPROBE" ] || { echo "$FDPROBE not built: run make check" >&2; return 1; }
}
teardown() { shim_teardown; }

# guarded [bare|wrong] -- STEP...: fdprobe STEP... under the shim, holding
# a socket at 200 named by WICKET_FD (bare: "200"; wrong: an INO that is
# not the socket's). Output in $output, bounded to 60 s.
guarded() {
	local mode=()
	[ "$1" != -- ] && mode=("$1") && shift
	shift
	run --separate-stderr bounded 60 "$FDPROBE" hold WICKET_FD 200 "${mode[@]}" -- \
		env LD_PRELOAD="$SHIM" "$FDPROBE" "$@"
}

# lines L...: $output is exactly L..., one per line.
lines() {
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	assert_output "$(printf '%s\n' "$@")"
}

@test "close and __close on WICKET_FD succeed, errno untouched, and close nothing" {
	guarded -- close 200 __close 200 check WICKET_FD close 200 check WICKET_FD
	lines "close 200: 0 EDOM" "__close 200: 0 EDOM" "WICKET_FD: intact" \
		"close 200: 0 EDOM" "WICKET_FD: intact"
}

@test "every other descriptor closes as ever (and a closed one fails with EBADF)" {
	guarded -- null 100 null 201 close 100 __close 201 state 100 state 201 close 100 close 199 check WICKET_FD
	lines "close 100: 0 EDOM" "__close 201: 0 EDOM" "100: closed" "201: closed" \
		"close 100: -1 EBADF" "close 199: -1 EBADF" "WICKET_FD: intact"
}

@test "close_range closes both sides of WICKET_FD and keeps it; a range of it alone closes nothing" {
	need_fd 5000
	guarded -- null 3 null 100 null 199 null 201 null 5000 close_range 3 max 0 \
		state 3 state 100 state 199 state 201 state 5000 check WICKET_FD \
		close_range 200 200 0 check WICKET_FD close_range 150 250 0 check WICKET_FD
	lines "close_range 3 max 0: 0 EDOM" "3: closed" "100: closed" "199: closed" "201: closed" \
		"5000: closed" "WICKET_FD: intact" "close_range 200 200 0: 0 EDOM" "WICKET_FD: intact" \
		"close_range 150 250 0: 0 EDOM" "WICKET_FD: intact"
}

@test "close_range refuses what the kernel refuses (lo > hi, unknown flags), closing nothing" {
	guarded -- null 100 close_range 300 100 0 close_range 3 max 64 close_range 200 200 64 \
		state 100 check WICKET_FD
	lines "close_range 300 100 0: -1 EINVAL" "close_range 3 max 64: -1 EINVAL" \
		"close_range 200 200 64: -1 EINVAL" "100: open" "WICKET_FD: intact"
}

@test "close_range with CLOSE_RANGE_CLOEXEC: the others close at exec, WICKET_FD survives it" {
	guarded -- null 100 null 300 close_range 3 max cloexec state 100 state 300 check WICKET_FD \
		exec "$FDPROBE" state 100 state 300 check WICKET_FD
	lines "close_range 3 max cloexec: 0 EDOM" "100: open cloexec" "300: open cloexec" \
		"WICKET_FD: intact" "100: closed" "300: closed" "WICKET_FD: intact"
}

@test "close_range with CLOSE_RANGE_UNSHARE unshares (the other thread keeps its descriptors), once" {
	# In a second thread (which shares the table), then in the first.
	guarded -- null 100 null 300 thread close_range 3 max unshare state 100 state 300 check WICKET_FD end \
		state 100 state 300 check WICKET_FD
	lines "close_range 3 max unshare: 0 EDOM" "100: closed" "300: closed" "WICKET_FD: intact" \
		"100: open" "300: open" "WICKET_FD: intact"
	# A range of WICKET_FD alone still unshares: what the thread closes
	# next is its own business.
	guarded -- null 100 thread close_range 200 200 unshare raw-close 100 state 100 end state 100 \
		thread close_range 200 200 cloexec+unshare raw-close 100 end state 100 check WICKET_FD
	lines "close_range 200 200 unshare: 0 EDOM" "raw-close 100: 0 EDOM" "100: closed" "100: open" \
		"close_range 200 200 cloexec+unshare: 0 EDOM" "raw-close 100: 0 EDOM" "100: open" \
		"WICKET_FD: intact"
}

@test "closefrom below and above WICKET_FD" {
	guarded -- null 100 null 201 null 300 closefrom 201 state 100 state 201 state 300 check WICKET_FD \
		closefrom 3 state 100 check WICKET_FD null 300 closefrom 200 state 300 check WICKET_FD
	lines "closefrom 201: 0 EDOM" "100: open" "201: closed" "300: closed" "WICKET_FD: intact" \
		"closefrom 3: 0 EDOM" "100: closed" "WICKET_FD: intact" \
		"closefrom 200: 0 EDOM" "300: closed" "WICKET_FD: intact"
}

@test "dup2, __dup2 and dup3 onto WICKET_FD return it and change nothing; bad arguments still fail" {
	guarded -- null 100 dup2 100 200 __dup2 100 200 dup3 100 200 0 dup3 100 200 cloexec check WICKET_FD \
		dup2 150 200 dup3 100 200 64 dup3 200 200 0 dup2 200 200 check WICKET_FD \
		dup2 100 201 state 201
	lines "dup2 100 200: 200 EDOM" "__dup2 100 200: 200 EDOM" "dup3 100 200 0: 200 EDOM" \
		"dup3 100 200 cloexec: 200 EDOM" "WICKET_FD: intact" \
		"dup2 150 200: -1 EBADF" "dup3 100 200 64: -1 EINVAL" "dup3 200 200 0: -1 EINVAL" \
		"dup2 200 200: 200 EDOM" "WICKET_FD: intact" "dup2 100 201: 201 EDOM" "201: open"
}

@test "F_SETFD FD_CLOEXEC on WICKET_FD (fcntl, fcntl64, __fcntl) succeeds without setting it" {
	guarded -- null 100 cloexec 200 cloexec64 200 __cloexec 200 cloexec 100 check WICKET_FD state 100 \
		exec "$FDPROBE" check WICKET_FD state 100
	lines "cloexec 200: 0 EDOM" "cloexec64 200: 0 EDOM" "__cloexec 200: 0 EDOM" "cloexec 100: 0 EDOM" \
		"WICKET_FD: intact" "100: open cloexec" "WICKET_FD: intact" "100: closed"
}

@test "a number whose DEV:INO is not ours is not guarded: close, dup2 and cloexec go through" {
	guarded wrong -- close 200 state 200
	lines "close 200: 0 EDOM" "200: closed"
	guarded wrong -- null 100 dup2 100 200 check WICKET_FD cloexec 200 state 200
	lines "dup2 100 200: 200 EDOM" "WICKET_FD: replaced" "cloexec 200: 0 EDOM" "200: open cloexec"
	guarded wrong -- close_range 3 max 0 state 200
	lines "close_range 3 max 0: 0 EDOM" "200: closed"
}

@test "a number the program reused (after a raw close) is the program's" {
	guarded -- raw-close 200 pipe-at 200 check WICKET_FD close 200 state 200
	lines "raw-close 200: 0 EDOM" "WICKET_FD: replaced" "close 200: 0 EDOM" "200: closed"
	guarded -- raw-close 200 null 100 dup2 100 200 pipe-at 300 closefrom 150 state 200 state 300
	lines "raw-close 200: 0 EDOM" "dup2 100 200: 200 EDOM" "closefrom 150: 0 EDOM" "200: closed" \
		"300: closed"
}

@test "a bare N is guarded unchecked; 0..2 never; without the variable nothing is" {
	guarded bare -- close 200 close_range 3 max 0 check WICKET_FD
	lines "close 200: 0 EDOM" "close_range 3 max 0: 0 EDOM" "WICKET_FD: intact"
	run --separate-stderr bounded 60 env WICKET_FD=0 WICKET_STATUS_FD=0 LD_PRELOAD="$SHIM" \
		"$FDPROBE" close 0 state 0 </dev/null
	lines "close 0: 0 EDOM" "0: closed"
	run --separate-stderr bounded 60 "$FDPROBE" hold WICKET_FD 200 -- \
		env -u WICKET_FD LD_PRELOAD="$SHIM" "$FDPROBE" close 200 state 200
	lines "close 200: 0 EDOM" "200: closed"
}

@test "WICKET_STATUS_FD is guarded the same way, and both at once" {
	run --separate-stderr bounded 60 "$FDPROBE" hold WICKET_STATUS_FD 190 -- \
		env LD_PRELOAD="$SHIM" "$FDPROBE" close 190 dup2 1 190 cloexec 190 closefrom 3 check WICKET_STATUS_FD
	lines "close 190: 0 EDOM" "dup2 1 190: 190 EDOM" "cloexec 190: 0 EDOM" "closefrom 3: 0 EDOM" \
		"WICKET_STATUS_FD: intact"
	run --separate-stderr bounded 60 "$FDPROBE" hold WICKET_FD 200 -- "$FDPROBE" hold WICKET_STATUS_FD 190 -- \
		env LD_PRELOAD="$SHIM" "$FDPROBE" null 100 null 195 null 300 close_range 3 max 0 \
		state 100 state 195 state 300 check WICKET_FD check WICKET_STATUS_FD \
		null 195 null 300 closefrom 150 state 195 state 300 check WICKET_FD check WICKET_STATUS_FD
	lines "close_range 3 max 0: 0 EDOM" "100: closed" "195: closed" "300: closed" \
		"WICKET_FD: intact" "WICKET_STATUS_FD: intact" "closefrom 150: 0 EDOM" "195: closed" \
		"300: closed" "WICKET_FD: intact" "WICKET_STATUS_FD: intact"
}

@test "below 10, dup2 onto it goes through: a shell's redirection keeps its data" {
	run --separate-stderr bounded 60 "$FDPROBE" hold WICKET_FD 9 -- \
		env LD_PRELOAD="$SHIM" "$FDPROBE" close 9 null 100 dup2 100 9 check WICKET_FD
	lines "close 9: 0 EDOM" "dup2 100 9: 9 EDOM" "WICKET_FD: replaced"
	# `cmd 9>file` saves 9, dup2s the file onto it, then restores ours.
	local f=$BATS_TEST_TMPDIR/nine
	run --separate-stderr bounded 60 "$FDPROBE" hold WICKET_FD 9 -- \
		env LD_PRELOAD="$SHIM" bash -c 'echo data 9>"$1" >&9; cat "$1"; exec 9>&-; "$2" check WICKET_FD' _ "$f" "$FDPROBE"
	lines "data" "WICKET_FD: intact"
}

@test "a vfork child's close_range, Python's subprocess and os.closerange keep it" {
	guarded -- null 100 vfork 3 "$FDPROBE" check WICKET_FD state 100
	lines "WICKET_FD: intact" "100: closed"
	run --separate-stderr bounded 60 "$FDPROBE" hold WICKET_FD 200 -- env LD_PRELOAD="$SHIM" "$PY" -c '
import os, subprocess, sys
subprocess.run([sys.argv[1], "check", "WICKET_FD"], check=True)
subprocess.run(["bash", "-c", "exec 200>&-; exec \"$0\" check WICKET_FD", sys.argv[1]], check=True)
os.closerange(3, 100000)
os.close(200)
os.execv(sys.argv[1], [sys.argv[1], "check", "WICKET_FD"])' "$FDPROBE"
	lines "WICKET_FD: intact" "WICKET_FD: intact" "WICKET_FD: intact"
}

# --- through the launcher ---------------------------------------------------

# in_wicket WS CMD...: `wicket run -- CMD...` in WS (the launcher injects
# the shim), bounded; status, output, stderr as with run --separate-stderr.
in_wicket() {
	local ws=$1
	shift
	run --separate-stderr bash -c 'cd "$1" && shift && timeout --kill-after=5 60 "$@"' _ "$ws" \
		"$WICKET" run -- "$@"
}

# count_line LINE TEXT: how many lines of TEXT are exactly LINE, pids as N.
count_line() {
	printf '%s\n' "$2" | sed -E 's/\[[0-9]+\]\)$/[N])/' | grep -cxF -- "$1" || true
}

@test "wicket run: a grandchild of Python's subprocess is explained once on wicket's stderr, never on the command's" {
	local ws
	ws=$(mk_workspace)
	[ ! -e /var/tmp/wicket-test-denied ]
	printf '%s\n' 'import subprocess' \
		'subprocess.run(["sh", "-c", "echo x > /var/tmp/wicket-test-denied"])' >"$ws/sub.py"
	in_wicket "$ws" sh -c '"$0" sub.py 2>cmd-err; echo done' "$PY"
	[ ! -e /var/tmp/wicket-test-denied ]
	assert_equal "$status" 0
	assert_equal "$output" done
	assert_equal "$(count_line 'sandbox: write blocked: /var/tmp/wicket-test-denied (create by sh[N])' "$stderr")" 1
	# The command's stderr has the shell's own message, and no line of ours.
	grep -q 'wicket-test-denied' "$ws/cmd-err"
	run ! grep 'sandbox:' "$ws/cmd-err"
}

@test "wicket run: closefrom, close_range and exec N>&- leave the descriptors to the children" {
	local ws step
	ws=$(mk_workspace)
	for step in "closefrom 3" "close_range 3 max 0" "close_range 3 max cloexec"; do
		rm -f "$ws/cmd-err"
		# shellcheck disable=SC2086
		in_wicket "$ws" "$FDPROBE" $step exec "$FDPROBE" check WICKET_FD check WICKET_STATUS_FD \
			exec sh -c 'touch /var/tmp/wk-fdguard 2>cmd-err'
		assert_equal "$status" 1
		refute_output --regexp 'closed|replaced'
		assert_output --regexp 'intact'
		assert_equal "$(count_line 'sandbox: write blocked: /var/tmp/wk-fdguard (create by touch[N])' "$stderr")" 1
		grep -q 'wk-fdguard' "$ws/cmd-err"
		run ! grep 'sandbox:' "$ws/cmd-err"
	done
	# bash, as `exec N>&-` for each of them.
	in_wicket "$ws" bash -c 'for v in "${WICKET_FD%%:*}" "${WICKET_STATUS_FD%%:*}"; do [ -n "$v" ] && eval "exec $v>&-"; done; touch /var/tmp/wk-fdguard 2>cmd-err'
	assert_equal "$status" 1
	assert_equal "$(count_line 'sandbox: write blocked: /var/tmp/wk-fdguard (create by touch[N])' "$stderr")" 1
	run ! grep 'sandbox:' "$ws/cmd-err"
}
