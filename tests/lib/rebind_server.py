"""A name server that rebinds, and two HTTP servers, for the DNS
rebinding test of network mode "domains" (tests/escape/domains.bats).

Usage: rebind_server.py DIR LIFETIME
On 127.0.0.1:53 (UDP), it answers A queries for rebind.wk.test with
127.0.0.1 the first time and 127.0.0.2 after, TTL 0; AAAA and other
names get no address. HTTP servers on 127.0.0.1:P and 127.0.0.2:P (the
same port) answer "one" and "two" and log each request to DIR/log as
"ADDRESS PATH". DIR/dns.log lists the queries; DIR/port gets P when all
is up. Ends after LIFETIME seconds."""
import http.server
import os
import socket
import struct
import sys
import threading
import time

d, lifetime = sys.argv[1], int(sys.argv[2])
lock = threading.Lock()
asked = [0]


def log(name, line):
    with lock, open(os.path.join(d, name), "a") as f:
        f.write(line + "\n")


def answer(q):
    tid, flags, qd = struct.unpack("!HHH", q[:6])
    p, labels = 12, []
    while q[p]:
        labels.append(q[p + 1:p + 1 + q[p]].decode("ascii", "replace"))
        p += 1 + q[p]
    qtype = struct.unpack("!H", q[p + 1:p + 3])[0]
    question = q[12:p + 5]
    name = ".".join(labels).lower()
    addr = None
    if name == "rebind.wk.test" and qtype == 1:
        with lock:
            asked[0] += 1
            addr = "127.0.0.1" if asked[0] == 1 else "127.0.0.2"
    log("dns.log", "%s %d %s" % (name, qtype, addr or "-"))
    rcode = 0 if name == "rebind.wk.test" else 3
    head = struct.pack("!HHHHHH", tid, 0x8180 | rcode, 1, 1 if addr else 0, 0, 0)
    rr = b""
    if addr:
        rr = struct.pack("!HHHIH", 0xC00C, 1, 1, 0, 4) + socket.inet_aton(addr)
    return head + question + rr


def dns():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 53))
    while True:
        q, peer = s.recvfrom(512)
        try:
            s.sendto(answer(q), peer)
        except (IndexError, struct.error):
            pass


def serve_http(addr, port, body):
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            log("log", "%s %s" % (addr, self.path))
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    srv = http.server.ThreadingHTTPServer((addr, port), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv.server_address[1]


threading.Thread(target=dns, daemon=True).start()
port = serve_http("127.0.0.1", 0, b"one\n")
serve_http("127.0.0.2", port, b"two\n")
with open(os.path.join(d, "port.tmp"), "w") as f:
    f.write(str(port))
os.rename(os.path.join(d, "port.tmp"), os.path.join(d, "port"))
time.sleep(lifetime)
