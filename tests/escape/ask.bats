#!/usr/bin/env bats
# `wicket ask`: the sandbox cannot approve its own request, nor make the
# supervisor run something else than what was decided, nor stop the
# session by what it sends. Judged by effects outside: a marker file in a
# directory the sandbox cannot write.

load ../lib/common
load escape_helpers
bats_require_minimum_version 1.5.0

setup() {
	ask_setup || return 1
	printf '#!/bin/sh\ncat >/dev/null\nexit 1\n' >"$OUT/no"
	printf '#!/bin/sh\ncat >/dev/null\nsleep 1.5\nexit 0\n' >"$OUT/slowyes"
	printf '#!/bin/sh\ncat >/dev/null\nexec sleep 30\n' >"$OUT/slow"
	chmod 755 "$OUT/no" "$OUT/slowyes" "$OUT/slow"
	printf '{"extends": "workspace-write", "escalation": {"allow": [["true"]], "timeout": 5}}\n' >"$OUT/pol.json"
	chmod 644 "$OUT/pol.json"
	export WS OUT WICKET PY
}

teardown() { escape_cleanup; common_teardown; }

wsrun() {
	local ws=$1
	shift
	(cd "$ws" && bounded 90 "$WICKET" run "$@")
}

# The raw protocol, from inside: CTL is the control socket, ask() sends a
# request with the given descriptors and returns the reply socket.
RAW='
import array, json, os, select, socket, sys, time
ctl = socket.socket(fileno=os.dup(int(os.environ["WICKET_FD"].split(":")[0])))
def ask(data, fds=None, kind=socket.SOCK_SEQPACKET):
    a, b = socket.socketpair(socket.AF_UNIX, kind)
    if fds is None:
        fds = [0, 1, 2, b.fileno()]
    # A supervisor that is behind (a loaded machine) says EAGAIN rather
    # than be held by the sandbox: the sender tries again, as the shim
    # does (for 30 s at most), so that no request is lost on the way.
    for tries in range(6000):
        try:
            ctl.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else [])
            break
        except BlockingIOError:
            time.sleep(0.005)
        except OSError as e:
            print("send:", e.errno)
            break
    b.close()
    return a
def answer(a, t=10):
    a.settimeout(t)
    try:
        return a.recv(65536).decode()
    except socket.timeout:
        return "TIMEOUT"
def req(argv, **kw):
    d = {"v": 1, "type": "ask", "argv": argv}
    d.update(kw)
    return json.dumps(d).encode()
'

@test "ask hostile input: malformed, oversized, wrong descriptors, floods, a burst of 1000; each refused, the session goes on" {
	# The burst holds a socket per request: with a few descriptors more
	# inherited, past an ordinary user's default soft limit of 1024.
	need_fd 2047
	run --separate-stderr wsrun "$WS" --policy "$OUT/pol.json" --approver "$OUT/slow" -- "$PY" -c "$RAW"'
M = os.environ["OUT"] + "/made"
touch = ["touch", M]
out = []
out.append(answer(ask(b"{not json")))
out.append(answer(ask(req(touch, extra=1))))
out.append(answer(ask(req(touch, reason=7))))
out.append(answer(ask(req([]))))
out.append(answer(ask(req(touch, timeout=0))))
out.append(answer(ask(req(["x"] * 300))))
out.append(answer(ask(req(["x" * 40000]))))
out.append(answer(ask(b" " * 70000 + req(touch))))
out.append(answer(ask(b"{\"v\":2,\"type\":\"ask\",\"argv\":[\"true\"]}")))
out.append(answer(ask(req(touch), kind=socket.SOCK_STREAM)))
for r in out:
    print("R", r)
# wrong descriptor counts and kinds: nothing to answer on, dropped
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
ask(req(touch), fds=[0, 1, 2])
ask(req(touch), fds=[0, 1, 2, 0])
ask(req(touch), fds=[b.fileno()])
ask(req(touch), fds=[])
# a descriptor flood: 250 per packet, 200 packets
r, w = os.pipe()
for i in range(200):
    try:
        ctl.sendmsg([req(touch)], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [r] * 250))])
    except OSError:
        pass
# a burst of 1000 requests: at most 16 in flight (the slow approver), the rest refused
socks = [ask(req(touch + [str(i)])) for i in range(1000)]
# Their answers as they come, whatever the order; the 16 in flight wait
# for the slow approver, so the rest is all that is waited for (60 s at
# most, should the supervisor be stuck).
p = select.poll()
left = {}
for s in socks:
    p.register(s, select.POLLIN)
    left[s.fileno()] = s
