#!/usr/bin/env python3
"""ipcbench: a pool of worker processes fed with descriptors, the IPC of a
pre-fork server or a process pool that hands its workers open files
(Python's own socket.send_fds / recv_fds, what multiprocessing's
reduction.send_handle does): every job is one sendmsg() with SCM_RIGHTS
one way and one sendmsg() of the reply the other way.

    ipcbench.py JOBS

Two workers, forked, each on its own stream socket pair. For each job the
parent fills a pipe with 16 KiB, passes its read end to a worker (round
robin), the worker reads it to the end, hashes it (SHA-256) and sends the
digest back; the parent checks it. Prints the time of the jobs, in ms,
as the last line (spawnbench -x). Exit status 1 on any wrong answer."""
import hashlib
import os
import socket
import sys
import time

PAYLOAD = bytes(range(256)) * 64  # 16 KiB
WORKERS = 2


def worker(sock):
    while True:
        msg, fds, _, _ = socket.recv_fds(sock, 16, 1)
        if not msg:
            return
        data = b""
        with os.fdopen(fds[0], "rb") as f:
            data = f.read()
        sock.sendmsg([hashlib.sha256(data).digest()])


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        print("usage: ipcbench.py JOBS", file=sys.stderr)
        return 2
    jobs = int(sys.argv[1])
    want = hashlib.sha256(PAYLOAD).digest()
    socks, pids = [], []
    for _ in range(WORKERS):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            a.close()
            for s in socks:
                s.close()
            worker(b)
            os._exit(0)
        b.close()
        socks.append(a)
        pids.append(pid)
    t0 = time.monotonic()
    for i in range(jobs):
        r, w = os.pipe()
        os.write(w, PAYLOAD)
        os.close(w)
        s = socks[i % WORKERS]
        socket.send_fds(s, [b"j"], [r])
        os.close(r)
        got = b""
        while len(got) < len(want):
            part = s.recv(len(want) - len(got))
            if not part:
                print("ipcbench: a worker went away", file=sys.stderr)
                return 1
            got += part
        if got != want:
            print("ipcbench: a wrong digest", file=sys.stderr)
            return 1
    ms = (time.monotonic() - t0) * 1e3
    for s in socks:
        s.close()
    for pid in pids:
        os.waitpid(pid, 0)
    print(f"{ms:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
