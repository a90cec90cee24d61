#!/usr/bin/env bats
# The private loopback of network modes "none" and "domains": a test
# suite's own server on 127.0.0.1 and ::1 works inside, and the host's
# loopback stays out of reach. Judged by a listener the test starts on the
# host's 127.0.0.1 (escape_helpers.bash: it logs every connection and
# datagram): the program inside binds that very port on its own loopback,
# serves and reaches itself, and the host's listener must log nothing;
# then the same port is reached from outside, so a deaf listener cannot
# pass as an unreached one.

load ../lib/common
load escape_helpers

setup() {
	need_probe sysprobe
	esc_setup
}

teardown() {
	escape_cleanup
	common_teardown
}

# What a pytest suite with a local server does: tests/lib/self_server.py.
SERVER_TEST=$WICKET_SRCDIR/tests/lib/self_server.py

# own_server OPTS...: SERVER_TEST in the sandbox (wicket run OPTS) on the
# port of the host's listener; it must have served itself on both
# addresses, and the host's listener heard nothing; then the host's
# listener is reached from outside.
own_server() {
	sbx_opts "$@" -- "$PY" "$SERVER_TEST" "$LISTEN_ADDR"
	[ "$status" = 0 ]
	assert_line "served: own 127.0.0.1"
	assert_line "served: own ::1"
	assert_line "raw: HTTP/1.0 200 OK"
	if listener_heard; then
		echo "ESCAPE: the host's listener heard the sandbox:"
		cat "$LISTEN_LOG"
		return 1
	fi
	"$PY" -c "$NET_CLIENT" tcp "$LISTEN_ADDR" "sanity-$RND"
	listener_heard
}

@test "loopback: --net none, a server on 127.0.0.1 and ::1 serves the sandbox, the host's listener on that port is not reached" {
	listen tcp
	own_server --net none
}

@test "loopback: --net domains, a server on 127.0.0.1 and ::1 serves the sandbox, the host's listener on that port is not reached" {
	listen tcp
	own_server --net domains
}

@test "loopback: a datagram to the host's 127.0.0.1 listener is not heard (--net domains)" {
	listen udp
	sbx_opts --net domains -- "$PY" -c "$NET_CLIENT" udp "$LISTEN_ADDR" "escape-$RND"
	assert_line "udp: EPERM"
	if listener_heard; then
		cat "$LISTEN_LOG"
		false
	fi
	"$PY" -c "$NET_CLIENT" udp "$LISTEN_ADDR" "sanity-$RND"
	listener_heard
}

@test "loopback: a node test server on 127.0.0.1 and ::1 reaches itself, the host's listener not (--net none)" {
	command -v node >/dev/null || skip "no node"
	listen tcp
	sbx node -e '
const http = require("http"), net = require("net");
const port = Number(process.argv[1]);
(async () => {
  for (const host of ["127.0.0.1", "::1"]) {
    const srv = http.createServer((q, r) => r.end("own " + host));
    await new Promise((ok, ko) => { srv.once("error", ko); srv.listen(port, host, ok); });
    const body = await new Promise((ok, ko) => http.get({host, port, path: "/"}, (r) => {
      let b = ""; r.on("data", (d) => b += d); r.on("end", () => ok(b));
    }).on("error", ko));
    console.log("served: " + body);
    await new Promise((ok) => srv.close(ok));
  }
})().catch((e) => { console.log("failed: " + e.code); process.exit(1); });' "$LISTEN_ADDR"
	[ "$status" = 0 ]
	assert_line "served: own 127.0.0.1"
	assert_line "served: own ::1"
	if listener_heard; then
		cat "$LISTEN_LOG"
		false
	fi
	"$PY" -c "$NET_CLIENT" tcp "$LISTEN_ADDR" "sanity-$RND"
	listener_heard
}

@test "loopback: no route leads out of --net none or --net domains" {
	for mode in none domains; do
		sbx_opts --net "$mode" -- "$PY" -c '
import socket
s = socket.socket()
s.settimeout(5)
try:
    s.connect(("192.0.2.1", 80))
    print("CONNECTED")
except OSError as e:
    print("refused", e.errno)'
		assert_line "refused 101"
	done
}
