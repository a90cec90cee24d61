#!/usr/bin/env bats
# Network mode "domains" (wicket(1) --allow-domain, wicket-policy(5)):
# the sandbox reaches the names its policy allows through the
# supervisor's proxy, with programs that use the proxy variables unchanged
# (curl, git, pip, npm); everything else is refused, said once on stderr,
# explained by `wicket why` and audited. The server is the test's own, on the
# host's 127.0.0.1, known by names the policy fixes ("hosts"); every
# verdict is checked against what the server logged.

bats_require_minimum_version 1.5.0
load ../lib/common
load ../lib/domains

setup() { dom_setup; }
teardown() { dom_teardown; }

@test "domains: the proxy variables are set, and name wicket's proxy" {
	dom_run "$DOM/noaddr.json" sh -c 'echo "$HTTP_PROXY $HTTPS_PROXY $ALL_PROXY $http_proxy $https_proxy $all_proxy $NO_PROXY $no_proxy"'
	assert_success
	assert_output "http://127.0.0.1:3128 http://127.0.0.1:3128 socks5h://127.0.0.1:1080 http://127.0.0.1:3128 http://127.0.0.1:3128 socks5h://127.0.0.1:1080 localhost,127.0.0.1,::1,[::1] localhost,127.0.0.1,::1,[::1]"
	# An allowed address is the host's: NO_PROXY leaves it to the proxy.
	dom_run "$DOM/allow.json" sh -c 'echo "$NO_PROXY $no_proxy"'
	assert_output "localhost,::1,[::1] localhost,::1,[::1]"
}

@test "domains: curl reaches an allowed name over HTTP (absolute URI)" {
	dom_run "$DOM/allow.json" curl -fsS "http://pkg.wk.test:$HTTP_PORT/hello.txt"
	assert_success
	assert_output hello
	[ -z "$(blocked_lines)" ]
	server_got http GET /hello.txt "pkg.wk.test:$HTTP_PORT"
}

@test "domains: curl reaches an allowed name over HTTPS (CONNECT)" {
	dom_run "$DOM/allow.json" curl -fsS --cacert "$DOM/cert.pem" "https://pkg.wk.test:$HTTPS_PORT/hello.txt"
	assert_success
	assert_output hello
	server_got https GET /hello.txt "pkg.wk.test:$HTTPS_PORT"
}

@test "domains: curl reaches an allowed name through SOCKS5 (ALL_PROXY, socks5h)" {
	dom_run "$DOM/allow.json" env -u HTTP_PROXY -u http_proxy -u HTTPS_PROXY -u https_proxy \
		curl -fsS --cacert "$DOM/cert.pem" "https://pkg.wk.test:$HTTPS_PORT/hello.txt"
	assert_success
	assert_output hello
	server_got https GET /hello.txt
}

@test "domains: a POST body goes through whole" {
	dom_run "$DOM/allow.json" curl -fsS --data-binary "@$DOM/cert.pem" "http://pkg.wk.test:$HTTP_PORT/post"
	assert_success
	assert_output "posted $(stat -c %s "$DOM/cert.pem")"
}

@test "domains: git clones over smart HTTP" {
	command -v git >/dev/null || skip "no git"
	git init -q --bare "$DOM/root/repo.git"
	git -C "$DOM" clone -q "$DOM/root/repo.git" src 2>/dev/null
	(cd "$DOM/src" && echo one >f && git add f &&
		git -c user.name=t -c user.email=t@t commit -qm one && git push -q origin HEAD:main) 2>/dev/null
	git -C "$DOM/root/repo.git" symbolic-ref HEAD refs/heads/main
	dom_run "$DOM/allow.json" git clone -q "http://pkg.wk.test:$HTTP_PORT/git/repo.git" clone
	assert_success
	[ "$(cat "$WS/clone/f")" = one ]
	server_got http POST /git/repo.git/git-upload-pack
}

