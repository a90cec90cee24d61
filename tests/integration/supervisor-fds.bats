#!/usr/bin/env bats
# The supervisor's descriptors do not grow with what the sandbox asks of
# it. Every request from inside (a denial the shim reports, a refused
# `wicket ask`, a unix socket connect the supervisor decides, a network
# call it explains, a connection to the proxy) takes descriptors for a
# while: each must be given back, or the sandbox could fill the
# supervisor's table and with it stop every explanation and question.
# Judged outside: the supervisor's /proc/PID/fd after a few rounds and
# after many more.

load ../lib/common
load integration_helpers
load ../lib/domains

teardown() {
	[ -z "${DOM_PID:-}" ] || dom_teardown
	it_teardown
}

# fds_steady ARGS... <PROBE: the python PROBE in a session (wicket run
# ARGS -- python3 probe.py ROUNDS; under $PRLIMIT when set); the probe does a round of requests
# ROUNDS times, creates the file `phase` and waits for `go` twice: after
# 3 rounds and after 60 more. The supervisor's open descriptors then must
# be as many as after the first three (2 more at most: a closer may still
# hold one).
fds_steady() {
	local pid i n1 n2
	cat >"$WS/probe.py"
	(cd "$WS" && exec ${PRLIMIT:-} "$WICKET" run "$@" -- "$PY" probe.py) \
		</dev/null >"$OUT/stdout" 2>"$OUT/stderr" &
	pid=$!
	_WK_STARTED+=("$pid")
	wait_file() {
		for ((i = 0; i < 300; i++)); do
			[ -e "$WS/$1" ] && return 0
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		echo "the probe did not reach $1"
		cat "$OUT/stderr"
		return 1
	}
	wait_file phase1 || return 1
	n1=$(ls "/proc/$pid/fd" | wc -l)
	: >"$WS/go1"
	wait_file phase2 || return 1
	for ((i = 0; i < 30; i++)); do
		n2=$(ls "/proc/$pid/fd" | wc -l)
		[ "$n2" -le $((n1 + 2)) ] && break
		sleep 0.1
	done
	: >"$WS/go2"
	wait "$pid" || true
	echo "descriptors after 3 rounds: $n1, after 63: $n2"
	[ "$n1" -gt 3 ] || { echo "no descriptors counted"; return 1; }
	[ "$n2" -le $((n1 + 2)) ] || { ls -l "/proc/$pid/fd" 2>/dev/null; return 1; }
	grep -q '^done$' "$OUT/stdout" || { echo "the probe did not finish"; cat "$OUT/stderr"; return 1; }
}

PROBE_HEAD='import array, json, os, socket, subprocess, sys, time
def send(fds):
    """FDS to the supervisor in a packet on the control socket."""
    ctl = socket.socket(fileno=os.dup(int(os.environ["WICKET_FD"].split(":")[0])))
    ctl.sendmsg([json.dumps({"v": 1, "type": "sync"}).encode()],
                [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    ctl.close()
def wait(name):
    for _ in range(300):
        if os.path.exists(name):
            return
        time.sleep(0.1)
    sys.exit("no " + name)
def rounds(n, one):
    for _ in range(n):
        one()
def phases(one):
    rounds(3, one)
    open("phase1", "w").close(); wait("go1")
    rounds(60, one)
    open("phase2", "w").close(); wait("go2")
    print("done")
'

@test "the supervisor's descriptors stay as many after many denials, asks and socket calls" {
	it_setup_ws
	local sock=$OUT/host.sock
	timeout 100 "$PY" -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(64)
s.settimeout(0.2); end = time.time() + 90
while time.time() < end:
    try: s.accept()[0].close()
    except OSError: pass' "$sock" &
	_WK_STARTED+=("$!")
	for ((i = 0; i < 50; i++)); do [ -S "$sock" ] && break; sleep 0.1; done
	fds_steady <<EOF
$PROBE_HEAD
def one():
    try: open("/var/tmp/wk-fds-denied", "w")
    except OSError: pass
    subprocess.run(["wicket", "ask", "--", "true"], stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
    u = socket.socket(socket.AF_UNIX)
    try: u.connect("$sock")
    except OSError: pass
    u.close()
    try: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).close()
    except OSError: pass
phases(one)
EOF
	# Each kind was refused, and said so, at least once.
	grep -q 'write blocked: /var/tmp/wk-fds-denied' "$OUT/stderr"
	grep -q "$sock" "$OUT/stderr"
}

@test "the supervisor's descriptors stay as many after many connections to the proxy" {
	dom_setup
	OUT=$DOM
	fds_steady -P "$DOM/allow.json" <<EOF
$PROBE_HEAD
def ask(req):
    c = socket.create_connection(("127.0.0.1", 3128), timeout=20)
    c.sendall(req)
    got = b""
    while True:
        b = c.recv(65536)
        if not b:
            break
        got += b
    c.close()
    return got
def one():
    ok = ask(b"GET http://pkg.wk.test:$HTTP_PORT/hello.txt HTTP/1.1\\r\\nHost: pkg.wk.test\\r\\nConnection: close\\r\\n\\r\\n")
    if b"hello" not in ok:
        sys.exit("the allowed name was not reached: %r" % ok[:200])
    no = ask(b"CONNECT evil.wk.test:443 HTTP/1.1\\r\\nHost: evil.wk.test:443\\r\\n\\r\\n")
    if b" 403 " not in no.split(b"\\r\\n")[0] + b" ":
        sys.exit("the refused name was not refused: %r" % no[:200])
phases(one)
EOF
	grep -q 'evil.wk.test' "$OUT/stderr"
}

@test "the supervisor's descriptors stay as many when the sandbox hands over a socket whose close would block" {
	# Red team 14, F4: a TCP socket with unsent data and SO_LINGER of a
	# day, parked in a unix socket's queue and that handed to the
	# supervisor, stopped its closer in close(); every descriptor after
	# it stayed open, up to the limit, and then no request could be read.
	# Judged on /proc/PID/fd.
	it_setup_ws
	fds_steady -n full <<EOF
$PROBE_HEAD
sys.path.insert(0, "$WICKET_SRCDIR/tests/lib")
from linger import lingering_socket
# Whoever closes last waits: the supervisor, or a child of the probe
# that exits (an exiting process does not linger). Five tries.
held = []
for _ in range(5):
    c, peer, lst = lingering_socket()  # peer held, never read
    held += [peer, lst]
    u1, u2 = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    u1.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [c.fileno()]))])
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.read(r, 1)  # the probe's own copies are closed
        send([u2.fileno()])
        os._exit(0)
    os.close(r)
    c.close()
    u1.close()
    u2.close()
    os.close(w)
    os.waitpid(pid, 0)
