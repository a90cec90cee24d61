#!/usr/bin/env bats
# The launcher's side of denial diagnostics: it injects the preload shim,
# passes the rules and a pipe, relays the lines to its own stderr (never
# the command's), and sums up at the end. Untrusted bytes on that pipe
# never reach the terminal as they are.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

teardown() { it_teardown; }

@test "a denial is explained once on wicket's stderr, not the command's, with a summary at the end" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr wsrun "$ws" -- sh -c 'touch /usr/wk-denied 2>/dev/null; echo x 2>/dev/null >/etc/hostname; echo out; exit 3'
	assert_equal "$status" 3
	assert_equal "$output" out
	assert_regex "$stderr" '^sandbox: write blocked: /usr/wk-denied \(create by touch\[[0-9]+\]\)
sandbox: write blocked: /etc/hostname \(open for writing by sh\[[0-9]+\]\)
wicket: the sandbox blocked 2 writes \(one line each above\)$'
}

@test "--no-diagnostics: the same output and status, and no line at all" {
	local ws a b
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr wsrun "$ws" -- sh -c 'touch /usr/wk-denied; cat /etc/hostname >/dev/null; echo "$LD_PRELOAD" | grep -c libwicket-preload; exit 4'
	a="$status|$output"
	assert_regex "$stderr" 'sandbox: write blocked: /usr/wk-denied'
	run --separate-stderr wsrun "$ws" --no-diagnostics -- sh -c 'touch /usr/wk-denied; cat /etc/hostname >/dev/null; echo "$LD_PRELOAD" | grep -c libwicket-preload; exit 4'
	b="$status|$output"
	assert_equal "$b" "4|0"
	assert_equal "${a%|*}" 4
	refute_regex "$stderr" 'sandbox:|the sandbox blocked'
	assert_regex "$stderr" "touch: cannot touch '/usr/wk-denied': Read-only file system"
}

@test "the caller's LD_PRELOAD is kept, the shim appended; WICKET_RULES describes the session" {
	local ws lib
	ws=$(mk_workspace)
	track "$ws"
	for lib in /lib/x86_64-linux-gnu/libm.so.6 /usr/lib/x86_64-linux-gnu/libm.so.6 /lib64/libm.so.6 ""; do
		[ -e "$lib" ] && break
	done
	[ -n "$lib" ]
	run --separate-stderr bash -c 'cd "$1" && LD_PRELOAD="$2" timeout --kill-after=5 60 "$3" run -- sh -c "echo \$LD_PRELOAD; printf \"%s\n\" \"\$WICKET_RULES\" | grep -E \"^(w|n) \""' _ "$ws" "$lib" "$WICKET"
	assert_equal "$status" 0
	assert_line --index 0 --regexp "^$lib:/.*libwicket-preload\.so$"
	assert_line "w $ws"
	assert_line "w /tmp"
	assert_line "n none"
}

@test "attack: bytes written to the diagnostics pipe from inside reach the terminal only as sanitised sandbox: lines" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr wsrun "$ws" -- "$PY" -c '
import os
fd = int(os.environ["WICKET_DIAG_FD"].split(":")[0])
def w(b):
    try:
        os.write(fd, b)
    except BlockingIOError:
        pass
w(b"not a sandbox line\n")
w(b"\x1b]0;pwned-title\x07sandbox: fake\n")
w(b"sandbox: write blocked: /x \x1b[2J\x1b]52;c;cHduZWQ=\x07 (evil)\n")
w(b"sandbox: " + b"A" * 5000 + b"\n")
w(b"sandbox: c1 \x9b2J \xc2\x9b2J \xc2\x9d0;t\xc2\x9c bidi \xe2\x80\xae| utf8 \xc3\xa9t\xc3\xa9 bad \xc3\n")
w(b"sandbox: partial without newline")
print("wrote")'
	assert_equal "$status" 0
	assert_equal "$output" wrote
	# Only lines that start with "sandbox: " pass; no escape byte survives;
	# the overlong line is dropped; the unterminated one never printed.
	refute_regex "$stderr" $'\x1b'
	refute_regex "$stderr" $'\x07'
	refute_regex "$stderr" 'not a sandbox line|pwned-title|partial'
	assert_regex "$stderr" '^sandbox: write blocked: /x \?\[2J\?\]52;c;cHduZWQ=\? \(evil\)'
	refute_regex "$stderr" 'AAAAAAAAAA'
	# C1 controls (raw or UTF-8 encoded) and bidi overrides become "?";
	# ordinary UTF-8 text (a file name) is kept.
	printf '%s\n' "$stderr" | grep -qxF 'sandbox: c1 ?2J ??2J ??0;t?? bidi ???| utf8 été bad ?'
	refute_regex "$stderr" $'\xc2\x9b|\x9b|\xe2\x80\xae'
}

