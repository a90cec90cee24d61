#!/usr/bin/env bats
# wicket(1) DIAGNOSTICS: the network refusals of programs the preload shim
# cannot see (static binaries, raw system calls) are reported by the
# supervisor, which receives them as seccomp user notifications; programs
# under the shim still get exactly one line per denial.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	WS=$(mk_workspace) && OUT=$(mk_outside) || return 1
	track "$WS" "$OUT"
	export XDG_STATE_HOME=$OUT/state
	DYN=$WICKET_TEST_BINDIR/integration/netprobe
	STATIC=$WICKET_TEST_BINDIR/integration/netprobe-static
	[ -x "$DYN" ] || {
		echo "$DYN not built: run make check" >&2
		return 1
	}
	PPOL=$OUT/ports.json
	printf '{"extends": "workspace-write", "network": {"mode": "ports", "connect": [443]}}\n' >"$PPOL"
	chmod 644 "$PPOL"
}

teardown() { it_teardown; }

need_static() {
	[ -x "$STATIC" ] || skip "no static C library here (configure: static program: no)"
}

# net_lines: the "sandbox: network blocked:" lines of $stderr, each pid
# replaced by N.
net_lines() {
	grep '^sandbox: network blocked: ' <<<"$stderr" | sed -E 's/\[[0-9]+\]\)$/[N])/' || true
}

# expect_net LINE...: exactly these network lines (any order), each once.
expect_net() {
	local want got
	want=$(printf '%s\n' "$@" | sed '/^$/d' | sort)
	got=$(net_lines | sort)
	if [ "$got" != "$want" ]; then
		printf 'network lines:\n%s\nexpected:\n%s\nstderr:\n%s\n' "$got" "$want" "$stderr"
		return 1
	fi
}

@test "a static binary: one line per process and object on wicket's stderr, EPERM, the sandbox's pid, and wicket why has it" {
	need_static
	run --separate-stderr wsrun "$WS" -- sh -c '
		"$1" socket 2 3 17 socket 2 3 17 socket 10 3 58 & p=$!; wait $p; echo "pid $p"
		"$2" why' _ "$STATIC" "$WICKET"
	assert_equal "$status" 0
	[ "$(grep -c '^socket: EPERM$' <<<"$output")" = 3 ]
	expect_net "sandbox: network blocked: socket ipv4/raw (netprobe-static[N])" \
		"sandbox: network blocked: socket ipv6/raw (netprobe-static[N])"
	# The pid as the sandbox sees it, not the supervisor's.
	local pid
	pid=$(sed -n 's/^pid //p' <<<"$output")
	assert_regex "$stderr" "socket ipv4/raw \(netprobe-static\[$pid\]\)"
	assert_line "network blocked: socket ipv4/raw"
	assert_line "network blocked: socket ipv6/raw"
	assert_line "  rule: the network is off (policy workspace-write, network mode none)"
	assert_regex "$stderr" 'wicket: the sandbox blocked 2 network uses; run `wicket why` for details'
}