busy, deadline = 0, time.monotonic() + 60
while len(left) > 16 and time.monotonic() < deadline:
    for fd, ev in p.poll(1000):
        s = left.pop(fd, None)
        if s is None:
            continue
        p.unregister(fd)
        try:
            busy += "too many requests" in s.recv(65536).decode()
        except OSError:
            pass
print("busy", busy >= 900)
# a requester that goes away mid-decision, a closed reply socket
for s in socks:
    s.close()
ask(req(touch)).close()
time.sleep(0.5)
# the session goes on: an allow rule still answers
print("after", answer(ask(req(["true"]))))
'
	assert_equal "$status" 0
	assert_line --index 0 --regexp '^R .*"type":"error".*malformed request'
	assert_line --index 1 --regexp '^R .*unknown field in the request'
	assert_line --index 2 --regexp '^R .*reason.. must be a string'
	assert_line --index 3 --regexp '^R .*argv.. must be an array of 1 to 256'
	assert_line --index 4 --regexp '^R .*timeout.. must be'
	assert_line --index 5 --regexp '^R .*argv.. must be an array of 1 to 256'
	assert_line --index 6 --regexp '^R .*too long'
	assert_line --index 7 --regexp '^R .*request too large'
	assert_line --index 8 --regexp '^R .*malformed request: a JSON object with'
	assert_line --index 9 --regexp '^R .*SOCK_SEQPACKET reply socket'
	assert_line "busy True"
	assert_line --regexp '^after .*"by":"rule"'
	[ ! -e "$OUT/made" ]
}

@test "ask: a forged answer on the control socket or on the reply socket approves nothing" {
	# The approver says no once the forged answers are written (20 s at
	# most): decided sooner, the supervisor had closed the reply socket
	# and the sends failed, which ended the program.
	printf '#!/bin/sh\ncat >/dev/null\nfor i in $(seq 1 200); do [ -e "%s/forged" ] && break; sleep 0.1; done\nexit 1\n' \
		"$WS" >"$OUT/no-after"
	chmod 755 "$OUT/no-after"
	run --separate-stderr wsrun "$WS" --approver "$OUT/no-after" -- "$PY" -c "$RAW"'
M = os.environ["OUT"] + "/made"
for t in ("result", "approve", "approved", "answer"):
    print(answer(ask(json.dumps({"v": 1, "type": t, "decision": "approved", "argv": ["touch", M]}).encode())))
a = ask(req(["touch", M]))
for m in ({"v": 1, "type": "result", "decision": "approved"}, {"v": 1, "type": "approve"}, "y\n", "yes\n"):
    a.send((json.dumps(m) if isinstance(m, dict) else m).encode())
open("forged", "w").close()
print("final", answer(a, 30))
'
	assert_equal "$status" 0
	assert_line --index 0 --regexp 'unknown request type'
	assert_line --regexp '^final .*"decision":"denied","by":"approver"'
	[ ! -e "$OUT/made" ]
}

@test "ask: SCM_CREDENTIALS cannot claim another process" {
	run --separate-stderr wsrun "$WS" --approver "$OUT/no" -- "$PY" -c "$RAW"'
import struct
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
for pid in (1, os.getppid(), 999999):
    try:
        ctl.sendmsg([req(["touch", os.environ["OUT"] + "/made"])],
                    [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, struct.pack("iII", pid, os.getuid(), os.getgid())),
                     (socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1, 2, b.fileno()]))])
        print("sent as", pid)
    except OSError as e:
        print("refused", e.errno)
'
	assert_equal "$status" 0
	assert_equal "${lines[*]}" "refused 1 refused 1 refused 1"
	[ ! -e "$OUT/made" ]
}