@test "domains: a name not allowed is refused, said once, and explained" {
	dom_run "$DOM/allow.json" curl -fsS "http://evil.wk.test:$HTTP_PORT/hello.txt"
	assert_failure
	once "sandbox: network blocked: GET evil.wk.test:$HTTP_PORT (curl[$(printf '%s\n' "$stderr" | sed -n 's/.*(curl\[\([0-9]*\)\]).*/\1/p' | head -n1)]): not in the allowed domains"
	server_silent
	run wk why --json
	assert_success
	printf '%s' "$output" | "$PY" -c '
import json, sys
f = json.load(sys.stdin)["denials"][0]["fixes"]
assert {"kind": "option", "option": "--allow-domain", "value": "evil.wk.test"} in f, f
assert any(x["kind"] == "policy" and x["policy"]["network"] == {"mode": "domains", "allow": ["evil.wk.test"]} for x in f), f
'
	grep -q '"object":"GET evil.wk.test:'"$HTTP_PORT"'","decision":"denied","by":"proxy"' \
		"$XDG_STATE_HOME/wicket/audit.jsonl"
}

@test "domains: CONNECT to a name not allowed is refused once, with the process named" {
	dom_run "$DOM/allow.json" curl -sS --cacert "$DOM/cert.pem" "https://evil.wk.test:$HTTPS_PORT/"
	assert_failure
	[ "$(blocked_lines | wc -l)" = 1 ]
	blocked_lines | grep -qE "^sandbox: network blocked: CONNECT evil.wk.test:$HTTPS_PORT \(curl\[[0-9]+\]\): not in the allowed domains$"
	server_silent
}

@test "domains: --allow-domain adds a name to the policy's" {
	dom_run "$DOM/allow.json" curl -fsS "http://loop.wk.test:$HTTP_PORT/hello.txt"
	assert_failure
	server_silent
	run --separate-stderr bounded 30 sh -c 'cd "$1" && "$2" run -P "$3" --allow-domain loop.wk.test -- curl -fsS "$4"' \
		sh "$WS" "$WICKET" "$DOM/allow.json" "http://loop.wk.test:$HTTP_PORT/hello.txt"
	assert_success
	assert_output hello
}

@test "domains: a policy's allow entry with a port reaches that port only" {
	sed -e "s/\"pkg.wk.test\", /\"pkg.wk.test:$HTTPS_PORT\", /" "$DOM/allow.json" >"$DOM/port.json"
	grep -q "pkg.wk.test:$HTTPS_PORT" "$DOM/port.json"
	dom_run "$DOM/port.json" curl -fsS --cacert "$DOM/cert.pem" "https://pkg.wk.test:$HTTPS_PORT/hello.txt"
	assert_success
	assert_output hello
	: >"$DOM/log"
	dom_run "$DOM/port.json" curl -fsS "http://pkg.wk.test:$HTTP_PORT/hello.txt"
	assert_failure
	server_silent
	# With the name allowed on any port too, any port.
	sed -e "s/\"pkg.wk.test\", /\"pkg.wk.test:$HTTPS_PORT\", \"pkg.wk.test\", /" "$DOM/allow.json" >"$DOM/both.json"
	dom_run "$DOM/both.json" curl -fsS "http://pkg.wk.test:$HTTP_PORT/hello.txt"
	assert_success
	for bad in pkg.wk.test:0 pkg.wk.test:65536 pkg.wk.test: 'pkg.wk.test:0443'; do
		printf '{"extends": "workspace-write", "network": {"mode": "domains", "allow": ["%s"]}}\n' "$bad" >"$DOM/bad.json"
		run --separate-stderr wk policy check "$DOM/bad.json"
		assert_failure 125
		[[ $stderr == *"the port after ':'"* ]]
	done
}

