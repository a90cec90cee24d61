#!/usr/bin/env bats
# Running the command: exit status, signals, stdio, process lifetime.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

teardown() { it_teardown; }

# ---- exit status ------------------------------------------------------

@test "the command's own exit status is wicket's" {
	local ws code
	ws=$(mk_workspace)
	track "$ws"
	for code in 0 1 2 42 124 200 255; do
		run --separate-stderr wsrun "$ws" -- sh -c "exit $code"
		assert_equal "$status" "$code"
		assert_equal "$stderr" ""
	done
	run --separate-stderr wsrun "$ws" -- false
	assert_equal "$status" 1
}

@test "a command that kills itself with SIGKILL: exit 137" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr wsrun "$ws" -- sh -c 'echo before; kill -KILL $$; echo after'
	assert_equal "$status" 137
	assert_equal "$output" before
	assert_equal "$stderr" ""
}

@test "a command that kills itself with SIGINT: exit 130" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	# Default SIGINT disposition for the command whatever bats inherited.
	run --separate-stderr wsrun "$ws" -- env --default-signal=INT sh -c 'echo before; kill -INT $$; echo after'
	assert_equal "$status" 130
	assert_equal "$output" before
	assert_equal "$stderr" ""
}

@test "death by any other signal N: exit 128+N (HUP 129, USR1 138, PIPE 141, TERM 143)" {
	local ws sig code
	ws=$(mk_workspace)
	track "$ws"
	for sig in HUP:129 USR1:138 PIPE:141 TERM:143; do
		code=${sig#*:}
		sig=${sig%%:*}
		run --separate-stderr wsrun "$ws" -- env --default-signal sh -c "kill -$sig \$\$"
		assert_equal "$status" "$code"
	done
}

# ---- signals sent to wicket -------------------------------------------

@test "kill -TERM <wicket pid> while it runs sleep: wicket exits 143 (the command's death, passed on)" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr with_signal TERM "$ws/ready" \
		bash -c 'cd "$1" && exec "$WICKET" run -- sh -c ": >ready; exec sleep 100"' _ "$ws"
	assert_equal "$status" 0
	# "exit 143": wicket itself exited normally with 143 (a wicket killed
	# by SIGTERM would show as "signal 15").
	assert_equal "$output" "exit 143"
}

@test "SIGINT sent by a process to wicket reaches the command: sleep dies, exit 130" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr with_signal INT "$ws/ready" \
		bash -c 'cd "$1" && exec "$WICKET" run -- sh -c ": >ready; exec sleep 100"' _ "$ws"
	assert_equal "$status" 0
	assert_equal "$output" "exit 130"
}

@test "SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM are forwarded to the command" {
	local ws sig
	ws=$(mk_workspace)
	track "$ws"
	# The command traps each signal with its own exit code; it gives up
	# after 30 s (exit 99).
	local script='
		trap "exit 101" HUP; trap "exit 102" INT; trap "exit 103" QUIT
		trap "exit 110" USR1; trap "exit 112" USR2; trap "exit 114" ALRM; trap "exit 115" TERM
		: >ready
		i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
		exit 99'
	for sig in HUP:101 INT:102 QUIT:103 USR1:110 USR2:112 ALRM:114 TERM:115; do
		rm -f "$ws/ready"
		run --separate-stderr with_signal "${sig%%:*}" "$ws/ready" \
			bash -c 'cd "$1" && exec "$WICKET" run -- sh -c "$2"' _ "$ws" "$script"
		assert_equal "$status" 0
		assert_equal "${sig%%:*} $output" "${sig%%:*} exit ${sig#*:}"
	done
}

# ---- stdio --------------------------------------------------------------

