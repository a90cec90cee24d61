#!/usr/bin/env bats
# `wicket why`: inside a session the supervisor lists the denials so far
# (over the control socket), each with its rule and the ways to allow it;
# outside, the last session's list from $XDG_STATE_HOME/wicket/.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	WS=$(mk_workspace) && OUT=$(mk_outside) || return 1
	track "$WS" "$OUT"
	# Every test keeps its own state directory, and a HOME of its own (no
	# real ~/.ssh to be hidden and reported).
	export XDG_STATE_HOME=$OUT/state HOME=$OUT/home
	# Where the user writes outside, read-only in the sandbox (and not a
	# shared space, so --write is the advice).
	mkdir -p "$HOME/data"
}

teardown() { it_teardown; }

@test "inside a session: each denial with its rule and the ways to allow it, newest first" {
	mkdir -p "$WS/.git/hooks" "$WS/keep"
	run --separate-stderr wsrun "$WS" --protect keep -- sh -c '
		touch keep/x 2>/dev/null
		"$1" why | grep -F "rule: $PWD/keep/x"
		touch "$HOME/data/wk-why" 2>/dev/null
		echo x 2>/dev/null >.git/hooks/pre-commit
		"$1" why' _ "$WICKET"
	assert_equal "$status" 0
	assert_line --index 0 "  rule: $WS/keep/x is protected (read-only inside a writable root) by the rule \"$WS/keep\" (--protect on the command line)"
	assert_line --index 1 --regexp "^This session [0-9a-f]{16} \(policy workspace-write, sh\): 3 denials \(3 distinct\); newest first:$"
	# The protected hook first (newest), then the write outside the workspace.
	assert_line --index 2 "write blocked: $WS/.git/hooks/pre-commit"
	assert_line --index 3 --regexp '^  by sh\[[0-9]+\] \(create\)$'
	assert_line --index 4 --regexp "^  rule: $WS/.git/hooks/pre-commit is protected \(read-only inside a writable root\) by the rule \"$WS/.git/hooks\" \(built-in workspace-write: /filesystem/protect/[0-9]+\)$"
	assert_line "write blocked: $HOME/data/wk-why"
	assert_line --regexp '^  by touch\[[0-9]+\] \(create\)$'
	assert_line "  rule: $HOME/data/wk-why is not under a writable root (policy workspace-write; writable: $WS, /tmp (private))"
	assert_line "    wicket run --write $HOME/data ..."
	assert_line '    a policy: {"extends": "workspace-write", "filesystem": {"write": ["'"$HOME"'/data"]}}'
	# The grant that allows it, with the refused process's own words.
	assert_line "    wicket ask --write $HOME/data -- touch $HOME/data/wk-why   (once, if approved)"
	# Nothing here is a line of the denials themselves.
	assert_regex "$stderr" "sandbox: write blocked: $HOME/data/wk-why"
}

@test "--json and -n: the newest N as JSON, with counts, rules and ways to allow" {
	run --separate-stderr wsrun "$WS" -- sh -c '
		for i in 1 2 3; do sh -c "touch \"\$HOME/data/wk-same\"" 2>/dev/null; done
		cat '"$HOME"'/.ssh/wk-none 2>/dev/null
		touch "$HOME/data/wk-newest" 2>/dev/null
		"$1" why --json -n 2' _ "$WICKET"
	assert_equal "$status" 0
	"$PY" - "$output" "$HOME/data" <<'EOF'
import json, sys
d, data = json.loads(sys.argv[1]), sys.argv[2]
assert d["v"] == 1 and d["ended"] is False and d["policy"] == "workspace-write", d
assert d["counts"]["write"] == 4, d["counts"]
assert len(d["denials"]) == 2, d["denials"]
new, same = d["denials"]
assert new["object"] == data + "/wk-newest" and new["comm"] == "touch" and new["count"] == 1, new
assert same["object"] == data + "/wk-same" and same["count"] == 3 and same["what"] == "create", same
assert "not under a writable root" in same["rule"], same
assert same["allow"][0] == "wicket run --write %s ..." % data, same
assert isinstance(same["pid"], int) and same["first"] <= same["last"]
EOF
}