@test "attack: a process that closed the diagnostics fd and reused its number never gets our lines in its own pipe" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	# close(2) by number: the shim pretends to close it for close() (see
	# tests/preload/fdguard.bats), and this is about the raw call it
	# cannot see.
	run --separate-stderr wsrun "$ws" -- "$PY" -c '
import ctypes, os, platform
n = int(os.environ["WICKET_DIAG_FD"].split(":")[0])
SYS_close = {"x86_64": 3, "aarch64": 57}[platform.machine()]
assert ctypes.CDLL(None).syscall(SYS_close, n) == 0
r, w = os.pipe()
os.dup2(w, n)
os.write(n, b"my-data\n")
try:
    open("/etc/hostname", "w")
except OSError:
    pass
os.close(n); os.close(w)
print(repr(os.read(r, 4096)))'
	assert_equal "$status" 0
	assert_equal "$output" "b'my-data\\n'"
	# The line went to the program's stderr instead.
	assert_regex "$stderr" 'sandbox: write blocked: /etc/hostname \(open for writing by python3\[[0-9]+\]\)'
}

@test "the supervisor does not spin when every writer has closed the diagnostics pipe (no pid namespace)" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	# The sandboxed program closes it with close(2) by number: the shim
	# keeps it through close() (tests/preload/fdguard.bats).
	run --separate-stderr bash -c 'cd "$1" && WICKET_PRETEND_MISSING=namespaces timeout --kill-after=5 60 "$2" -c "
import resource, subprocess, sys
subprocess.run([sys.argv[1], \"run\", \"--best-effort\", \"--\", sys.executable, \"-c\",
                \"import ctypes, os, platform, time; \"
                \"ctypes.CDLL(None).syscall({\\\"x86_64\\\": 3, \\\"aarch64\\\": 57}[platform.machine()], \"
                \"int(os.environ[\\\"WICKET_DIAG_FD\\\"].split(\\\":\\\")[0])); time.sleep(2)\"])
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(\"cpu-ok\" if u.ru_utime + u.ru_stime < 1.0 else \"spun %.2f\" % (u.ru_utime + u.ru_stime))
" "$3"' _ "$ws" "$PY" "$WICKET"
	assert_equal "$status" 0
	assert_output cpu-ok
}

@test "attack: a full diagnostics pipe never blocks the sandboxed program" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	# 4 MiB into a pipe of 64 KiB that the supervisor drains as it can:
	# every write either goes through or fails with EAGAIN, in bounded time.
	run --separate-stderr wsrun "$ws" -- "$PY" -c '
import os, time
fd = int(os.environ["WICKET_DIAG_FD"].split(":")[0])
t = time.time(); again = 0
for i in range(4096):
    try:
        os.write(fd, b"x" * 1023 + b"\n")
    except BlockingIOError:
        again += 1
print("done", time.time() - t < 20)'
	assert_equal "$status" 0
	assert_equal "$output" "done True"
}

@test "a child of Python's subprocess (which closes inherited descriptors) is explained on wicket's stderr, not its own" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr wsrun "$ws" -- "$PY" -c '
import subprocess
r = subprocess.run(["touch", "/usr/wk-sub"], stderr=subprocess.PIPE)
print(r.returncode)
print(r.stderr.decode(), end="")'
	assert_equal "$status" 0
	assert_line --index 0 1
	refute_output --partial 'sandbox:'
	printf '%s\n' "$stderr" | grep -qxE 'sandbox: write blocked: /usr/wk-sub \(create by touch\[[0-9]+\]\)'
}
