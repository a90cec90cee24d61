#!/usr/bin/env bats
# The command line: help, version, options, errors and their exit codes.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

teardown() { it_teardown; }

# ---- help and version -------------------------------------------------

@test "--help, -h and 'help' print the usage on stdout and exit 0" {
	local form
	for form in --help -h help "run --help" "shell -h"; do
		# shellcheck disable=SC2086
		run --separate-stderr wkb $form
		assert_equal "$status" 0
		assert_equal "$stderr" ""
		assert_line --index 0 --partial "Usage: wicket"
		assert_output --partial "wicket run [OPTIONS] -- CMD [ARGS...]"
		assert_output --partial "--read-only"
		assert_output --partial "--best-effort"
	done
}

@test "--version, -V and 'version' print 'wicket X.Y.Z' and exit 0" {
	local form
	for form in --version -V version "run -V" "shell --version"; do
		# shellcheck disable=SC2086
		run --separate-stderr wkb $form
		assert_equal "$status" 0
		assert_equal "$stderr" ""
		assert_equal "${#lines[@]}" 1
		assert_output --regexp '^wicket [0-9]+\.[0-9]+(\.[0-9]+)?$'
	done
}

# ---- running commands ---------------------------------------------------

@test "run CMD ARGS works without '--', and options after CMD belong to CMD" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr wsrun "$ws" printf '%s|' -r --net full -C /
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	assert_equal "$output" "-r|--net|full|-C|/|"
	run --separate-stderr wsrun "$ws" -- sh -c 'touch made-here && echo "$WICKET"'
	assert_equal "$status" 0
	assert_equal "$output" "1"
	[ -f "$ws/made-here" ]
}

@test "unknown option: exit 125, one 'wicket:' line, nothing started" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	for opt in --bogus -Z; do
		run --separate-stderr wsrun "$ws" "$opt" -- touch started
		assert_equal "$status" 125
		assert_equal "$output" ""
		one_wicket_line
		assert_equal "${stderr_lines[0]}" "wicket: unknown option '$opt' (see 'wicket --help')"
		[ ! -e "$ws/started" ]
	done
}

@test "option without its argument: exit 125, one clear 'wicket:' line naming the option" {
	local ws opt
	ws=$(mk_workspace)
	track "$ws"
	for opt in -w --write -C --workspace -p --protect -n --net; do
		run --separate-stderr bounded 60 bash -c 'cd "$1" && "$WICKET" run "$2"' _ "$ws" "$opt"
		assert_equal "$status" 125
		assert_equal "$output" ""
		one_wicket_line
		# The option the user typed, and that its argument is missing
		# (not "unknown option": it is a known one).
		assert_equal "$stderr" "wicket: option '$opt' needs an argument (see 'wicket --help')"
	done
}

@test "missing command: 'run' and 'run --' exit 125 with one 'wicket:' line" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr wsrun "$ws"
	assert_equal "$status" 125
	assert_equal "$output" ""
	one_wicket_line
	assert_regex "$stderr" 'missing command'
	run --separate-stderr wsrun "$ws" --
	assert_equal "$status" 125
	assert_equal "$output" ""
	one_wicket_line
	assert_regex "$stderr" 'missing command'
	run --separate-stderr wsrun "$ws" -r -n none --
	assert_equal "$status" 125
	one_wicket_line
}

@test "--write of a nonexistent path: exit 125, one 'wicket:' line, nothing started" {
	local ws out
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	run --separate-stderr wsrun "$ws" --write "$out/missing" -- touch "$ws/started"
	assert_equal "$status" 125
	assert_equal "$output" ""
	one_wicket_line
	assert_regex "$stderr" "^wicket: --write $out/missing: No such file or directory"
	[ ! -e "$ws/started" ]
	[ ! -e "$out/missing" ]
}

@test "bad --net mode: exit 125, one 'wicket:' line, nothing started" {
	local ws m
	ws=$(mk_workspace)
	track "$ws"
	for m in bogus None ""; do
		run --separate-stderr wsrun "$ws" --net "$m" -- touch started
		assert_equal "$status" 125
		assert_equal "$output" ""
		one_wicket_line
		assert_regex "$stderr" "--net: unknown mode '$m'"
		[ ! -e "$ws/started" ]
	done
	run --separate-stderr wsrun "$ws" -n host -- touch started
	assert_equal "$status" 125
	one_wicket_line
	[ ! -e "$ws/started" ]
}

