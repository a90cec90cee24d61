#!/usr/bin/env bats
# Warm sessions: `wicket session start --name N`, `wicket exec N -- CMD`,
# `wicket session stop N` (wicket(1), WARM SESSIONS). Each exec has its
# own streams, directory, status and denials; the sandbox never reaches
# the socket that runs commands in it; stop makes the checks a run's end
# makes.

load ../lib/common
bats_require_minimum_version 1.5.0

setup() {
	WS=$(mk_workspace)
	OUT=$(mk_outside)
	export XDG_STATE_HOME=$BATS_TEST_TMPDIR/state
	N=w$BATS_TEST_NUMBER
	SOCK=$XDG_STATE_HOME/wicket/warm/$N.sock
}

teardown() {
	bounded 30 "$WICKET" session stop "$N" >/dev/null 2>&1 || true
	common_teardown
}

start() { (cd "$WS" && bounded 60 "$WICKET" session start --name "$N" "$@"); }
wx() { bounded 60 "$WICKET" exec "$N" "$@"; }

@test "warm: start, exec with its own stdin, stdout, stderr and status, stop" {
	start
	run bounded 30 "$WICKET" session list
	assert_success
	assert_line "$N"
	echo 'from stdin' | (cd "$WS" && wx -- sh -c 'cat; echo to-out; echo to-err >&2; exit 7') \
		>"$OUT/o" 2>"$OUT/e" && rc=0 || rc=$?
	[ "$rc" = 7 ]
	[ "$(cat "$OUT/o")" = "$(printf 'from stdin\nto-out')" ]
	[ "$(cat "$OUT/e")" = to-err ]
	run bounded 30 "$WICKET" session stop "$N"
	assert_success
	run bounded 30 "$WICKET" session list
	[[ "$output" != *"$N"* ]]
	[ ! -e "$SOCK" ]
}

@test "warm: the exec's directory is the caller's, or --cwd, as the sandbox sees it" {
	mkdir "$WS/sub"
	mkdir -p "$HOME/.ssh"
	start
	run bash -c 'cd "$1/sub" && "$2" exec "$3" -- pwd </dev/null' _ "$WS" "$WICKET" "$N"
	assert_success
	assert_output "$WS/sub"
	run wx --cwd "$WS/sub" -- pwd </dev/null
	assert_output "$WS/sub"
	# A directory the sandbox hides is not entered.
	run wx --cwd "$HOME/.ssh" -- pwd </dev/null
	[ "$status" = 125 ]
	assert_output --partial "cannot enter"
}

@test "warm: a command killed by a signal is 128+N; not found 127; a signal to exec reaches it" {
	start
	run wx -- sh -c 'kill -TERM $$' </dev/null
	[ "$status" = 143 ]
	run -127 wx -- no-such-command-here </dev/null
	[ "$status" = 127 ]
	# SIGTERM to the client goes to the command: it says so and ends.
	# Sent to the client itself, not through timeout(1): a timeout whose
	# child ran first (a loaded machine) can take the signal before it
	# knows its child's pid, and then ends without passing it on.
	mkfifo "$OUT/ready"
	"$WICKET" exec "$N" -- \
		sh -c 'trap "echo got-term; exit 9" TERM; echo up; while :; do sleep 1; done' \
		</dev/null >"$OUT/ready" 2>/dev/null &
	local pid=$!
	exec 7<"$OUT/ready"
	read -r line <&7
	[ "$line" = up ]
	kill -TERM "$pid"
	# Bounded: a signal that never reaches the command fails the test,
	# with what each process was doing, instead of holding the suite.
	if ! read -t 60 -r line <&7; then
		ps -eo pid,ppid,pgid,stat,wchan:32,cmd | grep -E "wicket|trap" >&2
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" && rc=0 || rc=$?
	exec 7<&-
	[ "$line" = got-term ]
	[ "$rc" = 9 ]
}

@test "warm: 8 parallel execs: outputs and statuses never mix" {
	start
	local i pids=()
	for i in 1 2 3 4 5 6 7 8; do
		wx -- sh -c 'i=0; while [ $i -lt 500 ]; do echo "call-$1 $i"; echo "err-$1 $i" >&2; i=$((i+1)); done; exit $1' _ "$i" \
			</dev/null >"$OUT/o$i" 2>"$OUT/e$i" &
		pids+=($!)
	done
	for i in 1 2 3 4 5 6 7 8; do
		wait "${pids[$((i - 1))]}" && rc=0 || rc=$?
		[ "$rc" = "$i" ]
		[ "$(grep -c "^call-$i " "$OUT/o$i")" = 500 ]
		[ "$(wc -l <"$OUT/o$i")" = 500 ]
		[ "$(grep -c "^err-$i " "$OUT/e$i")" = 500 ]
		[ "$(wc -l <"$OUT/e$i")" = 500 ]
	done
}

