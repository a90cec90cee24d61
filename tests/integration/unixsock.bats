#!/usr/bin/env bats
# wicket(1), wicket-policy(5): unix sockets inside the sandbox keep
# working -- servers and clients in the workspace and in the private /tmp
# (stream, datagram, seqpacket; descriptors passed along), Python's
# multiprocessing and a small test suite built on it -- while a host
# service outside is refused with one line and a `wicket why` rule. On
# kernels without Landlock ABI 9 the supervisor makes these connects and
# sends for the sandbox (launcher/supervisor/unixnotify.c); tests/escape/unixsock.bats
# holds the attacks.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() { it_setup_ws; }
teardown() { it_teardown; }

# Every kind of unix socket, server and client in one program, in
# directory $1 (relative paths from it); prints one line per kind.
SOCKS='
import array, os, socket, sys, threading
d = sys.argv[1]
os.chdir(d)
def pair(kind, name):
    for p in (name, name + ".c"):
        try: os.unlink(p)
        except FileNotFoundError: pass
    srv = socket.socket(socket.AF_UNIX, kind)
    srv.bind(name)
    if kind == socket.SOCK_DGRAM:
        cli = socket.socket(socket.AF_UNIX, kind)
        cli.bind(name + ".c")
        cli.sendto(b"hello", name)
        msg, addr = srv.recvfrom(64)
        srv.sendto(b"back", addr)
        assert cli.recv(64) == b"back"
        # sendmsg with a descriptor, to the absolute path
        r, w = os.pipe()
        cli.sendmsg([b"fd"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [r]))], 0, os.path.abspath(name))
        m, anc, _, _ = srv.recvmsg(64, socket.CMSG_SPACE(4))
        fd = array.array("i", anc[0][2])[0]
        os.write(w, b"through")
        assert os.read(fd, 64) == b"through"
        return msg
    srv.listen(4)
    cli = socket.socket(socket.AF_UNIX, kind)
    cli.connect(name)
    c, _ = srv.accept()
    cli.sendall(b"hello")
    return c.recv(64)
for kind, name in ((socket.SOCK_STREAM, "s.sock"), (socket.SOCK_DGRAM, "d.sock"), (socket.SOCK_SEQPACKET, "q.sock")):
    print(name, pair(kind, name).decode())
'

@test "unix sockets in the workspace: stream, datagram (with SCM_RIGHTS), seqpacket" {
	run --separate-stderr wsrun "$WS" -- "$PY" -c "$SOCKS" "$WS"
	assert_success
	assert_output "s.sock hello
d.sock hello
q.sock hello"
	assert_equal "$stderr" ""
}

@test "unix sockets in the private /tmp and in a subdirectory of it, with and without diagnostics" {
	run --separate-stderr wsrun "$WS" -- sh -c 'mkdir -p /tmp/sub && exec "$0" -c "$1" /tmp/sub' "$PY" "$SOCKS"
	assert_success
	assert_output "s.sock hello
d.sock hello
q.sock hello"
	run --separate-stderr wsrun "$WS" --no-diagnostics -- "$PY" -c "$SOCKS" /tmp
	assert_success
	assert_line "q.sock hello"
}

@test "unix sockets through a symlink that stays inside the workspace" {
	mkdir "$WS/real"
	ln -s real "$WS/alias"
	run --separate-stderr wsrun "$WS" -- "$PY" -c "$SOCKS" "$WS/alias"
	assert_success
	assert_line "s.sock hello"
	assert_line "d.sock hello"
}

@test "Python's multiprocessing: a Manager (unix listener in /tmp), a Pool, a Listener in the workspace" {
	run --separate-stderr wsrun "$WS" -- "$PY" -c '
import multiprocessing as mp, os
from multiprocessing.connection import Listener, Client
def sq(x): return x * x
if __name__ == "__main__":
    with mp.Manager() as m:
        d = m.dict(); d["k"] = 42; print("manager", d["k"])
    with mp.Pool(2) as p:
        print("pool", sum(p.map(sq, range(10))))
    addr = os.path.join(os.getcwd(), "l.sock")
    with Listener(addr, family="AF_UNIX") as l:
        def client():
            with Client(addr, family="AF_UNIX") as c: c.send("ping")
        t = mp.Process(target=client); t.start()
        with l.accept() as c: print("listener", c.recv())
        t.join()
'
	assert_success
	assert_output "manager 42
pool 285
listener ping"
}