@test "a seccomp refusal's line is out before the refused call returns: between what the program wrote before and after it" {
	# The supervisor writes the line, then answers the notification.
	# Answered first, the line went out a few milliseconds later, after
	# what the program wrote next. stdout and stderr are one file outside
	# (the supervisor copies into it), so their order is one.
	need_static
	# (In mode none inet TCP and UDP sockets are the private loopback's:
	# raw, ICMP and SCTP ones are refused.)
	(cd "$WS" && exec timeout 60 "$WICKET" run -- "$STATIC" socket 2 3 17 socket 2 2 1 \
		socket 10 1 132 socket 10 3 58) </dev/null >"$OUT/both" 2>&1
	assert_equal "$(sed -E 's/\[[0-9]+\]\)$/[N])/' "$OUT/both")" "sandbox: network blocked: socket ipv4/raw (netprobe-static[N])
socket: EPERM
sandbox: network blocked: socket ipv4/icmp (netprobe-static[N])
socket: EPERM
sandbox: network blocked: socket ipv6/sctp (netprobe-static[N])
socket: EPERM
sandbox: network blocked: socket ipv6/raw (netprobe-static[N])
socket: EPERM
wicket: the sandbox blocked 4 network uses; run \`wicket why\` for details"
}

@test "a static binary in ports mode: raw, netlink, packet, UDP, socketpair and Fast Open are named; TCP is allowed; Landlock's port refusals are not seen" {
	need_static
	run --separate-stderr wsrun "$WS" -P "$PPOL" -- "$STATIC" socket 2 1 0 socket 2 3 17 \
		socket 16 3 0 socket 17 3 768 socket 2 2 0 socketpair 2 1 0 \
		fastopen 127.0.0.1 443 fastopen-msg ::1 443 connect 127.0.0.1 9
	assert_equal "$status" 0
	assert_equal "$output" "socket: OK
socket: EPERM
socket: EPERM
socket: EPERM
socket: EPERM
socketpair: EPERM
fastopen: EPERM
fastopen-msg: EPERM
connect: EACCES"
	expect_net "sandbox: network blocked: socket ipv4/raw (netprobe-static[N])" \
		"sandbox: network blocked: socket netlink/raw (netprobe-static[N])" \
		"sandbox: network blocked: socket packet/raw (netprobe-static[N])" \
		"sandbox: network blocked: socket ipv4/udp (netprobe-static[N])" \
		"sandbox: network blocked: socketpair ipv4/tcp (netprobe-static[N])" \
		"sandbox: network blocked: sendto 127.0.0.1:443/tcp (netprobe-static[N])" \
		"sandbox: network blocked: sendmsg [::1]:443/tcp (netprobe-static[N])"
}

@test "raw system calls from a dynamic program (around the shim): one line, not two" {
	run --separate-stderr wsrun "$WS" -- "$DYN" raw-socket 2 3 17 socket 2 3 17 raw-socket 10 1 132 \
		socket 10 3 58
	assert_equal "$status" 0
	[ "$(grep -c ': EPERM$' <<<"$output")" = 4 ]
	expect_net "sandbox: network blocked: socket ipv4/raw (netprobe[N])" \
		"sandbox: network blocked: socket ipv6/sctp (netprobe[N])" \
		"sandbox: network blocked: socket ipv6/raw (netprobe[N])"
}

@test "python3 under the shim: one line per denial (seccomp's from the supervisor, Landlock's from the shim)" {
	run --separate-stderr wsrun "$WS" -- "$PY" -c '
import socket
for fam, typ, proto in ((socket.AF_INET, socket.SOCK_RAW, 17), (socket.AF_INET, socket.SOCK_RAW, 17),
                        (socket.AF_INET6, socket.SOCK_RAW, 58)):
    try:
        socket.socket(fam, typ, proto)
    except OSError as e:
        print(e.errno)'
	assert_equal "$status" 0
	assert_equal "$output" "1
1
1"
	expect_net "sandbox: network blocked: socket ipv4/raw (python3[N])" \
		"sandbox: network blocked: socket ipv6/raw (python3[N])"
	run --separate-stderr wsrun "$WS" -P "$PPOL" -- "$PY" -c '
import errno, socket
s = socket.socket()
try:
    s.connect(("127.0.0.1", 9))
except OSError as e:
    print(errno.errorcode[e.errno])
s = socket.socket()
try:
    s.sendto(b"x", socket.MSG_FASTOPEN, ("127.0.0.1", 443))
except OSError as e:
    print(errno.errorcode[e.errno])
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
except OSError as e:
    print(errno.errorcode[e.errno])'
	assert_equal "$status" 0
	assert_equal "$output" "EACCES
EPERM
EPERM"
	expect_net "sandbox: network blocked: connect 127.0.0.1:9/tcp (python3[N])" \
		"sandbox: network blocked: sendto 127.0.0.1:443/tcp (python3[N])" \
		"sandbox: network blocked: socket ipv4/udp (python3[N])"
}

@test "curl under the shim: one line" {
	command -v curl >/dev/null || skip "curl is not installed"
	run --separate-stderr wsrun "$WS" -- curl -sS --max-time 5 http://192.0.2.1:9/
	assert_failure
	expect_net "sandbox: network blocked: connect 192.0.2.1:9/tcp (curl[N])"
}

@test "a flood from 16 threads and 20000 calls: bounded time, one line, wicket why still answers" {
	run --separate-stderr bounded 60 bash -c 'cd "$1" && "$2" run -- sh -c "
		\"\$1\" threads 16 2 3 17 repeat 20000 2 3 17; \"\$2\" why -n 1" _ "$3" "$2"' _ \
		"$WS" "$WICKET" "$DYN"
	assert_equal "$status" 0
	assert_line "threads: 800 of 800 failed"
	assert_line "repeat: 20000 of 20000 failed"
	assert_line "network blocked: socket ipv4/raw"
	expect_net "sandbox: network blocked: socket ipv4/raw (netprobe[N])"
}

@test "WICKET_DIAG=off: no line and no summary, but the denial is kept (wicket why --json), during and after the session" {
	need_static
	run --separate-stderr bash -c 'cd "$1" && WICKET_DIAG=off timeout --kill-after=5 60 "$2" run -- sh -c "
		\"\$1\" socket 2 3 17 >/dev/null; \"\$2\" why --json" _ "$3" "$2"' _ "$WS" "$WICKET" "$STATIC"
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	"$PY" -c 'import json, sys; d = json.loads(sys.argv[1]); assert [x["object"] for x in d["denials"]] == ["socket ipv4/raw"], d' "$output"
	run --separate-stderr wkb why --json
	"$PY" -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["ended"] and [x["object"] for x in d["denials"]] == ["socket ipv4/raw"], d' "$output"
}

@test "--no-diagnostics: the plain filter (no s rule), the same EPERM, no line" {
	need_static
	run --separate-stderr wsrun "$WS" --no-diagnostics -- sh -c '
		printf "%s\n" "${WICKET_RULES-unset}" | head -n 1; "$1" socket 2 3 17' _ "$STATIC"
	assert_equal "$status" 0
	assert_equal "$output" "unset
socket: EPERM"
	assert_equal "$stderr" ""
}

@test "without notifications (WICKET_PRETEND_MISSING=seccomp-notify): refused, or with --best-effort the plain filter; the shim explains dynamic programs once, static ones go unexplained" {
	need_static
	# Before Landlock ABI 9 nothing else keeps host unix sockets out of
	# reach: a gap, fail closed.
	run --separate-stderr bash -c 'cd "$1" && WICKET_PRETEND_MISSING=seccomp-notify timeout --kill-after=5 60 "$2" run -- true' _ "$WS" "$WICKET"
	assert_equal "$status" 125
	assert_regex "$stderr" 'cannot enforce: no seccomp user notifications.*pathname unix sockets'
	run --separate-stderr bash -c 'cd "$1" && WICKET_PRETEND_MISSING=seccomp-notify timeout --kill-after=5 60 "$2" run --best-effort -- sh -c "
		printf \"%s\n\" \"\$WICKET_RULES\" | grep -c \"^s \"; \"\$1\" socket 2 3 17 raw-socket 2 3 17; \"\$2\" socket 2 3 17" _ "$3" "$4"' \
		_ "$WS" "$WICKET" "$DYN" "$STATIC"
	assert_equal "$status" 0
	assert_equal "$output" "0
socket: EPERM
raw-socket: EPERM
socket: EPERM"
	expect_net "sandbox: network blocked: socket ipv4/raw (netprobe[N])"
}

@test "under a container manager's seccomp listener (no second one possible): refused, or with --best-effort the plain filter, s 0, the shim explains" {
	run --separate-stderr bash -c 'cd "$1" && timeout --kill-after=5 60 "$2" with-listener "$3" run -- true' _ "$WS" "$DYN" "$WICKET"
	assert_equal "$status" 125
	assert_regex "$stderr" 'no seccomp listener for the supervisor to keep host unix sockets out of reach'
	run --separate-stderr bash -c 'cd "$1" && timeout --kill-after=5 60 "$2" with-listener "$3" run --best-effort -- sh -c "
		printf \"%s\n\" \"\$WICKET_RULES\" | head -n 1; \"\$1\" socket 2 3 17 raw-socket 10 1 132" _ "$2"' \
		_ "$WS" "$DYN" "$WICKET"
	assert_equal "$status" 0
	assert_equal "$output" "s 0
socket: EPERM
raw-socket: EPERM"
	expect_net "sandbox: network blocked: socket ipv4/raw (netprobe[N])"
}