@test "stdin and stdout pass all 256 byte values through unchanged (files and pipes)" {
	local ws d
	ws=$(mk_workspace)
	track "$ws"
	d=$(mk_outside)
	track "$d"
	"$PY" -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 3)' >"$d/in"
	[ "$(stat -c %s "$d/in")" = 768 ]
	(cd "$ws" && bounded 60 "$WICKET" run -- cat <"$d/in" >"$d/out-file")
	cmp "$d/in" "$d/out-file"
	# shellcheck disable=SC2002 # pipes on both sides on purpose
	(cd "$ws" && cat "$d/in" | bounded 60 "$WICKET" run -- cat | cat >"$d/out-pipe")
	cmp "$d/in" "$d/out-pipe"
	# Binary on stderr too.
	(cd "$ws" && bounded 60 "$WICKET" run -- sh -c 'cat >&2' <"$d/in" 2>"$d/err" >"$d/out-empty")
	cmp "$d/in" "$d/err"
	[ ! -s "$d/out-empty" ]
}

@test "a few MB of random data pass through stdin and stdout byte-exact" {
	local ws d want got
	ws=$(mk_workspace)
	track "$ws"
	d=$(mk_outside)
	track "$d"
	head -c 6000000 /dev/urandom >"$d/in"
	want=$(sha256sum <"$d/in")
	got=$(cd "$ws" && bounded 60 "$WICKET" run -- cat <"$d/in" | sha256sum)
	assert_equal "$got" "$want"
	# shellcheck disable=SC2002 # stdin a pipe on purpose
	(cd "$ws" && cat "$d/in" | bounded 60 "$WICKET" run -- cat >"$d/out")
	cmp "$d/in" "$d/out"
}

@test "stdout and stderr stay separate streams" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr wsrun "$ws" -- sh -c 'i=1; while [ $i -le 500 ]; do echo "out $i"; echo "err $i" >&2; i=$((i + 1)); done'
	assert_equal "$status" 0
	assert_equal "${#lines[@]}" 500
	assert_equal "${#stderr_lines[@]}" 500
	assert_equal "$output" "$(seq -f 'out %g' 1 500)"
	assert_equal "$stderr" "$(seq -f 'err %g' 1 500)"
}

@test "stdin lines reach the command in order and EOF ends it" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr bounded 60 bash -c 'cd "$1" && printf "one\ntwo\nthree\n" | "$WICKET" run -- sh -c "read a; read b; read c; echo \"\$c \$b \$a\"; cat; echo eof"' _ "$ws"
	assert_equal "$status" 0
	assert_equal "$output" "three two one
eof"
}

@test "stdio redirected to files outside the workspace can be reopened via /dev/stdin and /dev/stdout" {
	local ws d
	ws=$(mk_workspace)
	track "$ws"
	d=$(mk_outside)
	track "$d"
	printf 'input-data\n' >"$d/in"
	: >"$d/out"
	(cd "$ws" && bounded 60 "$WICKET" run -- sh -c 'cat /dev/stdin; echo via-dev >>/dev/stdout; echo direct' <"$d/in" >>"$d/out")
	assert_equal "$(cat "$d/out")" "input-data
via-dev
direct"
	# The rest of that directory stays read-only.
	run --separate-stderr wsrun "$ws" -- sh -c "touch '$d/new'" <"$d/in" >>"$d/out"
	assert_equal "$status" 1
	[ ! -e "$d/new" ]
}

@test "a closed stdout stays closed in the command" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	local check='if (exec 4>&1) 2>/dev/null; then echo open >&2; else echo closed >&2; fi'
	# Control: open when it is open.
	run --separate-stderr wsrun "$ws" -- sh -c "$check"
	assert_equal "$stderr" open
	run --separate-stderr bounded 60 bash -c 'cd "$1" && "$WICKET" run -- sh -c "$2" >&-' _ "$ws" "$check"
	assert_equal "$status" 0
	assert_equal "$output" ""
	assert_equal "$stderr" closed
	# Same through the descriptor table, from a program that prints it.
	run --separate-stderr bounded 60 bash -c 'cd "$1" && "$WICKET" run -- "$2" -c "import os