# why_after_connect [OPTIONS]: in a session (wicket run OPTIONS), a TCP
# connect to ${ADDR:-127.0.0.1}:9, then `wicket why`.
why_after_connect() {
	wsrun "$WS" "$@" -- sh -c '
		"$2" -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    s.connect((\"$3\", 9))
except OSError:
    pass" 2>/dev/null
		"$1" why' _ "$WICKET" "$PY" "${ADDR:-127.0.0.1}"
}

@test "the network: the rule names the mode, the ways name a port policy or --net full" {
	# (127.0.0.1 is the sandbox's own loopback in mode none: no refusal.)
	ADDR=192.0.2.1 run --separate-stderr why_after_connect
	assert_equal "$status" 0
	assert_line 'network blocked: connect 192.0.2.1:9/tcp'
	assert_line '  rule: the network is off (policy workspace-write, network mode none)'
	assert_line '    wicket run --net full ...   (all of the host'"'"'s network)'
}

@test "a port the policy does not list: the rule and a policy that adds it" {
	local pol=$OUT/ports.json
	printf '{"extends": "workspace-write", "network": {"mode": "ports", "connect": [1]}}\n' >"$pol"
	run --separate-stderr why_after_connect --policy "$pol"
	assert_equal "$status" 0
	assert_line 'network blocked: connect 127.0.0.1:9/tcp'
	assert_line "  rule: TCP port 9 is not in the policy's network.connect list (policy $pol, network mode ports)"
	assert_line "    a policy: {\"extends\": \"$pol\", \"network\": {\"mode\": \"ports\", \"connect\": [9]}}"
}

@test "a hidden secret: the rule names the hide rule and where it comes from" {
	local pol=$OUT/hide.json
	mkdir "$OUT/secret" && echo s >"$OUT/secret/key" && chmod -R go+rX "$OUT"
	printf '{"extends": "workspace-write", "filesystem": {"hide": ["%s/secret"]}}\n' "$OUT" >"$pol"
	run --separate-stderr wsrun "$WS" --policy "$pol" -- sh -c 'cat "$2/secret/key" 2>/dev/null; "$1" why' _ "$WICKET" "$OUT"
	assert_equal "$status" 0
	assert_line "read blocked: $OUT/secret/key"
	assert_line "  rule: $OUT/secret/key is hidden by the rule \"$OUT/secret\" ($pol: /filesystem/hide/0)"
}

@test "after the session: the last session's list, kept in XDG_STATE_HOME, owner-only" {
	run --separate-stderr wsrun "$WS" -- sh -c 'touch /var/tmp/wk-after 2>/dev/null; exit 3'
	assert_equal "$status" 3
	assert_regex "$stderr" 'wicket: the sandbox blocked 1 write; run `wicket why` for details$'
	run --separate-stderr bounded 60 "$WICKET" why
	assert_equal "$status" 0
	assert_line --index 0 --regexp '^The last session [0-9a-f]{16} \(policy workspace-write, sh\), ended [0-9-]+ [0-9:]+: 1 denial \(1 distinct\); newest first:$'
	assert_line "write blocked: /var/tmp/wk-after"
	[ "$(stat -c %a "$XDG_STATE_HOME/wicket")" = 700 ]
	[ "$(stat -c %a "$XDG_STATE_HOME/wicket/last-session.json")" = 600 ]
	run --separate-stderr bounded 60 "$WICKET" why --json
	assert_equal "$status" 0
	"$PY" -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["ended"] is True and d["denials"][0]["object"] == "/var/tmp/wk-after", d' "$output"
	# A clean session replaces it.
	run --separate-stderr wsrun "$WS" -- true
	assert_equal "$stderr" ""
	run --separate-stderr bounded 60 "$WICKET" why
	assert_output --regexp '^The last session [0-9a-f]{16} \(policy workspace-write, true\), ended .*: nothing was blocked\.$'
}

@test "before any session: says so; bad options: exit 125 with a message" {
	run --separate-stderr bounded 60 "$WICKET" why
	assert_equal "$status" 0
	assert_output "No wicket session has ended yet (nothing in $XDG_STATE_HOME/wicket/last-session.json)."
	local bad
	for bad in "-n 0" "-n 101" "-n x" "--bogus" "extra" "-n"; do
		# shellcheck disable=SC2086
		run --separate-stderr bounded 60 "$WICKET" why $bad
		assert_equal "$status" 125
		assert_regex "$stderr" '^wicket: why: '
	done
	run --separate-stderr bounded 60 "$WICKET" why --help
	assert_equal "$status" 0
	assert_line --index 0 'Usage: wicket why [--json] [-n N] [--session N|ID]'
}

@test "a reader that goes away (wicket run ... 2>&1 | head) does not end the session early: its status and record are kept" {
	# The supervisor died of SIGPIPE writing the denial line: the
	# command's status was lost (141), the session's record never
	# written, and approved commands not ended.
	(set +e
	 cd "$WS" && bounded 60 "$WICKET" run -- sh -c 'echo first; sleep 0.5; touch /var/tmp/wk-late 2>/dev/null; sleep 0.3; exit 7' 2>&1
	 echo "rc=$?" >"$BATS_TEST_TMPDIR/rc") | head -n 1 >/dev/null
	local i
	for ((i = 0; i < 100; i++)); do [ -s "$BATS_TEST_TMPDIR/rc" ] && break; sleep 0.1; done
	assert_equal "$(cat "$BATS_TEST_TMPDIR/rc")" "rc=7"
	run --separate-stderr bounded 60 "$WICKET" why
	assert_equal "$status" 0
	assert_line "write blocked: /var/tmp/wk-late"
}

@test "inside a session whose control socket is gone: a clear error, not the last session's list" {
	run --separate-stderr wsrun "$WS" -- sh -c 'WICKET_FD=999 "$1" why' _ "$WICKET"
	assert_equal "$status" 125
	assert_regex "$stderr" "wicket: why: this is a wicket session, but its control socket is gone"
}

@test "attack: the sandbox cannot rewrite the record of its own session" {
	# The state directory inside the workspace: protected all the same.
	export XDG_STATE_HOME=$WS/state
	run --separate-stderr wsrun "$WS" -- sh -c '
		echo forged >"$XDG_STATE_HOME/wicket/last-session.json" 2>/dev/null && echo wrote
		ln -s /etc/passwd "$XDG_STATE_HOME/wicket/x" 2>/dev/null && echo linked
		mv "$XDG_STATE_HOME/wicket" "$XDG_STATE_HOME/moved" 2>/dev/null && echo moved
		touch /var/tmp/wk-record 2>/dev/null; exit 0'
	assert_equal "$status" 0
	assert_equal "$output" ""
	run --separate-stderr bounded 60 "$WICKET" why --json
	assert_equal "$status" 0
	"$PY" -c 'import json, sys; d = json.loads(sys.argv[1]); assert [e["object"] for e in d["denials"]][0] == "/var/tmp/wk-record", d
rec = [e for e in d["denials"] if e["object"].endswith("/last-session.json")]
assert rec and "wicket\x27s own record of sessions" in rec[0]["rule"], d' "$output"
	[ ! -e "$WS/state/moved" ] && [ ! -e "$WS/state/wicket/x" ]
}

@test "attack: a client that never reads a large answer does not stall the supervisor" {
	# 100 distinct denials with long paths make an answer of several
	# hundred KiB, more than a socket holds: it is written as the reader
	# takes it, while the supervisor goes on answering and printing.
	local deep=$OUT/d i
	for i in $(seq 7); do deep=$deep/$(printf 'D%.0s' $(seq 200)); done
	mkdir -p "$deep" && chmod -R go+rX "$OUT"
	run --separate-stderr wsrun "$WS" -- "$PY" -c '
import array, json, os, socket, subprocess, sys, time
deep = sys.argv[1]
for i in range(100):
    # The shim never waits for room on the control socket: a report that
    # finds it full is dropped. Pause now and then so that a loaded
    # machine keeps all 100.
    if i % 10 == 9:
        time.sleep(0.2)
    try:
        open("%s/f%03d" % (deep, i), "w")
    except OSError:
        pass
ctl = socket.socket(fileno=os.dup(int(os.environ["WICKET_FD"].split(":")[0])))
def ask(n):
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    ctl.sendmsg([json.dumps({"v": 1, "type": "why", "n": n}).encode()],
                [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [theirs.fileno()]).tobytes())])
    theirs.close()
    return mine
def answer(sock, timeout):
    sock.settimeout(timeout)
    data = b""
    while True:
        b = sock.recv(1 << 20)
        if not b:
            return data
        data += b
big = ask(100000)
time.sleep(1)
subprocess.run(["touch", "/var/tmp/wk-while-stalled"], stderr=subprocess.DEVNULL,
               pass_fds=(int(os.environ["WICKET_FD"].split(":")[0]),))
# While the first answer waits for its reader, the supervisor answers this.
small = json.loads(answer(ask(1), 5))
data = answer(big, 20)
d = json.loads(data)
print(len(data) > 300000, len(d["denials"]), d["denials"][0]["object"].endswith("/f099"),
      small["denials"][0]["object"])' "$deep"
	assert_equal "$status" 0
	assert_output "True 100 True /var/tmp/wk-while-stalled"
	assert_regex "$stderr" 'sandbox: write blocked: /var/tmp/wk-while-stalled'
}

