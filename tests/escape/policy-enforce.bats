#!/usr/bin/env bats
# What a JSON policy asks beyond the built-in modes, enforced by the
# kernel: TCP by port (network "ports": Landlock TCP rules on the host's
# network, seccomp for every other kind of socket), reads limited to a
# list of roots (Landlock), and full access (no sandbox at all, said out
# loud). The policies are files the test writes, in the format of
# wicket-policy(5).
#
# Judged outside the sandbox: which host listener heard the sandbox, which
# host client reached a server in the sandbox, what a copy made inside
# holds, what a file outside holds after the session. Each attack is also
# shown to work without the sandbox, so a broken client cannot pass as
# "blocked".

load ../lib/common
load escape_helpers

setup() {
	need_probe sysprobe
	esc_setup
	SP=$(probe sysprobe)
	POLDIR=$OUT/policies
	mkdir "$POLDIR"
}

teardown() {
	escape_cleanup
	common_teardown
}

# policy NAME JSON: write a policy file; its path is left in $P.
policy() {
	P=$POLDIR/$1.json
	printf '%s\n' "$2" >"$P"
	chmod 644 "$P"
}

# ports_policy NAME CONNECT BIND UDP: a "ports" policy (CONNECT and BIND
# are JSON arrays, UDP true or false).
ports_policy() {
	policy "$1" "{\"extends\": \"workspace-write\", \"network\": {\"mode\": \"ports\", \"connect\": $2, \"bind\": $3, \"udp\": $4}}"
}

# The read roots of wicket-policy(5)'s example: the system, /proc and the
# workspace.
READ_BASE='"/usr", "/etc", "/lib", "/lib64", "/bin", "/proc", "${cwd}"'

# read_policy NAME [EXTRA_ROOT...]: a policy reading only READ_BASE and
# the extra roots, the workspace writable. It extends nothing: along an
# "extends" chain read lists are appended to, and every built-in but
# full-access reads "/".
read_policy() {
	local name=$1 list=$READ_BASE r
	shift
	for r; do list="$list, \"$r\""; done
	policy "$name" "{\"filesystem\": {\"read\": [$list], \"write\": [\"\${cwd}\"]}}"
}

# lacks FILE TEXT: FILE does not hold TEXT (a missing file holds nothing).
# (A bare "! grep" would not fail a bats test.)
lacks() {
	if grep -q -- "$2" "$1" 2>/dev/null; then
		echo "LEAK: $1 holds $2:"
		cat "$1"
		return 1
	fi
}

# free_port: a TCP port on 127.0.0.1 that nobody listens on now.
free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A TCP server for inside the sandbox: SERVER READY MESSAGE PORT...
# Binds and listens on each PORT it can (printing "bind PORT: OK" or the
# errno's name), writes the ports it holds to READY, then answers every
# connection with MESSAGE; exits after 15 s or once every held port was
# answered once.
SERVER='
import errno, os, select, socket, sys, time
ready, msg, ports = sys.argv[1], sys.argv[2], sys.argv[3:]
held = []
for p in ports:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", int(p)))
        s.listen(4)
        held.append(s)
        print("bind %s: OK" % p, flush=True)
    except OSError as e:
        print("bind %s: %s" % (p, errno.errorcode.get(e.errno, str(e))), flush=True)
        s.close()
with open(ready + ".tmp", "w") as f:
    f.write(" ".join(str(s.getsockname()[1]) for s in held) + "\n")
os.rename(ready + ".tmp", ready)
end = time.time() + 15
while held and time.time() < end:
    r, _, _ = select.select(held, [], [], 0.2)
    for s in r:
        c, _ = s.accept()
        c.sendall(msg.encode())
        c.close()
        held.remove(s)
'

# A client for the server above, run on the host: FETCH PORT. Prints what
# the server sent, or "fetch: ERRNAME".
FETCH='
import errno, socket, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
    s.settimeout(3)
    print(s.recv(4096).decode())
except OSError as e:
    print("fetch: " + errno.errorcode.get(e.errno or 0, str(e)))
'

# TCP Fast Open: connect and send in one sendto(MSG_FASTOPEN), which
# never passes through connect(2). TFO PORT MESSAGE.
TFO='
import errno, socket, sys
MSG_FASTOPEN = 0x20000000
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.sendto(sys.argv[2].encode(), MSG_FASTOPEN, ("127.0.0.1", int(sys.argv[1])))
    s.settimeout(3)
    s.recv(1)
    print("tfo: OK")