try:
    os.fstat(1); print(\"fd1-open\", file=__import__(\"sys\").stderr)
except OSError as e:
    print(\"fd1-closed\", e.errno, file=__import__(\"sys\").stderr)" >&-' _ "$ws" "$PY"
	assert_equal "$stderr" "fd1-closed 9"
}

@test "a closed stderr stays closed: 'echo x >&2' fails as it does without wicket" {
	local ws native
	ws=$(mk_workspace)
	track "$ws"
	native=0
	sh -c 'echo x >&2' 2>&- || native=$?
	[ "$native" -ne 0 ]
	run --separate-stderr bounded 60 bash -c 'cd "$1" && "$WICKET" run -- sh -c "echo x >&2" 2>&-' _ "$ws"
	assert_equal "$status" "$native"
	assert_equal "$output" ""
	run --separate-stderr bounded 60 bash -c 'cd "$1" && "$WICKET" run -- sh -c "if (exec 4>&2); then echo open; else echo closed; fi" 2>&-' _ "$ws"
	assert_equal "$status" 0
	assert_equal "$output" closed
	# Control.
	run --separate-stderr wsrun "$ws" -- sh -c "if (exec 4>&2); then echo open; else echo closed; fi"
	assert_equal "$output" open
}

@test "a closed stdin stays closed in the command" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr bounded 60 bash -c 'cd "$1" && "$WICKET" run -- sh -c "if (exec 4<&0) 2>/dev/null; then echo open; else echo closed; fi" <&-' _ "$ws"
	assert_equal "$status" 0
	assert_equal "$output" closed
	run --separate-stderr bounded 60 bash -c 'cd "$1" && "$WICKET" run -- sh -c "if (exec 4<&0) 2>/dev/null; then echo open; else echo closed; fi" </dev/null' _ "$ws"
	assert_equal "$output" open
}

# ---- processes ----------------------------------------------------------

@test "processes started in the sandbox do not outlive the session" {
	local ws marker1 marker2 left i p
	ws=$(mk_workspace)
	track "$ws"
	marker1="sleep 171.$$$RANDOM"
	marker2="sleep 172.$$$RANDOM"
	# A plain background job and a daemonised one (new session, reparented).
	run --separate-stderr wsrun "$ws" -- sh -c "
		$marker1 </dev/null >/dev/null 2>&1 &
		setsid sh -c '$marker2 </dev/null >/dev/null 2>&1 &' </dev/null >/dev/null 2>&1
		sleep 0.2
		ps -eo args= | grep -c '^sleep 17[12]\.'
		exit 5"
	assert_equal "$status" 5
	assert_equal "$output" 2
	left=""
	for i in $(seq 1 30); do
		left=$(pgrep -f -x -- "$marker1|$marker2" || true)
		[ -z "$left" ] && break
		sleep 0.1
	done
	for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
	assert_equal "$left" ""
}

@test "host processes are not visible in the sandbox (ps shows only the sandbox's own)" {
	local ws marker hostpid i
	ws=$(mk_workspace)
	track "$ws"
	marker="sleep 173.$$$RANDOM"
	# timeout itself, not the bounded function (a subshell): $! is the pid
	# stop_started signals. "sleep N" is split on purpose.
	# shellcheck disable=SC2086
	timeout --kill-after=5 60 $marker </dev/null >/dev/null 2>&1 3>&- &
	_WK_STARTED+=("$!")
	hostpid=""
	for i in $(seq 1 50); do
		hostpid=$(pgrep -f -x -- "$marker" | head -n 1)
		[ -n "$hostpid" ] && break
		sleep 0.1
	done
	[ -n "$hostpid" ]
	run --separate-stderr wsrun "$ws" -- sh -c "
		ps -eo pid=,args=
		echo procs=\$(ls /proc | grep -c '^[0-9]')
		kill -0 $hostpid 2>/dev/null && echo host-pid-\"\"signalable
		true"
	assert_equal "$status" 0
	refute_output --partial "$marker"
	refute_output --partial host-pid-signalable
	refute_output --partial bats
	# pid 1 is wicket's init, the command is one of very few processes.
	assert_regex "${lines[0]}" '^ *1 .*wicket'
	local n
	n=$(printf '%s\n' "$output" | grep -c '^ *[0-9]')
	[ "$n" -le 5 ]
	assert_line --regexp '^procs=[1-6]$'
	# The host process was not touched.
	kill -0 "$hostpid"
}
