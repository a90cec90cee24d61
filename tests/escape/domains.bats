#!/usr/bin/env bats
# Network mode "domains": attacks on the proxy, judged by what the test's
# own server on the host's 127.0.0.1 logged (tests/lib/domains.bash), never
# by what a client inside printed. Every refusal is preceded or followed
# by a request that must get through, so a dead proxy cannot pass as a
# refusing one.
#
# DNS rebinding is tested through a real resolver (the C library's, asking
# the test's name server in a namespace of the test's own). Not claimed:
# fronting by the Host header inside TLS (the proxy sees only the TLS
# server name).

bats_require_minimum_version 1.5.0
load ../lib/common
load ../lib/domains

setup() { dom_setup; }
teardown() { dom_teardown; }

# through: the proxy still serves an allowed name (it reached the server).
through() {
	dom_run "$DOM/allow.json" curl -fsS "http://pkg.wk.test:$HTTP_PORT/hello.txt"
	assert_success
	assert_output hello
	server_got http GET /hello.txt
}

@test "domains escape: a name that resolves to loopback, the policy naming no address" {
	dom_run "$DOM/noaddr.json" curl -fsS "http://loop.wk.test:$HTTP_PORT/hello.txt"
	assert_failure
	dom_run "$DOM/noaddr.json" curl -sS --cacert "$DOM/cert.pem" "https://loop.wk.test:$HTTPS_PORT/hello.txt"
	assert_failure
	dom_run "$DOM/noaddr.json" curl -sS -x socks5h://127.0.0.1:1080 "http://loop.wk.test:$HTTP_PORT/hello.txt"
	assert_failure
	dom_run "$DOM/noaddr.json" curl -sS -x socks5h://127.0.0.1:1080 "http://six.wk.test:$HTTP_PORT/hello.txt"
	assert_failure
	server_silent
	through
}

@test "domains escape: loopback in IPv6 and numeric forms, by CONNECT and by SOCKS5" {
	local t
	for t in "[::1]" "[::ffff:127.0.0.1]" "[::127.0.0.1]" "[64:ff9b::7f00:1]" "[2002:7f00:1::1]" \
		"127.1" "2130706433" "0x7f.0.0.1" "0177.0.0.1" "127.0.0.1." "[::ffff:7f00:1]"; do
		dom_run "$DOM/noaddr.json" "$PY" -c "$RAW_CLIENT" 3128 "CONNECT $t:$HTTP_PORT HTTP/1.1\r\n\r\n"
		assert_success
		[[ $output == "HTTP/1.1 4"* ]] || { echo "CONNECT $t: $output"; false; }
	done
	# SOCKS5: the address types (IPv4, IPv6 v4-mapped) and a name that is an address.
	dom_run "$DOM/noaddr.json" "$PY" -c '
import socket, struct, sys
port = int(sys.argv[1])
for atyp, addr in ((1, bytes([127, 0, 0, 1])), (4, bytes(10) + b"\xff\xff" + bytes([127, 0, 0, 1])),
                   (4, bytes(15) + b"\x01"), (3, b"\x09127.0.0.1"), (3, b"\x0a2130706433")):
    s = socket.create_connection(("127.0.0.1", 1080), timeout=10)
    s.sendall(b"\x05\x01\x00")
    assert s.recv(2) == b"\x05\x00"
    s.sendall(b"\x05\x01\x00" + bytes([atyp]) + addr + struct.pack(">H", port))
    r = s.recv(10)
    print(r[1] if len(r) > 1 else "closed")
' "$HTTP_PORT"
	assert_success
	refute_line 0
	server_silent
	through
}

@test "domains escape: CONNECT to an allowed name with another Host" {
	dom_run "$DOM/allow.json" "$PY" -c "$RAW_CLIENT" 3128 "CONNECT pkg.wk.test:$HTTP_PORT HTTP/1.1\r\nHost: evil.wk.test:$HTTP_PORT\r\n\r\n"
	assert_output "HTTP/1.1 400 Bad Request"
	dom_run "$DOM/allow.json" "$PY" -c "$RAW_CLIENT" 3128 "GET http://pkg.wk.test:$HTTP_PORT/hello.txt HTTP/1.1\r\nHost: evil.wk.test\r\n\r\n"
	assert_output "HTTP/1.1 400 Bad Request"
	server_silent
	through
}

