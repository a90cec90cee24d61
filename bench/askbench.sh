#!/bin/sh
# `make bench-ask` (also run by `make bench`): the round trip of a
# `wicket ask -- true` that a policy allow rule approves, against a plain
# `true`, both started from the same process inside one session,
# interleaved. Target: at most 3 ms more than `true`. Reports; asserts
# nothing. Environment: WICKET (required), BENCH_N (default 300), and
# WICKET_BASE: another build's launcher to compare with, a session of each
# open at once and their rounds interleaved (the same load for both).
set -u
: "${WICKET:?set WICKET to the launcher to measure}"
N=${BENCH_N:-300}
dir=$(mktemp -d "${TMPDIR:-/tmp}/wicket-askbench.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
printf '{"extends": "workspace-write", "escalation": {"allow": [["true"]]}}\n' >"$dir/allow.json"
cd "$dir" || exit 1
# Inside a session: one round per line read, its two times written back.
cat >"$dir/inner.py" <<'EOF_PY'
import subprocess, sys, time
wicket = sys.argv[1]
cmds = (["true"], [wicket, "ask", "--", "true"])
for _ in sys.stdin:
    d = []
    for c in cmds:
        t = time.perf_counter()
        r = subprocess.run(c)
        d.append((time.perf_counter() - t) * 1000)
        if r.returncode != 0:
            sys.exit("askbench: %s failed (%d)" % (c[-1], r.returncode))
    print("%.4f %.4f" % tuple(d), flush=True)
EOF_PY
XDG_STATE_HOME=$dir/state timeout --kill-after=5 900 python3 - "$N" "$dir" "$WICKET" ${WICKET_BASE:+"$WICKET_BASE"} <<'EOF_PY'
import statistics, subprocess, sys
n, d, builds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
names = ["this", "base"][:len(builds)]
sess = [subprocess.Popen([w, "run", "--policy", d + "/allow.json", "--", "python3",
                          d + "/inner.py", w], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True) for w in builds]
runs = {k: {"true": [], "ask": []} for k in names}
for i in range(n + 5):
    order = list(range(len(sess)))
    if i % 2:
        order.reverse()
    for k in order:
        sess[k].stdin.write("\n")
        sess[k].stdin.flush()
        line = sess[k].stdout.readline()
        if not line:
            sys.exit("askbench: the session of %s ended" % builds[k])
        t, a = map(float, line.split())
        if i >= 5:
            runs[names[k]]["true"].append(t)
            runs[names[k]]["ask"].append(a)
for p in sess:
    p.stdin.close()
    p.wait()
add = {}
for k in names:
    m = {c: statistics.median(v) for c, v in runs[k].items()}
    # The difference round by round, then its median and spread.
    diff = sorted(a - t for t, a in zip(runs[k]["true"], runs[k]["ask"]))
    add[k] = m["ask"] - m["true"]
    print("askbench %s: %d rounds, median ms: true %.2f, wicket ask -- true %.2f, round trip "
          "+%.2f ms (per round: p10 %.2f, p90 %.2f; target <= 3 ms: %s)"
          % (k, n, m["true"], m["ask"], add[k], diff[len(diff) // 10],
             diff[len(diff) * 9 // 10], "met" if add[k] <= 3 else "NOT met"))
if len(names) == 2:
    print("askbench: this/base round trip %.2f (this %+.2f ms)"
          % (add["this"] / add["base"], add["this"] - add["base"]))
EOF_PY