except OSError as e:
    print("tfo: " + errno.errorcode.get(e.errno or 0, str(e)))
'

# Sockets made with the upper halves of the 64-bit argument registers set
# (the kernel reads ints, a filter sees 64 bits): MPTCP behind a protocol
# of (1 << 32) | 262, netlink behind a family of (1 << 32) | 16.
HIGHBITS='
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
for name, fam, typ, proto in (("mptcp-high", 2, 1, (1 << 32) | 262),
                              ("netlink-high", (1 << 32) | 16, 3, 0)):
    r = libc.syscall(ctypes.c_long(41), ctypes.c_long(fam), ctypes.c_long(typ), ctypes.c_long(proto))
    print("%s: %s" % (name, "OK" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), "E?")))
'

# sbx_bg_opts OPTS... -- CMD...: the sandbox in the background, workspace
# $WS, output in $WS/.bg.log, bounded to 30 s; sets BG_PID.
sbx_bg_opts() {
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	(cd "$WS" && exec timeout --kill-after=5 30 "$WICKET" run "${opts[@]}" -- "$@" >"$WS/.bg.log" 2>&1 3>&-) &
	BG_PID=$!
	track_pid "$BG_PID"
}

# full_run POLICY CMD...: wicket run --policy POLICY in $WS, bounded; sets
# $output (stdout and stderr), $status and $lines like bats' run.
full_run() {
	local pol=$1 rc=0
	shift
	output=$(cd "$WS" && bounded 30 "$WICKET" run --policy "$pol" -- "$@" 2>&1) || rc=$?
	status=$rc
	mapfile -t lines <<<"$output"
	printf '%s\n' "$output"
}

# --- network "ports" ----------------------------------------------------

@test "policy ports: connect reaches the allowed port on the host's 127.0.0.1 and no other" {
	listen tcp
	ok_port=$LISTEN_ADDR ok_log=$LISTEN_LOG
	listen tcp
	no_port=$LISTEN_ADDR no_log=$LISTEN_LOG
	ports_policy ports "[$ok_port]" "[]" false
	# The denied port is tried over IPv4 and over an IPv4-mapped IPv6
	# address, the allowed one last (proof the session was alive).
	v6='
import errno, socket, sys
try:
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(("::ffff:127.0.0.1", int(sys.argv[1])))
    s.sendall(sys.argv[2].encode())
    print("tcp6: OK")
except OSError as e:
    print("tcp6: " + errno.errorcode.get(e.errno or 0, str(e)))'
	sbx_opts --policy "$P" -- sh -c '
		"$0" -c "$1" tcp "$3" "denied-$4"
		"$0" -c "$5" "$3" "denied6-$4"
		"$0" -c "$1" tcp "$2" "allowed-$4"' "$PY" "$NET_CLIENT" "$ok_port" "$no_port" "$RND" "$v6"
	assert_line "tcp: EACCES"
	assert_line "tcp: OK"
	refute_line "tcp6: OK"
	LISTEN_LOG=$ok_log listener_heard
	grep -q "allowed-$RND" "$ok_log"
	if [ -s "$no_log" ]; then
		echo "ESCAPE: the listener on the port the policy does not list heard the sandbox:"
		cat "$no_log"
		false
	fi
	# The same client outside reaches the other listener.
	"$PY" -c "$NET_CLIENT" tcp "$no_port" "sanity-$RND"
	LISTEN_LOG=$no_log listener_heard
	grep -q "sanity-$RND" "$no_log"
}

@test "policy ports: a server in the sandbox takes the allowed port, and no other" {
	ok_port=$(free_port)
	no_port=$(free_port)
	[ "$ok_port" != "$no_port" ]
	ports_policy bind "[]" "[$ok_port]" false
	sbx_bg_opts --policy "$P" -- "$PY" -c "$SERVER" "$WS/ready" "served-$RND" "$ok_port" "$no_port"
	wait_for test -s "$WS/ready" || { cat "$WS/.bg.log"; false; }
	run "$PY" -c "$FETCH" "$ok_port"
	assert_output "served-$RND"
	# Nothing listens on the other port: the sandbox could not take it.
	run "$PY" -c "$FETCH" "$no_port"
	assert_output "fetch: ECONNREFUSED"
	wait "$BG_PID" || true
	cat "$WS/.bg.log"
	grep -qx "bind $ok_port: OK" "$WS/.bg.log"
	grep -qx "bind $no_port: EACCES" "$WS/.bg.log"
	[ "$(cat "$WS/ready")" = "$ok_port" ]
}

