# shellcheck shell=bash
# Helpers of the integration suite. Load after ../lib/common:
#   load ../lib/common
#   load integration_helpers

# The system python: fast to start, and the same program inside and outside
# the sandbox (a pyenv shim in PATH would be a shell script that may want
# to write under ~/.pyenv).
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
else
	PY=$(command -v python3)
fi

# Processes a test started in the background (pids), stopped by
# stop_started; each test's teardown calls it.
_WK_STARTED=()

# stop_started: TERM, then KILL, the background processes this test
# started (by pid only).
stop_started() {
	local p i
	for p in "${_WK_STARTED[@]}"; do
		kill -TERM "$p" 2>/dev/null || continue
		for i in $(seq 1 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	_WK_STARTED=()
}

# track DIR...: remove DIR in teardown. mk_workspace and mk_outside are
# called as $(mk_...), in a subshell, where their own registration in
# _WK_CLEANUP is lost; this registers the result in the test's shell.
track() { _WK_CLEANUP+=("$@"); }

# A name no one else uses, for probes aimed at places outside the sandbox
# (the host's /tmp, /dev, /etc ...). Should a regression let a probe
# through, guard_path makes teardown remove what it created, so a broken
# launcher cannot leave litter on the machine.
new_token() { printf 'wicket-it-%s-%s\n' "$$" "$RANDOM$RANDOM"; }
_WK_GUARD=()
guard_path() { _WK_GUARD+=("$@"); }

# it_setup_ws: WS (a workspace) and OUT (a directory outside it), removed
# in teardown, and a state directory of the test's own under OUT.
it_setup_ws() {
	WS=$(mk_workspace) && OUT=$(mk_outside) || return 1
	track "$WS" "$OUT"
	export XDG_STATE_HOME=$OUT/state
}

# it_setup_home: it_setup_ws, and a HOME and XDG_CONFIG_HOME of the
# test's own under OUT (the user configuration, the secret stores).
it_setup_home() {
	it_setup_ws || return 1
	export HOME=$OUT/home XDG_CONFIG_HOME=$OUT/config
	mkdir -p "$HOME"
}

# it_teardown: the teardown of every integration file.
it_teardown() {
	local p
	stop_started
	for p in "${_WK_GUARD[@]}"; do
		case ${p##*/} in
		*wicket-it-*) rm -rf -- "$p" 2>/dev/null || true ;;
		esac
	done
	_WK_GUARD=()
	common_teardown
}

# mk_tmp_workspace: a workspace under /tmp (where the sandbox mounts its
# private tmpfs), canonical. $BATS_TEST_TMPDIR when it is under /tmp.
mk_tmp_workspace() {
	local d
	if [[ ${BATS_TEST_TMPDIR:-} == /tmp/* ]]; then
		d=$(mktemp -d "$BATS_TEST_TMPDIR/ws.XXXXXX") || return 1
	else
		d=$(mktemp -d /tmp/wicket-ws.XXXXXX) || return 1
		_WK_CLEANUP+=("$d")
	fi
	chmod 755 "$d"
	realpath "$d"
}

# one_wicket_line: assert that $stderr (run --separate-stderr) is exactly
# one line and that it starts with "wicket:".
one_wicket_line() {
	# stderr and stderr_lines are set by bats' run --separate-stderr.
	# shellcheck disable=SC2154
	if [ "${#stderr_lines[@]}" -ne 1 ]; then
		printf 'expected exactly one line on stderr, got %d:\n%s\n' \
			"${#stderr_lines[@]}" "$stderr" >&2
		return 1
	fi
	if [[ ${stderr_lines[0]} != wicket:* ]]; then
		printf 'stderr does not start with "wicket:": %s\n' "$stderr" >&2
		return 1
	fi
}

# file_state PATH: content hash, mode, owner, mtime and user xattrs of PATH
# on the real filesystem, to compare before and after a session.
file_state() {
	"$PY" - "$1" <<'EOF'
import hashlib, os, sys
p = sys.argv[1]
st = os.lstat(p)
h = ""
if os.path.isfile(p):
    with open(p, "rb") as f:
        h = hashlib.sha256(f.read()).hexdigest()
try:
    xa = sorted((n, os.getxattr(p, n, follow_symlinks=False)) for n in os.listxattr(p, follow_symlinks=False))
except OSError:
    xa = []
print(h, oct(st.st_mode), st.st_uid, st.st_gid, st.st_mtime_ns, xa)
EOF
}

# with_signal SIG READYFILE CMD...: start CMD with default signal
# dispositions (a background job of a non-interactive shell would ignore
# SIGINT and SIGQUIT, and that is inherited), wait until READYFILE exists,
# send SIG to CMD's pid, and print how CMD ended: "exit N" (a normal exit
# with status N) or "signal N" (CMD itself was killed by signal N).
# Bounded: 20 s for READYFILE, 20 s for the exit after the signal.
with_signal() {
	bounded 60 "$PY" - "$@" 3>&- <<'EOF'
import os, signal, subprocess, sys, time
sig = getattr(signal, "SIG" + sys.argv[1])
ready, cmd = sys.argv[2], sys.argv[3:]
def dfl():
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP,
              signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM, signal.SIGPIPE):
        signal.signal(s, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
p = subprocess.Popen(cmd, preexec_fn=dfl, stdin=subprocess.DEVNULL)
deadline = time.monotonic() + 20
while not os.path.exists(ready):
    if p.poll() is not None:
        print("early-exit %d" % p.returncode)
        sys.exit(0)
    if time.monotonic() > deadline:
        p.kill(); p.wait()
        print("never-ready")
        sys.exit(0)
    time.sleep(0.05)
p.send_signal(sig)
try:
    rc = p.wait(timeout=20)
except subprocess.TimeoutExpired:
    p.kill(); p.wait()
    print("still-running-20s-after-signal")
    sys.exit(0)
print("signal %d" % -rc if rc < 0 else "exit %d" % rc)
EOF
}

# listener_start DIR: a TCP listener on 127.0.0.1 (ephemeral port, written
# to DIR/port) that appends what each connection sends to DIR/got. Ends by
# itself after 60 s; stopped by stop_started in teardown.
listener_start() {
	local dir=$1
	# timeout itself (not the bounded function, which would run in a
	# subshell): $! must be the pid that stop_started signals.
	timeout --kill-after=5 70 "$PY" - "$dir" >/dev/null 2>"$dir/listener.err" 3>&- <<'EOF' &
import os, socket, sys, time
d = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 0))
s.listen(8)
s.settimeout(0.5)
with open(d + "/port.tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(d + "/port.tmp", d + "/port")
end = time.monotonic() + 60
while time.monotonic() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    c.settimeout(5)
    data = b""
    try:
        while True:
            b = c.recv(4096)
            if not b:
                break
            data += b
    except socket.timeout:
        pass
    c.close()
    with open(d + "/got", "ab") as f:
        f.write(data + b"\n")
EOF
	_WK_STARTED+=("$!")
	wait_for_file "$dir/port" 100
}

# tcp_send PORT TOKEN: connect to 127.0.0.1:PORT, send TOKEN (5 s timeout).
# Written out so the same code runs inside and outside the sandbox.
# Used by the .bats files that load this helper.
# shellcheck disable=SC2034
TCP_SEND='import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(sys.argv[2].encode())
s.close()
print("connected")'

# wsrun WS ARGS...: `wicket run ARGS...` in WS, like in_ws, but bounded
# (60 s) so a hanging session fails its test instead of the suite.
wsrun() {
	local ws=$1
	shift
	(cd "$ws" && bounded 60 "$WICKET" run "$@")
}

# wkb ARGS...: the launcher, bounded (60 s).
wkb() { bounded 60 "$WICKET" "$@"; }