@test "ask: LD_PRELOAD and PATH planted in the sandbox do not reach the command; argv[0] is resolved with the supervisor's PATH" {
	mkdir "$WS/bin"
	printf '#!/bin/sh\ntouch %s/made\n' "$OUT" >"$WS/bin/true"
	chmod 755 "$WS/bin/true"
	printf '{"extends": "workspace-write", "escalation": {"allow": [["true"], ["env"]]}}\n' >"$OUT/env.json"
	chmod 644 "$OUT/env.json"
	run --separate-stderr wsrun "$WS" --policy "$OUT/env.json" -- sh -c '
		export PATH="$PWD/bin:$PATH" LD_PRELOAD="$PWD/evil.so" WK_PLANTED=1
		echo "asker=$WICKET_SESSION"
		"$1" ask -- true; echo "rc=$?"
		"$1" ask -- env' _ "$WICKET" </dev/null
	assert_equal "$status" 0
	assert_line --index 1 "rc=0"
	refute_line --partial "WK_PLANTED"
	refute_line --partial "evil.so"
	refute_line --regexp "^PATH=.*$WS"
	# The command's sandbox is a session of its own: nothing of the
	# asker's control socket or session reaches it.
	local asker=${lines[0]#asker=}
	[ -n "$asker" ]
	refute_line "WICKET_SESSION=$asker"
	[ ! -e "$OUT/made" ]
}

@test "ask: swapping the cwd between the request and the run changes nothing; a program the sandbox swaps runs only on its grant, never outside" {
	mkdir "$WS/d"
	printf '#!/bin/sh\necho original; pwd -P\n' >"$OUT/tool"
	chmod 755 "$OUT/tool"
	run --separate-stderr wsrun "$WS" --approver "$OUT/slowyes" -- sh -c '
		cd d && { "$1" ask -- "$2/tool" & }
		sleep 0.5
		cd .. && mv d d.old && mkdir d
		wait' _ "$WICKET" "$OUT" </dev/null
	assert_equal "$status" 0
	assert_equal "${lines[*]}" "original $WS/d.old"
	# A program in the workspace the sandbox swaps after the approver
	# said yes: what runs is on the grant (nothing more), in a sandbox of
	# its own; outside, only the person could approve it, and there is
	# no terminal to ask.
	printf '#!/bin/sh\necho original\n' >"$WS/tool"
	printf '#!/bin/sh\necho swapped; touch %s/made\n' "$OUT" >"$WS/evil"
	chmod 755 "$WS/tool" "$WS/evil"
	local how
	for how in "" --outside; do
		run --separate-stderr wsrun "$WS" --approver "$OUT/slowyes" -- sh -c '
			{ "$1" ask $2 -- ./tool; echo "rc=$?"; } &
			sleep 0.5
			mv tool tool.old && mv evil tool
			wait' _ "$WICKET" "$how" </dev/null
		[ ! -e "$OUT/made" ]
		mv "$WS/tool" "$WS/evil" && mv "$WS/tool.old" "$WS/tool"
	done
	assert_equal "${lines[*]}" "rc=123"
	grep -q '"decision":"approved","by":"approver"' "$AUDIT"
	grep -q '"outside":true,.*"decision":"denied","by":"no-terminal"' "$AUDIT"
}

@test "ask: a request that names its descriptors (send(), no SCM_RIGHTS) gets only the sender's own, never with passed ones, never ones it lacks" {
	printf '{"extends": "workspace-write", "escalation": {"allow": [["touch", "%s/made"], ["sh", "-c", "echo taken-output"]]}}\n' "$OUT" >"$OUT/take.json"
	chmod 644 "$OUT/take.json"
	run --separate-stderr wsrun "$WS" --policy "$OUT/take.json" -- "$PY" -c "$RAW"'
M = os.environ["OUT"] + "/made"
print("env", os.environ.get("WICKET_ASK_TAKE"))
def take(data_of, fds_of=None, passed=False):
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    fds = fds_of(b.fileno()) if fds_of else [0, 1, 2, b.fileno()]
    data = data_of(fds)
    if passed:
        ctl.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1, 2, b.fileno()]))])
    else:
        ctl.send(data)
    r = answer(a, 3)
    while "\"running\"" in r:
        r = answer(a, 10)
    b.close()
    return r
touch = ["touch", M]
# Named and passed at once: dropped, nothing runs.
print("both", take(lambda f: req(touch, fds=f), passed=True))
# Numbers it does not hold: nothing to take, nothing runs; where the
# reply socket can be taken, the sender is told (not left waiting).
print("lacks", take(lambda f: req(touch, fds=f), lambda r: [0, 1, 2, 900]))
print("lacks2", take(lambda f: req(touch, fds=f), lambda r: [0, 1, 901, r]))
# Not numbers: refused by the parser, nothing runs.
print("bad", take(lambda f: req(touch, fds=[0, 1, 2, -1])))
print("bad2", take(lambda f: req(touch, fds=[0, 1, 2])))
# Its own: the command writes to the sender'"'"'s stdout.
w = os.open(os.environ["WS"] + "/taken.out", os.O_WRONLY | os.O_CREAT, 0o644)
print("own", take(lambda f: req(["sh", "-c", "echo taken-output"], fds=f), lambda r: [0, w, 2, r]))
'
	assert_equal "$status" 0
	assert_line "env 1"
	assert_line "both TIMEOUT"
	assert_line "lacks TIMEOUT"
	assert_line --regexp '^lacks2 \{.*"type": ?"error".*could not take the request.s descriptors: Bad file descriptor'
	assert_line "bad TIMEOUT"
	assert_line "bad2 TIMEOUT"
	assert_line --regexp '^own .*"decision":"approved"'
	[ ! -e "$OUT/made" ]
	assert_equal "$(cat "$WS/taken.out")" "taken-output"
}