# Not claimed: a listen() on a socket never bound takes an ephemeral port,
# which Landlock cannot mediate yet (landlock-lsm/linux#15).
@test "policy ports: bind is refused on a port listed for connect only, and on port 0" {
	port=$(free_port)
	ports_policy connect-only "[$port]" "[]" false
	sbx_bg_opts --policy "$P" -- "$PY" -c "$SERVER" "$WS/ready" "served-$RND" "$port" 0
	wait_for test -s "$WS/ready" || { cat "$WS/.bg.log"; false; }
	run "$PY" -c "$FETCH" "$port"
	assert_output "fetch: ECONNREFUSED"
	wait "$BG_PID" || true
	cat "$WS/.bg.log"
	grep -qx "bind $port: EACCES" "$WS/.bg.log"
	grep -qx "bind 0: EACCES" "$WS/.bg.log"
}

@test "policy ports: TCP Fast Open (sendto MSG_FASTOPEN) does not reach a port the policy does not list" {
	listen tcp
	ports_policy tfo "[]" "[]" false
	sbx_opts --policy "$P" -- "$PY" -c "$TFO" "$LISTEN_ADDR" "tfo-$RND"
	assert_line "tfo: EPERM"
	if listener_heard; then
		echo "ESCAPE: the listener heard the sandbox:"
		cat "$LISTEN_LOG"
		false
	fi
	# Outside, where the kernel lets clients use TFO, the same call
	# connects (bit 0 of net.ipv4.tcp_fastopen).
	if [ $(($(cat /proc/sys/net/ipv4/tcp_fastopen) & 1)) = 1 ]; then
		bounded 10 "$PY" -c "$TFO" "$LISTEN_ADDR" "sanity-$RND" || true
		listener_heard
		grep -q "sanity-$RND" "$LISTEN_LOG"
	fi
}

@test "policy ports: UDP is refused unless the policy says \"udp\": true" {
	listen udp
	ports_policy no-udp "[]" "[]" false
	sbx_opts --policy "$P" -- "$PY" -c "$NET_CLIENT" udp "$LISTEN_ADDR" "escape-$RND"
	assert_line "udp: EPERM"
	if listener_heard; then
		echo "ESCAPE: the listener heard the sandbox:"
		cat "$LISTEN_LOG"
		false
	fi
	ports_policy udp "[]" "[]" true
	sbx_opts --policy "$P" -- "$PY" -c "$NET_CLIENT" udp "$LISTEN_ADDR" "allowed-$RND"
	assert_line "udp: OK"
	listener_heard
	grep -q "allowed-$RND" "$LISTEN_LOG"
}

@test "policy ports: SCTP, MPTCP, raw, packet, netlink, ICMP and other sockets Landlock's TCP rules miss are refused" {
	# family,type,protocol: SCTP (stream, seqpacket, IPv6), MPTCP (v4,
	# v6), raw (TCP, UDP, any), packet, netlink (route, audit), ping
	# (ICMP, ICMPv6), UDP-Lite, UDP (no "udp"), inet seqpacket, a stream
	# with a protocol of its own, vsock, alg, key, and a type carrying
	# flags around SOCK_RAW.
	denied="2,1,132 2,5,132 10,1,132 2,1,262 10,1,262 2,3,6 2,3,17 2,3,255 10,3,6 17,3,768 17,2,768 16,3,0 16,3,9 2,2,1 10,2,58 2,2,136 2,2,0 2,2,17 10,2,0 2,5,0 2,1,17 40,1,0 38,5,0 15,3,2 2,526339,6"
	# TCP over IPv4 and IPv6, with and without SOCK_NONBLOCK|SOCK_CLOEXEC,
	# and AF_UNIX.
	allowed="2,1,0 2,1,6 2,526337,0 1,1,0 1,2,0"
	[ -e /proc/net/if_inet6 ] && allowed="$allowed 10,1,0 10,1,6 10,526337,6"
	# Outside, netlink and MPTCP work (so the filter, not the kernel,
	# refuses them inside).
	"$SP" socket 16 3 0
	if [ "$(cat /proc/sys/net/mptcp/enabled 2>/dev/null)" = 1 ]; then
		"$SP" socket 2 1 262
	fi
	ports_policy sockets "[]" "[]" false
	sbx_opts --policy "$P" -- sh -c '
		sp=$1; shift
		for s; do IFS=,; set -- $s; unset IFS; printf "%s " "$s"; "$sp" socket "$1" "$2" "$3"; done' _ "$SP" $denied $allowed
	for s in $denied; do
		assert_line "$s socket: EPERM"
	done
	for s in $allowed; do
		assert_line "$s socket: OK"
	done
	sbx_opts --policy "$P" -- "$PY" -c "$HIGHBITS"
	assert_line "mptcp-high: EPERM"
	assert_line "netlink-high: EPERM"
}