@test "warm: a denial is said on its own exec's stderr only, and recorded with its exec" {
	start
	# B runs, waiting on its stdin, while A is refused.
	mkfifo "$OUT/in"
	wx -- sh -c 'cat >/dev/null; echo b-done' <"$OUT/in" >"$OUT/bo" 2>"$OUT/be" &
	local b=$!
	exec 8>"$OUT/in"
	run wx -- sh -c "echo x >$OUT/denied" </dev/null
	[ "$status" -ne 0 ]
	assert_output --partial "sandbox: write blocked: $OUT/denied"
	exec 8>&-
	wait "$b"
	[ "$(cat "$OUT/bo")" = b-done ]
	! grep -q "blocked" "$OUT/be"
	! grep -q "blocked" "$XDG_STATE_HOME/wicket/warm/$N.log"
	bounded 30 "$WICKET" session stop "$N" 2>/dev/null
	run bounded 30 "$WICKET" why --json
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
es = [e for e in d["denials"] if e["object"].endswith("/denied")]
assert es and all(e.get("exec", 0) >= 1 for e in es), d'
}

# A client of the socket, as anything could be: sends one exec request
# with our stdout and stderr for `touch MARKER`.
attack_py='
import socket, sys, array
path, marker = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(path)
msg = b"exec\0fnpp\0ctouch\0" if False else b"exec\0f" + b"npp\0" + b"c/\0" + b"atouch\0" + b"a" + marker.encode() + b"\0"
s.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [1, 2]))])
print(s.recv(65536))
'

@test "warm: the sandbox cannot reach the socket that runs commands in it" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	start -w "$OUT"
	# Sanity: from the host, the request runs its command.
	bounded 30 python3 -c "$attack_py" "$SOCK" "$OUT/host-marker" >/dev/null
	[ -e "$OUT/host-marker" ]
	# From inside, through an exec: neither by name nor with wicket.
	run wx -- python3 -c "$attack_py" "$SOCK" "$OUT/marker" </dev/null
	[ "$status" -ne 0 ]
	run wx -- wicket exec "$N" -- touch "$OUT/marker" </dev/null
	[ "$status" -ne 0 ]
	run wx -- sh -c 'ls -a "$1" 2>&1; true' _ "$(dirname "$SOCK")" </dev/null
	refute_output --partial "$N.sock"
	[ ! -e "$OUT/marker" ]
}

@test "warm: bad requests are refused, and the session serves on" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	start
	run bounded 30 python3 -c '
import socket, sys
for msg in [b"", b"exec", b"exec\0", b"exec\0fppp\0", b"exec\0fnnn\0a\0", b"bogus\0",
            b"exec\0fnnn\0c/\0c/\0atrue\0", b"x" * 70000, b"stop\0", b"exit\0x0\0",
            b"exec\0fppp\0atrue\0", b"signal\0s99\0"]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sys.argv[1])
    try:
        s.send(msg)
        r = s.recv(65536)
    except OSError as e:
        r = repr(e).encode()
    print(msg[:20], r[:80])
    s.close()
' "$SOCK"
	assert_success
	assert_output --partial "error"
	run wx -- sh -c 'echo still here' </dev/null
	assert_success
	assert_output "still here"
}

@test "warm: stop runs the planted-file guard" {
	start
	# A nested repository made during the session, its hook planted.
	run wx --cwd "$WS" -- sh -c 'mkdir -p a/b && cd a/b && git init -q && printf "#!/bin/sh\ntouch %s\n" "$1" >.git/hooks/post-checkout && chmod +x .git/hooks/post-checkout' _ "$OUT/pwned" </dev/null
	assert_success
	[ -e "$WS/a/b/.git/hooks/post-checkout" ]
	run bounded 30 "$WICKET" session stop "$N"
	assert_success
	assert_output --partial "the session created $WS/a/b/.git"
	assert_output --partial "moved it to $WS/a/b/.git.quarantined-by-wicket-"
	[ ! -e "$WS/a/b/.git" ]
}

@test "warm: exec to a missing, stopped or dead session is 125" {
	run bounded 30 "$WICKET" exec nosuch -- true
	[ "$status" = 125 ]
	assert_output --partial "not running"
	run bounded 30 "$WICKET" exec ../x -- true
	[ "$status" = 125 ]
	run bounded 30 "$WICKET" session start --name "$(printf 'a%.0s' {1..65})"
	[ "$status" = 125 ]
	# A session without a sandbox is not a warm sandbox.
	run bounded 30 "$WICKET" session start -P full-access --name "$N"
	[ "$status" = 125 ]
	assert_output --partial "runs without a sandbox"
	start
	run bounded 30 "$WICKET" session start --name "$N"
	[ "$status" = 125 ]
	assert_output --partial "running already"
	bounded 30 "$WICKET" session stop "$N"
	run wx -- true </dev/null
	[ "$status" = 125 ]
	# Its server killed from inside: the session is over.
	start
	run wx -- sh -c 'kill -KILL $PPID' </dev/null
	run wx -- true </dev/null
	[ "$status" = 125 ]
}