@test "domains: --host fixes a name to an address on the command line, no policy file" {
	# Without it the name has no address (no resolver knows it).
	run --separate-stderr bounded 30 sh -c 'cd "$1" && shift && exec "$@"' sh "$WS" \
		"$WICKET" run --allow-domain cli.wk.test --allow-address 127.0.0.1 -- \
		curl -fsS "http://cli.wk.test:$HTTP_PORT/hello.txt"
	assert_failure
	server_silent
	run --separate-stderr bounded 30 sh -c 'cd "$1" && shift && exec "$@"' sh "$WS" \
		"$WICKET" run --allow-domain cli.wk.test --allow-address 127.0.0.1 \
		--host CLI.wk.test.=10.255.255.1 --host cli.wk.test=127.0.0.1 -- \
		curl -fsS "http://cli.wk.test:$HTTP_PORT/hello.txt"
	assert_success
	assert_output hello
	server_got http GET /hello.txt
	# The address is still checked: loopback must be named.
	: >"$DOM/log"
	run --separate-stderr bounded 30 sh -c 'cd "$1" && shift && exec "$@"' sh "$WS" \
		"$WICKET" run --allow-domain cli.wk.test --host cli.wk.test=127.0.0.1 -- \
		curl -fsS "http://cli.wk.test:$HTTP_PORT/hello.txt"
	assert_failure
	server_silent
	# Bad forms, and another network mode, refused before anything runs.
	for bad in cli.wk.test 127.0.0.1 =127.0.0.1 cli.wk.test=300.1.1.1 'a b=127.0.0.1' cli.wk.test=; do
		run --separate-stderr wk run --host "$bad" -- true
		assert_failure 125
		[[ $stderr == *"--host $bad: "* ]]
	done
	run --separate-stderr wk run --net full --host cli.wk.test=127.0.0.1 -- true
	assert_failure 125
	[[ $stderr == *"--host needs network mode domains"* ]]
}

@test "domains: deny wins over a wildcard allow" {
	dom_run "$DOM/noaddr.json" curl -fsS "http://evil.wk.test:$HTTP_PORT/hello.txt"
	assert_failure
	blocked_lines | grep -qE "^sandbox: network blocked: GET evil.wk.test:$HTTP_PORT \(curl\[[0-9]+\]\): on the deny list \(evil.wk.test\)$"
	[ "$(blocked_lines | wc -l)" = 1 ]
	server_silent
}

@test "domains: a raw IP address is refused unless the policy names it" {
	dom_run "$DOM/noaddr.json" curl -fsS --noproxy '' -x http://127.0.0.1:3128 "http://127.0.0.1:$HTTP_PORT/hello.txt"
	assert_failure
	blocked_lines | grep -qE "^sandbox: network blocked: GET 127.0.0.1:$HTTP_PORT \(curl\[[0-9]+\]\): an address, not a name$"
	[ "$(blocked_lines | wc -l)" = 1 ]
	server_silent
	dom_run "$DOM/allow.json" curl -fsS --noproxy '' -x http://127.0.0.1:3128 "http://127.0.0.1:$HTTP_PORT/hello.txt"
	assert_success
	assert_output hello
	# The variables alone take a client there (NO_PROXY leaves out an
	# allowed address).
	: >"$DOM/log"
	dom_run "$DOM/allow.json" curl -fsS "http://127.0.0.1:$HTTP_PORT/hello.txt"
	assert_success
	assert_output hello
	server_got http GET /hello.txt "127.0.0.1:$HTTP_PORT"
}

@test "domains: an allowed name that resolves to a private or link-local address is refused" {
	dom_run "$DOM/allow.json" curl -fsS "http://priv.wk.test:$HTTP_PORT/"
	assert_failure
	blocked_lines | grep -qE "^sandbox: network blocked: GET priv.wk.test:$HTTP_PORT \(curl\[[0-9]+\]\): resolves to 10.255.255.1 \(a private address\)$"
	dom_run "$DOM/allow.json" curl -fsS "http://meta.wk.test/latest/meta-data/"
	assert_failure
	blocked_lines | grep -qE "^sandbox: network blocked: GET meta.wk.test:80 \(curl\[[0-9]+\]\): resolves to 169.254.169.254 \(a link-local address\)$"
	[ "$(blocked_lines | wc -l)" = 1 ]
	run wk why --json
	printf '%s' "$output" | "$PY" -c '
import json, sys
f = json.load(sys.stdin)["denials"][0]["fixes"]
assert any(x["kind"] == "policy" and x["policy"]["network"]["allow_addresses"] == ["169.254.169.254"] for x in f), f
'
}

