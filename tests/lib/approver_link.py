#!/usr/bin/env python3
"""A harness's approver for tests: runs wicket with --approver-fd (MODE fd:
one end of a socketpair, its number put where an argument is {FD}) or
--approver-socket (MODE socket: a listener at {SOCK}), and answers each
request it gets with the next of ANSWERS (a JSON list): an object is sent
with the request's "id" unless it has one; "garbage" sends a line that is
not JSON; "close" closes the connection; "none" answers nothing. Every
request is appended to REQLOG, one JSON line each. Exits with wicket's
status; 99 if wicket did not end within 60 s (it is then killed).

usage: approver_link.py MODE ANSWERS REQLOG -- WICKET ARGS..."""
import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time

mode, answers, reqlog = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
cmd = sys.argv[sys.argv.index("--") + 1:]
conn = None
if mode == "fd":
    mine, theirs = socket.socketpair()
    cmd = [str(theirs.fileno()) if a == "{FD}" else a for a in cmd]
    proc = subprocess.Popen(cmd, pass_fds=[theirs.fileno()])
    theirs.close()
    conn = mine
else:
    d = tempfile.mkdtemp()
    path = os.path.join(d, "approver.sock")
    lst = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lst.bind(path)
    lst.listen(1)
    cmd = [path if a == "{SOCK}" else a for a in cmd]
    proc = subprocess.Popen(cmd)
    lst.settimeout(30)
    try:
        conn, _ = lst.accept()
    except OSError:
        conn = None
    lst.close()

deadline = time.monotonic() + 60
buf = b""
while conn is not None and proc.poll() is None and time.monotonic() < deadline:
    r, _, _ = select.select([conn], [], [], 0.2)
    if not r:
        continue
    data = conn.recv(65536)
    if not data:
        break
    buf += data
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        req = json.loads(line)
        with open(reqlog, "a") as f:
            f.write(json.dumps(req) + "\n")
        ans = answers.pop(0) if answers else "none"
        if ans == "close":
            conn.close()
            conn = None
            break
        if ans == "garbage":
            conn.sendall(b"this is not json\n")
        elif isinstance(ans, dict):
            ans = dict(ans)
            ans.setdefault("id", req["id"])
            conn.sendall(json.dumps(ans).encode() + b"\n")
try:
    rc = proc.wait(timeout=max(1, deadline - time.monotonic()))
except subprocess.TimeoutExpired:
    proc.kill()
    proc.wait()
    rc = 99
sys.exit(rc)
