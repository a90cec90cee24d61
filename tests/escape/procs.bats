#!/usr/bin/env bats
# Reaching host processes: tracing, reading and writing their memory,
# signalling them, reading their environment; and the sandbox's own
# processes outliving it. Host processes are started by the test itself
# and judged from the host (memory contents, liveness, tracer, state).

load ../lib/common
load escape_helpers

setup() {
	need_probe memprobe
	esc_setup
	MP=$(probe memprobe)
}

teardown() {
	escape_cleanup
	common_teardown
}

# sanity_write MODE: the write attack works on a throwaway victim without
# the sandbox.
sanity_write() {
	start_victim "INTACT-$RND"
	"$MP" "$1" "$VICTIM_PID" "$VICTIM_ADDR" "PWNED-$RND"
	[ "$(victim_memory)" = "PWNED-$RND" ]
}

# assert_victim_intact: alive, untraced, not stopped, memory unchanged.
assert_victim_intact() {
	alive "$VICTIM_PID"
	[ "$(status_field "$VICTIM_PID" TracerPid)" = 0 ]
	case $(status_field "$VICTIM_PID" State) in T* | t*) false ;; esac
	[ "$(victim_memory)" = "INTACT-$RND" ]
}

@test "procs: ptrace (attach, POKEDATA) into a host process" {
	sanity_write ptrace-poke
	start_victim "INTACT-$RND"
	sbx "$MP" ptrace-poke "$VICTIM_PID" "$VICTIM_ADDR" "PWNED-$RND"
	assert_victim_intact
}

@test "procs: writing a host process's memory through /proc/PID/mem" {
	sanity_write mem-write
	start_victim "INTACT-$RND"
	sbx sh -c '"$1" mem-write "$2" "$3" "$4"; printf "%s" "$4" | dd of="/proc/$2/mem" bs=1 seek=$((0x$3)) conv=notrunc 2>&1' \
		_ "$MP" "$VICTIM_PID" "$VICTIM_ADDR" "PWNED-$RND"
	assert_victim_intact
}

@test "procs: process_vm_writev into a host process" {
	sanity_write vm-write
	start_victim "INTACT-$RND"
	sbx "$MP" vm-write "$VICTIM_PID" "$VICTIM_ADDR" "PWNED-$RND"
	assert_victim_intact
}

@test "procs: reading a host process's memory (process_vm_readv, /proc/PID/mem)" {
	start_victim "SECRET-$RND"
	run "$MP" vm-read "$VICTIM_PID" "$VICTIM_ADDR" 40
	assert_output --partial "SECRET-$RND"

	sbx sh -c '"$1" vm-read "$2" "$3" 40; "$1" mem-read "$2" "$3" 40' _ "$MP" "$VICTIM_PID" "$VICTIM_ADDR"
	refute_output --partial "SECRET-$RND"
	alive "$VICTIM_PID"
}

@test "procs: a host process's environment and command line through /proc" {
	env "WK_PRIVATE=ENV-$RND" bash -c 'exec -a "sleep-ARG-$1" sleep 60' _ "$RND" >/dev/null 2>&1 3>&- &
	pid=$!
	track_pid "$pid"
	# Until it is the sleep (before its exec it is a copy of this shell).
	wait_for grep -qa "sleep-ARG-$RND" "/proc/$pid/cmdline"
	attack='cat "/proc/$1/environ" "/proc/$1/cmdline"; grep -a -s -h -e "ENV-$2" -e "ARG-$2" /proc/[0-9]*/environ /proc/[0-9]*/cmdline'
	run sh -c "$attack" _ "$pid" "$RND"
	assert_output --partial "ENV-$RND"

	sbx sh -c "$attack; ls /proc" _ "$pid" "$RND"
	refute_output --partial "ENV-$RND"
	refute_output --partial "ARG-$RND"
	refute_line "$pid"
}

