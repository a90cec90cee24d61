#!/usr/bin/env bats
# `wicket why`: each way to allow a denial as data (--json "fixes": kind,
# option, value, policy snippet), the narrowest that works (applied here
# to show that it does), and the sessions before the last (--list,
# --session N|ID).

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	it_setup_home
}

teardown() { it_teardown; }

# fixes_of OBJECT: the "fixes" of that denial in the last session, as JSON.
fixes_of() {
	bounded 60 "$WICKET" why --json | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
e = [e for e in d["denials"] if e["object"] == sys.argv[1]]
assert e, d
print(json.dumps(e[0]["fixes"]))' "$1"
}

@test "a write to one existing file: --write that file (not its directory, not HOME), as data; applied, it works" {
	echo old >"$HOME/.toolrc"
	run --separate-stderr wsrun "$WS" -- sh -c 'echo new >"$HOME/.toolrc"'
	[ "$(cat "$HOME/.toolrc")" = old ]
	run fixes_of "$HOME/.toolrc"
	assert_equal "$status" 0
	"$PY" - "$output" "$HOME/.toolrc" <<'EOF'
import json, sys
f, path = json.loads(sys.argv[1]), sys.argv[2]
assert f[0]["kind"] == "option" and f[0]["option"] == "--write" and f[0]["value"] == path, f
pol = [x for x in f if x["kind"] == "policy"]
assert pol and pol[0]["policy"]["filesystem"]["write"] == [path], f
assert pol[0]["policy"]["extends"] == "workspace-write", f
ask = [x for x in f if x["kind"] == "ask"][0]
assert ask["command"] == ["wicket", "ask", "--write", path, "--", "sh", "-c",
                          'echo new >"$HOME/.toolrc"'], f
assert ask["grant"] == {"write": [path]}, f
# Nothing wider than the file.
for x in f:
    assert x.get("value") != path.rsplit("/", 1)[0], f
EOF
	# The prose is made from the same data.
	run --separate-stderr bounded 60 "$WICKET" why
	assert_line "    wicket run --write $HOME/.toolrc ...   (this file only; a program that replaces it by renaming a new one needs its directory)"
	# Applied: the write now reaches the file.
	run --separate-stderr wsrun "$WS" --write "$HOME/.toolrc" -- sh -c 'echo new >"$HOME/.toolrc"'
	assert_equal "$status" 0
	[ "$(cat "$HOME/.toolrc")" = new ]
}

@test "a file created in a directory outside: --write of the nearest existing directory; applied, it works" {
	mkdir -p "$OUT/data/sub"
	run --separate-stderr wsrun "$WS" -- sh -c 'mkdir -p "$1/sub/deeper" && echo x >"$1/sub/deeper/f"' _ "$OUT/data"
	[ ! -e "$OUT/data/sub/deeper" ]
	run fixes_of "$OUT/data/sub/deeper"
	assert_equal "$status" 0
	"$PY" -c 'import json, sys; f = json.loads(sys.argv[1]); assert f[0] == {"kind": "option", "option": "--write", "value": sys.argv[2]}, f' "$output" "$OUT/data/sub"
	run --separate-stderr wsrun "$WS" --write "$OUT/data/sub" -- sh -c 'mkdir -p "$1/sub/deeper" && echo x >"$1/sub/deeper/f"' _ "$OUT/data"
	assert_equal "$status" 0
	[ -f "$OUT/data/sub/deeper/f" ]
}

@test "curl's TCP connect with the network off: --net ports:PORT as data; applied, the host listener is reached" {
	command -v curl >/dev/null || skip "curl is not installed"
	mkdir "$OUT/l"
	listener_start "$OUT/l"
	local port
	port=$(cat "$OUT/l/port")
	# The advice reads the port from curl's arguments while curl lives
	# (advice only, see url_ports): one retry a second later keeps it alive
	# on a loaded machine. (Not 127.0.0.1: in mode none that is the
	# sandbox's own loopback, where nothing is refused.)
	run --separate-stderr wsrun "$WS" -- curl -sS -m 5 --retry 1 --retry-delay 1 --retry-all-errors \
		-o /dev/null "http://192.0.2.1:$port/blocked-$$"
	[ "$status" -ne 0 ]
	run --separate-stderr bounded 60 "$WICKET" why --json
	"$PY" - "$output" "$port" <<'EOF'
import json, sys
d, port = json.loads(sys.argv[1]), int(sys.argv[2])
e = [e for e in d["denials"] if e["kind"] == "network"]
assert e, d
f = e[0]["fixes"]
assert {"kind": "option", "option": "--net", "value": "ports:%d" % port} in f, f
pol = [x["policy"] for x in f if x["kind"] == "policy"]
assert pol == [{"extends": "workspace-write", "network": {"mode": "ports", "connect": [port]}}], f
EOF
	run --separate-stderr wsrun "$WS" --net "ports:$port" -- curl -sS -m 5 -o /dev/null "http://127.0.0.1:$port/allowed-$$"
	wait_for_grep "allowed-$$" "$OUT/l/got" 50
	! grep -q "blocked-$$" "$OUT/l/got"
}

