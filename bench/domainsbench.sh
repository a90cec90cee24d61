#!/bin/sh
# `make bench-domains` (also run by `make bench`): network mode "domains"
# on this machine's loopback, against the floor of any proxy here (a
# minimal splice relay, bench/splicerelay) and against the proxy of
# @anthropic-ai/sandbox-runtime (srt), in the same rounds:
#  - throughput: BENCH_BYTES (default 1 GiB) downloaded by curl straight
#    from the server, through the relay, through wicket's proxy (curl in
#    a session) and through srt's proxy; target: wicket's proxy at least
#    90 % of the relay's rate;
#  - latency: BENCH_N (default 1000) small requests, one connection each,
#    the same ways; target: at most 50 us more than the relay (the
#    median). connect() alone inside and outside a session is timed too:
#    before Landlock ABI 9 a connect() in a session is the sandbox's
#    cost (the supervisor's unix-socket check), not the proxy's; and
#    wicket's proxy alone ("wicket-ns"): the same client in a session's
#    network namespace, entered with nsenter, under none of its other
#    layers;
#  - start-up: `wicket run -- true` in mode domains and in mode none,
#    BENCH_STARTS (default 40) each, interleaved.
# BENCH_ROUNDS (default 3) rounds of the throughput and latency rows,
# the order of the four rotating from round to round; medians over the
# rounds, [min..max], and the ratios per round.
# Reports; asserts nothing. The server is the bench's own, on 127.0.0.1,
# known to wicket's proxy by the policy's "hosts" (the policy names the
# address). srt's rows need SRT_DIR, a directory where
# `npm install @anthropic-ai/sandbox-runtime` was run (bench/README.md);
# only its proxy runs (SandboxManager.initialize, with 127.0.0.1 allowed),
# the client outside its sandbox. BENCH_BINDIR: where bench/splicerelay
# was built (default: next to WICKET's build tree).
set -u
: "${WICKET:?set WICKET to the launcher to measure}"
BYTES=${BENCH_BYTES:-1073741824}
N=${BENCH_N:-1000}
STARTS=${BENCH_STARTS:-40}
ROUNDS=${BENCH_ROUNDS:-3}
BINDIR=${BENCH_BINDIR:-$(dirname "$WICKET")/../bench}
RELAY=$BINDIR/splicerelay
[ -x "$RELAY" ] || { echo "domainsbench: $RELAY missing (make bench/splicerelay)" >&2; exit 1; }
SRT_DIR=${SRT_DIR:-}
dir=$(mktemp -d /var/tmp/wicket-domainsbench.XXXXXX) || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
srv='' rly='' srt=''
# shellcheck disable=SC2154 # p is the loop's
trap 'for p in $srv $rly $srt; do kill "$p" 2>/dev/null; done; wait; rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM HUP PIPE
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