@test "deleted current directory: exit 125, one 'wicket:' line, nothing started" {
	local ws out
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	mkdir "$ws/gone"
	run --separate-stderr bounded 60 bash -c 'cd "$1/gone" && rmdir "$1/gone" && "$WICKET" run --write "$2" -- touch "$2/started"' _ "$ws" "$out"
	assert_equal "$status" 125
	assert_equal "$output" ""
	one_wicket_line
	assert_regex "$stderr" 'current directory'
	[ ! -e "$out/started" ]
}

@test "unknown subcommand: exit 125, one 'wicket:' line, nothing started" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr bounded 60 bash -c 'cd "$1" && "$WICKET" touch started' _ "$ws"
	assert_equal "$status" 125
	assert_equal "$output" ""
	one_wicket_line
	assert_regex "$stderr" "unknown command 'touch'"
	[ ! -e "$ws/started" ]
	run --separate-stderr bounded 60 bash -c 'cd "$1" && "$WICKET" frobnicate' _ "$ws"
	assert_equal "$status" 125
	one_wicket_line
}

@test "command not executable: exit 126 with one 'wicket:' line" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	printf '#!/bin/sh\ntouch started\n' >"$ws/wk-noexec-script"
	chmod 644 "$ws/wk-noexec-script"
	mkdir "$ws/adir"
	run --separate-stderr wsrun "$ws" -- ./wk-noexec-script
	assert_equal "$status" 126
	assert_equal "$output" ""
	one_wicket_line
	[ ! -e "$ws/started" ]
	run --separate-stderr wsrun "$ws" -- "$ws/adir"
	assert_equal "$status" 126
	assert_equal "$output" ""
	one_wicket_line
	# Not executable even when found through PATH.
	run --separate-stderr bounded 60 bash -c 'cd "$1" && PATH="$1:$PATH" "$WICKET" run -- wk-noexec-script' _ "$ws"
	assert_equal "$status" 126
	one_wicket_line
	[ ! -e "$ws/started" ]
	# Control: the same script with the x bit runs.
	chmod 755 "$ws/wk-noexec-script"
	run --separate-stderr wsrun "$ws" -- ./wk-noexec-script
	assert_equal "$status" 0
	[ -e "$ws/started" ]
}

@test "command not found: exit 127 with one 'wicket:' line" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run -127 --separate-stderr wsrun "$ws" -- wicket-no-such-command-xyz
	assert_equal "$output" ""
	one_wicket_line
	assert_regex "$stderr" 'wicket-no-such-command-xyz'
	run -127 --separate-stderr wsrun "$ws" -- "$ws/no/such/file"
	assert_equal "$output" ""
	one_wicket_line
	# A program that exists only in the host's /tmp is not there inside.
	local hostprog
	hostprog=$(mktemp /tmp/wicket-it-prog.XXXXXX)
	guard_path "$hostprog"
	printf '#!/bin/sh\ntouch "%s/started"\n' "$ws" >"$hostprog"
	chmod 755 "$hostprog"
	run -127 --separate-stderr wsrun "$ws" -- "$hostprog"
	rm -f "$hostprog"
	assert_equal "$output" ""
	one_wicket_line
	assert_regex "$stderr" "$hostprog"
	[ ! -e "$ws/started" ]
}

# ---- options ----------------------------------------------------------

@test "-C DIR: DIR is the writable workspace and the command's cwd; the real cwd is not writable" {
	local ws here
	ws=$(mk_workspace)
	track "$ws"
	here=$(mk_outside)
	track "$here"
	run --separate-stderr bounded 60 bash -c 'cd "$1" && "$WICKET" run -C "$2" -- sh -c "pwd; touch in-ws; touch \"$1/in-cwd\""' _ "$here" "$ws"
	assert_equal "$status" 1
	assert_equal "${lines[0]}" "$ws"
	assert_regex "$stderr" 'in-cwd.*Read-only file system'
	[ -f "$ws/in-ws" ]
	[ ! -e "$here/in-cwd" ]
	# --workspace spelled out, relative to the current directory, and a
	# non-canonical spelling ends up canonical.
	mkdir "$ws/sub"
	run --separate-stderr bounded 60 bash -c 'cd "$1" && "$WICKET" run --workspace ./sub/../sub -- sh -c "pwd -P; touch in-sub"' _ "$ws"
	assert_equal "$status" 0
	assert_equal "$output" "$ws/sub"
	[ -f "$ws/sub/in-sub" ]
}