@test "curl refused its name lookup (UDP): the advice opens UDP and the TCP port of its URL too" {
	command -v curl >/dev/null || skip "curl is not installed"
	run --separate-stderr wsrun "$WS" -- curl -sS -m 5 -o /dev/null https://wicket-test.invalid/ http://wicket-test.invalid:8081/
	[ "$status" -ne 0 ]
	run --separate-stderr bounded 60 "$WICKET" why --json
	"$PY" - "$output" <<'EOF'
import json, sys
d = json.loads(sys.argv[1])
e = [e for e in d["denials"] if e["object"].endswith("/udp")]
assert e, d
pol = [x["policy"] for x in e[0]["fixes"] if x["kind"] == "policy"]
assert pol and pol[0]["network"]["udp"] is True, e[0]
assert sorted(pol[0]["network"]["connect"]) == [443, 8081], pol
EOF
}

@test "--list: the sessions kept, newest first; --session N and --session ID show an earlier one" {
	local k
	for k in 1 2 3; do
		wsrun "$WS" -- sh -c 'echo "$WICKET_SESSION"; touch /var/tmp/wk-list-'"$k" >"$OUT/sid$k" 2>/dev/null || true
	done
	run --separate-stderr bounded 60 "$WICKET" why --list
	assert_equal "$status" 0
	assert_line --index 0 --regexp "^ 1  $(cat "$OUT/sid3")  .*  workspace-write  sh  1 denial$"
	assert_line --index 1 --regexp "^ 2  $(cat "$OUT/sid2")  "
	assert_line --index 2 --regexp "^ 3  $(cat "$OUT/sid1")  "
	run --separate-stderr bounded 60 "$WICKET" why --list --json
	"$PY" -c 'import json, sys; d = json.loads(sys.argv[1]); assert [s["session"] for s in d["sessions"]] == sys.argv[2:], d' "$output" "$(cat "$OUT/sid3")" "$(cat "$OUT/sid2")" "$(cat "$OUT/sid1")"
	run --separate-stderr bounded 60 "$WICKET" why --session 2
	assert_equal "$status" 0
	assert_line --index 0 --regexp "^The session $(cat "$OUT/sid2") \(policy workspace-write, sh\), ended "
	assert_line 'write blocked: /var/tmp/wk-list-2'
	run --separate-stderr bounded 60 "$WICKET" why --session "$(cut -c1-8 "$OUT/sid1")" --json
	"$PY" -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["denials"][0]["object"] == "/var/tmp/wk-list-1", d' "$output"
	# The last session is still the plain `wicket why`.
	run --separate-stderr bounded 60 "$WICKET" why
	assert_line 'write blocked: /var/tmp/wk-list-3'
	local bad
	for bad in "--session 4" "--session 0" "--session zz" "--session" "--list --session 1"; do
		# shellcheck disable=SC2086
		run --separate-stderr bounded 60 "$WICKET" why $bad
		assert_equal "$status" 125
		assert_regex "$stderr" '^wicket: why: '
	done
}

@test "records are kept by size, not by count: 22 small sessions are all kept" {
	local i
	for ((i = 0; i < 22; i++)); do
		wsrun "$WS" -- true
	done
	[ "$(find "$XDG_STATE_HOME/wicket/sessions" -name '*.json' | wc -l)" = 22 ]
	run --separate-stderr bounded 60 "$WICKET" why --list
	assert_equal "${#lines[@]}" 22
}

@test "attack: inside a session the records of other sessions can be neither read nor rewritten" {
	wsrun "$WS" -- sh -c 'touch /var/tmp/wk-earlier' 2>/dev/null || true
	local rec before
	rec=$(find "$XDG_STATE_HOME/wicket/sessions" -name '*.json' | head -n1)
	before=$(sha256sum <"$rec")
	run --separate-stderr wsrun "$WS" -- sh -c '
		cat "$1" 2>/dev/null && echo read
		echo forged >"$1" 2>/dev/null && echo wrote
		wicket why --list; echo "list=$?"' _ "$rec"
	assert_equal "$status" 0
	assert_equal "$output" "list=125"
	[ "$(sha256sum <"$rec")" = "$before" ]
}

