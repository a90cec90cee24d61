#!/bin/sh
# `make bench-ask` (also run by `make bench`): the round trip of a
# `wicket ask -- true` that a policy allow rule approves, against a plain
# `true`, both started from the same process inside one session,
# interleaved. Target: at most 3 ms more than `true`. Reports; asserts
# nothing. Environment: WICKET (required), BENCH_N (default 300).
set -u
: "${WICKET:?set WICKET to the launcher to measure}"
N=${BENCH_N:-300}
dir=$(mktemp -d "${TMPDIR:-/tmp}/wicket-askbench.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
printf '{"extends": "workspace-write", "escalation": {"allow": [["true"]]}}\n' >"$dir/allow.json"
cd "$dir" || exit 1
XDG_STATE_HOME=$dir/state timeout --kill-after=5 300 "$WICKET" run --policy "$dir/allow.json" -- \
	python3 - "$WICKET" "$N" </dev/null <<'EOF_PY'
import statistics, subprocess, sys, time
wicket, n = sys.argv[1], int(sys.argv[2])
runs = {"true": [], "ask": []}
cmds = {"true": ["true"], "ask": [wicket, "ask", "--", "true"]}
for i in range(n + 5):
    for k in ("true", "ask"):
        t = time.perf_counter()
        r = subprocess.run(cmds[k])
        d = (time.perf_counter() - t) * 1000
        if r.returncode != 0:
            sys.exit("askbench: %s failed (%d)" % (k, r.returncode))
        if i >= 5:
            runs[k].append(d)
m = {k: statistics.median(v) for k, v in runs.items()}
print("askbench: %d rounds, median ms: true %.2f, wicket ask -- true %.2f, round trip +%.2f ms (target <= 3 ms: %s)"
      % (n, m["true"], m["ask"], m["ask"] - m["true"], "met" if m["ask"] - m["true"] <= 3 else "NOT met"))
EOF_PY
