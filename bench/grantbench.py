"""`BENCH_ROWS=grant make bench`: the round trip of `wicket ask --write
DIR -- true` that a policy rule approves (escalation.allow with
"grant"), asked from inside a session, against the start-up of a
sandbox, `wicket run -- true`, in the same rounds. The grant's command
runs in a sandbox of its own, which the supervisor starts by running
wicket itself: the round trip should cost one sandbox start and little
more. Target: at most 1 ms more than `wicket run -- true`.

Rows of one round, their order rotating from round to round:
  run        `wicket run -- true`, spawned from here (the target's reference)
  run-write  `wicket run --write DIR -- true`: the grant's sandbox, started
             by hand (DIR lies outside the workspace)
  ask        `wicket ask --write DIR -- true`, spawned by a python inside
             a session of POLICY (the rule), which times it the same way
  client     `wicket ask --help`, spawned by the same python: the start and
             exit of the asking program alone, which no work of the
             supervisor's can remove
A session gives at most 64 grants with --write (each root is looked at
again when it ends), so a new session takes over every PER_SESSION
rounds, untimed.
All timed by subprocess.run from just before the spawn to the reaping,
stdio /dev/null. Medians; the differences also round by round:
ask - run (the target's), ask - run-write, and ask - run - client (what
the supervisor and the hand-offs between the processes add).

Usage: grantbench.py WICKET WS ROUNDS WARMUP (WS: the workspace; DIR and
the policy go next to it, in its parent directory)."""
import json
import os
import statistics
import subprocess
import sys
import time

wicket, ws, n, warm = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
base = os.path.dirname(os.path.abspath(ws))
grant_dir = os.path.join(base, "granted")
os.makedirs(grant_dir, exist_ok=True)
policy = os.path.join(base, "grant.json")
with open(policy, "w") as f:
    json.dump({"extends": "workspace-write",
               "escalation": {"allow": [{"argv": ["true"], "grant": {"write": [grant_dir]}}]}}, f)
env = dict(os.environ, XDG_STATE_HOME=os.path.join(base, "state"))
inner = os.path.join(base, "grantinner.py")
with open(inner, "w") as f:
    f.write('''import subprocess, sys, time
cmds = {"ask": [sys.argv[1], "ask", "--write", sys.argv[2], "--", "true"],
        "client": [sys.argv[1], "ask", "--help"]}
for line in sys.stdin:
    argv = cmds[line.strip()]
    t = time.perf_counter()
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    d = (time.perf_counter() - t) * 1000
    if r.returncode != 0:
        sys.exit("grantbench: %s failed (%d)" % (" ".join(argv), r.returncode))
    print("%.4f" % d, flush=True)
''')
null = subprocess.DEVNULL
PER_SESSION = 50


def start():
    return subprocess.Popen([wicket, "run", "--policy", policy, "--", "python3", inner, wicket,
                             grant_dir], cwd=ws, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)


def end(p):
    p.stdin.close()
    if p.wait() != 0:
        sys.exit("grantbench: the session failed (%d)" % p.returncode)


sess = start()


def timed(argv):
    t = time.perf_counter()
    r = subprocess.run(argv, cwd=ws, env=env, stdin=null, stdout=null)
    d = (time.perf_counter() - t) * 1000
    if r.returncode != 0:
        sys.exit("grantbench: %s failed (%d)" % (" ".join(argv), r.returncode))
    return d


def inside(what):
    sess.stdin.write(what + "\n")
    sess.stdin.flush()
    line = sess.stdout.readline()
    if not line:
        sys.exit("grantbench: the session ended (see above)")
    return float(line)


rows = {"run": lambda: timed([wicket, "run", "--", "true"]),
        "run-write": lambda: timed([wicket, "run", "--write", grant_dir, "--", "true"]),
        "ask": lambda: inside("ask"),
        "client": lambda: inside("client")}
names = list(rows)
times = {k: [] for k in names}
for i in range(n + warm):
    if i and i % PER_SESSION == 0:
        end(sess)
        sess = start()
    for j in range(len(names)):
        k = names[(i + j) % len(names)]
        d = rows[k]()
        if i >= warm:
            times[k].append(d)
end(sess)


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


med = {k: statistics.median(v) for k, v in times.items()}
for k in names:
    print("%-10s median %7.2f ms  [%.2f..%.2f]" % (k, med[k], q(times[k], 0.25), q(times[k], 0.75)))
for what, sub in (("ask - run", ("run",)), ("ask - run-write", ("run-write",)),
                  ("ask - run - client", ("run", "client"))):
    per = [times["ask"][i] - sum(times[b][i] for b in sub) for i in range(n)]
    d = med["ask"] - sum(med[b] for b in sub)
    line = "%-18s %+6.2f ms (per round: median %+.2f, p10 %+.2f, p90 %+.2f)" % (
        what, d, statistics.median(per), q(per, 0.1), q(per, 0.9))
    if sub == ("run",):
        line += "; target <= 1 ms: %s" % ("met" if d <= 1 else "NOT met")
    print(line)