# The relay, and srt's proxy when there is one.
timeout 3600 "$RELAY" 0 "$port" >"$dir/relayport" & rly=$!
i=0
while [ ! -s "$dir/relayport" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
rport=$(cat "$dir/relayport") || exit 1
if [ -n "$SRT_DIR" ] && [ -d "$SRT_DIR/node_modules/@anthropic-ai/sandbox-runtime" ]; then
	cat >"$SRT_DIR/wicket-bench-srtproxy.mjs" <<'EOF_JS'
// Only sandbox-runtime's proxy, with its own filter, 127.0.0.1 allowed:
// prints its port and the token its clients must give.
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
await SandboxManager.initialize({
  network: { allowedDomains: ['127.0.0.1'], deniedDomains: [] },
  filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
});
console.log(SandboxManager.getProxyPort() + ' ' + SandboxManager.getProxyAuthToken());
EOF_JS
	(cd "$SRT_DIR" && exec timeout 3600 node wicket-bench-srtproxy.mjs) >"$dir/srtport" & srt=$!
	i=0
	while [ ! -s "$dir/srtport" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	read -r sport stoken <"$dir/srtport" || { echo "domainsbench: srt's proxy did not start" >&2; exit 1; }
	echo "srt: $(cd "$SRT_DIR" && node -p 'require("@anthropic-ai/sandbox-runtime/package.json").version' 2>/dev/null), its proxy on 127.0.0.1:$sport"
else
	sport='' stoken=''
	echo "srt: no SRT_DIR with @anthropic-ai/sandbox-runtime installed: its rows are skipped"
fi
# wicket's proxy alone: a client in a session's network namespace (where
# the proxy's listener is) but under none of its other layers, entered
# with nsenter; the session only holds the namespace open. Skipped where
# nsenter cannot enter it.
"$WICKET" run -P "$dir/domains.json" -- sleep 3600 & held=$!
srv="$srv $held"
holder=
i=0
while [ -z "$holder" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
	# the sleep in the session: a descendant of the launcher named sleep
	holder=$(ps -e -o pid=,ppid=,comm= | awk -v root="$held" '
		{ parent[$1] = $2; name[$1] = $3 }
		END { for (p in name) if (name[p] == "sleep") {
			q = p; while (q in parent && q != root && q > 1) q = parent[q]
			if (q == root) { print p; exit } } }')
done
nsin=
if [ -n "$holder" ]; then
	if [ "$(id -u)" -eq 0 ]; then nsin="nsenter -t $holder -n"; else nsin="nsenter -t $holder -U -n --preserve-credentials"; fi
	$nsin true 2>/dev/null || nsin=
fi
[ -n "$nsin" ] || echo "wicket-ns: cannot enter a session's network namespace here: its rows are skipped"
ways="direct relay wicket${nsin:+ wicket-ns}${sport:+ srt}"

cat >"$dir/ws/lat.py" <<'EOF_PY'
import base64, socket, statistics, sys, time
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
if mode in ("wicket", "wicket-ns"):
    addr, req = ("127.0.0.1", 3128), b"GET http://bench.wk.test:%d/100 HTTP/1.1\r\nHost: bench.wk.test:%d\r\n\r\n" % (port, port)
elif mode == "srt":
    # srt's proxy: its port and token follow
    auth = base64.b64encode(b"bench:" + sys.argv[5].encode())
    addr = ("127.0.0.1", int(sys.argv[4]))
    req = b"GET http://127.0.0.1:%d/100 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nProxy-Authorization: Basic %s\r\nConnection: close\r\n\r\n" % (port, port, auth)
else:
    # direct, or the relay (its port follows), which passes the bytes as they are
    addr = ("127.0.0.1", int(sys.argv[4]) if mode == "relay" else port)
    req = b"GET /100 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
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
        sys.exit("bench: a bad reply through " + mode)
    if i >= 20:
        ts.append((time.perf_counter() - t) * 1e6)
ts.sort()
print("%.1f %.1f" % (statistics.median(ts), ts[int(len(ts) * 0.99) - 1]))
EOF_PY

# The CPU time (user + system, clock ticks) a process has used so far,
# all its threads: the relay, the session's launcher (whose thread is the
# proxy), srt's node.
ticks() {
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0
}
# The proxy process of a way, for its CPU time: none for direct, nor for
# wicket (its launcher is the download's parent, started anew each time).
relay_pid=$(ps -o pid= --ppid "$rly" | tr -d ' ')
proxy_pid() {
	case $1 in
	relay) echo "$relay_pid" ;;
	wicket-ns) echo "$held" ;;
	srt) ps -o pid= --ppid "$srt" | tr -d ' ' ;;
	esac
}
HZ=$(getconf CLK_TCK)

# One download, and one latency run, of one way; prints bytes/s, or
# the median and p99 in us.
download() {
	case $1 in
	direct) curl -sS -o /dev/null -w '%{speed_download}' "http://127.0.0.1:$port/$BYTES" ;;
	relay) curl -sS -o /dev/null -w '%{speed_download}' "http://127.0.0.1:$rport/$BYTES" ;;
	wicket) "$WICKET" run -P "$dir/domains.json" -- curl -sS -o /dev/null -w '%{speed_download}' \
		"http://bench.wk.test:$port/$BYTES" ;;
	wicket-ns) $nsin curl -sS -o /dev/null -w '%{speed_download}' -x http://127.0.0.1:3128 \
		"http://bench.wk.test:$port/$BYTES" ;;
	srt) curl -sS -o /dev/null -w '%{speed_download}' -x "http://bench:$stoken@127.0.0.1:$sport" \
		"http://127.0.0.1:$port/$BYTES" ;;
	esac
}
latency() {
	case $1 in
	wicket) "$WICKET" run -P "$dir/domains.json" -- "$PY" "$dir/ws/lat.py" "$port" "$N" wicket ;;
	wicket-ns) $nsin "$PY" "$dir/ws/lat.py" "$port" "$N" wicket-ns ;;
	*) "$PY" "$dir/ws/lat.py" "$port" "$N" "$1" "$([ "$1" = srt ] && echo "$sport" || echo "$rport")" "$stoken" ;;
	esac
}

