#!/usr/bin/env python3
"""An agent harness's use of wicket, in one file (Python 3, stdlib only).

Each tool call (a shell command) runs in a warm wicket session: one
sandbox started once, each call a fork and exec in it (`wicket exec`),
with its own streams, status and event stream. When the sandbox refused
something, the harness reads the refusals from the call's events
(`wicket exec --events`), and when its own rules trust the narrowest grant
that would have allowed them, runs the call once more in a sandbox
widened by exactly that grant (`wicket run` with the session's options
and the grant's). A command inside that asks for more itself (`wicket
ask`) reaches the same rules through the approver socket the harness
holds. The last line of output is what the approver was asked.

    harness.py [--trust-write DIR]... [--trust-domain NAME]... \\
               [--wicket PATH] [-- WICKET-RUN-OPTIONS...] < calls.jsonl

Each line of standard input is one call: {"cmd": "shell command"}; each
line of standard output its result: {"cmd", "status", "stdout", "stderr",
"denials": [{category, object, ...}], "retried": GRANT or null}.
An example to read and copy; what it relies on is documented in
wicket(1): EVENTS, WARM SESSIONS and --approver-socket.
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading


class Rules:
    """What the harness trusts: writes beneath some directories, some
    domains. Everything else is refused (and reported to the caller)."""

    def __init__(self, write_dirs, domains):
        self.write_dirs = [os.path.realpath(d) for d in write_dirs]
        self.domains = set(domains)

    def trusts_path(self, path):
        real = os.path.realpath(path)
        return any(real == d or real.startswith(d + "/") for d in self.write_dirs)

    def trusts(self, grant):
        """A grant (wicket's JSON form) that holds only what is trusted."""
        if not grant:
            return False
        for kind, items in grant.items():
            if kind == "write":
                if not all(self.trusts_path(p) for p in items):
                    return False
            elif kind == "net":
                hosts = [i.rsplit(":", 1)[0] if i.count(":") == 1 else i for i in items]
                if not all(h in self.domains for h in hosts):
                    return False
            else:
                return False
        return True


def is_address(host):
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, host.strip("[]"))
            return True
        except OSError:
            pass
    return False


def grant_options(grant):
    """The `wicket run` options that give GRANT (wicket's JSON form)."""
    opts = []
    for p in grant.get("write", []):
        opts += ["--write", p]
    for p in grant.get("read", []):
        opts += ["--read", p]
    for h in grant.get("net", []):
        host = h.rsplit(":", 1)[0] if h.count(":") == 1 or h.startswith("[") else h
        opts += ["--allow-address" if is_address(host) else "--allow-domain", h]
    return opts


class Approver(threading.Thread):
    """Answers the requests of `wicket ask` inside (--approver-socket)."""

    def __init__(self, rules, path):
        super().__init__(daemon=True)
        self.rules = rules
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(4)
        self.log = []

    def run(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        buf = b""
        while True:
            data = conn.recv(65536)
            if not data:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                req = json.loads(line)
                if req.get("type") == "network":
                    yes = req.get("host") in self.rules.domains
                else:
                    yes = self.rules.trusts(req.get("grant"))
                self.log.append({"request": req, "approved": yes})
                answer = {"id": req["id"], "approve": yes}
                if not yes:
                    answer["message"] = "the harness does not trust this"
                conn.sendall(json.dumps(answer).encode() + b"\n")


class Session:
    """One warm sandbox, and the options it was started with."""

    def __init__(self, wicket, options, rules, workdir):
        self.wicket, self.options, self.rules = wicket, list(options), rules
        self.cwd = os.getcwd()
        self.name = "harness-%d" % os.getpid()
        self.dir = workdir
        self.approver = Approver(rules, os.path.join(workdir, "approver.sock"))
        self.approver.start()
        subprocess.run([wicket, "session", "start", "--name", self.name,
                        "--approver-socket", os.path.join(workdir, "approver.sock")]
                       + self.options, check=True)

    def stop(self):
        subprocess.run([self.wicket, "session", "stop", self.name])

    def _call(self, argv, n):
        events = os.path.join(self.dir, "events.%d.jsonl" % n)
        p = subprocess.run(argv(events), capture_output=True, text=True, stdin=subprocess.DEVNULL,
                           cwd=self.cwd)
        lines = []
        if os.path.exists(events):
            with open(events) as f:
                lines = [json.loads(l) for l in f if l.strip()]
            os.unlink(events)
        return p, [e for e in lines if e.get("event") == "denial"]

    def call(self, cmd, n):
        p, denials = self._call(lambda ev: [self.wicket, "exec", self.name, "--events", ev,
                                            "--cwd", self.cwd, "--", "sh", "-c", cmd], n)
        result = {"cmd": cmd, "status": p.returncode, "stdout": p.stdout, "stderr": p.stderr,
                  "denials": [{k: d.get(k) for k in ("category", "object", "operation", "grant")}
                              for d in denials],
                  "retried": None}
        # The narrowest grant for all that was refused; trusted: once more,
        # in a sandbox widened by exactly that.
        grant = {}
        for d in denials:
            for kind, items in (d.get("grant") or {}).items():
                grant.setdefault(kind, [])
                grant[kind] += [i for i in items if i not in grant[kind]]
        if denials and self.rules.trusts(grant):
            p2, _ = self._call(lambda ev: [self.wicket, "run", "--events", ev]
                               + self.options + grant_options(grant) + ["--", "sh", "-c", cmd],
                               n + 100000)
            result.update(status=p2.returncode, stdout=p2.stdout, stderr=p2.stderr,
                          retried=grant)
        return result


def main(argv):
    wicket, trust_w, trust_d, opts = "wicket", [], [], []
    if "--" in argv:
        opts = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--trust-write", "--trust-domain", "--wicket") and i + 1 < len(argv):
            {"--trust-write": trust_w.append, "--trust-domain": trust_d.append,
             "--wicket": lambda v: None}[a](argv[i + 1])
            if a == "--wicket":
                wicket = argv[i + 1]
            i += 2
        else:
            sys.exit("harness.py: unknown argument %r (see the top of this file)" % a)
    with tempfile.TemporaryDirectory(prefix="harness.") as d:
        s = Session(wicket, opts, Rules(trust_w, trust_d), d)
        try:
            for n, line in enumerate(sys.stdin):
                if line.strip():
                    print(json.dumps(s.call(json.loads(line)["cmd"], n)), flush=True)
        finally:
            s.stop()
            print(json.dumps({"approver": s.approver.log}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