@test "domains escape: a tunnel to an allowed name whose TLS names another server (SNI)" {
	# curl --connect-to: the tunnel is asked for pkg.wk.test, the TLS
	# handshake names evil.wk.test (which the certificate also covers).
	dom_run "$DOM/allow.json" curl -fsS --cacert "$DOM/cert.pem" \
		--connect-to "evil.wk.test:443:pkg.wk.test:$HTTPS_PORT" "https://evil.wk.test/fronted"
	assert_failure
	once "sandbox: network blocked: CONNECT pkg.wk.test:$HTTPS_PORT (curl[$(printf '%s\n' "$stderr" | sed -n 's/.*(curl\[\([0-9]*\)\]).*/\1/p' | head -n1)]): the TLS server name evil.wk.test is not the name asked for"
	dom_run "$DOM/allow.json" env -u HTTPS_PROXY -u https_proxy curl -fsS --cacert "$DOM/cert.pem" \
		--connect-to "evil.wk.test:443:pkg.wk.test:$HTTPS_PORT" "https://evil.wk.test/fronted"
	assert_failure
	[ "$(blocked_lines | wc -l)" = 1 ]
	server_silent
	dom_run "$DOM/allow.json" curl -fsS --cacert "$DOM/cert.pem" "https://pkg.wk.test:$HTTPS_PORT/hello.txt"
	assert_success
	assert_output hello
}

@test "domains escape: a TLS 1.3 retried ClientHello (after HelloRetryRequest) cannot name another server" {
	local hrr=$WICKET_SRCDIR/tests/lib/tls_hrr.py
	# The same name twice gets through: the front logs both hellos.
	dom_run "$DOM/allow.json" "$PY" "$hrr" 3128 pkg.wk.test "$HRR_PORT" pkg.wk.test pkg.wk.test
	assert_output retried
	[ "$(grep -c '^hrr pkg.wk.test$' "$DOM/log")" = 2 ]
	# Another name in the second hello, sent after the retry request or
	# at once behind the first: the front never sees it.
	local mode
	for mode in "" together; do
		dom_run "$DOM/allow.json" "$PY" "$hrr" 3128 pkg.wk.test "$HRR_PORT" pkg.wk.test evil.wk.test $mode
		if grep -q '^hrr evil.wk.test$' "$DOM/log"; then
			echo "ESCAPE: the server got a ClientHello naming evil.wk.test through a tunnel to pkg.wk.test ($mode)"
			false
		fi
		assert_output closed
		[ "$(blocked_lines | wc -l)" = 1 ]
		blocked_lines | grep -q 'the TLS server name evil.wk.test is not the name asked for'
	done
	# Another record before the hello (red team 10: a warning alert,
	# which a server skips): refused, not taken for "not TLS".
	dom_run "$DOM/allow.json" "$PY" "$hrr" 3128 pkg.wk.test "$HRR_PORT" pkg.wk.test evil.wk.test alert
	if grep -q '^hrr evil.wk.test$' "$DOM/log"; then
		echo "ESCAPE: a ClientHello naming evil.wk.test behind an alert reached the server"
		false
	fi
	assert_output closed
	blocked_lines | grep -q 'a TLS record before the ClientHello'
}

@test "domains escape: refused connections in a loop do not spend the session's audit budget for wicket ask" {
	# 6000 refused requests for names of their own (each an audit line
	# of about 250 bytes: 1.5 MB if all were logged, more than the
	# session's whole budget), then a request an allow rule approves
	# (on a grant: the rule's, a directory outside made writable).
	mkdir "$DOM/g"
	cat >"$DOM/flood.json" <<JSON
{"extends": "$DOM/allow.json", "escalation": {"allow": [{"argv": ["touch", "$DOM/g/after"], "grant": {"write": ["$DOM/g"]}}]}}
JSON
	run --separate-stderr bounded 300 sh -c 'cd "$1" && shift && exec "$@"' sh "$WS" \
		"$WICKET" run -P "$DOM/flood.json" -- sh -c '
		"$1" - <<EOF_PY
import socket
for i in range(6000):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
    s.sendall(b"GET http://n%d.example.invalid/ HTTP/1.1\\r\\n\\r\\n" % i)
    s.recv(100)
    s.close()
EOF_PY
		"$2" ask --write "$3/g" -- touch "$3/g/after"; echo "after=$?"' _ "$PY" "$WICKET" "$DOM"
	assert_success
	assert_output "after=0"
	[ -e "$DOM/g/after" ]
	# And the log holds the share the proxy may take, not 1.5 MB.
	[ "$(wc -c <"$XDG_STATE_HOME/wicket/audit.jsonl")" -le 300000 ]
}

