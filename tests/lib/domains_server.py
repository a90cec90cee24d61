"""Test server of network mode "domains": HTTP and HTTPS on 127.0.0.1
(ephemeral ports, written to PORTFILE as "HTTP HTTPS HRR"), files from
ROOT, and git's smart HTTP under /git/ (git http-backend as a CGI
program); HRR is a raw TLS front that answers a first ClientHello with a
HelloRetryRequest and logs each hello's server name (tls_hrr.py).
Every request is appended to LOG as "SCHEME METHOD PATH HOST", so a test
judges by what reached the host, not by what a client inside printed.
Ends by itself after LIFETIME seconds.

Usage: domains_server.py ROOT LOG PORTFILE CERT KEY LIFETIME"""
import http.server
import os
import ssl
import sys
import socket
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import git_http  # noqa: E402

root, log, portfile, cert, key, lifetime = sys.argv[1:7]
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def note(self):
        with lock, open(log, "a") as f:
            f.write("%s %s %s %s\n" % (self.server.scheme, self.command, self.path,
                                       self.headers.get("Host")))

    def reply(self, status, body, ctype="text/plain", extra=()):
        git_http.respond(self, status, body, ctype, extra)

    def git(self):
        path, _, query = self.path[len("/git"):].partition("?")
        self.reply(*git_http.relay(self, root, path, query))

    def do_GET(self):
        self.note()
        if self.path.startswith("/git/"):
            return self.git()
        name = self.path.split("?")[0].lstrip("/")
        p = os.path.join(root, name)
        if os.path.isdir(p) and os.path.isfile(os.path.join(p, "index.html")):
            p = os.path.join(p, "index.html")
        if name and ".." not in name and os.path.isfile(p):
            with open(p, "rb") as f:
                ctype = "text/html" if p.endswith(".html") else "application/octet-stream"
                return self.reply(200, f.read(), ctype)
        self.reply(404, b"not found\n")

    def do_POST(self):
        self.note()
        if self.path.startswith("/git/"):
            return self.git()
        n = int(self.headers.get("Content-Length") or 0)
        self.reply(200, b"posted %d\n" % len(self.rfile.read(n)))


def serve(scheme, wrap):
    s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    s.daemon_threads = True
    s.scheme = scheme
    if wrap:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        s.socket = ctx.wrap_socket(s.socket, server_side=True)
    threading.Thread(target=s.serve_forever, daemon=True).start()
    return s.server_address[1]


def serve_hrr():
    """A TLS front that routes by server name, as far as the test needs:
    it logs the name of each ClientHello it gets ("hrr NAME"), answers
    the first with a HelloRetryRequest, the second with one byte."""
    import tls_hrr  # noqa: E402 (found through the path set above)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)

    def one(c):
        with c:
            c.settimeout(10)
            try:
                n = 0
                for rec in tls_hrr.records(c):
                    if rec[0] != 0x16:
                        continue
                    with open(log, "a") as f:
                        f.write("hrr %s\n" % tls_hrr.sni(rec))
                    n += 1
                    c.sendall(tls_hrr.hrr() if n == 1 else b"\x15")
                    if n == 2:
                        return
            except OSError:
                pass

    def loop():
        while True:
            c, _ = s.accept()
            threading.Thread(target=one, args=(c,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
    return s.getsockname()[1]


ports = "%d %d %d\n" % (serve("http", False), serve("https", True), serve_hrr())
with open(portfile + ".tmp", "w") as f:
    f.write(ports)
os.rename(portfile + ".tmp", portfile)
time.sleep(int(lifetime))