@test "a local test suite that uses multiprocessing and unix sockets passes" {
	mkdir "$WS/tests"
	cat >"$WS/tests/test_ipc.py" <<'PYEOF'
import multiprocessing as mp, os, socket, unittest

def echo_server(path, ready):
    s = socket.socket(socket.AF_UNIX)
    s.bind(path); s.listen(1); ready.set()
    c, _ = s.accept(); c.sendall(c.recv(64)); c.close()

class IPC(unittest.TestCase):
    def test_echo(self):
        path = os.path.abspath("echo.sock")
        ready = mp.Event()
        p = mp.Process(target=echo_server, args=(path, ready)); p.start()
        ready.wait(10)
        c = socket.socket(socket.AF_UNIX); c.connect(path); c.sendall(b"hi")
        self.assertEqual(c.recv(64), b"hi"); p.join(10)

    def test_manager_queue(self):
        with mp.Manager() as m:
            q = m.Queue(); q.put(7); self.assertEqual(q.get(), 7)

    def test_socketpair(self):
        a, b = socket.socketpair(); a.send(b"x"); self.assertEqual(b.recv(1), b"x")

if __name__ == "__main__":
    unittest.main()
PYEOF
	chmod -R a+rX "$WS/tests"
	run --separate-stderr wsrun "$WS" -- "$PY" -m unittest discover -s tests -v
	assert_success
	assert_regex "$stderr" 'Ran 3 tests'
	assert_regex "$stderr" 'OK'
}

@test "a host service outside: refused with EACCES, one line, a wicket why rule" {
	local sock=$OUT/svc.sock
	"$PY" -c '
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(1)
open(sys.argv[1] + ".ready", "w").close(); time.sleep(30)' "$sock" 3>&- &
	_WK_STARTED+=($!)
	wait_for_file "$sock.ready"
	run --separate-stderr wsrun "$WS" -- "$PY" -c '
import errno, socket, sys
c = socket.socket(socket.AF_UNIX)
try: c.connect(sys.argv[1]); print("connected")
except OSError as e: print(errno.errorcode[e.errno])
c = socket.socket(socket.AF_UNIX)
try: c.connect(sys.argv[1])
except OSError as e: print(errno.errorcode[e.errno])' "$sock"
	assert_success
	assert_output "EACCES
EACCES"
	# Once per process and object, from the supervisor (the shim says
	# nothing of unix sockets: no second line).
	[ "$(grep -c '^sandbox: network blocked: ' <<<"$stderr")" = 1 ]
	assert_regex "$stderr" "sandbox: network blocked: connect unix:$sock \\(python3\\[[0-9]+\\]\\)"
	run "$WICKET" why
	assert_success
	assert_line "network blocked: connect unix:$sock"
	assert_line --partial "rule: unix socket $sock is outside the writable roots"
	assert_line --partial "\"write\": [\"$OUT\"]"
	# The service would act for the sandbox: running the client outside
	# comes first, and the snippet says what it lends.
	assert_line --partial "acts for the sandbox outside it"
	local ask pol
	ask=$(grep -n 'wicket ask --' <<<"$output" | head -1 | cut -d: -f1)
	pol=$(grep -n '"write": \[' <<<"$output" | head -1 | cut -d: -f1)
	[ -n "$ask" ] && [ -n "$pol" ] && [ "$ask" -lt "$pol" ]
}

@test "connects that block (a listener that never accepts) hold neither the session nor an interrupted caller" {
	# Sixteen threads block in connect() on a full backlog, more than the
	# supervisor's workers; a signal interrupts one caller's connect; the
	# session still ends at once when the command exits.
	run --separate-stderr wsrun "$WS" -- "$PY" -c '
import os, signal, socket, sys, threading, time
srv = socket.socket(socket.AF_UNIX); srv.bind("full.sock"); srv.listen(0)
def block():
    c = socket.socket(socket.AF_UNIX)
    try: c.connect("full.sock")
    except OSError: pass
for _ in range(16):
    threading.Thread(target=block, daemon=True).start()
time.sleep(0.5)
class Alarm(Exception): pass
def on_alarm(sig, frame): raise Alarm()
signal.signal(signal.SIGALRM, on_alarm)
signal.setitimer(signal.ITIMER_REAL, 0.5)
c = socket.socket(socket.AF_UNIX)
try:
    c.connect("full.sock"); print("connected?")
except Alarm:
    print("interrupted")
sys.stdout.flush()
os._exit(0)'
	assert_success
	assert_output "interrupted"
}