@test "procs: kill -9 (and SIGSTOP, SIGTERM) of a host process by pid" {
	sleep 60 >/dev/null 2>&1 3>&- &
	throwaway=$!
	track_pid "$throwaway"
	kill -9 "$throwaway"
	wait "$throwaway" || true
	run alive "$throwaway"
	[ "$status" -ne 0 ]

	start_host_sleep
	sbx sh -c 'kill -STOP "$1"; kill -TERM "$1"; kill -9 "$1"; /bin/kill -9 "$1"' _ "$HOST_PID"
	alive "$HOST_PID"
	case $(status_field "$HOST_PID" State) in T*) false ;; esac
}

@test "procs: pidfd_open + pidfd_send_signal of a host process" {
	sleep 60 >/dev/null 2>&1 3>&- &
	throwaway=$!
	track_pid "$throwaway"
	"$MP" pidfd-kill "$throwaway"
	wait "$throwaway" || true
	run alive "$throwaway"
	[ "$status" -ne 0 ]

	start_host_sleep
	sbx "$MP" pidfd-kill "$HOST_PID"
	alive "$HOST_PID"
}

@test "procs: kill -9 -1 (every process the sender may signal)" {
	# No unsandboxed sanity check: it would kill the whole session. For
	# the same reason the attack refuses to run outside a pid namespace
	# (a broken launcher must fail this test, not take the machine down).
	start_host_sleep
	sbx sh -c '[ $$ -lt 10 ] || { echo "refused: not in a pid namespace"; exit 99; }
		kill -9 -1; /bin/kill -9 -1; echo after'
	[ "$status" != 99 ]
	alive "$HOST_PID"
}

@test "procs: kill(0) to the caller's process group" {
	# The command leads a session of its own (no descriptor or controlling
	# terminal of the caller's), and init is in the caller's group: kill(0)
	# from inside must not reach the group's host members.
	pg_attack() { # DIR CMD...: a new session holding a sleep, the attacker and the shell
		local d=$1
		shift
		bounded 20 setsid -w bash -c '
			d=$1; shift
			sleep 60 >/dev/null 2>&1 &
			echo $! >"$d/pid"
			"$@" >"$d/out" 2>&1
			echo survived >"$d/shell"' _ "$d" "$@" 3>&- || true
		track_pid "$(cat "$d/pid")"
	}
	mkout sanity
	pg_attack "$sanity" sh -c 'kill -9 0'
	run alive "$(cat "$sanity/pid")"
	[ "$status" -ne 0 ]
	[ ! -e "$sanity/shell" ]

	mkout d
	pg_attack "$d" "$WICKET" run -C "$WS" -- sh -c 'echo ran >ran; kill -9 0; kill -TERM 0'
	[ -e "$WS/ran" ]
	alive "$(cat "$d/pid")"
	[ -e "$d/shell" ]
}

