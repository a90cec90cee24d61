#!/usr/bin/env bats
# The seccomp user notification behind the supervisor's reports of refused
# network calls (launcher/supervisor/netnotify.c). The filter hands socket() and
# friends to a listener, and whoever holds a listener can answer
# "continue": so the listener must never reach the sandbox, and the
# sandbox must never get a listener of its own whose "continue" the
# kernel would take instead of ours (for equal actions the newest filter
# wins in seccomp_run_filters). Each attack is judged by a UDP listener
# on the host, and each is first shown to work without the sandbox.

load ../lib/common
load escape_helpers

setup() {
	need_probe notifyprobe
	esc_setup
	NP=$(probe notifyprobe)
}

teardown() {
	escape_cleanup
	common_teardown
}

# ports_policy: a "ports" policy without UDP, in $PPOL.
ports_policy() {
	PPOL=$OUT/ports.json
	printf '{"extends": "workspace-write", "network": {"mode": "ports", "connect": [443]}}\n' >"$PPOL"
	chmod 644 "$PPOL"
}

# sanity_nested: the attack works outside the sandbox (own listener,
# CONTINUE, a datagram reaches the listener).
sanity_nested() {
	run "$NP" nested 127.0.0.1 "$LISTEN_ADDR" "sanity-$RND"
	printf '%s\n' "$output"
	assert_line "listener: OK"
	assert_line "socket: OK"
	listener_heard
	grep -q "sanity-$RND" "$LISTEN_LOG"
	: >"$LISTEN_LOG"
}

@test "notify: the scanner finds a seccomp listener where there is one" {
	run "$NP" fds-self
	assert_success
	assert_line "listener: OK"
	assert_line --regexp '^listener: /proc/[0-9]+/fd/[0-9]+$'
}

@test "notify: no process in the sandbox holds the supervisor's listener (--net none and ports)" {
	ports_policy
	# "s 1" says the supervisor took the listener (else the test would
	# prove nothing): the shim leaves those refusals to it.
	sbx sh -c 'printf "%s\n" "$WICKET_RULES" | head -n 1; exec "$0" fds' "$NP"
	assert_line "s 1"
	assert_line "fds: checked"
	refute_line --regexp '^listener: '
	sbx_opts -P "$PPOL" -- sh -c 'printf "%s\n" "$WICKET_RULES" | head -n 1; exec "$0" fds' "$NP"
	assert_line "s 1"
	assert_line "fds: checked"
	refute_line --regexp '^listener: '
}

@test "notify: a filter of the sandbox's own with a listener cannot CONTINUE socket() (--net none)" {
	listen udp
	sanity_nested
	sbx "$NP" nested 127.0.0.1 "$LISTEN_ADDR" "escape-$RND"
	if listener_heard; then
		echo "ESCAPE: the listener heard the sandbox:"
		cat "$LISTEN_LOG"
		false
	fi
	# No listener for the sandbox (the supervisor holds the only one in
	# this filter tree, and the filter refuses the flag itself).
	assert_line "listener: EPERM"
	refute_line "socket: OK"
}

@test "notify: a filter of the sandbox's own with a listener cannot CONTINUE socket() (--net ports, no UDP)" {
	listen udp
	ports_policy
	sanity_nested
	sbx_opts -P "$PPOL" -- "$NP" nested 127.0.0.1 "$LISTEN_ADDR" "escape-$RND"
	if listener_heard; then
		echo "ESCAPE: the listener heard the sandbox:"
		cat "$LISTEN_LOG"
		false
	fi
	assert_line "listener: EPERM"
	refute_line "socket: OK"
}

@test "notify: after the supervisor is gone (no pid namespace), a leftover process gets no listener and no socket" {
	# Without a pid namespace a process that left the session outlives
	# wicket. Our listener is closed then, so the kernel would no longer
	# refuse a second one (has_duplicate_listener): the filter itself must.
	local d pid
	# As a user without namespaces wicket cannot start here at all (it
	# fails to empty the capability bounding set): nothing to attack.
	if ! (cd "$WS" && WICKET_PRETEND_MISSING=namespaces bounded 30 "$WICKET" run --best-effort \
		-- true 2>/dev/null); then
		skip "wicket does not start without namespaces as $(id -un) (capability bounding set)"
	fi
	listen udp
	sanity_nested
	d=$WS/orphan
	mkdir "$d"
	chmod 777 "$d"
	(cd "$WS" && WICKET_PRETEND_MISSING=namespaces bounded 30 "$WICKET" run --best-effort -- \
		"$NP" orphan "$d" 127.0.0.1 "$LISTEN_ADDR" "escape-$RND") || true
	wait_for test -s "$d/pid"
	pid=$(cat "$d/pid")
	track_pid "$pid"
	# wicket has exited (its listener with it); the leftover attacks now.
	touch "$d/go"
	for ((i = 0; i < 100; i++)); do
		[ -e "$d/done" ] && break
		sleep 0.1
	done
	cat "$d/out"
	if listener_heard; then
		echo "ESCAPE: the listener heard the leftover process:"
		cat "$LISTEN_LOG"
		false
	fi
	# Our filter, its listener closed: the call fails (ENOSYS), and no
	# listener of the process's own can let it through.
	grep -qx "before: socket: ENOSYS" "$d/out"
	grep -qx "listener: EPERM" "$d/out"
	if grep -q "socket: OK" "$d/out"; then
		echo "ESCAPE: the leftover process made its socket"
		false
	fi
}