@test "domains: a direct connection around the proxy is refused once, with a hint naming the variables" {
	dom_run "$DOM/allow.json" "$PY" -c '
import socket, sys
s = socket.socket()
try:
    s.connect(("192.0.2.1", 80))
    print("connected")
except OSError as e:
    print("refused", e.errno)
'
	assert_output "refused 101"
	once "sandbox: network blocked: connect 192.0.2.1:80/tcp (python3[$(printf '%s\n' "$stderr" | sed -n 's/.*(python3\[\([0-9]*\)\]).*/\1/p' | head -n1)])"
	printf '%s\n' "$stderr" | grep -qx "sandbox: hint: in network mode domains the network is reached through wicket's proxy only: HTTP_PROXY, HTTPS_PROXY and ALL_PROXY name it (http://127.0.0.1:3128, socks5h://127.0.0.1:1080)"
	server_silent
	run wk why
	assert_output --partial "connections go through wicket's proxy, named by HTTP_PROXY, HTTPS_PROXY and ALL_PROXY"
}

@test "domains: a malformed request gets 400, and one line" {
	dom_run "$DOM/allow.json" "$PY" -c "$RAW_CLIENT" 3128 'GET http://pkg.wk.test:'"$HTTP_PORT"'/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'
	assert_success
	assert_output "HTTP/1.1 400 Bad Request"
	blocked_lines | grep -qE '^sandbox: network blocked: malformed proxy request \(python3\[[0-9]+\]\): more than one Content-Length$'
	server_silent
}