# init_of PID: PID's child that is pid 1 in its own pid namespace.
init_of() {
	local p
	for p in $(pgrep -P "$1"); do
		if awk '$1 == "NSpid:" && $NF == 1 { found = 1 } END { exit !found }' "/proc/$p/status" 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

@test "procs: the command cannot write, read or trace its unsandboxed pid-1 init" {
	# init (pid 1 inside) is forked from the supervisor and runs without
	# Landlock or seccomp: controlling it would undo both. The address
	# attacked is in the launcher's writable data, the same in init as in
	# the supervisor it was forked from.
	(cd "$WS" && exec "$WICKET" run -- sh -c '
		i=0
		while [ ! -e go ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		a=$(cat addr)
		"$1" mem-write 1 "$a" WKPWNED; "$1" vm-write 1 "$a" WKPWNED; "$1" ptrace-poke 1 "$a" WKPWNED
		"$1" vm-read 1 "$a" 8; cat /proc/1/environ
		"$1" ptrace-seize 1 3 &
		sleep 1; echo >done; sleep 3; wait; exit 7' _ "$MP" >"$OUT/log" 2>&1 3>&-) &
	wk=$!
	track_pid "$wk"
	# The supervisor's child that is pid 1 of its namespace (as root a
	# short-lived helper that makes the network namespace is a child too).
	wait_for init_of "$wk" >/dev/null
	init=$(init_of "$wk")
	addr=$(awk '$2 ~ /^rw/ && $6 ~ /wicket$/ { split($1, a, "-"); print a[1]; exit }' "/proc/$wk/maps")
	[ -n "$addr" ]
	# The host reads init's memory where it may (root; init is not
	# dumpable, so an unprivileged host cannot -- nor can the sandbox).
	before=$("$MP" mem-read "$init" "$addr" 8 2>&1 || true)
	echo "$addr" >"$WS/addr"
	touch "$WS/go"
	wait_for test -e "$WS/done"
	tracer=$(status_field "$init" TracerPid)
	after=$("$MP" mem-read "$init" "$addr" 8 2>&1 || true)
	rc=0
	wait "$wk" || rc=$?
	cat "$OUT/log"
	[ "$tracer" = 0 ]
	[ "$after" = "$before" ]
	[[ $after != *WKPWNED* ]]
	# init still did its job: the command's status came through.
	[ "$rc" = 7 ]
	run cat "$OUT/log"
	refute_output --partial "read: WKPWNED"
	refute_output --partial "mem-write: OK"
	refute_output --partial "vm-write: OK"
	refute_output --partial "ptrace-poke: OK"
	refute_output --partial "ptrace-seize: OK"
}

@test "procs: background processes do not outlive the command" {
	mark="299.$RANDOM$RANDOM"
	# Detection works: the same background sleep outside the sandbox.
	sh -c "sleep $mark >/dev/null 2>&1 &"
	wait_for marked_running "sleep $mark"
	kill_matching "sleep $mark"

	sbx sh -c "sleep $mark >/dev/null 2>&1 & (sleep $mark >/dev/null 2>&1 &); echo started"
	sleep 0.5
	left=$(proc_pids_matching "sleep $mark")
	kill_matching "sleep $mark"
	[ -z "$left" ]
}

@test "procs: daemonized processes (setsid, nohup, double fork, ignoring signals) die with the sandbox" {
	mark="298.$RANDOM$RANDOM"
	attack='setsid -f sh -c "trap \"\" HUP TERM INT; exec sleep $1" </dev/null >/dev/null 2>&1
		nohup sleep "$1" </dev/null >/dev/null 2>&1 &
		"$2" -c "import os,sys,time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.closerange(0, 100)
        os.execvp(\"sleep\", [\"sleep\", sys.argv[1]])
    os._exit(0)
time.sleep(0.3)" "$1"'
	sh -c "$attack" _ "$mark" "$PY"
	three_running() { [ "$(proc_pids_matching "sleep $mark" | wc -l)" -ge 3 ]; }
	wait_for three_running
	kill_matching "sleep $mark"

	sbx sh -c "$attack" _ "$mark" "$PY"
	sleep 0.5
	left=$(proc_pids_matching "sleep $mark")
	kill_matching "sleep $mark"
	[ -z "$left" ]
}

@test "procs: the sandbox dies when its supervisor is killed" {
	mark="297.$RANDOM$RANDOM"
	(cd "$WS" && exec "$WICKET" run -- sh -c "sleep $mark >/dev/null 2>&1 & exec sleep $mark" >/dev/null 2>&1 3>&-) &
	wk=$!
	track_pid "$wk"
	two_running() { [ "$(proc_pids_matching "sleep $mark" | wc -l)" -ge 2 ]; }
	wait_for two_running
	kill -9 "$wk"
	wait "$wk" || true
	gone() { [ -z "$(proc_pids_matching "sleep $mark")" ]; }
	wait_for gone || {
		kill_matching "sleep $mark"
		false
	}
}
