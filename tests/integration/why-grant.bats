#!/usr/bin/env bats
# `wicket why --json`: each denial's narrowest grant ("grant"), the refused
# process's own words ("argv") and the command that asks for the two
# ("command"), derived from the refusal; and that command, run in the
# session under a rule that grants exactly that, does what was refused,
# judged by its effect on the host.

load ../lib/common
load integration_helpers
load ../lib/domains
bats_require_minimum_version 1.5.0

setup() {
	it_setup_home
}

teardown() { dom_teardown; }

# policy FILE GRANT ARGV...: a policy that extends workspace-write, refuses
# every request but the one whose argv is ARGV, which it grants GRANT (a
# JSON object); other keys (NETWORK: a JSON "network" object) from $NETWORK.
policy() {
	local file=$1 grant=$2
	shift 2
	"$PY" - "$file" "$grant" "${NETWORK:-}" "$@" <<'EOF'
import json, sys
file, grant, net, argv = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], sys.argv[4:]
p = {"extends": "workspace-write",
     "escalation": {"mode": "deny", "allow": [{"argv": argv, "grant": grant}]}}
if net:
    p["network"] = json.loads(net)
json.dump(p, open(file, "w"))
EOF
}

# The session's part: run CMD... (refused), print the denial of OBJECT as
# `why --json` gives it ("WHY <json>"), then run its "command" and print
# "rc=N". Arguments: WICKET OBJECT CMD...
INNER='w=$1 obj=$2
shift 2
"$@" 2>/dev/null && { echo "not refused"; exit 9; }
j=$("$w" why --json) || exit 8
e=$(printf "%s" "$j" | '"$PY"' -c "
import json, sys
d = [e for e in json.load(sys.stdin)[\"denials\"] if e[\"object\"] == sys.argv[1]]
print(json.dumps(d[0]) if d else \"{}\")" "$obj")
echo "WHY $e"
c=$(printf "%s" "$e" | '"$PY"' -c "import json, sys; print(json.load(sys.stdin).get(\"command\", \"false\"))")
PATH=${w%/*}:$PATH
eval "$c" </dev/null
echo "rc=$?"'

# why_of: the denial the session printed, as JSON.
why_of() { printf "%s\n" "$output" | sed -n "s/^WHY //p"; }

@test "a refused write: --write of its directory, the process's words; the command, granted that, writes on the host" {
	mkdir -p "$HOME/data"
	local f="$HOME/data/new file"
	policy "$OUT/p.json" '{"write": ["'"$HOME"'/data"]}' touch "$f"
	run --separate-stderr wsrun "$WS" -P "$OUT/p.json" -- sh -c "$INNER" sh "$WICKET" "$f" touch "$f"
	assert_equal "$status" 0
	"$PY" - "$(why_of)" "$HOME/data" "$f" <<'EOF'
import json, sys
e, d, f = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
assert e["grant"] == {"write": [d]}, e
assert e["argv"] == ["touch", f], e
assert e["command"] == "wicket ask --write %s -- touch '%s'" % (d, f), e
ask = [x for x in e["fixes"] if x["kind"] == "ask"][0]
assert ask["command"] == ["wicket", "ask", "--write", d, "--", "touch", f], ask
assert ask["grant"] == e["grant"], ask
assert e["kind"] == "write" and e["object"] == f and e["comm"] == "touch", e
EOF
	assert_line "rc=0"
	[ -f "$f" ]
}

@test "a refused write the plan protects: no grant, the command offered outside for the person only" {
	mkdir -p "$WS/.git/hooks"
	local f="$WS/.git/hooks/pre-commit"
	policy "$OUT/p.json" '{"write": ["'"$WS"'/.git/hooks"]}' touch "$f"
	run --separate-stderr wsrun "$WS" -P "$OUT/p.json" -- sh -c "$INNER" sh "$WICKET" "$f" touch "$f"
	assert_equal "$status" 0
	"$PY" - "$(why_of)" "$f" <<'EOF'
import json, sys
e, f = json.loads(sys.argv[1]), sys.argv[2]
assert "grant" not in e and "command" not in e, e
assert e["argv"] == ["touch", f], e
ask = [x for x in e["fixes"] if x["kind"] == "ask"][0]
assert ask["command"] == ["wicket", "ask", "--outside", "--", "touch", f] and ask["outside"], ask
EOF
	assert_line "rc=1"
	[ ! -e "$f" ]
}

@test "a refused write of a shell's startup file: no grant, though --write of the file is advised" {
	echo "# rc" >"$HOME/.bashrc"
	local f="$HOME/.bashrc"
	policy "$OUT/p.json" '{"write": ["'"$f"'"]}' dd of="$f" oflag=append conv=notrunc status=none
	run --separate-stderr wsrun "$WS" -P "$OUT/p.json" -- sh -c "$INNER" sh "$WICKET" "$f" \
		dd of="$f" oflag=append conv=notrunc status=none
	assert_equal "$status" 0
	"$PY" - "$(why_of)" "$f" <<'EOF'
import json, sys
e, f = json.loads(sys.argv[1]), sys.argv[2]
assert "grant" not in e and "command" not in e, e
ask = [x for x in e["fixes"] if x["kind"] == "ask"][0]
assert ask.get("outside") and "grant" not in ask, ask
EOF
	assert_line "rc=1"
	[ "$(cat "$f")" = "# rc" ]
}

@test "a refused read of a hidden store: --read of the whole store; the command, granted that, reads it" {
	mkdir -p "$HOME/.ssh"
	echo "wk-secret-$$" >"$HOME/.ssh/id_test"
	policy "$OUT/p.json" '{"read": ["'"$HOME"'/.ssh"]}' dd "if=$HOME/.ssh/id_test" of=copy status=none
	run --separate-stderr wsrun "$WS" -P "$OUT/p.json" -- sh -c "$INNER" sh "$WICKET" \
		"$HOME/.ssh/id_test" dd "if=$HOME/.ssh/id_test" of=copy status=none
	assert_equal "$status" 0
	"$PY" - "$(why_of)" "$HOME/.ssh" <<'EOF'
import json, sys
e, store = json.loads(sys.argv[1]), sys.argv[2]
assert e["grant"] == {"read": [store]}, e
assert e["argv"] == ["dd", "if=%s/id_test" % store, "of=copy", "status=none"], e
assert e["command"] == "wicket ask --read %s -- dd if=%s/id_test of=copy status=none" % (
    store, store), e
EOF
	assert_line "rc=0"
	[ "$(cat "$WS/copy")" = "wk-secret-$$" ]
}

@test "a CONNECT the proxy refused: --net of its host and port; the command, granted that, reaches the host's server" {
	dom_setup
	local url="https://pkg.wk.test:$HTTPS_PORT/hello.txt"
	NETWORK='{"mode": "domains", "allow": ["other.wk.test"], "hosts": {"pkg.wk.test": "127.0.0.1"},
		"allow_addresses": ["127.0.0.1"]}' \
		policy "$OUT/p.json" '{"net": ["pkg.wk.test:'"$HTTPS_PORT"'"]}' \
		curl -sS --cacert "$DOM/cert.pem" -o got.txt "$url"
	run --separate-stderr wsrun "$WS" -P "$OUT/p.json" -- sh -c "$INNER" sh "$WICKET" \
		"CONNECT pkg.wk.test:$HTTPS_PORT" curl -sS --cacert "$DOM/cert.pem" -o got.txt "$url"
	assert_equal "$status" 0
	"$PY" - "$(why_of)" "$HTTPS_PORT" "$DOM/cert.pem" "$url" <<'EOF'
import json, sys
e, port, cert, url = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
assert e["grant"] == {"net": ["pkg.wk.test:" + port]}, e
assert e["argv"] == ["curl", "-sS", "--cacert", cert, "-o", "got.txt", url], e
assert e["command"] == "wicket ask --net pkg.wk.test:%s -- curl -sS --cacert %s -o got.txt %s" % (
    port, cert, url), e
EOF
	assert_line "rc=0"
	[ "$(cat "$WS/got.txt")" = hello ]
}

@test "a request for an address the proxy refused: --net ADDRESS:PORT; the command, granted that, reaches the host's server" {
	dom_setup
	local url="http://127.0.0.1:$HTTP_PORT/hello.txt"
	# Through the proxy (wicket's NO_PROXY keeps loopback addresses off
	# it), which reaches no address the policy does not name.
	NETWORK='{"mode": "domains", "allow": ["other.wk.test"]}' \
		policy "$OUT/p.json" '{"net": ["127.0.0.1:'"$HTTP_PORT"'"]}' \
		curl --noproxy "" -fsS -o got.txt "$url"
	run --separate-stderr wsrun "$WS" -P "$OUT/p.json" -- sh -c "$INNER" sh "$WICKET" \
		"GET 127.0.0.1:$HTTP_PORT" curl --noproxy "" -fsS -o got.txt "$url"
	assert_equal "$status" 0
	"$PY" - "$(why_of)" "$HTTP_PORT" "$url" <<'EOF'
import json, sys
e, port, url = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
assert e["grant"] == {"net": ["127.0.0.1:" + port]}, e
assert e["argv"] == ["curl", "--noproxy", "", "-fsS", "-o", "got.txt", url], e
assert e["command"] == "wicket ask --net 127.0.0.1:%s -- curl --noproxy '' -fsS -o got.txt %s" % (
    port, url), e
EOF
	assert_line "rc=0"
	[ "$(cat "$WS/got.txt")" = hello ]
}