@test "domains escape: DNS rebinding between the check and the connect" {
	# A network and mount namespace of the test's own (unshare, as root
	# in a user namespace, which an unprivileged user may make): there the
	# test's name server answers on 127.0.0.1:53 for /etc/resolv.conf.
	# rebind.wk.test is 127.0.0.1 (allowed by the policy) at the first
	# query and 127.0.0.2 (loopback, not named) after: a proxy that looked
	# the name up again to connect would reach the server on 127.0.0.2.
	command -v unshare >/dev/null || skip "no unshare"
	unshare -Urmn true 2>/dev/null || skip "no user namespaces for the test's own resolver"
	printf 'nameserver 127.0.0.1\noptions attempts:1 timeout:2\n' >"$DOM/resolv.conf"
	cat >"$DOM/rebind.json" <<JSON
{"extends": "workspace-write",
 "network": {"mode": "domains", "allow": ["rebind.wk.test"], "allow_addresses": ["127.0.0.1"]}}
JSON
	mkdir "$DOM/rb"
	run --separate-stderr bounded 90 unshare -Urmn bash -c '
		set -e
		dom=$1 ws=$2 wicket=$3 py=$4 srv=$5
		ip link set lo up
		mount --bind "$dom/resolv.conf" /etc/resolv.conf
		"$py" "$srv" "$dom/rb" 60 & pid=$!
		for i in $(seq 100); do [ -s "$dom/rb/port" ] && break; sleep 0.1; done
		port=$(cat "$dom/rb/port")
		cd "$ws"
		"$wicket" run -P "$dom/rebind.json" -- sh -c "
			curl -sS http://rebind.wk.test:$port/first; echo rc=\$?
			curl -sS http://rebind.wk.test:$port/second; echo rc=\$?" || true
		kill $pid' _ "$DOM" "$WS" "$WICKET" "$PY" "$WICKET_SRCDIR/tests/lib/rebind_server.py"
	echo "$output"; echo "$stderr"; cat "$DOM/rb/dns.log" "$DOM/rb/log" 2>/dev/null || true
	# The name server was asked (the test ran), the first request reached
	# the address that was checked, and nothing reached 127.0.0.2.
	grep -q '^rebind.wk.test 1 127.0.0.1$' "$DOM/rb/dns.log"
	grep -qx '127.0.0.1 /first' "$DOM/rb/log"
	if grep -q '^127.0.0.2 ' "$DOM/rb/log"; then
		echo "ESCAPE: a request reached 127.0.0.2 after the name rebound"
		false
	fi
	assert_line --index 0 one
	assert_line --index 1 rc=0
	printf '%s\n' "$stderr" | grep -q 'GET rebind.wk.test:[0-9]* (curl\[[0-9]*\]): .*127.0.0.2'
}

@test "domains escape: request smuggling forms are refused, not forwarded" {
	local u="http://pkg.wk.test:$HTTP_PORT/hello.txt" r
	for r in "POST $u HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" \
		"POST $u HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 40\r\n\r\nabcd" \
		"POST $u HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n" \
		"POST $u HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n" \
		"GET $u HTTP/1.1\r\nX: a\r\n Transfer-Encoding: chunked\r\n\r\n" \
		"GET $u HTTP/1.1\nHost: pkg.wk.test\n\n" \
		"GET $u HTTP/1.1\r\nContent-Length : 5\r\n\r\n" \
		"GET $u HTTP/1.1\r\nX: a\rTransfer-Encoding: chunked\r\n\r\n"; do
		dom_run "$DOM/allow.json" "$PY" -c "$RAW_CLIENT" 3128 "$r"
		[[ $output == "HTTP/1.1 400 "* || $output == "HTTP/1.1 501 "* ]] || { echo "$r: $output"; false; }
	done
	server_silent
	through
}

