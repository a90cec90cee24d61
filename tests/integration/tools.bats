#!/usr/bin/env bats
# wicket(1) Network, "The tools agents run": in the default sandbox
# (network mode none) and in mode domains, a test suite's own server on
# the private loopback, headless Chromium, and what a build writes to its
# own /proc files work or fail quietly: no denial line where the sandbox
# refused nothing that could be granted. (That the host's loopback stays
# out of reach: tests/escape/loopback.bats.)

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	it_setup_home || return 1
	PY=/usr/bin/python3
	[ -x "$PY" ] || PY=$(command -v python3)
}

teardown() { it_teardown; }

@test "tools: a test's server on 127.0.0.1 and ::1 answers it, in mode none and domains, and nothing of it is said" {
	for mode in none domains; do
		run --separate-stderr wsrun "$WS" --net "$mode" -- "$PY" "$WICKET_SRCDIR/tests/lib/self_server.py" 0
		assert_success
		assert_output $'served: own 127.0.0.1\nraw: HTTP/1.0 200 OK\nserved: own ::1\nraw: HTTP/1.0 200 OK'
		# http.server asks the name of its address (getfqdn): where
		# /etc/hosts does not know ::1 that is a DNS lookup, refused
		# and said. Nothing else.
		! grep -v -e '^sandbox: network blocked: socket ipv[46]/udp (python3\[[0-9]*\])$' \
			-e '^sandbox: hint: in network mode domains ' \
			-e '^wicket: the sandbox blocked [0-9]* network use' <<<"$stderr"
	done
}

@test "tools: a connection out of the private loopback is refused and said, and so is a name lookup" {
	run --separate-stderr wsrun "$WS" -- "$PY" -c '
import socket
s = socket.socket()
try:
    s.connect(("192.0.2.1", 80))
except OSError as e:
    print("tcp", e.errno)
try:
    socket.getaddrinfo("wicket-test.invalid", 80)
except OSError as e:
    print("lookup failed")'
	assert_output $'tcp 101\nlookup failed'
	grep -q '^sandbox: network blocked: connect 192.0.2.1:80/tcp (python3\[[0-9]*\])$' <<<"$stderr"
	grep -q '^sandbox: network blocked: socket ipv[46]/udp (python3\[[0-9]*\])$' <<<"$stderr"
}

@test "tools: a write to the process's own /proc files fails quietly (oom_score_adj, clear_refs)" {
	run --separate-stderr wsrun "$WS" -- sh -c '
for f in /proc/self/oom_score_adj "/proc/$$/oom_score_adj" /proc/self/clear_refs; do
	if (echo 500 >"$f") 2>/dev/null; then echo "wrote $f"; else echo "refused"; fi
done'
	# Whatever the kernel answered, no line, no count.
	refute_output --partial "wrote /proc/self/clear_refs"
	[[ $stderr != *"sandbox:"* ]]
	[[ $stderr != *"wicket:"* ]]
	# A write outside the writable roots is still said.
	run --separate-stderr wsrun "$WS" -- sh -c 'echo x >"$1" 2>/dev/null; true' sh "$OUT/f"
	grep -q "^sandbox: write blocked: $OUT/f " <<<"$stderr"
}

@test "tools: headless Chromium renders a local page and runs its script" {
	local chromium
	chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome) ||
		skip "no chromium"
	cat >"$WS/page.html" <<'EOF'
<!doctype html><html><body><div id="out">static text</div>
<script>document.getElementById("out").textContent = "script wrote " + (6 * 7);</script>
</body></html>
EOF
	# Its own sandbox cannot nest in wicket's (wicket(1) Network):
	# --no-sandbox, and --no-zygote (the zygote learns its children's
	# pids from SCM_CREDENTIALS, which the supervisor's unix socket
	# mediation shows as its own where Landlock cannot decide unix
	# sockets). The profile in the workspace.
	run --separate-stderr bounded 120 sh -c 'cd "$1" && shift && exec "$@"' sh "$WS" \
		"$WICKET" run -- "$chromium" --headless --no-sandbox --no-zygote \
		--user-data-dir="$WS/profile" --dump-dom "file://$WS/page.html"
	assert_success
	assert_output --partial "script wrote 42"
	refute_output --partial "static text"
	# Nothing of /proc, no unix socket said.
	[[ $stderr != *"/proc/"* ]]
	[[ $stderr != *"unix:"* ]]
}