@test "policy ports: a raw socket cannot send UDP around the TCP rules (as root)" {
	is_root || skip "raw sockets need root outside the sandbox as well"
	listen udp
	ports_policy raw "[]" "[]" true
	sbx_opts --policy "$P" -- "$PY" -c "$NET_CLIENT" raw-udp "$LISTEN_ADDR" "escape-$RND"
	assert_line "raw-udp: EPERM"
	if listener_heard; then
		cat "$LISTEN_LOG"
		false
	fi
	"$PY" -c "$NET_CLIENT" raw-udp "$LISTEN_ADDR" "sanity-$RND"
	listener_heard
}

@test "policy ports: an abstract unix socket on the host stays out of reach" {
	listen abstract "wicket-test-ports-$RND"
	ports_policy abstract "[]" "[]" false
	sbx_opts --policy "$P" -- "$PY" -c "$NET_CLIENT" abstract "$LISTEN_ADDR" "escape-$RND"
	if listener_heard; then
		cat "$LISTEN_LOG"
		false
	fi
	"$PY" -c "$NET_CLIENT" abstract "$LISTEN_ADDR" "sanity-$RND"
	listener_heard
}

@test "policy ports: refused (exit 125) where Landlock has no TCP rules; --best-effort says every port is open" {
	ports_policy old "[443]" "[]" false
	run bash -c 'cd "$1" && WICKET_PRETEND_MISSING=landlock-net "$2" run --policy "$3" -- touch ran 2>&1' _ "$WS" "$WICKET" "$P"
	echo "$output"
	assert_equal "$status" 125
	assert_output --partial "Landlock ABI 4"
	assert_output --partial "6.7"
	[ ! -e "$WS/ran" ]
	run bash -c 'cd "$1" && WICKET_PRETEND_MISSING=landlock-net "$2" run --best-effort --policy "$3" -- touch ran 2>&1' _ "$WS" "$WICKET" "$P"
	echo "$output"
	assert_equal "$status" 0
	assert_output --partial "weaker sandbox:"
	assert_output --partial "every TCP port"
	[ -e "$WS/ran" ]
}

# --- filesystem "read" --------------------------------------------------

@test "policy read: a file outside the read list cannot be read or listed; one inside can" {
	printf 'secret-%s\n' "$RND" >"$OUT/f"
	read_policy read
	sbx_opts --policy "$P" -- sh -c '
		cat "$1/f" >out-copy; ls "$1" >out-list; cp /etc/passwd in-copy
		cat /proc/self/status >/dev/null && echo proc-ok' _ "$OUT"
	cmp /etc/passwd "$WS/in-copy"
	assert_line proc-ok
	lacks "$WS/out-copy" "secret-$RND"
	lacks "$WS/out-list" .
	# The same without the read list.
	sbx sh -c 'cat "$1/f" >out-copy2' _ "$OUT"
	grep -q "secret-$RND" "$WS/out-copy2"
}

@test "policy read: an extra root outside the system is readable, never writable, and its neighbours stay unreadable" {
	mkout R
	printf 'readable-%s\n' "$RND" >"$R/in"
	chmod 644 "$R/in"
	before=$(meta_of "$R/in")
	printf 'secret-%s\n' "$RND" >"$OUT/f"
	read_policy extra "$R"
	sbx_opts --policy "$P" -- sh -c '
		cat "$1/in" >in-copy; cat "$2/f" >out-copy
		echo pwned >"$1/in"; chmod 777 "$1/in"; touch "$1/new"' _ "$R" "$OUT"
	grep -qx "readable-$RND" "$WS/in-copy"
	lacks "$WS/out-copy" "secret-$RND"
	grep -qx "readable-$RND" "$R/in"
	[ "$(meta_of "$R/in")" = "$before" ]
	[ ! -e "$R/new" ]
}

