#!/bin/sh
# `make bench-domains` (also run by `make bench`): network mode "domains"
# against the same work without the proxy, on this machine's loopback.
#  - throughput: BENCH_BYTES (default 1 GiB) downloaded by curl through
#    the proxy in a session, and by curl straight from the server outside;
#    target: at least 90 % of the direct rate;
#  - latency: BENCH_N (default 1000) small requests, one connection each,
#    through the proxy in a session and straight to the server outside;
#    target: at most 50 us more per request (the median);
#  - start-up: `wicket run -- true` in mode domains and in mode none,
#    BENCH_STARTS (default 40) each, interleaved.
# Reports; asserts nothing. The server is the bench's own, on 127.0.0.1,
# known to the proxy by the policy's "hosts" (the policy names the address).
set -u
: "${WICKET:?set WICKET to the launcher to measure}"
BYTES=${BENCH_BYTES:-1073741824}
N=${BENCH_N:-1000}
STARTS=${BENCH_STARTS:-40}
dir=$(mktemp -d /var/tmp/wicket-domainsbench.XXXXXX) || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
srv=
trap '[ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$dir"' EXIT
mkdir "$dir/ws"
cat >"$dir/server.py" <<'EOF_PY'
import os, socket, sys, threading
big = memoryview(bytes(4 << 20))
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(256)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
def serve(c):
    with c:
        head = b""
        while b"\r\n\r\n" not in head:
            b = c.recv(65536)
            if not b:
                return
            head += b
        path = head.split(b" ")[1]
        n = int(path.rsplit(b"/", 1)[1] or b"0")
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % n)
        while n > 0:
            k = min(n, len(big))
            c.sendall(big[:k])
            n -= k
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF_PY
timeout 3600 "$PY" "$dir/server.py" "$dir/port" & srv=$!
i=0
while [ ! -s "$dir/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$dir/port") || exit 1
printf '{"extends": "workspace-write", "network": {"mode": "domains", "allow": ["bench.wk.test"], "hosts": {"bench.wk.test": "127.0.0.1"}, "allow_addresses": ["127.0.0.1"]}}\n' >"$dir/domains.json"
cd "$dir/ws" || exit 1
export XDG_STATE_HOME="$dir/state"

echo "== throughput: $BYTES bytes, curl through the proxy vs straight"
direct=$(curl -sS -o /dev/null -w '%{speed_download}' "http://127.0.0.1:$port/$BYTES")
proxied=$("$WICKET" run -P "$dir/domains.json" -- curl -sS -o /dev/null -w '%{speed_download}' \
	"http://bench.wk.test:$port/$BYTES")
awk -v d="$direct" -v p="$proxied" 'BEGIN {
	printf "direct   %8.0f MB/s\nproxied  %8.0f MB/s  (%.0f%% of direct; target >= 90%%)\n",
		d / 1e6, p / 1e6, (d > 0 ? 100 * p / d : 0) }'

echo "== latency: $N requests of 100 bytes, one connection each"
cat >"$dir/ws/lat.py" <<'EOF_PY'
import socket, statistics, sys, time
port, n, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if mode.startswith("connect"):
    # connect() and close() alone: inside a session on a kernel before
    # Landlock ABI 9 every connect() goes through the supervisor (its
    # unix-socket check), a cost of the sandbox, not of the proxy.
    addr = ("127.0.0.1", 3128 if mode == "connect-in" else port)
    ts = []
    for i in range(n + 20):
        t = time.perf_counter()
        socket.create_connection(addr).close()
        if i >= 20:
            ts.append((time.perf_counter() - t) * 1e6)
    print("%.1f" % statistics.median(ts))
    sys.exit(0)
if mode == "proxy":
    addr, req = ("127.0.0.1", 3128), b"GET http://bench.wk.test:%d/100 HTTP/1.1\r\nHost: bench.wk.test:%d\r\n\r\n" % (port, port)
else:
    addr, req = ("127.0.0.1", port), b"GET /100 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
ts = []
for i in range(n + 20):
    t = time.perf_counter()
    s = socket.create_connection(addr)
    s.sendall(req)
    got = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        got += b
    s.close()
    if not got.endswith(b"\0" * 100):
        sys.exit("bench: a bad reply")
    if i >= 20:
        ts.append((time.perf_counter() - t) * 1e6)
ts.sort()
print("%.1f %.1f" % (statistics.median(ts), ts[int(len(ts) * 0.99) - 1]))
EOF_PY
d=$("$PY" "$dir/ws/lat.py" "$port" "$N" direct)
p=$("$WICKET" run -P "$dir/domains.json" -- "$PY" "$dir/ws/lat.py" "$port" "$N" proxy)
co=$("$PY" "$dir/ws/lat.py" "$port" "$N" connect-out)
ci=$("$WICKET" run -P "$dir/domains.json" -- "$PY" "$dir/ws/lat.py" "$port" "$N" connect-in)
echo "$d $p $co $ci" | awk '{ printf "direct   median %7.1f us  p99 %7.1f us\nproxied  median %7.1f us  p99 %7.1f us  (+%.1f us a request)\n", $1, $2, $3, $4, $3 - $1
	printf "connect() alone: %.1f us outside, %.1f us inside the session (+%.1f us: the sandbox, not the proxy)\n", $5, $6, $6 - $5
	printf "the proxy'"'"'s own: +%.1f us a request (target <= 50)\n", ($3 - $1) - ($6 - $5) }'

echo "== start-up: wicket run -- true, mode domains vs none ($STARTS each)"
"$PY" - "$WICKET" "$dir/domains.json" "$STARTS" <<'EOF_PY'
import statistics, subprocess, sys, time
w, pol, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
cmds = {"none": [w, "run", "--net", "none", "--", "true"], "domains": [w, "run", "-P", pol, "--", "true"]}
t = {k: [] for k in cmds}
for i in range(n + 3):
    for k in (cmds if i % 2 else reversed(list(cmds))):
        a = time.perf_counter()
        subprocess.run(cmds[k], check=True)
        if i >= 3:
            t[k].append((time.perf_counter() - a) * 1000)
for k in ("none", "domains"):
    print("%-8s median %6.2f ms" % (k, statistics.median(t[k])))
print("domains costs %+.2f ms" % (statistics.median(t["domains"]) - statistics.median(t["none"])))
EOF_PY