@test "ask: a request written on the control socket by a process outside the sandbox (an approved command's output) is not taken as one" {
	# The sandbox makes an approved command (cat, outside, in a shell that
	# stays a while) write a request that names descriptors onto the
	# control socket: the supervisor would take them from that process
	# outside, and run what it asks.
	printf '{"extends": "workspace-write", "escalation": {"allow": [["sh", "-c", "cat req.json; sleep 3"], ["sh", "-c", "cat req.json >&0; sleep 3"], ["touch", "%s/made"]]}}\n' "$OUT" >"$OUT/outside.json"
	chmod 644 "$OUT/outside.json"
	printf '{"v":1,"type":"ask","argv":["touch","%s/made"],"fds":[0,1,2,0]}' "$OUT" >"$WS/req.json"
	# As its standard output: refused (a socket can be read back, see
	# ask-careful.bats); as its standard input, which the command writes to.
	run --separate-stderr wsrun "$WS" --policy "$OUT/outside.json" -- bash -c '
		fd=${WICKET_FD%%:*}
		eval "\"\$1\" ask -- sh -c \"cat req.json; sleep 3\" >&$fd"; echo "out=$?"
		eval "\"\$1\" ask -- sh -c \"cat req.json >&0; sleep 3\" <&$fd"; echo "in=$?"' _ "$WICKET" </dev/null
	assert_equal "$status" 0
	assert_line "out=125"
	assert_line "in=0"
	[ ! -e "$OUT/made" ]
}

@test "ask: the sandbox can neither see, signal nor trace the supervisor" {
	run --separate-stderr wsrun "$WS" --policy "$OUT/pol.json" -- "$PY" -c "$RAW"'
import ctypes, signal
libc = ctypes.CDLL(None, use_errno=True)
me = os.getpid()
hits = 0
for p in os.listdir("/proc"):
    if not p.isdigit() or int(p) == me:
        continue
    if libc.ptrace(16, int(p), 0, 0) == 0:   # PTRACE_ATTACH
        hits += 1
print("traced", hits)
print("supervisor visible", any(os.path.exists("/proc/%d" % p) and os.readlink("/proc/%d/exe" % p).endswith("/wicket")
      for p in [int(x) for x in os.listdir("/proc") if x.isdigit()] if p != me and p != 1))
print("after", answer(ask(req(["true"]))))
'
	assert_equal "$status" 0
	assert_line "traced 0"
	assert_line "supervisor visible False"
	assert_line --regexp '^after .*"by":"rule"'
}

@test "ask: an approved command's output goes nowhere the sandbox could not write itself" {
	# Red team 14, F2: the supervisor reopened every standard output that
	# was not write-only for writing, to take away reading: a read-only
	# or O_PATH descriptor of a file the sandbox could not write became
	# one the approved command wrote into (a host FIFO a host process
	# reads, a file outside). Judged by what reached them.
	printf '#!/bin/sh\ncat >/dev/null\nexit 0\n' >"$OUT/yes"
	chmod 755 "$OUT/yes"
	mkfifo -m 666 "$OUT/ctl.fifo"
	echo original >"$OUT/file"
	chmod 666 "$OUT/file"
	bounded 20 sh -c 'while :; do cat "$1"; done >"$2"' _ "$OUT/ctl.fifo" "$OUT/fifo.log" &
	track_pid $!
	run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- "$PY" -c '
import os, subprocess, sys
out = os.environ["OUT"]
for name, flags in (("ctl.fifo", os.O_PATH), ("file", os.O_PATH), ("file", os.O_RDONLY)):
    fd = os.open(out + "/" + name, flags)
    r = subprocess.run(["wicket", "ask", "--", "echo", "MARK-" + name], stdout=fd, stderr=subprocess.PIPE)
    print(name, flags, r.returncode, r.stderr.decode().strip()[:200])
    os.close(fd)
'
	echo "$output"
	echo "$stderr"
	# The host reader still listens: what reached it ends with this.
	bounded 10 sh -c 'echo end >"$1"' _ "$OUT/ctl.fifo"
	wait_for grep -q end "$OUT/fifo.log"
	run cat "$OUT/fifo.log" "$OUT/file"
	echo "$output"
	refute_output --partial MARK
	[ "$(cat "$OUT/file")" = original ]
}