@test "domains escape: a second request on the connection does not reach another name" {
	dom_run "$DOM/allow.json" "$PY" -c "$RAW_CLIENT" 3128 "GET http://pkg.wk.test:$HTTP_PORT/hello.txt HTTP/1.1\r\nHost: pkg.wk.test:$HTTP_PORT\r\n\r\nGET /hello.txt?second HTTP/1.1\r\nHost: evil.wk.test:$HTTP_PORT\r\n\r\n"
	assert_output "HTTP/1.1 200 OK"
	sleep 0.3
	server_got http GET /hello.txt "pkg.wk.test:$HTTP_PORT"
	if grep -q "evil" "$DOM/log"; then
		cat "$DOM/log"
		false
	fi
}

@test "domains escape: a name over 253 bytes" {
	local long
	long=$(printf 'a%.0s' $(seq 1 60)).$(printf 'b%.0s' $(seq 1 60)).$(printf 'c%.0s' $(seq 1 60)).$(printf 'd%.0s' $(seq 1 60)).$(printf 'e%.0s' $(seq 1 60)).wk.test
	[ ${#long} -gt 253 ]
	dom_run "$DOM/noaddr.json" "$PY" -c "$RAW_CLIENT" 3128 "CONNECT $long:$HTTP_PORT HTTP/1.1\r\n\r\n"
	assert_output "HTTP/1.1 400 Bad Request"
	server_silent
}

@test "domains escape: the proxy's listener cannot be reached from the host's network namespace" {
	if "$PY" -c 'import socket; socket.create_connection(("127.0.0.1", 3128), timeout=2)' 2>/dev/null; then
		skip "something on this host listens on 127.0.0.1:3128"
	fi
	dom_run "$DOM/allow.json" sh -c '
touch ready
i=0; while [ ! -e done ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done' &
	local i
	for ((i = 0; i < 100; i++)); do [ -e "$WS/ready" ] && break; sleep 0.1; done
	[ -e "$WS/ready" ]
	run "$PY" -c "$RAW_CLIENT" 3128 "CONNECT pkg.wk.test:$HTTP_PORT HTTP/1.1\r\n\r\n"
	touch "$WS/done"
	wait
	assert_failure
	server_silent
}

@test "domains escape: the sandbox cannot take or share the proxy's ports" {
	dom_run "$DOM/allow.json" "$PY" -c '
import socket
for port in (3128, 1080):
    for addr in ("127.0.0.1", "0.0.0.0"):
        for opt in (None, socket.SO_REUSEADDR, socket.SO_REUSEPORT):
            s = socket.socket()
            if opt:
                s.setsockopt(socket.SOL_SOCKET, opt, 1)
            try:
                s.bind((addr, port))
                s.listen(1)
                print("BOUND", addr, port, opt)
            except OSError as e:
                pass
'
	refute_output --partial BOUND
	through
}

@test "domains escape: a flood of connections neither stalls the session nor outlives it" {
	dom_run "$DOM/allow.json" sh -c '
"$1" -c "
import socket
held = []
for i in range(300):
    try:
        s = socket.create_connection((\"127.0.0.1\", 3128), timeout=2)
        s.sendall(b\"GET http://pkg.wk.test/ HTTP/1.1\r\n\")
        held.append(s)
    except OSError:
        pass
print(\"opened\", len(held))
for s in held:
    s.close()
"
curl -fsS --retry 3 --retry-delay 1 "$2"' sh "$PY" "http://pkg.wk.test:$HTTP_PORT/hello.txt"
	assert_success
	assert_line hello
}

@test "domains escape: without a network namespace the mode is refused, --best-effort or not" {
	local be
	for be in "" --best-effort; do
		run --separate-stderr env WICKET_PRETEND_MISSING=namespaces timeout 30 sh -c \
			'cd "$1" && shift && exec "$@"' sh "$WS" "$WICKET" run $be -P "$DOM/allow.json" -- \
			"$PY" -c 'import socket; socket.socket().bind(("127.0.0.1", 3128)); print("RAN")'
		assert_failure 125
		refute_output --partial RAN
		[[ $stderr == *'network mode "domains" needs a network namespace of its own'* ]]
	done
	# Nothing of the session's listens on the host's proxy ports.
	! "$PY" -c 'import socket; socket.create_connection(("127.0.0.1", 3128), timeout=1)' 2>/dev/null ||
		skip "something on this host listens on 127.0.0.1:3128"
}
