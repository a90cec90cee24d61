# What a test suite with a local server does (stdlib only): an HTTP server
# on 127.0.0.1 and one on ::1, each asked by the test itself with urllib
# (which honours NO_PROXY), then by a plain TCP connection to its address,
# as a client that knows no proxy does. argv[1]: the port (0: any free
# one). Prints "served: own ADDRESS" and "raw: STATUS LINE" per server.
import http.server
import socket
import sys
import threading
import urllib.request

port = int(sys.argv[1])
for fam, host, url in ((socket.AF_INET, "127.0.0.1", "127.0.0.1"),
                       (socket.AF_INET6, "::1", "[::1]")):
    class Server(http.server.ThreadingHTTPServer):
        address_family = fam

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"own " + host.encode())

        def log_message(self, *a):
            pass

    srv = Server((host, port), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    p = srv.server_address[1]
    body = urllib.request.urlopen("http://%s:%d/" % (url, p), timeout=10).read().decode()
    print("served:", body)
    c = socket.create_connection((host, p), timeout=10)
    c.sendall(b"GET / HTTP/1.0\r\n\r\n")
    print("raw:", c.recv(4096).split(b"\r\n")[0].decode())
    c.close()
    srv.shutdown()
    srv.server_close()