echo "== throughput ($BYTES bytes by curl) and latency ($N requests of 100 bytes, one connection"
echo "   each): $ROUNDS rounds of: $ways, the order rotating"
: >"$dir/tp" && : >"$dir/lat" && : >"$dir/cpu"
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	# shellcheck disable=SC2086 # the ways are words
	set -- $ways
	k=0
	while [ $k -lt $(( (r - 1) % $# )) ]; do w=$1; shift; set -- "$@" "$w"; k=$((k + 1)); done
	for w in "$@"; do
		pp=$(proxy_pid "$w")
		[ -n "$pp" ] && t0=$(ticks "$pp")
		v=$(download "$w") || { echo "domainsbench: the download through $w failed" >&2; exit 1; }
		echo "$r $w $v" >>"$dir/tp"
		[ -n "$pp" ] && echo "$r $w $(( $(ticks "$pp") - t0 ))" >>"$dir/cpu"
	done
	for w in "$@"; do
		v=$(latency "$w") || { echo "domainsbench: the requests through $w failed" >&2; exit 1; }
		echo "$r $w $v" >>"$dir/lat"
	done
done
co=$("$PY" "$dir/ws/lat.py" "$port" "$N" connect-out)
ci=$("$WICKET" run -P "$dir/domains.json" -- "$PY" "$dir/ws/lat.py" "$port" "$N" connect-in)
# Medians over the rounds, [min..max]; ratios and differences per round.
awk -v WAYS="$ways" -v CO="$co" -v CI="$ci" -v HZ="$HZ" -v GIB="$(awk -v b="$BYTES" 'BEGIN { print b / 1073741824 }')" '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function stat(name, unit, scale, fmt,   i, n, v, lo, hi) {
	n = 0; lo = ""; hi = ""
	for (i = 1; i <= R; i++) if ((name, i) in val) {
		v[++n] = val[name, i] * scale
		if (lo == "" || v[n] < lo) lo = v[n]
		if (hi == "" || v[n] > hi) hi = v[n]
	}
	if (n) printf "  %-8s " fmt " %s  [" fmt ".." fmt "]\n", substr(name, 2), med(v, n), unit, lo, hi
}
function per(a, b, kind, off,   i, n, v, lo, hi, x) {
	n = 0; lo = ""; hi = ""
	for (i = 1; i <= R; i++) if ((a, i) in val && (b, i) in val) {
		x = kind == "ratio" ? val[a, i] / val[b, i] : val[a, i] - val[b, i] - off
		v[++n] = x
		if (lo == "" || x < lo) lo = x
		if (hi == "" || x > hi) hi = x
	}
	if (!n) return ""
	return sprintf(kind == "ratio" ? "%.0f%% [%.0f..%.0f]" : "%+.1f us [%+.1f..%+.1f]",
		(kind == "ratio" ? 100 : 1) * med(v, n), (kind == "ratio" ? 100 : 1) * lo, (kind == "ratio" ? 100 : 1) * hi)
}
FILENAME ~ /tp$/ { val["T" $2, $1] = $3; if ($1 > R) R = $1; next }
FILENAME ~ /cpu$/ { val["C" $2, $1] = $3 * 1000 / HZ / GIB; next }
{ val["L" $2, $1] = $3 }
END {
	nw = split(WAYS, w, " ")
	print "throughput, median of the rounds [min..max]:"
	for (i = 1; i <= nw; i++) stat("T" w[i], "MB/s", 1e-6, "%7.0f")
	for (i = 1; i <= nw; i++) if (w[i] != "relay")
		printf "  %-8s %s of the relay (per round)%s\n", w[i], per("T" w[i], "Trelay", "ratio"),
			w[i] ~ /^wicket/ ? "; target >= 90%" : ""
	print "the proxy process'"'"'s CPU time (user + system) for the download, ms a GiB, median [min..max]:"
	for (i = 1; i <= nw; i++) stat("C" w[i], "ms/GiB", 1, "%7.0f")
	print "latency, median us a request, median of the rounds [min..max]:"
	for (i = 1; i <= nw; i++) stat("L" w[i], "us", 1, "%7.1f")
	for (i = 1; i <= nw; i++) if (w[i] != "relay")
		printf "  %-8s %s against the relay (per round)%s\n", w[i], per("L" w[i], "Lrelay", "diff"),
			w[i] ~ /^wicket/ ? "; target <= +50 us" : ""
	printf "connect() alone: %.1f us outside, %.1f us inside a session (+%.1f us: the sandbox, not the proxy)\n", CO, CI, CI - CO
	printf "  wicket   %s against the relay, the sandbox'"'"'s connect() taken out\n", per("Lwicket", "Lrelay", "diff", CI - CO)
}' "$dir/tp" "$dir/cpu" "$dir/lat"

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
