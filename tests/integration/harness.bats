#!/usr/bin/env bats
# contrib/harness/harness.py end to end: tool calls in a warm session, the
# refusals read from each call's own events, a retry on the narrowest
# grant when the harness trusts it, and `wicket ask` answered through the
# approver socket the harness holds. Judged outside: files on the host, a
# local server's log.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	WS=$(mk_workspace) && OUT=$(mk_outside) || return 1
	track "$WS" "$OUT"
	export XDG_STATE_HOME=$OUT/state
	mkdir -p "$OUT/allowed" "$OUT/secret" "$OUT/www"
	echo served >"$OUT/www/hello"
	HARNESS=$BATS_TEST_DIRNAME/../../contrib/harness/harness.py
	export WS OUT WICKET
}

teardown() {
	[ -n "${SRV:-}" ] && kill "$SRV" 2>/dev/null
	it_teardown
}

@test "harness: calls run in a warm session; trusted refusals retried on their grant; asks answered" {
	# A server outside, on loopback, reached by name through the proxy.
	"$PY" -c '
import http.server, socketserver, sys, functools
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = socketserver.TCPServer(("127.0.0.1", 0), h)
open(sys.argv[2], "w").write(str(s.server_address[1]))
s.serve_forever()' "$OUT/www" "$OUT/port" 2>"$OUT/srv.log" &
	SRV=$!
	local i
	for ((i = 0; i < 100; i++)); do [ -s "$OUT/port" ] && break; sleep 0.1; done
	local port
	port=$(cat "$OUT/port")
	printf '{"extends": "workspace-write", "network": {"mode": "domains", "hosts": {"svc.test": "127.0.0.1", "other.test": "127.0.0.1"}}}\n' >"$OUT/pol.json"
	{
		echo '{"cmd": "echo hi >made-inside && cat made-inside"}'
		printf '{"cmd": "touch %s/allowed/x"}\n' "$OUT"
		printf '{"cmd": "touch %s/secret/x"}\n' "$OUT"
		printf '{"cmd": "curl -s --max-time 10 http://svc.test:%s/hello"}\n' "$port"
		printf '{"cmd": "curl -s --max-time 10 http://other.test:%s/hello?other"}\n' "$port"
		printf '{"cmd": "%s ask --write %s/allowed -- touch %s/allowed/asked"}\n' "$WICKET" "$OUT" "$OUT"
		printf '{"cmd": "%s ask --write %s/secret -- touch %s/secret/asked"}\n' "$WICKET" "$OUT" "$OUT"
	} >"$OUT/calls.jsonl"
	cd "$WS"
	run --separate-stderr bounded 120 "$PY" "$HARNESS" --wicket "$WICKET" \
		--trust-write "$OUT/allowed" --trust-domain svc.test -- --policy "$OUT/pol.json" \
		--allow-address "127.0.0.1:$port" \
		<"$OUT/calls.jsonl"
	assert_success
	echo "$output" >"$OUT/results.jsonl"
	# Judged outside first: what each call left on the host.
	[ "$(cat "$WS/made-inside")" = hi ]
	[ -e "$OUT/allowed/x" ] && [ -e "$OUT/allowed/asked" ]
	[ ! -e "$OUT/secret/x" ] && [ ! -e "$OUT/secret/asked" ]
	grep -q "GET /hello " "$OUT/srv.log"
	! grep -q "other" "$OUT/srv.log"
	"$PY" - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
r = [json.loads(l) for l in open(out + "/results.jsonl")]
inside, allowed, secret, svc, other, ask_yes, ask_no, approver = r
assert inside["status"] == 0 and inside["stdout"] == "hi\n" and not inside["denials"], inside
assert allowed["retried"] and allowed["status"] == 0, allowed
assert allowed["denials"][0]["category"] == "outside-writable", allowed
assert not secret["retried"] and secret["status"] != 0 and secret["denials"], secret
# The names: put to the harness's approver by the proxy, as asked.
assert svc["stdout"] == "served\n" and not svc["denials"], svc
assert other["denials"][0]["category"] == "name-not-allowed" and not other["retried"], other
assert ask_yes["status"] == 0 and ask_no["status"] == 122, (ask_yes, ask_no)
asked = approver["approver"]
net = [(a["request"]["host"], a["approved"]) for a in asked if a["request"]["type"] == "network"]
assert net == [("svc.test", True), ("other.test", False)], asked
ask = [(a["request"]["grant"], a["approved"]) for a in asked if a["request"]["type"] == "ask"]
assert ask == [({"write": [out + "/allowed"]}, True), ({"write": [out + "/secret"]}, False)], asked
PY
}