@test "-C of a missing directory or a file: exit 125, nothing started" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	: >"$ws/file"
	run --separate-stderr wsrun "$ws" -C "$ws/missing" -- touch "$ws/started"
	assert_equal "$status" 125
	one_wicket_line
	run --separate-stderr wsrun "$ws" -C "$ws/file" -- touch "$ws/started"
	assert_equal "$status" 125
	one_wicket_line
	[ ! -e "$ws/started" ]
}

@test "--write PATH: an extra writable root, repeatable; its siblings stay read-only" {
	local ws out1 out2 ro
	ws=$(mk_workspace)
	track "$ws"
	out1=$(mk_outside)
	track "$out1"
	out2=$(mk_outside)
	track "$out2"
	ro=$(mk_outside)
	track "$ro"
	echo orig >"$out1/existing"
	run --separate-stderr wsrun "$ws" --write "$out1" -w "$out2" -- sh -c '
		echo changed >"$1/existing" && touch "$1/new" && mkdir "$1/d" && touch "$2/new2" || exit 10
		touch "$3/denied" && exit 11
		exit 0' _ "$out1" "$out2" "$ro"
	assert_equal "$status" 0
	assert_regex "$stderr" 'denied.*Read-only file system'
	assert_equal "$(cat "$out1/existing")" changed
	[ -f "$out1/new" ] && [ -d "$out1/d" ] && [ -f "$out2/new2" ]
	[ ! -e "$ro/denied" ]
}

@test "--write of a single file: that file is writable, its directory is not" {
	local ws out
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	echo orig >"$out/f"
	run --separate-stderr wsrun "$ws" --write "$out/f" -- sh -c 'echo new >"$1/f" && { touch "$1/other" && exit 11; exit 0; }' _ "$out"
	assert_equal "$status" 0
	assert_equal "$(cat "$out/f")" new
	[ ! -e "$out/other" ]
}

@test "--protect a subdir of the workspace: writes there fail, it and its parent cannot be renamed" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	mkdir -p "$ws/a/keep/deep" "$ws/a/free"
	echo orig >"$ws/a/keep/file"
	echo orig >"$ws/a/keep/deep/file"
	run --separate-stderr wsrun "$ws" --protect "$ws/a/keep" -- sh -c '
		r=""
		echo x >a/keep/file 2>/dev/null && r="$r write-existing"
		echo x >a/keep/deep/file 2>/dev/null && r="$r write-deep"
		touch a/keep/new 2>/dev/null && r="$r create"
		rm -f a/keep/file 2>/dev/null; [ -e a/keep/file ] || r="$r unlink"
		mv a/keep a/kept 2>/dev/null && r="$r rename-protected"
		mv a a2 2>/dev/null && r="$r rename-parent"
		rm -rf a/keep 2>/dev/null; [ -d a/keep ] || r="$r rmdir"
		echo "escaped:$r"
		touch a/free/ok a/ok ok || exit 9'
	assert_equal "$status" 0
	assert_equal "$output" "escaped:"
	assert_equal "$(cat "$ws/a/keep/file")" orig
	assert_equal "$(cat "$ws/a/keep/deep/file")" orig
	[ -d "$ws/a/keep" ] && [ ! -e "$ws/a/kept" ] && [ ! -e "$ws/a2" ]
	[ ! -e "$ws/a/keep/new" ]
	# The rest of the workspace stayed writable.
	[ -f "$ws/a/free/ok" ] && [ -f "$ws/a/ok" ] && [ -f "$ws/ok" ]
}

@test "--protect takes a path relative to the current directory (-p)" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	mkdir -p "$ws/cfg"
	echo orig >"$ws/cfg/settings"
	run --separate-stderr wsrun "$ws" -p cfg -- sh -c 'echo evil >cfg/settings; echo rc=$?; touch other'
	assert_equal "$status" 0
	assert_line "rc=2"
	assert_regex "$stderr" 'Read-only file system'
	assert_equal "$(cat "$ws/cfg/settings")" orig
	[ -f "$ws/other" ]
}