@test "domains: a slow client does not hold up the others" {
	dom_run "$DOM/allow.json" sh -c '
"$1" -c "
import socket, time
s = socket.create_connection((\"127.0.0.1\", 3128))
s.sendall(b\"GET http://pkg.wk.test/ HTTP/1.1\r\n\")
open(\"started\", \"w\").close()
time.sleep(4)
" &
while [ ! -e started ]; do sleep 0.05; done
curl -fsS "$2"
wait' sh "$PY" "http://pkg.wk.test:$HTTP_PORT/hello.txt"
	assert_success
	assert_output hello
}

@test "domains: bad patterns are refused before anything runs (exit 125)" {
	run --separate-stderr wk run --allow-domain '*.com' -- true
	assert_failure 125
	[[ $stderr == *"--allow-domain *.com: not a name"* ]]
	run --separate-stderr wk run --allow-domain 'a b.org' -- true
	assert_failure 125
	printf '{"network": {"mode": "domains", "allow": ["*"]}}' >"$DOM/bad.json"
	run --separate-stderr wk policy check "$DOM/bad.json"
	assert_failure 125
	[[ $stderr == *'/network/allow/0: "*" is not a name'* ]]
}

@test "domains: policy show lists the names and how they are enforced" {
	run wk policy show "$DOM/noaddr.json"
	assert_success
	assert_output --partial "network:     domains"
	assert_output --partial "allow    *.wk.test"
	assert_output --partial "deny     evil.wk.test"
	assert_output --partial "wicket's proxy on 127.0.0.1:3128 (HTTP) and :1080 (SOCKS5)"
}

@test "domains: pip installs from a local index through the proxy" {
	"$PY" -m pip --version >/dev/null 2>&1 || skip "no pip for $PY"
	dom_packages
	dom_run "$DOM/allow.json" "$PY" -m pip install -q --isolated --disable-pip-version-check \
		--no-cache-dir --trusted-host pkg.wk.test --index-url "http://pkg.wk.test:$HTTP_PORT/simple/" \
		--target "$WS/site" wkdemo
	assert_success
	[ -f "$WS/site/wkdemo/__init__.py" ]
	server_got http GET /simple/wkdemo/
	server_got http GET /wkdemo-1.0.0-py3-none-any.whl
	# What pip probes besides (an IPv6 bind) may be refused; the index not.
	[ -z "$(blocked_lines | grep 'wk.test')" ]
	server_got http GET /simple/wkdemo/
}

@test "domains: npm installs from a local registry through the proxy" {
	command -v npm >/dev/null || skip "no npm"
	dom_packages
	dom_run "$DOM/allow.json" sh -c 'npm install --silent --no-audit --no-fund --registry "$1" --cache "$PWD/.npm-cache" wkdemo && node -e "console.log(require(\"wkdemo\"))"' \
		sh "http://pkg.wk.test:$HTTP_PORT/"
	assert_success
	assert_output "wkdemo 1.0.0"
	server_got http GET /wkdemo
	server_got http GET /wkdemo-1.0.0.tgz
	# node lists the interfaces (a netlink socket, refused); the registry not.
	[ -z "$(blocked_lines | grep 'wk.test')" ]
	server_got http GET /wkdemo-1.0.0.tgz
}

@test "domains: a name resolved by the system's resolver (localhost from /etc/hosts)" {
	getent ahostsv4 localhost | grep -q '^127\.0\.0\.1 ' || skip "localhost is not 127.0.0.1 here"
	printf '{"extends": "workspace-write", "network": {"mode": "domains", "allow": ["localhost", "nothing.invalid"], "allow_addresses": ["127.0.0.1"]}}' >"$DOM/local.json"
	# NO_PROXY sends localhost to the sandbox's own loopback: name the proxy.
	dom_run "$DOM/local.json" curl -fsS --noproxy '' -x http://127.0.0.1:3128 "http://localhost:$HTTP_PORT/hello.txt"
	assert_success
	assert_output hello
	server_got http GET /hello.txt
	# An allowed localhost is the host's: NO_PROXY no longer sends it to
	# the sandbox's own loopback, so a program needs no --noproxy.
	dom_run "$DOM/local.json" curl -fsS "http://localhost:$HTTP_PORT/hello.txt"
	assert_success
	assert_output hello
	# A name with no address is the network's answer: no line, no count.
	dom_run "$DOM/local.json" curl -fsS --noproxy '' -x http://127.0.0.1:3128 "http://nothing.invalid/"
	assert_failure
	[ "$(blocked_lines | wc -l)" = 0 ]
	run wk why
	assert_output --partial "nothing.invalid has no address"
	assert_output --partial "not a refusal of the sandbox's"
}

@test "domains: a direct connection to loopback stays on the sandbox's own loopback, unsaid, the host's server unreached" {
	dom_run "$DOM/allow.json" "$PY" -c '
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    print("connected")
except OSError as e:
    print("refused", e.errno)' "$HTTP_PORT"
	assert_output "refused 111"
	[ -z "$(blocked_lines)" ]
	server_silent
}

@test "domains: a test's own server on the sandbox's loopback is reached by name through NO_PROXY, said nothing" {
	dom_run "$DOM/allow.json" "$PY" -c '
import http.server, threading, urllib.request
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"own")
    def log_message(self, *a):
        pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
threading.Thread(target=srv.serve_forever, daemon=True).start()
print(urllib.request.urlopen("http://localhost:%d/" % srv.server_address[1], timeout=10).read().decode())'
	assert_success
	assert_output own
	[ -z "$stderr" ]
}

# approver NAME STATUS: a program outside that says STATUS to any
# question and keeps each request it was given (DOM/NAME.asked).
approver() {
	printf '#!/bin/sh\ncat >>"%s/%s.asked"\necho >>"%s/%s.asked"\nexit %s\n' \
		"$DOM" "$1" "$DOM" "$1" "$2" >"$DOM/$1"
	chmod 755 "$DOM/$1"
}

@test "domains: an approver that says yes lets a name in for the session, asked once, audited" {
	approver yes 0
	run --separate-stderr bounded 30 sh -c 'cd "$1" && shift && exec "$@"' sh "$WS" \
		"$WICKET" run -P "$DOM/allow.json" --approver "$DOM/yes" -- sh -c '
		curl -fsS "http://evil.wk.test:$1/hello.txt" && curl -fsS "http://evil.wk.test:$1/hello.txt"' _ "$HTTP_PORT"
	assert_success
	assert_output $'hello\nhello'
	[ -z "$(blocked_lines)" ]
	[ "$(grep -c 'GET /hello.txt evil.wk.test' "$DOM/log")" = 2 ]
	# Asked once, with what it needs to decide.
	[ "$(grep -c . "$DOM/yes.asked")" = 1 ]
	"$PY" - "$DOM/yes.asked" "$HTTP_PORT" <<'PYEOF'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert r["v"] == 1 and r["type"] == "network", r
assert r["host"] == "evil.wk.test" and r["request"] == "GET evil.wk.test:" + sys.argv[2], r
assert r["comm"] == "curl" and r["sandbox_pid"] > 0 and r["pid"] > 0, r
PYEOF
	grep -q '"type":"network",.*"host":"evil.wk.test","decision":"approved","by":"approver","scope":"session"' \
		"$XDG_STATE_HOME/wicket/audit.jsonl"
}

@test "domains: an approver that says no: refused, said once with why, not asked again" {
	approver no 1
	run --separate-stderr bounded 30 sh -c 'cd "$1" && shift && exec "$@"' sh "$WS" \
		"$WICKET" run -P "$DOM/allow.json" --approver "$DOM/no" -- sh -c '
		curl -fsS "http://evil.wk.test:$1/a"; curl -fsS "https://evil.wk.test:$1/b"; echo done' _ "$HTTP_PORT"
	assert_output done
	server_silent
	[ "$(grep -c . "$DOM/no.asked")" = 1 ]
	blocked_lines | grep -qx "sandbox: network blocked: GET evil.wk.test:$HTTP_PORT (curl\[[0-9]*\]): not in the allowed domains; the approver said no (exit status 1)"
	blocked_lines | grep -qx "sandbox: network blocked: CONNECT evil.wk.test:$HTTP_PORT (curl\[[0-9]*\]): not in the allowed domains; refused for this session"
	[ "$(blocked_lines | wc -l)" = 2 ]
}

@test "domains: escalation mode deny asks no one about a name" {
	approver yes 0
	cat >"$DOM/deny.json" <<JSON
{"extends": "$DOM/allow.json", "escalation": {"mode": "deny"}}
JSON
	dom_run "$DOM/deny.json" curl -fsS "http://evil.wk.test:$HTTP_PORT/hello.txt"
	assert_failure
	[ ! -e "$DOM/yes.asked" ]
	server_silent
	blocked_lines | grep -q 'GET evil.wk.test:[0-9]* (curl\[[0-9]*\]): not in the allowed domains$'
}

@test "domains: on the terminal a name is let in once (y), for the session (s), or refused (n) and not asked again" {
	export PYTHONPATH=$WICKET_SRCDIR/tests/lib DOM WS HTTP_PORT WICKET
	bounded 120 "$PY" - <<'PYEOF'
import os
from ptydrive import Term, check, run

def main():
    port = os.environ["HTTP_PORT"]
    t = Term([os.environ["WICKET"], "run", "-P", os.environ["DOM"] + "/allow.json", "--",
              "bash", "--norc", "--noprofile", "-i"],
             cwd=os.environ["WS"], env=dict(os.environ, PS1="wk$ ", HISTFILE=""))
    t.expect(r"wk\$ ")
    get = 'curl -sS -o /dev/null -w "code=%%{http_code}\\n" http://%s:' + port + '/hello.txt'
    t.line(get % "evil.wk.test")
    t.expect(r"asks to connect to a host that is not in the\r\nallowed domains\.")
    t.expect(r"  host:     evil.wk.test\r\n  request:  'GET evil.wk.test:%s'\r\n" % port)
    t.expect(r"Let it connect\? y: this once, s: for this session, n: no\. \[y/s/N\] ")
    t.send("y\r")
    t.expect(r"code=200\r\n")

    def request(name, key, code):
        """NAME asked for; KEY answers the question (None: none comes)."""
        t.line(get % name)
        if key:
            t.expect(r"\[y/s/N\] ")
            t.send(key + "\r")
        t.expect(r"code=%d\r\n" % code)

    request("evil.wk.test", "s", 200)
    request("evil.wk.test", None, 200)
    request("loop.wk.test", "n", 403)
    request("loop.wk.test", None, 403)
    t.line("exit 0")
    check(t.wait() == 0, "a clean exit")
    text = t.text()
    check(text.count("[y/s/N]") == 3, "asked three times: %r" % text.count("[y/s/N]"))
    check("not in the allowed domains; the person at the terminal said no" in text, "the refusal says who")
    log = open(os.environ["DOM"] + "/log").read()
    check(log.count("evil.wk.test") == 3 and "loop.wk.test" not in log, "the server saw: %r" % log)

run(main)
PYEOF
}

@test "domains: pip installs from an allowed index, and says nothing (its IPv6 probe is no denial worth a line)" {
	"$PY" -m pip --version >/dev/null 2>&1 || skip "pip is not installed for $PY"
	# A package index of one wheel, made here: a wheel is a zip with its
	# metadata.
	mkdir -p "$DOM/root/simple/wkdemo"
	"$PY" - "$DOM/root/simple/wkdemo" <<'EOF'
import base64, hashlib, sys, zipfile
d = sys.argv[1]
name = "wkdemo-1.0-py3-none-any.whl"
files = {"wkdemo.py": "VALUE = 42\n",
         "wkdemo-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: wkdemo\nVersion: 1.0\n",
         "wkdemo-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: wk\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
record = []
for f, body in files.items():
    h = base64.urlsafe_b64encode(hashlib.sha256(body.encode()).digest()).rstrip(b"=").decode()
    record.append("%s,sha256=%s,%d" % (f, h, len(body)))
record.append("wkdemo-1.0.dist-info/RECORD,,")
files["wkdemo-1.0.dist-info/RECORD"] = "\n".join(record) + "\n"
with zipfile.ZipFile(d + "/" + name, "w") as z:
    for f, body in files.items():
        z.writestr(f, body)
open(d + "/index.html", "w").write('<a href="%s">%s</a>\n' % (name, name))
EOF
	# The system's PATH: pip asks rustc for its version, and a rustup
	# under $HOME would try to write there.
	run --separate-stderr bounded 120 env -C "$WS" PATH=/usr/bin:/bin "$WICKET" run \
		--policy "$DOM/allow.json" -- "$PY" -m pip install --disable-pip-version-check --no-cache-dir --no-input \
		--target ./site --index-url "http://pkg.wk.test:$HTTP_PORT/simple/" \
		--trusted-host pkg.wk.test wkdemo
	echo "$stderr"
	assert_equal "$status" 0
	[ "$(cat "$WS/site/wkdemo.py")" = "VALUE = 42" ]
	# Not a line of wicket's: no denial line, no summary.
	[[ $stderr != *"sandbox:"* ]]
	[[ $stderr != *"wicket:"* ]]
	grep -q '/simple/wkdemo/' "$DOM/log"
}

@test "domains: the static launcher carries no resolver of the C library (its NSS modules would have to match)" {
	command -v nm >/dev/null || skip "nm is not installed"
	readelf -d "$WICKET" 2>/dev/null | grep -q NEEDED && skip "the launcher is linked dynamically"
	nm "$WICKET" >"$BATS_TEST_TMPDIR/syms"
	[ -s "$BATS_TEST_TMPDIR/syms" ] || skip "the launcher has no symbols"
	# In a static glibc these load NSS modules at run time (the services
	# database included): resolving names goes through c-ares instead.
	run grep -E ' [TtWw] (getaddrinfo|gethostbyname|gethostbyname2|gethostbyname_r|getservbyname|getservbyport_r)$' \
		"$BATS_TEST_TMPDIR/syms"
	assert_failure 1
}