@test "policy read: a read root in the host's /tmp shows read-only through the private /tmp; the rest of the host's /tmp does not" {
	T=$(mktemp -d /tmp/wicket-read.XXXXXX)
	track_dir "$T"
	chmod 755 "$T"
	printf 'intmp-%s\n' "$RND" >"$T/f"
	chmod 644 "$T/f"
	mkdir "$T/sub"
	chmod 755 "$T/sub"
	other=$(mktemp -d /tmp/wicket-other.XXXXXX)
	track_dir "$other"
	chmod 755 "$other"
	printf 'secret-%s\n' "$RND" >"$other/f"
	chmod 644 "$other/f"
	before=$(meta_of "$T/f")
	# A root inside another comes with it.
	read_policy tmp "$T/sub" "$T"
	sbx_opts --policy "$P" -- sh -c '
		cat "$1/f" >in-copy; cat "$2/f" >out-copy
		echo pwned >"$1/f"; chmod 777 "$1/f"; touch "$1/new" "$1/sub/new" "$1/../wicket-new-'"$RND"'"
		echo private >/tmp/private-'"$RND"' && echo tmp-writable' _ "$T" "$other"
	grep -qx "intmp-$RND" "$WS/in-copy"
	lacks "$WS/out-copy" "secret-$RND"
	grep -qx "intmp-$RND" "$T/f"
	[ "$(meta_of "$T/f")" = "$before" ]
	[ ! -e "$T/new" ]
	[ ! -e "$T/sub/new" ]
	[ ! -e "/tmp/wicket-new-$RND" ]
	# /tmp itself stays the session's own and writable.
	assert_line tmp-writable
	[ ! -e "/tmp/private-$RND" ]
}

@test "policy read: a read root under /run shows read-only through the session's /run" {
	[ -d /run ] || skip "no /run on this system"
	if [ -w /run ]; then
		D=$(mktemp -d /run/wicket-read.XXXXXX)
	elif [ -d /run/lock ] && [ -w /run/lock ]; then
		D=$(mktemp -d /run/lock/wicket-read.XXXXXX)
	else
		skip "no directory under /run is writable by $(id -un)"
	fi
	track_dir "$D"
	chmod 755 "$D"
	printf 'inrun-%s\n' "$RND" >"$D/f"
	chmod 644 "$D/f"
	before=$(meta_of "$D/f")
	read_policy run "$D"
	sbx_opts --policy "$P" -- sh -c '
		cat "$1/f" >in-copy; echo pwned >"$1/f"; chmod 777 "$1/f"; touch "$1/new"' _ "$D"
	grep -qx "inrun-$RND" "$WS/in-copy"
	grep -qx "inrun-$RND" "$D/f"
	[ "$(meta_of "$D/f")" = "$before" ]
	[ ! -e "$D/new" ]
}

# --- full access --------------------------------------------------------

@test "policy full-access: no sandbox at all -- the command writes outside and reaches the network; wicket says so first" {
	policy full '{"extends": "full-access"}'
	listen tcp
	full_run "$P" sh -c 'echo written >"$1/new"; "$2" -c "$3" tcp "$4" "full-$5"' _ \
		"$OUT" "$PY" "$NET_CLIENT" "$LISTEN_ADDR" "$RND"
	assert_equal "$status" 0
	grep -qx written "$OUT/new"
	listener_heard
	grep -q "full-$RND" "$LISTEN_LOG"
	# One loud line, before anything of the command's.
	[ "$(grep -c 'NO SANDBOX' <<<"$output")" = 1 ]
	assert_equal "${lines[0]}" "$(grep 'NO SANDBOX' <<<"$output")"
	assert_line --regexp '^wicket: WARNING: policy .*NO SANDBOX'
}

@test "policy full-access: the command's status and signals come through, in the host's pid namespace" {
	policy full '{"extends": "full-access"}'
	full_run "$P" sh -c 'echo "pidns $(readlink /proc/self/ns/pid)"; exit 7'
	assert_equal "$status" 7
	assert_line "pidns $(readlink /proc/$$/ns/pid)"
	full_run "$P" sh -c 'kill -TERM $$'
	assert_equal "$status" 143
	full_run "$P" /nonexistent/command
	assert_equal "$status" 127
	# A signal to wicket reaches the command.
	(cd "$WS" && exec timeout --kill-after=5 30 "$WICKET" run --policy "$P" -- \
		sh -c 'trap "echo got-term >\"$1/term\"; exit 3" TERM; echo ready >"$1/ready"; i=0; while [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done' _ "$OUT" \
		>"$OUT/bg.log" 2>&1 3>&-) &
	bg=$!
	track_pid "$bg"
	wait_for test -s "$OUT/ready"
	wk_pid=$(pgrep -P "$bg" -x wicket || pgrep -P "$bg")
	kill -TERM "$wk_pid"
	rc=0
	wait "$bg" || rc=$?
	assert_equal "$rc" 3
	grep -qx got-term "$OUT/term"
}
