# shellcheck shell=bash
# Helpers of the network mode "domains" suites (integration and escape):
# a test server on the host's 127.0.0.1 (HTTP and HTTPS, git's smart
# HTTP; tests/lib/domains_server.py) that logs every request it gets,
# known to the sandbox's proxy under test names through the policy's
# "hosts" (no resolver of the machine is touched), and policies.
# Load after ../lib/common.

PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

# dom_setup: DOM (a directory outside), WS (a workspace), the server
# (HTTP_PORT, HTTPS_PORT, its log DOM/log, certificate DOM/cert.pem for
# *.wk.test), and the policies DOM/allow.json (pkg.wk.test allowed, the
# server's address named) and DOM/noaddr.json (names allowed, no address
# named: loopback is refused).
dom_setup() {
	command -v curl >/dev/null || skip "no curl"
	command -v openssl >/dev/null || skip "no openssl"
	DOM=$(mk_outside) && WS=$(mk_workspace) || return 1
	export XDG_STATE_HOME=$DOM/state
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
		-subj /CN=pkg.wk.test -addext "subjectAltName=DNS:pkg.wk.test,DNS:evil.wk.test,DNS:loop.wk.test" \
		-keyout "$DOM/key.pem" -out "$DOM/cert.pem" 2>/dev/null || return 1
	mkdir -p "$DOM/root"
	echo hello >"$DOM/root/hello.txt"
	: >"$DOM/log"
	timeout --kill-after=5 120 "$PY" "$WICKET_SRCDIR/tests/lib/domains_server.py" "$DOM/root" \
		"$DOM/log" "$DOM/ports" "$DOM/cert.pem" "$DOM/key.pem" 110 \
		>/dev/null 2>"$DOM/server.err" 3>&- &
	DOM_PID=$!
	local i
	for ((i = 0; i < 100; i++)); do
		[ -s "$DOM/ports" ] && break
		sleep 0.1
	done
	read -r HTTP_PORT HTTPS_PORT HRR_PORT <"$DOM/ports" || return 1
	local hosts='"pkg.wk.test": "127.0.0.1", "evil.wk.test": "127.0.0.1",
		"loop.wk.test": "127.0.0.1", "priv.wk.test": "10.255.255.1",
		"meta.wk.test": "169.254.169.254", "six.wk.test": "::ffff:127.0.0.1"'
	cat >"$DOM/allow.json" <<JSON
{"extends": "workspace-write",
 "network": {"mode": "domains", "allow": ["pkg.wk.test", "priv.wk.test", "meta.wk.test"],
             "hosts": {$hosts}, "allow_addresses": ["127.0.0.1"]}}
JSON
	cat >"$DOM/noaddr.json" <<JSON
{"extends": "workspace-write",
 "network": {"mode": "domains", "allow": ["*.wk.test"], "deny": ["evil.wk.test"],
             "hosts": {$hosts}}}
JSON
}

# dom_teardown: the server stopped (by its pid), then the directories.
dom_teardown() {
	if [ -n "${DOM_PID:-}" ]; then
		kill -TERM "$DOM_PID" 2>/dev/null || true
		wait "$DOM_PID" 2>/dev/null || true
	fi
	common_teardown
}

# dom_run POLICY CMD...: CMD in a session of POLICY in WS (30 s at most),
# with run --separate-stderr.
dom_run() {
	local pol=$1
	shift
	run --separate-stderr bounded 30 sh -c 'cd "$1" && shift && exec "$@"' sh "$WS" \
		"$WICKET" run -P "$pol" -- "$@"
}

# blocked_lines: the denial lines of $stderr.
blocked_lines() { printf '%s\n' "$stderr" | grep '^sandbox: network blocked: ' || true; }

# once LINE: $stderr has LINE as its one and only denial line.
once() {
	local got
	got=$(blocked_lines)
	if [ "$got" != "$1" ]; then
		printf 'expected exactly this denial line:\n  %s\ngot:\n%s\n' "$1" "$got" >&2
		return 1
	fi
}

# server_got: the server's log has a line with every word given.
server_got() {
	local line w ok
	while IFS= read -r line; do
		ok=1
		for w in "$@"; do [[ " $line " == *" $w "* ]] || ok=; done
		[ -n "$ok" ] && return 0
	done <"$DOM/log"
	return 1
}

# server_silent: no request reached the server.
server_silent() {
	sleep 0.2
	if [ -s "$DOM/log" ]; then
		echo "the server was reached:" >&2
		cat "$DOM/log" >&2
		return 1
	fi
}

# RAW_CLIENT: python for "send these bytes to the proxy, print the answer's
# first line": argv PORT, then the request with \r\n written as is.
# shellcheck disable=SC2016
RAW_CLIENT='
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
data = b""
try:
    while b"\n" not in data:
        b = s.recv(4096)
        if not b:
            break
        data += b
except OSError:
    pass
print(data.split(b"\r\n")[0].decode("latin-1") if data else "closed")
'

# dom_packages: a pip index (DOM/root/simple/wkdemo/, a wheel) and an npm
# registry (DOM/root/wkdemo, a tarball) of one package, wkdemo 1.0.0,
# served by the test server under pkg.wk.test.
dom_packages() {
	"$PY" - "$DOM/root" "http://pkg.wk.test:$HTTP_PORT" <<'EOF_PY'
import base64, hashlib, io, json, os, sys, tarfile, zipfile
root, url = sys.argv[1], sys.argv[2]
# pip: a wheel and a "simple" index page.
files = {"wkdemo/__init__.py": b"VALUE = 'wkdemo 1.0.0'\n",
         "wkdemo-1.0.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: wkdemo\nVersion: 1.0.0\n",
         "wkdemo-1.0.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
record = ""
for n, b in files.items():
    h = base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
    record += "%s,sha256=%s,%d\n" % (n, h, len(b))
record += "wkdemo-1.0.0.dist-info/RECORD,,\n"
whl = io.BytesIO()
with zipfile.ZipFile(whl, "w") as z:
    for n, b in files.items():
        z.writestr(n, b)
    z.writestr("wkdemo-1.0.0.dist-info/RECORD", record)
os.makedirs(root + "/simple/wkdemo", exist_ok=True)
open(root + "/wkdemo-1.0.0-py3-none-any.whl", "wb").write(whl.getvalue())
sha = hashlib.sha256(whl.getvalue()).hexdigest()
open(root + "/simple/wkdemo/index.html", "w").write(
    '<a href="%s/wkdemo-1.0.0-py3-none-any.whl#sha256=%s">wkdemo-1.0.0-py3-none-any.whl</a>\n' % (url, sha))
# npm: a tarball and the package document.
tgz = io.BytesIO()
with tarfile.open(fileobj=tgz, mode="w:gz") as t:
    for n, b in (("package/package.json", json.dumps({"name": "wkdemo", "version": "1.0.0", "main": "index.js"}).encode()),
                 ("package/index.js", b"module.exports = 'wkdemo 1.0.0';\n")):
        i = tarfile.TarInfo(n)
        i.size = len(b)
        t.addfile(i, io.BytesIO(b))
data = tgz.getvalue()
open(root + "/wkdemo-1.0.0.tgz", "wb").write(data)
doc = {"name": "wkdemo", "dist-tags": {"latest": "1.0.0"},
       "versions": {"1.0.0": {"name": "wkdemo", "version": "1.0.0", "main": "index.js",
                              "dist": {"tarball": url + "/wkdemo-1.0.0.tgz",
                                       "shasum": hashlib.sha1(data).hexdigest(),
                                       "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()}}}}
open(root + "/wkdemo", "w").write(json.dumps(doc))
EOF_PY
}