nul = os.open("/dev/null", os.O_RDONLY)
def one():
    send([nul] * 10)
phases(one)
EOF
}

@test "the supervisor's descriptors stay as many when the sandbox has used up the user's processes" {
	# Red team 15, A: the closer's thread was made at the first
	# descriptor to close; a sandbox that had used up RLIMIT_NPROC first
	# left it unmade, and every descriptor it handed over stayed open, up
	# to the limit. (Root is not held to RLIMIT_NPROC: there the probe
	# just forks its 300.)
	it_setup_ws
	local tasks
	tasks=$(ps -L -u "$(id -u)" --no-headers | wc -l)
	PRLIMIT="prlimit --nproc=$((tasks + 200)) --" fds_steady <<EOF
$PROBE_HEAD
import signal
kids = []
for _ in range(300):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    kids.append(pid)
nul = os.open("/dev/null", os.O_RDONLY)
def one():
    send([nul] * 10)
try:
    phases(one)
finally:
    for k in kids:
        os.kill(k, signal.SIGKILL)
        os.waitpid(k, 0)
EOF
}

@test "the sandbox cannot fill the supervisor's descriptor table with sends that wait, holding what they pass" {
	# red team 17, F3: each of unixnotify's eight workers checked for the
	# closer's room once, then took a send's 253 descriptors and waited
	# in it (the socket full): 1023 of a limit of 1024 were the sandbox's
	# for as long as it liked. Judged outside, on /proc/PID/fd.
	it_setup_ws
	local pid i n max=0
	cat >"$WS/probe.py" <<'EOF'
import array, os, socket, threading, time
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
a.setblocking(False)
try:
    while True:
        a.send(b"x" * 65536)
except BlockingIOError:
    pass
a.setblocking(True)
x = os.open("/dev/null", os.O_RDONLY)
def send(n):
    try:
        a.sendmsg([b"y"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [x] * n))])
    except OSError:
        pass
held, n, k = 0, 253, 0
while held < 8 and n >= 1 and k < 40:
    t = threading.Thread(target=send, args=(n,), daemon=True)
    t.start()
    t.join(1.5)
    if t.is_alive():
        held += 1  # waits in the supervisor's worker, with what it passed
    else:
        n //= 2
    k += 1
open("filled", "w").close()
time.sleep(30)
EOF
	(ulimit -Sn 1024 && cd "$WS" && exec "$WICKET" run -- "$PY" probe.py) \
		</dev/null >"$OUT/stdout" 2>"$OUT/stderr" &
	pid=$!
	_WK_STARTED+=("$pid")
	for ((i = 0; i < 900; i++)); do
		n=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
		((n > max)) && max=$n
		[ -e "$WS/filled" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	n=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
	((n > max)) && max=$n
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	echo "the supervisor held $max descriptors at most"
	[ -e "$WS/filled" ]
	((max > 20)) # the attack took some: it was counted
	((max < 768)) # three quarters of its limit
}