@test "abstract unix sockets inside the sandbox still work with --net none" {
	run --separate-stderr wsrun "$WS" -- "$PY" -c '
import socket
s = socket.socket(socket.AF_UNIX); s.bind("\0wicket-it-abstract"); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect("\0wicket-it-abstract"); c.sendall(b"ok")
a, _ = s.accept(); print(a.recv(8).decode())'
	assert_success
	assert_output "ok"
}

@test "sendmsg on socket pairs: a message larger than one call takes, a full buffer, descriptors, boundaries" {
	# The supervisor makes the sends that name no destination at once
	# (unixnotify.c's lane) and hands on what would wait or is large.
	run --separate-stderr wsrun "$WS" -- "$PY" -c '
import array, os, socket, threading
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
big = os.urandom(600 * 1024)
got = bytearray()
def reader():
    while len(got) < 2 * len(big):
        got.extend(b.recv(65536))
t = threading.Thread(target=reader); t.start()
for _ in range(2):
    view, calls = memoryview(big), 0
    while view:
        n = a.sendmsg([view[:len(view) // 2], view[len(view) // 2:]])
        assert 0 < n <= len(view)
        view, calls = view[n:], calls + 1
t.join()
assert bytes(got) == big + big
print("large", "ok")
# A full buffer: a non-blocking caller hears EAGAIN, a blocking one waits
# for the reader.
def fill():
    a.setblocking(False)
    sent = 0
    try:
        while True:
            sent += a.sendmsg([b"x" * 4096])
    except BlockingIOError:
        pass
    a.setblocking(True)
    return sent
sent = fill()
left = [sent + 4096]
def drain():
    while left[0] > 0:
        left[0] -= len(b.recv(65536))
t = threading.Thread(target=drain); t.start()
assert a.sendmsg([b"y" * 4096]) == 4096
t.join()
# Nearly full: room for part of a message; a blocking caller gets all of
# it sent, as from the kernel, not a short count.
sent = fill()
first = len(b.recv(8192))
left = [sent - first + 128 * 1024]
t = threading.Thread(target=drain); t.start()
n = a.sendmsg([b"z" * (128 * 1024)])
t.join()
assert n == 128 * 1024, n
print("full", "ok")
# Descriptors on a pair, and the boundaries of datagrams and packets.
for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):
    c, d = socket.socketpair(socket.AF_UNIX, kind)
    r, w = os.pipe()
    c.sendmsg([b"fd"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [r]))])
    m, anc, _, _ = d.recvmsg(64, socket.CMSG_SPACE(4))
    os.write(w, b"through")
    assert m == b"fd" and os.read(array.array("i", anc[0][2])[0], 64) == b"through"
    if kind != socket.SOCK_STREAM:
        c.sendmsg([b"one"]); c.sendmsg([b"two", b"!"])
        assert d.recv(64) == b"one" and d.recv(64) == b"two!"
print("pairs", "ok")'
	assert_success
	assert_output "large ok
full ok
pairs ok"
}