@test "WICKET_DIAG=off: no line and no summary, but wicket why still lists the denial" {
	run --separate-stderr env WICKET_DIAG=off bash -c 'cd "$1" && timeout --kill-after=5 60 "$2" run -- touch /var/tmp/wk-off' _ "$WS" "$WICKET"
	assert_equal "$status" 1
	refute_regex "$stderr" 'sandbox:|the sandbox blocked'
	run --separate-stderr bounded 60 "$WICKET" why
	assert_equal "$status" 0
	assert_line --index 0 --regexp ': 1 denial \(1 distinct\); newest first:$'
	assert_line "write blocked: /var/tmp/wk-off"
}

@test "a child of Python's subprocess.run (which closes inherited descriptors) reaches wicket why" {
	run --separate-stderr wsrun "$WS" -- env WICKET_BIN="$WICKET" "$PY" -c '
import json, os, subprocess
subprocess.run(["touch", "/var/tmp/wk-pysub"], stderr=subprocess.DEVNULL)
out = subprocess.run([os.environ["WICKET_BIN"], "why", "--json"], capture_output=True, text=True).stdout
print([d["object"] for d in json.loads(out)["denials"]])'
	assert_equal "$status" 0
	assert_output "['/var/tmp/wk-pysub']"
	assert_regex "$stderr" 'sandbox: write blocked: /var/tmp/wk-pysub \(create by touch\[[0-9]+\]\)'
}
