"""git's smart HTTP for the tests: `git http-backend` as a CGI program
behind a small HTTP server on 127.0.0.1.

As a program: serves the repositories under ROOT (every one exported;
a push needs the repository's http.receivepack true) on a port the
kernel picks, written to PORTFILE once it listens; appends to LOG a line
"connect" for every connection and "METHOD PATH" for every request, so a
test judges by what reached the host; ends by itself after LIFETIME
seconds.

Usage: git_http.py ROOT LOG PORTFILE LIFETIME

As a module: relay(handler, root, path, query) runs one request through
git http-backend, respond(handler, ...) sends an answer (domains_server.py
serves git under /git/ with them)."""
import http.server
import os
import subprocess
import sys
import threading
import time

BODY_MAX = 64 << 20  # a test's push is small; more is refused


def read_body(handler):
    """The request's body: Content-Length bytes, or the chunks of a
    chunked one (git sends its larger pushes so), at most BODY_MAX."""
    if handler.headers.get("Transfer-Encoding", "").lower() != "chunked":
        n = int(handler.headers.get("Content-Length") or 0)
        if n > BODY_MAX:
            raise ValueError("body too large")
        return handler.rfile.read(n) if n else b""
    body = b""
    while True:
        size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
        if size == 0 or len(body) + size > BODY_MAX:
            break
        body += handler.rfile.read(size)
        handler.rfile.readline()  # the CRLF after a chunk
    while handler.rfile.readline().strip():  # trailers, to the empty line
        pass
    if size:
        raise ValueError("body too large")
    return body


def relay(handler, root, path, query):
    """Run the request (PATH below ROOT, QUERY) through git http-backend;
    the answer as (status, body, content type, other headers)."""
    body = read_body(handler)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_PROJECT_ROOT": root,
           "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": path, "QUERY_STRING": query,
           "REQUEST_METHOD": handler.command, "CONTENT_LENGTH": str(len(body)),
           "CONTENT_TYPE": handler.headers.get("Content-Type", ""),
           "HTTP_CONTENT_ENCODING": handler.headers.get("Content-Encoding", ""),
           "GIT_PROTOCOL": handler.headers.get("Git-Protocol", ""),
           "REMOTE_ADDR": "127.0.0.1"}
    out = subprocess.run(["git", "http-backend"], input=body, env=env,
                         capture_output=True, timeout=30).stdout
    sep = b"\r\n\r\n" if b"\r\n\r\n" in out else b"\n\n"
    head, _, rest = out.partition(sep)
    status, extra, ctype = 200, [], "text/plain"
    for line in head.decode().splitlines():
        k, _, v = line.partition(":")
        v = v.strip()
        if k.lower() == "status":
            status = int(v.split()[0])
        elif k.lower() == "content-type":
            ctype = v
        elif k:
            extra.append((k, v))
    return status, rest, ctype, extra


def respond(handler, status, body, ctype="text/plain", extra=()):
    """Answer the request HANDLER has read: STATUS, BODY, its content type
    and the other headers EXTRA."""
    handler.send_response(status)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    for k, v in extra:
        handler.send_header(k, v)
    handler.end_headers()
    handler.wfile.write(body)


def main():
    root, log, portfile, lifetime = sys.argv[1:5]
    lock = threading.Lock()

    def note(line):
        with lock, open(log, "a") as f:
            f.write(line + "\n")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def setup(self):
            note("connect")
            super().setup()

        def serve(self):
            note("%s %s" % (self.command, self.path))
            path, _, query = self.path.partition("?")
            try:
                answer = relay(self, root, path, query)
            except (ValueError, OSError, subprocess.SubprocessError):
                answer = (400, b"bad request\n")
                self.close_connection = True
            respond(self, *answer)

        do_GET = do_POST = serve

    s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    s.daemon_threads = True
    threading.Thread(target=s.serve_forever, daemon=True).start()
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % s.server_address[1])
    os.rename(portfile + ".tmp", portfile)
    time.sleep(int(lifetime))


if __name__ == "__main__":
    main()
