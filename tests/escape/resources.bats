#!/usr/bin/env bats
# Resources a session can take from the host and keep: memory through its
# private /tmp and /dev/shm (tmpfs: RAM, unswappable without swap), and
# time, a session that outlives its terminal. Judged from outside: the
# sandbox's tmpfs seen through /proc/PID/root, the sandboxed process by
# its host pid.

load ../lib/common
load escape_helpers

setup() {
	esc_setup
}

teardown() {
	escape_cleanup
	common_teardown
}

# fill_tmp POLICY_OPTS...: in the sandbox, write 24 MiB into /tmp/fill and
# /dev/shm/fill, say what dd said, and wait (up to 20 s) for $WS/go;
# meanwhile the test looks at the files from outside. Sets FILL_PID (the
# sandboxed shell's host pid) and leaves dd's messages in $WS/dd.log.
fill_tmp() {
	(cd "$WS" && exec timeout --kill-after=5 40 "$WICKET" run "$@" -- sh -c '
		for d in /tmp /dev/shm; do
			dd if=/dev/zero of=$d/fill bs=1M count=24 2>&1 | grep -i -e "no space" -e copied
		done >dd.log
		echo "fill-'"$RND"'" >ready
		i=0; while [ ! -e go ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done' \
		>"$WS/.bg.log" 2>&1 3>&-) &
	BG_PID=$!
	track_pid "$BG_PID"
	wait_for test -s "$WS/ready"
	FILL_PID=$(pid_of_comm sh "fill-$RND")
	[ -n "$FILL_PID" ]
}

# host_view_size PATH: the size in bytes of PATH inside the session, seen
# from the host through /proc/FILL_PID/root.
host_view_size() { stat -c %s "/proc/$FILL_PID/root$1"; }

@test "resources: filesystem.tmp_size limits the private /tmp and /dev/shm (ENOSPC inside; from outside, no more than the limit)" {
	printf '{"extends": "workspace-write", "filesystem": {"tmp_size": "4m"}}\n' >"$OUT/small.json"
	fill_tmp --policy "$OUT/small.json"
	cat "$WS/dd.log"
	local t s
	t=$(host_view_size /tmp/fill)
	s=$(host_view_size /dev/shm/fill)
	echo "seen from outside: /tmp/fill $t bytes, /dev/shm/fill $s bytes"
	touch "$WS/go"
	[ "$t" -le $((4 * 1024 * 1024)) ]
	[ "$s" -le $((4 * 1024 * 1024)) ]
	[ "$(grep -ci 'no space' "$WS/dd.log")" = 2 ]
	wait "$BG_PID"
}

@test "resources: by default /tmp and /dev/shm are each limited to a quarter of RAM" {
	fill_tmp
	local mem want t s f
	mem=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
	mem=$((mem * 1024))
	want=$((mem / 4))
	t=$(stat -f -c '%b * %S' "/proc/$FILL_PID/root/tmp")
	s=$(stat -f -c '%b * %S' "/proc/$FILL_PID/root/dev/shm")
	t=$((t)) s=$((s))
	f=$(host_view_size /tmp/fill)
	echo "RAM $mem; limits seen from outside: /tmp $t, /dev/shm $s (want about $want); /tmp/fill $f"
	cat "$WS/dd.log"
	touch "$WS/go"
	# tmpfs rounds the size to whole pages.
	[ "$t" -le $((want + 4096)) ]
	[ "$t" -ge $((want - 4096)) ]
	[ "$s" -le $((want + 4096)) ]
	[ "$s" -ge $((want - 4096)) ]
	# A build's 24 MiB fit.
	[ "$f" = $((24 * 1024 * 1024)) ]
	wait "$BG_PID"
}

@test "resources: a bad tmp_size is refused with exit 125 and the key named" {
	local v
	for v in '"0"' '"-1"' '"4x"' '"101%"' '"1.5g"' '4096' '""' '"99999999999999g"'; do
		printf '{"extends": "workspace-write", "filesystem": {"tmp_size": %s}}\n' "$v" >"$OUT/bad.json"
		run bash -c 'cd "$1" && timeout 30 "$2" run --policy "$3" -- true' _ "$WS" "$WICKET" "$OUT/bad.json"
		echo "$v: $status $output"
		[ "$status" = 125 ]
		[[ "$output" == *"/filesystem/tmp_size"* ]]
	done
}

# hangup HOW: wicket runs, started HOW on a pty this test holds (the
# user's terminal), a command that ignores SIGHUP (and SIGTERM with
# HOW=*-term) and would run for a minute; the test closes its end of the
# terminal, as a terminal emulator does when its window closes. Judged
# from outside: the sandboxed process (by its host pid) and wicket are
# gone, within a bounded wait.
hangup() {
	PYTHONPATH=$BATS_TEST_DIRNAME/../lib bounded 60 "$PY" - "$1" "$WICKET" "$WS" <<'EOF'
import os, random, sys, time
from ptydrive import Term, check, run, wait_running
how, wicket, ws = sys.argv[1:4]
ignore = "HUP TERM" if how.endswith("-term") else "HUP"
sleep = "sleep 60.%05d" % random.randrange(100000)
wk = [wicket, "run", "-C", ws, "--", "sh", "-c", "trap '' %s; exec %s" % (ignore, sleep)]
progs = {
    "stdin": wk,  # wicket leads the terminal's session, all three on it
    "output": ["sh", "-c", 'exec "$@" </dev/null', "sh"] + wk,  # the pty only shows output
    "none": ["sh", "-c", 'exec "$@" </dev/null >/dev/null 2>&1', "sh"] + wk,  # no stream on the terminal
}
def gone(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True
def main():
    t = Term(progs[how.replace("-term", "")])
    sleeper = wait_running(sleep)
    print("sandboxed %s: host pid %d" % (sleep, sleeper))
    os.close(t.m)  # the terminal goes away
    end = time.time() + 30
    while time.time() < end and not (gone(sleeper) and t.poll() is not None):
        time.sleep(0.1)
    check(gone(sleeper), "the sandboxed command (pid %d) still runs after its terminal closed" % sleeper)
    check(t.poll() is not None, "wicket still runs after its terminal closed")
run(main)
EOF
}

@test "resources: the terminal closes (all three streams on it): a command ignoring SIGHUP is ended" {
	hangup stdin
}

@test "resources: the terminal closes (stdout and stderr on it): a command ignoring SIGHUP and SIGTERM is ended" {
	hangup output-term
}

@test "resources: the controlling terminal closes (no stream on it): a command ignoring SIGHUP is ended" {
	hangup none
}