@test "--read-only: nothing writable but the private /tmp and the /dev essentials" {
	local ws t
	ws=$(mk_workspace)
	track "$ws"
	t=$(new_token)
	guard_path "/tmp/$t" "/dev/shm/$t"
	echo orig >"$ws/existing"
	run --separate-stderr wsrun "$ws" --read-only -- sh -c '
		echo "policy=$WICKET_POLICY cwd=$(pwd)"
		cat existing
		{ echo x >existing; } 2>/dev/null && echo BAD-write-existing
		touch new 2>/dev/null && echo BAD-create
		mkdir newdir 2>/dev/null && echo BAD-mkdir
		rm -f existing 2>/dev/null; [ -e existing ] || echo BAD-unlink
		chmod 600 existing 2>/dev/null && echo BAD-chmod
		echo t >"/tmp/$1" && cat "/tmp/$1"
		echo z >/dev/null && echo devnull-ok
		head -c 4 /dev/zero | od -An -tx1 | tr -d " "
		mkdir "/dev/shm/$1" && echo shm-ok' _ "$t"
	assert_equal "$status" 0
	# Each refusal is explained, once, and summed up.
	assert_regex "$stderr" "^sandbox: write blocked: $ws/existing \(open for writing by sh\[[0-9]+\]\)
sandbox: write blocked: $ws/new \(create by touch\[[0-9]+\]\)
sandbox: write blocked: $ws/newdir \(mkdir by mkdir\[[0-9]+\]\)
sandbox: write blocked: $ws/existing \(unlink by rm\[[0-9]+\]\)
sandbox: write blocked: $ws/existing \(chmod by chmod\[[0-9]+\]\)
wicket: the sandbox blocked 5 writes; run \`wicket why\` for details$"
	assert_equal "$output" "policy=read-only cwd=$ws
orig
t
devnull-ok
00000000
shm-ok"
	assert_equal "$(cat "$ws/existing")" orig
	[ ! -e "$ws/new" ] && [ ! -e "$ws/newdir" ]
	[ ! -e "/tmp/$t" ] && [ ! -e "/dev/shm/$t" ]
	run --separate-stderr wsrun "$ws" -r -- sh -c 'echo $WICKET_POLICY'
	assert_equal "$output" read-only
}

@test "--best-effort is accepted on this fully capable machine, with no warning, and still enforces" {
	local ws out
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	run --separate-stderr wsrun "$ws" --best-effort -- sh -c 'echo "$WICKET_POLICY"; touch in-ws; touch "$1/outside" 2>/dev/null || echo outside-denied' _ "$out"
	assert_equal "$status" 0
	# No warning: only the explanation of the one refusal.
	assert_regex "$stderr" "^sandbox: write blocked: $out/outside \(create by touch\[[0-9]+\]\)
wicket: the sandbox blocked 1 write; run \`wicket why\` for details$"
	assert_equal "$output" "workspace-write
outside-denied"
	[ -f "$ws/in-ws" ]
	[ ! -e "$out/outside" ]
}

@test "--net none is accepted (the default spelled out)" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr wsrun "$ws" --net none -- echo ok
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	assert_equal "$output" ok
	run --separate-stderr wsrun "$ws" -n full -- echo ok
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	assert_equal "$output" ok
}

@test "an early refusal leaves nothing behind that holds the caller's pipes" {
	# Regression: a helper started before the refusal once outlived the
	# supervisor, keeping stdout open, so '| cat' never saw EOF.
	local ws i
	ws=$(mk_workspace)
	for i in $(seq 1 25); do
		run bounded 10 sh -c 'cd "$1" && "$2" run -- /nonexistent-wicket-cmd 2>&1 | cat' _ "$ws" "$WICKET"
		assert_equal "$status" 0
		assert_output --partial "command not found"
		run bounded 10 sh -c 'cd "$1" && "$2" run -w /nonexistent-wicket-path -- true 2>&1 | cat' _ "$ws" "$WICKET"
		assert_equal "$status" 0
		assert_output --partial "nonexistent-wicket-path"
	done
	# This user's processes only: the runner runs this file as root and
	# as the test user at the same time.
	run pgrep -u "$(id -u)" -f 'nonexistent-wicket-(cmd|path)'
	assert_failure
}
