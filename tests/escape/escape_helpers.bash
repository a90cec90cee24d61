# shellcheck shell=bash
# Variables set here are read by the .bats files (SC2034); the inline
# programs are single-quoted on purpose (SC2016).
# shellcheck disable=SC2034,SC2016
# Helpers for the adversarial escape suite. Every file does:
#   load ../lib/common
#   load escape_helpers
#   teardown() { escape_cleanup; common_teardown; }
#
# The rule of the suite: an attack is judged by its effect outside the
# sandbox (a file on the real filesystem, a host process, a listener, a
# host-side reader of the terminal), never by what the attacking program
# says about itself. Where it is cheap, the same attack is first shown to
# work without the sandbox, so a broken attack cannot pass as "blocked".

# The denial explanations (the preload shim, loaded as in any session) are
# silenced: attacks are judged by effects, and the lines would interleave
# with what the probes print. tests/preload and tests/integration check them.
export WICKET_DIAG=off

# A python3 at the same path inside and outside the sandbox (a pyenv shim
# under $HOME would not be).
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
else
	PY=$(command -v python3 || echo python3)
fi

_ESC_PIDS=()
_ESC_DIRS=()
_ESC_SHM=()
_ESC_MSG=()
_ESC_SEM=()
_ESC_MQ=()
_ESC_RESTORE=()

# probe NAME: path of a C probe (built by make check).
probe() { printf '%s\n' "$WICKET_TEST_BINDIR/escape/probes/$1"; }

# need_probe NAME...: fail (never skip) when a probe was not built.
need_probe() {
	local n
	for n in "$@"; do
		if [ ! -x "$(probe "$n")" ]; then
			echo "probe $n not built: run 'make check' or 'make tests/escape/probes/$n'" >&2
			return 1
		fi
	done
}

# mkout VAR / mkws VAR: mk_outside / mk_workspace into VAR, without a
# command substitution; escape_cleanup removes the directory as well.
mkout() {
	local _mkout_dir
	_mkout_dir=$(mk_outside) || return 1
	_ESC_DIRS+=("$_mkout_dir")
	printf -v "$1" '%s' "$_mkout_dir"
}
mkws() {
	local _mkws_dir
	_mkws_dir=$(mk_workspace) || return 1
	_ESC_DIRS+=("$_mkws_dir")
	printf -v "$1" '%s' "$_mkws_dir"
}

# esc_setup: WS (workspace) and OUT (a directory outside it, with a file
# "f" holding "original") for the test; RND a random marker.
esc_setup() {
	local scratch
	mkws WS
	mkout OUT
	RND="wk$$x${RANDOM}${RANDOM}"
	printf 'original\n' >"$OUT/f"
	chmod 644 "$OUT/f"
	# A scratch current directory: nothing an unsandboxed sanity check
	# writes by a relative path lands in the source tree.
	mkout scratch
	cd "$scratch" || return 1
}

# sbx_opts OPTS... -- CMD...: run CMD in the sandbox (wicket run OPTS)
# with $WS as the workspace, bounded to 30 s. Like bats' `run`, it sets
# $output (stdout and stderr) and $status (CMD's exit status), and returns
# 0 whatever CMD did -- but it fails the test when the sandbox did not
# start the command inside a pid namespace of its own, so that an attack can
# never "fail" only because wicket or the probe never ran.
sbx_opts() {
	local opts=() rc=0
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	output=$(cd "$WS" && bounded 30 "$WICKET" run "${opts[@]}" -- \
		/bin/sh -c 'echo "wicket-escape: started as pid $$"; exec "$@"' sh "$@" 2>&1) || rc=$?
	status=$rc
	# bats-assert's assert_line reads $lines.
	mapfile -t lines <<<"$output"
	printf '%s\n' "$output"
	sandbox_started "$output" && return 0
	echo "the sandbox did not start the command (exit $rc)"
	return 1
}

# sandbox_started TEXT: TEXT has the line a sandboxed command prints first
# (wicket-escape: started as pid $$) with a small pid: the command ran,
# inside a pid namespace of its own.
sandbox_started() { printf '%s\n' "$1" | grep -qx 'wicket-escape: started as pid [2-9]'; }

# sbx CMD...: sbx_opts with no options.
sbx() { sbx_opts -- "$@"; }

# track_pid PID: kill PID (which this test started) in the cleanup.
track_pid() { _ESC_PIDS+=("$1"); }

# track_dir DIR: remove DIR (made by this test, not by mkout or mkws).
track_dir() { _ESC_DIRS+=("$1"); }