@test "sendmsg with its msghdr, iovecs, data and descriptors side by side, at the edges of a mapping" {
	# The supervisor reads what lies beside a msghdr with it (unixnotify.c's
	# peek): what it sends must be what the kernel would have sent, with
	# the pieces beside the msghdr or far from it, at the first and the last
	# byte of a mapping, and a fault where part of it is not mapped.
	[ "$(uname -m)" = x86_64 ] || skip "the msghdr is laid out by hand for x86_64"
	run --separate-stderr wsrun "$WS" -- "$PY" -c '
import ctypes, mmap, os, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.sendmsg.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.sendmsg.restype = ctypes.c_ssize_t
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
PG = mmap.PAGESIZE
# three pages: none | read-write | none
m = mmap.mmap(-1, 3 * PG)
base = ctypes.addressof(ctypes.c_char.from_buffer(m))
assert libc.mprotect(base, PG, 0) == 0 and libc.mprotect(base + 2 * PG, PG, 0) == 0
mid = base + PG
def put(at, data):
    ctypes.memmove(at, data, len(data))
def send(sock, hdr_at, pieces, fds=(), pieces_at=None, ctl_at=None, ctl_mapped=True):
    """A msghdr at HDR_AT, its iovecs right after it, the data after
    those (or at PIECES_AT), the control message after the data (or at
    CTL_AT); returns what sendmsg returns, or -errno."""
    iov_at = hdr_at + 56
    at = pieces_at if pieces_at is not None else iov_at + 16 * len(pieces)
    iovs = b""
    for p in pieces:
        if isinstance(p, int):          # an address with nothing behind it
            iovs += struct.pack("QQ", p, 8)
            continue
        put(at, p)
        iovs += struct.pack("QQ", at, len(p))
        at += len(p)
    put(iov_at, iovs)
    ctl, clen = 0, 0
    if fds:
        ctl = ctl_at if ctl_at is not None else (at + 7) & ~7
        c = struct.pack("QII", 16 + 4 * len(fds), socket.SOL_SOCKET, socket.SCM_RIGHTS)
        c += b"".join(struct.pack("i", f) for f in fds)
        c += b"\0" * (-len(c) % 8)
        if ctl_mapped:
            put(ctl, c)
        clen = len(c)
    put(hdr_at, struct.pack("QI4xQQQQi4x", 0, 0, iov_at, len(pieces), ctl, clen, 0))
    r = libc.sendmsg(sock.fileno(), hdr_at, 0)
    return r if r >= 0 else -ctypes.get_errno()
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
b.settimeout(10)  # a message that never comes fails the test
def got(n=1):
    msg, anc, _, _ = b.recvmsg(8192, socket.CMSG_SPACE(4 * 4))
    fds = [x for _, _, d in anc for x in struct.unpack("%di" % (len(d) // 4), d)]
    return msg, fds
def fd_works(fds):
    ok = len(fds) == 1
    if ok:
        ok = os.read(fds[0], 7) == b"through"
        os.close(fds[0])
    return ok
r, w = os.pipe()
os.write(w, b"through" * 4)
os.set_blocking(r, False)
out = []
# side by side in the middle of the page, three pieces and a descriptor
n = send(a, mid + 100, [b"abc", b"defg", b"hij"], [r]); msg, fds = got()
out.append("middle %d %s %s" % (n, msg.decode(), fd_works(fds)))
# the whole lot ending at the last byte of the page (the next is not mapped)
need = 56 + 16 * 2 + 5 + 3 + 24
n = send(a, mid + PG - need, [b"klmno", b"pqr"], [r]); msg, fds = got()
out.append("end %d %s %s" % (n, msg.decode(), fd_works(fds)))
# the msghdr at the first byte of the page (the one before is not mapped)
n = send(a, mid, [b"stu"]); msg, _ = got()
out.append("start %d %s" % (n, msg.decode()))
# a msghdr running into the page that is not mapped
put(mid, b"x" + struct.pack("QQ", mid, 1))
put(mid + PG - 40, struct.pack("QI4xQQQ", 0, 0, mid + 8, 1, 0))
e = libc.sendmsg(a.fileno(), mid + PG - 40, 0)
out.append("msghdr-cut %d" % (e if e >= 0 else -ctypes.get_errno()))
# an iovec pointing at the page that is not mapped
out.append("iov-bad %d" % send(a, mid + 200, [b"ab", base + 2 * PG + 8]))
# data that runs on past what was read beside the msghdr
big = bytes(range(65, 91)) * 120
n = send(a, mid + 8, [b"<", big, b">"]); msg, _ = got()
out.append("long %d %s" % (n, msg == b"<" + big + b">"))
# the data far from the msghdr, the descriptor beside it
n = send(a, mid + PG - 200, [b"far"], [r], pieces_at=mid + 16, ctl_at=mid + PG - 32); msg, fds = got()
out.append("far %d %s %s" % (n, msg.decode(), fd_works(fds)))
# the control message in the page that is not mapped
out.append("ctl-bad %d" % send(a, mid + 300, [b"c"], [r], ctl_at=base + 2 * PG + 16, ctl_mapped=False))
# a descriptor the caller does not have
out.append("fd-bad %d" % send(a, mid + 400, [b"d"], [999]))
print("\n".join(out))'
	assert_success
	assert_output "middle 10 abcdefghij True
end 8 klmnopqr True
start 3 stu
msghdr-cut -14
iov-bad -14
long 3122 True
far 3 far True
ctl-bad -14
fd-bad -9"
}