@test "warm: a terminal is never handed to the sandbox: its modes stay, escapes are filtered" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	start
	# exec's streams all on a pty of the test's; the command tries to
	# change the terminal's modes and its title.
	run bounded 60 python3 -c '
import os, pty, sys, termios
m, s = pty.openpty()
before = termios.tcgetattr(s)
pid = os.fork()
if pid == 0:
    os.setsid()
    for fd in (0, 1, 2):
        os.dup2(s, fd)
    os.execv(sys.argv[1], [sys.argv[1], "exec", sys.argv[2], "--",
        "sh", "-c", "stty raw -echo 2>/dev/null; test -t 1 && echo ISATTY; printf \"\\033]2;pwned\\007done\\n\""])
out = b""
while True:
    try:
        b = os.read(m, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
    if b"done" in out:
        break
_, st = os.waitpid(pid, 0)
after = termios.tcgetattr(s)
print("status", os.waitstatus_to_exitcode(st))
print("modes kept" if before == after else "MODES CHANGED")
print("title set" if b"\x1b]2;" in out else "no title")
print("isatty" if b"ISATTY" in out else "not a tty")
' "$WICKET" "$N"
	assert_success
	assert_line "status 0"
	assert_line "modes kept"
	assert_line "no title"
	assert_line "not a tty"
}

@test "warm: a file as a stream is copied, never handed over: the sandbox cannot change it" {
	start
	printf 'in the file\n' >"$OUT/in"
	chmod 644 "$OUT/in"
	: >"$OUT/out"
	chmod 600 "$OUT/out"
	# Through the descriptor a sandbox could chmod the host's file.
	wx -- sh -c 'cat; chmod 777 /proc/self/fd/0 /proc/self/fd/1 2>/dev/null; echo written' \
		<"$OUT/in" >"$OUT/out" 2>/dev/null || true
	[ "$(cat "$OUT/out")" = "$(printf 'in the file\nwritten')" ]
	[ "$(stat -c %a "$OUT/in")" = 644 ]
	[ "$(stat -c %a "$OUT/out")" = 600 ]
}

@test "warm: the session's event stream names each denial's exec" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	start --events "$OUT/events.jsonl"
	run wx -- sh -c "echo x >$OUT/denied-one" </dev/null
	assert_output --partial "write blocked"
	run wx -- sh -c "echo x >$OUT/denied-two" </dev/null
	assert_output --partial "write blocked"
	bounded 30 "$WICKET" session stop "$N" 2>/dev/null
	python3 - "$OUT/events.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
d = {e["object"].rsplit("/", 1)[1]: e.get("exec") for e in ev if e["event"] == "denial"}
assert d.get("denied-one") and d.get("denied-two"), ev
assert d["denied-one"] != d["denied-two"], d
PY
}

@test "warm: exec --events: each exec's own stream, its denials and its end, never another's" {
	start
	run bounded 60 "$WICKET" exec "$N" --events "$OUT/one.jsonl" -- sh -c "echo x >$OUT/denied-one; exit 3" </dev/null
	assert_equal "$status" 3
	# Two at once: each stream holds its own exec's lines only.
	bounded 60 "$WICKET" exec "$N" --events "$OUT/a.jsonl" -- sh -c "echo x >$OUT/denied-a; echo x >$OUT/denied-a2" </dev/null 2>/dev/null &
	local a=$!
	bounded 60 "$WICKET" exec "$N" --events 7 -- sh -c "echo x >$OUT/denied-b" </dev/null 2>/dev/null 7>"$OUT/b.jsonl" &
	local b=$!
	wait "$a" || true
	wait "$b" || true
	run bounded 30 "$WICKET" exec "$N" --events "$OUT/one.jsonl" -- true
	assert_equal "$status" 125
	grep -q "exists already" <<<"$output"
	run bounded 30 "$WICKET" exec "$N" --events 1 -- true
	assert_equal "$status" 125
	bounded 30 "$WICKET" session stop "$N" 2>/dev/null
	python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
def lines(n):
    return [json.loads(l) for l in open("%s/%s.jsonl" % (out, n))]
one, a, b = lines("one"), lines("a"), lines("b")
for ev, names, status in ((one, {"denied-one"}, 3), (a, {"denied-a", "denied-a2"}, 1), (b, {"denied-b"}, 1)):
    assert ev[0]["event"] == "exec" and ev[0]["v"] == 1, ev
    x = ev[0]["exec"]
    assert ev[0]["argv"][0] == "sh", ev
    den = [e for e in ev if e["event"] == "denial"]
    assert {e["object"].rsplit("/", 1)[1] for e in den} == names, ev
    assert all(e["exec"] == x and e["category"] == "outside-writable" for e in den), den
    end = ev[-1]
    assert end["event"] == "end" and end["exec"] == x and end["refused"] is True, end
    assert end["denials"] == len(names) and end["counts"] == {"outside-writable": len(names)}, end
    assert end["session"] == ev[0]["session"] != "", end
    if status != 1:
        assert end["status"] == status, end
assert len({one[0]["exec"], a[0]["exec"], b[0]["exec"]}) == 3
PY
}