# on_cleanup_restore FILE VALUE: write VALUE back to FILE in the cleanup
# if it changed (for host state an escape would have altered).
on_cleanup_restore() { _ESC_RESTORE+=("$1" "$2"); }

track_shm() { _ESC_SHM+=("$1"); }
track_msg() { _ESC_MSG+=("$1"); }
track_sem() { _ESC_SEM+=("$1"); }
track_mq() { _ESC_MQ+=("$1"); }

escape_cleanup() {
	local i p ipc
	for p in "${_ESC_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null || true
	done
	for p in "${_ESC_PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	ipc=$(probe ipcprobe)
	for p in "${_ESC_SHM[@]}"; do "$ipc" shm-rm "$p" >/dev/null 2>&1 || true; done
	for p in "${_ESC_MSG[@]}"; do "$ipc" msg-rm "$p" >/dev/null 2>&1 || true; done
	for p in "${_ESC_SEM[@]}"; do "$ipc" sem-rm "$p" >/dev/null 2>&1 || true; done
	for p in "${_ESC_MQ[@]}"; do "$ipc" mq-rm "$p" >/dev/null 2>&1 || true; done
	for ((i = 0; i + 1 < ${#_ESC_RESTORE[@]}; i += 2)); do
		if [ "$(cat "${_ESC_RESTORE[i]}" 2>/dev/null)" != "${_ESC_RESTORE[i + 1]}" ]; then
			printf '%s\n' "${_ESC_RESTORE[i + 1]}" >"${_ESC_RESTORE[i]}" 2>/dev/null || true
		fi
	done
	for p in "${_ESC_DIRS[@]}"; do
		[ -n "$p" ] && rm -rf -- "$p"
	done
	_ESC_PIDS=() _ESC_DIRS=() _ESC_SHM=() _ESC_MSG=() _ESC_SEM=() _ESC_MQ=() _ESC_RESTORE=()
}

# wait_for COND_CMD...: poll up to 5 s (50 x 0.1 s) until the command succeeds.
wait_for() {
	local i
	for ((i = 0; i < 50; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# marked_running PATTERN: some process matches now (re-evaluated on every
# poll of wait_for, unlike a "$(...)" in its arguments).
marked_running() { [ -n "$(proc_pids_matching "$1")" ]; }

# alive PID: the process exists and is not a zombie.
alive() {
	local st
	[ -r "/proc/$1/stat" ] || return 1
	st=$(sed 's/^.*) //' "/proc/$1/stat" | cut -d' ' -f1)
	[ "$st" != Z ] && [ "$st" != X ]
}

# start_host_sleep: a host process this test owns; sets HOST_PID.
start_host_sleep() {
	sleep 60 >/dev/null 2>&1 3>&- &
	HOST_PID=$!
	track_pid "$HOST_PID"
}

# start_victim SECRET: a host process holding SECRET in memory (memprobe
# victim); sets VICTIM_PID, VICTIM_ADDR, VICTIM_FILE.
start_victim() {
	local vd
	mkout vd
	VICTIM_FILE=$vd/victim
	"$(probe memprobe)" victim "$VICTIM_FILE" "$1" 40 >/dev/null 2>&1 3>&- &
	VICTIM_PID=$!
	track_pid "$VICTIM_PID"
	wait_for test -s "$VICTIM_FILE" || return 1
	VICTIM_ADDR=$(cat "$VICTIM_FILE")
}

# victim_memory: what the victim holds now (it dumps on SIGUSR1).
victim_memory() {
	rm -f "$VICTIM_FILE.dump"
	kill -USR1 "$VICTIM_PID" || return 1
	wait_for test -s "$VICTIM_FILE.dump" || return 1
	cat "$VICTIM_FILE.dump"
}

# listen KIND ADDR: a python listener on the host, 127.0.0.1 only, that
# logs every connection or datagram to LISTEN_LOG and exits by itself
# after 40 s. KIND: tcp | udp (ADDR ignored, port chosen by the kernel) |
# unix (ADDR: socket path) | unix-dgram (ADDR: path of a datagram
# socket) | abstract (ADDR: abstract name). Sets
# LISTEN_ADDR (the port for tcp/udp, else ADDR) and LISTEN_LOG.
listen() {
	local kind=$1 addr=${2:-} d
	mkout d
	LISTEN_LOG=$d/log
	"$PY" - "$kind" "$addr" "$LISTEN_LOG" "$d/ready" 40 >/dev/null 2>&1 3>&- <<'EOF' &
import os, select, socket, sys, time
kind, addr, log, ready, secs = sys.argv[1:6]
def note(s):
    with open(log, "a") as f:
        f.write(s + "\n")
open(log, "w").close()
if kind in ("tcp", "udp"):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM if kind == "tcp" else socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    name = str(s.getsockname()[1])
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM if kind == "unix-dgram" else socket.SOCK_STREAM)
    s.bind("\0" + addr if kind == "abstract" else addr)
    if kind != "abstract":
        os.chmod(addr, 0o777)
    name = addr
if kind not in ("udp", "unix-dgram"):
    s.listen(16)
with open(ready + ".tmp", "w") as f:
    f.write(name)
os.rename(ready + ".tmp", ready)
end = time.time() + float(secs)
while time.time() < end:
    r, _, _ = select.select([s], [], [], 0.2)
    if not r:
        continue
    if kind in ("udp", "unix-dgram"):
        data, _ = s.recvfrom(4096)
        note("DATA " + data.decode(errors="replace"))
        continue
    c, _ = s.accept()
    note("CONNECT")
    c.settimeout(1)
    try:
        note("DATA " + c.recv(4096).decode(errors="replace"))
    except OSError:
        pass
    c.close()
EOF
	track_pid $!
	wait_for test -s "$d/ready" || return 1
	LISTEN_ADDR=$(cat "$d/ready")
}

# A client for the listeners, run inside (or, for the sanity check,
# outside) the sandbox: $PY -c "$NET_CLIENT" KIND ADDR MESSAGE.
# KIND: tcp udp unix abstract raw-udp. Prints "KIND: OK" or "KIND: ERRNAME".
NET_CLIENT='
import errno, socket, struct, sys
kind, addr, msg = sys.argv[1:4]
data = msg.encode()
try:
    if kind == "tcp":
        s = socket.create_connection(("127.0.0.1", int(addr)), timeout=3)
        s.sendall(data)
    elif kind == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(data, ("127.0.0.1", int(addr)))
    elif kind in ("unix", "abstract"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(3)
        s.connect("\0" + addr if kind == "abstract" else addr)
        s.sendall(data)
    elif kind == "raw-udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
        s.sendto(struct.pack("!HHHH", 40000, int(addr), 8 + len(data), 0) + data, ("127.0.0.1", 0))
    print(kind + ": OK")
except OSError as e:
    print(kind + ": " + errno.errorcode.get(e.errno or 0, str(e)))
    sys.exit(1)
'

# listener_heard: the listener logged anything (a connection or data).
listener_heard() { sleep 0.3; [ -s "$LISTEN_LOG" ]; }

# pty_run SECS CMD...: run CMD as the session leader on a fresh pty that
# this test controls (python's pty.fork), draining the master side; the
# exit status is CMD's (124 on timeout).
pty_run() {
	"$PY" - "$@" 3>&- <<'EOF'
import os, pty, select, sys, time
secs = float(sys.argv[1])
argv = sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
end = time.time() + secs
status = None
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.1)
    if r:
        try:
            d = os.read(fd, 4096)
        except OSError:
            d = b""
        if d:
            sys.stdout.buffer.write(d)
            sys.stdout.flush()
    p, st = os.waitpid(pid, os.WNOHANG)
    if p:
        status = st
        # What it wrote just before it ended is still in the pty: read
        # to the end (EIO once no one holds the other side).
        while select.select([fd], [], [], 0.5)[0]:
            try:
                d = os.read(fd, 4096)
            except OSError:
                break
            if not d:
                break
            sys.stdout.buffer.write(d)
            sys.stdout.flush()
        break
if status is None:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    sys.exit(124)
sys.exit(os.waitstatus_to_exitcode(status) & 0xff)
EOF
}

# tty_inject_outcome MARKER CMD...: on a fresh pty, run CMD, then let the
# outer shell read one line from the terminal for up to 1 s, as an
# interactive shell would once the sandbox is gone. MARKER receives
# "GOT=[line]": what keystroke injection from CMD would have typed.
tty_inject_outcome() {
	local marker=$1
	shift
	pty_run 25 bash -c '
		m=$1; shift
		"$@" </dev/tty >/dev/null 2>&1
		line=
		IFS= read -r -t 1 line
		printf "GOT=[%s]\n" "$line" >"$m"' _ "$marker" "$@" >/dev/null
}

# proc_pids_matching TEXT: host pids whose command line contains TEXT
# (a fixed string: a unique marker of the test).
proc_pids_matching() {
	pgrep -f -- "$(printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g')" || true
}

# kill_matching PATTERN: kill processes this test started that carry the
# test's unique PATTERN in argv (only for leftovers of a failed test).
kill_matching() {
	local p
	for p in $(proc_pids_matching "$1"); do
		kill -9 "$p" 2>/dev/null || true
	done
}

# status_field PID FIELD: a line's value from /proc/PID/status.
status_field() { awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ /, ""); print; exit }' "/proc/$1/status" 2>/dev/null; }

# meta_of PATH: mode, owner, group, mtime, ctime, size, links of PATH, for
# before/after comparisons of metadata.
meta_of() { stat -c '%a %u %g %y %z %s %h' -- "$1"; }

# sbx_bg CMD...: start the sandbox in the background (workspace $WS);
# sets BG_PID (the supervisor). Its output goes to $WS/.bg.log.
sbx_bg() {
	(cd "$WS" && exec timeout --kill-after=5 30 "$WICKET" run -- "$@" >"$WS/.bg.log" 2>&1 3>&-) &
	BG_PID=$!
	track_pid "$BG_PID"
}

# pid_of_comm COMM MARK: the host pid of the process named COMM whose
# command line contains MARK (waits up to 5 s).
pid_of_comm() {
	local p i
	for ((i = 0; i < 50; i++)); do
		for p in $(proc_pids_matching "$2"); do
			if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$1" ]; then
				printf '%s\n' "$p"
				return 0
			fi
		done
		sleep 0.1
	done
	return 1
}

# ask_setup: for `wicket ask` tests, a workspace WS, a directory outside
# OUT, and the sessions' state under OUT (the audit log: AUDIT).
ask_setup() {
	WS=$(mk_workspace) && OUT=$(mk_outside) || return 1
	export XDG_STATE_HOME=$OUT/state
	AUDIT=$XDG_STATE_HOME/wicket/audit.jsonl
	export WS OUT WICKET PY AUDIT
}

# not_pwned WHAT: fails, saying WHAT escaped, when $PWNED (a file a
# planted command makes outside) exists.
not_pwned() {
	if [ -e "$PWNED" ]; then
		echo "ESCAPE: $1"
		false
	fi
}

# aged: what the test made is older than the next session's start by more
# than the margin the end-of-session check gives ctime's coarse clock
# (20 ms; autorun.c, NEST_MARGIN_NS), so it is taken for the user's: an
# age, not a wait for anything.
aged() { sleep 0.1; }

# linked_bashrc HOME [DIR]: HOME/.bashrc leads through the link $WS/link
# to $OUT/elsewhere, a harmless file outside the roots; bash_outside is
# the user's next interactive bash with that HOME (started in DIR when
# given), checked once to run what the .bashrc leads to. Then aged.
linked_bashrc() {
	LB_HOME=$1 LB_DIR=${2:-$PWD}
	mkdir -p "$LB_HOME" "$LB_DIR"
	printf ': elsewhere\n' >"$OUT/elsewhere"
	ln -s "$OUT/elsewhere" "$WS/link"
	ln -s "$WS/link" "$LB_HOME/.bashrc"
	bash_outside() {
		(cd "$LB_DIR" && env -i PATH=/usr/bin:/bin HOME="$LB_HOME" bash -i -c true \
			</dev/null >/dev/null 2>&1) || true
	}
	echo "touch '$PWNED'" >"$OUT/elsewhere"
	bash_outside
	[ -e "$PWNED" ] || return 1
	rm -f "$PWNED"
	printf ': elsewhere\n' >"$OUT/elsewhere"
	aged
}

# The set-up of a file whose tests judge what a session leaves planted:
# $PWNED, a file outside that only the planted code would make, and a
# state directory of the test's own.
esc_planted_setup() {
	esc_setup
	PWNED=$OUT/pwned
	export XDG_STATE_HOME=$OUT/state
}

# absent_policy: $OUT/absent.json, a policy that protects $WS/sub/x, a
# path missing at the start.
absent_policy() {
	printf '{"extends": "workspace-write", "filesystem": {"protect": ["%s/sub/x"]}}\n' "$WS" \
		>"$OUT/absent.json"
}

# gone_from_proj PATH WHAT: fails, saying WHAT stayed, when PATH is there
# for a program started in $WS/proj (where a way through /proc/self/cwd
# leads to what the session planted there).
gone_from_proj() {
	if (cd "$WS/proj" && [ -e "$1" ]); then
		echo "ESCAPE: $2 stayed"
		false
	fi
}