@test "a name refused its lookup: first --allow-domain with the name from the arguments, as data" {
	# The advice reads the refused process's arguments: it stays alive
	# until the supervisor has taken its denial (a `why` request is
	# answered after every packet sent before it).
	run --separate-stderr wsrun "$WS" -- "$PY" -c '
import socket, subprocess, sys
try:
    socket.getaddrinfo("pkg.wk.test", 443)
except OSError:
    pass
subprocess.run([sys.argv[1], "why", "--json"], stdout=subprocess.DEVNULL)' "$WICKET" https://pkg.wk.test/simple/
	assert_equal "$status" 0
	# The resolver's datagram to its name server, wherever that is.
	local obj
	bounded 60 "$WICKET" why --json >"$OUT/why.json"
	obj=$("$PY" -c 'import json, sys; print([e["object"] for e in json.load(open(sys.argv[1]))["denials"] if e["object"].endswith("/udp")][0])' "$OUT/why.json")
	run fixes_of "$obj"
	assert_equal "$status" 0
	"$PY" -c 'import json, sys; f = json.loads(sys.argv[1]); assert f[0]["kind"] == "option" and f[0]["option"] == "--allow-domain" and f[0]["value"] == "pkg.wk.test", f; assert not [x for x in f if x.get("value") == "https"], f' "$output"
}

# quiet_run DOMAIN CODE CHECK: CODE (python) in a session that reaches
# DOMAIN through the proxy leaves nothing on wicket's stderr (no line, no
# summary); CHECK (python) holds of the session's `why --json` (as d).
quiet_run() {
	run --separate-stderr wsrun "$WS" --allow-domain "$1" -- "$PY" -c "$2"
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	run --separate-stderr bounded 60 "$WICKET" why --json
	"$PY" -c "import json, sys
d = json.loads(sys.argv[1])
$3" "$output"
}

@test "known probes (a loopback bind to port 0) are neither printed nor counted, and why marks them" {
	local probe='
import socket
for fam, host in ((socket.AF_INET6, "::1"), (socket.AF_INET, "127.0.0.1")):
    try:
        s = socket.socket(fam)
        s.bind((host, 0))
        print("bound", host)
    except OSError:
        pass'
	# On the private loopback of mode domains they are no probes: bound.
	quiet_run pkg.wk.test "$probe" 'assert not d["denials"], d'
	assert_equal "$(printf 'bound ::1\nbound 127.0.0.1')" "$(bounded 60 sh -c 'cd "$1" && "$2" run --allow-domain pkg.wk.test -- "$3" -c "$4"' _ "$WS" "$WICKET" "$PY" "$probe")"
	# On the host's network (mode ports), Landlock refuses them.
	printf '{"extends": "workspace-write", "network": {"mode": "ports", "connect": [443]}}\n' >"$OUT/ports.json"
	run --separate-stderr wsrun "$WS" -P "$OUT/ports.json" -- "$PY" -c "$probe"
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	run --separate-stderr bounded 60 "$WICKET" why --json
	"$PY" -c 'import json, sys
d = json.loads(sys.argv[1])
p = {e["object"]: e.get("probe") for e in d["denials"]}
assert len(p) == 2 and all(p.values()), p' "$output"
	run --separate-stderr bounded 60 "$WICKET" why
	assert_output --partial "[a probe: "
}

@test "--allow-domain refuses an address, pointing to allow_addresses" {
	run --separate-stderr wsrun "$WS" --allow-domain 127.0.0.1 -- true
	assert_equal "$status" 125
	[[ $stderr == *allow_addresses* ]]
}

@test "a name that does not resolve through the proxy is the network's answer: no line, not counted" {
	quiet_run wk-none.invalid '
import urllib.request
try:
    urllib.request.urlopen("http://wk-none.invalid/", timeout=30)
except Exception:
    pass' '
e = [e for e in d["denials"] if "wk-none.invalid" in e["object"]]
assert e and "not a refusal" in e[0]["rule"], d'
}

@test "a hidden file the user cannot read outside either is not hidden: reading it is an ordinary error, no line" {
	[ -e /etc/shadow ] || skip "no /etc/shadow on this host"
	run --separate-stderr wsrun "$WS" -- sh -c 'cat /etc/shadow >/dev/null 2>&1; true'
	assert_equal "$status" 0
	if is_root; then
		# Root reads it outside: hidden, and the refusal is the sandbox's.
		[[ $stderr == *"read blocked: /etc/shadow "* ]]
	elif [ -r /etc/shadow ]; then
		skip "$(id -un) can read /etc/shadow here"
	else
		# 0640 root:shadow: refused outside too, so nothing is said.
		assert_equal "$stderr" ""
	fi
}
