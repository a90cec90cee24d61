#!/usr/bin/env bats
# Keystroke injection into the terminal the sandbox was started from
# (TIOCSTI): what the sandbox pushes into the input queue would be read,
# and run, by the user's shell once the sandbox is gone. The test makes a
# fresh pty of its own, runs the attack on it, and then lets the outer
# shell read from the terminal: the injected line must not arrive.
# The filter compares the ioctl request on its low 32 bits (the kernel
# ignores the rest), so the high-bits variants must be refused as well.

load ../lib/common
load escape_helpers

setup() {
	need_probe tiocsti compat
	esc_setup
	TI=$(probe tiocsti)
	if [ -r /proc/sys/dev/tty/legacy_tiocsti ] && [ "$(cat /proc/sys/dev/tty/legacy_tiocsti)" = 0 ] && ! is_root; then
		skip "TIOCSTI is disabled on this kernel (dev.tty.legacy_tiocsti=0)"
	fi
}

teardown() {
	escape_cleanup
	common_teardown
}

# inject_check CMD...: CMD injects "wkinj<RND>\n"; the outer shell must
# not read it. Shown first to work without the sandbox.
inject_check() {
	local m=$OUT/sanity m2=$OUT/outer
	tty_inject_outcome "$m" "$@"
	[ "$(cat "$m")" = "GOT=[wkinj$RND]" ] || {
		echo "the attack does not work even without the sandbox: $(cat "$m" 2>/dev/null)"
		return 1
	}
	rm -f "$WS/ran"
	tty_inject_outcome "$m2" "$WICKET" run -C "$WS" -- sh -c 'echo ran >ran; exec "$@"' sh "$@"
	echo "outer shell: $(cat "$m2")"
	[ -e "$WS/ran" ]
	[ "$(cat "$m2")" = "GOT=[]" ]
}

@test "tty: TIOCSTI (0x5412) on standard input" {
	inject_check "$TI" 0x5412 "wkinj$RND
"
}

@test "tty: TIOCSTI with the high bits of the request set (0xffffffff00005412)" {
	inject_check "$TI" 0xffffffff00005412 "wkinj$RND
"
}

@test "tty: TIOCSTI with high bits through a fresh /dev/tty descriptor (0x0000000100005412)" {
	inject_check "$TI" 0x0000000100005412 "wkinj$RND
" /dev/tty
}

@test "tty: TIOCSTI through the i386 entry point (int 0x80)" {
	"$(probe compat)" i386-getpid >/dev/null || skip "this kernel has no i386 entry point (IA32 emulation off)"
	inject_check "$(probe compat)" i386-tiocsti "wkinj$RND
"
}

@test "tty: without the seccomp filter (--best-effort), TIOCSTI lands on the sandbox's own pty, not on the terminal it was started from" {
	# The filter refuses TIOCSTI outright; the second wall is that the
	# command's terminal is a pty of its own. With the filter pretended
	# missing the injection succeeds -- into that pty, which the outer
	# shell never reads.
	rm -f "$WS/result"
	tty_inject_outcome "$OUT/outer" env WICKET_PRETEND_MISSING=seccomp "$WICKET" run --best-effort \
		-C "$WS" -- sh -c '"$1" 0x5412 "$2" >result' sh "$TI" "wkinj$RND
"
	echo "inside: $(cat "$WS/result"); outer shell: $(cat "$OUT/outer")"
	[ "$(cat "$WS/result")" = "tiocsti: OK" ]
	[ "$(cat "$OUT/outer")" = "GOT=[]" ]
}

@test "tty: the terminal wicket runs on cannot be opened from inside: its /dev/pts/N, /proc/self/fd/0, /dev/tty lead to the sandbox's own pty" {
	# A terminal is told by its devpts instance and device number, and by
	# its window size: the sandbox gives its own pty a size of 7x33 first
	# (the outer one is 24x80). /dev/tty is a node of its own, so only
	# the size tells where it leads.
	run pty_run 30 bash -c '
		stty rows 24 cols 80
		outer=$(tty)
		echo "outer $outer $(stat -L -c %d:%t:%T "$outer")"
		"$1" run -C "$2" -- sh -c "
			stty rows 7 cols 33
			for p in \"\$0\" /proc/self/fd/0 /dev/tty /dev/stdin; do
				( exec 3>\"\$p\" &&
				  echo \"opened \$p \$(stat -L -c %d:%t:%T /proc/self/fd/3) size \$(stty size <&3)\" ) 2>/dev/null ||
					echo \"refused \$p\"
			done" "$outer"
		echo "outer size $(stty size)"' _ "$WICKET" "$WS"
	echo "$output"
	local out=$output outer_id
	outer_id=$(awk '$1 == "outer" && $2 != "size" { print $3 }' <<<"$out" | tr -d '\r')
	[ -n "$outer_id" ]
	[ "$(grep -cE '^(opened|refused) ' <<<"$out")" = 4 ]
	run grep -F " $outer_id " <<<"$(grep -E '^opened ' <<<"$out")"
	[ "$status" = 1 ]
	[ "$(grep -E '^opened ' <<<"$out" | grep -cv ' size 7 33')" = 0 ]
	grep -q '^outer size 24 80' <<<"$out"
}

@test "tty: window size and modes set inside stay on the sandbox's pty (the real terminal keeps its own)" {
	run pty_run 30 bash -c '
		stty rows 24 cols 80
		before="$(stty -g) $(stty size)"
		"$1" run -C "$2" -- sh -c "stty rows 7 cols 33 intr ^X -echo; stty size"
		after="$(stty -g) $(stty size)"
		echo "before=$before"
		echo "after=$after"' _ "$WICKET" "$WS"
	echo "$output"
	grep -q "^7 33" <<<"$output"
	local before after
	before=$(sed -n 's/^before=//p' <<<"$output" | tr -d '\r')
	after=$(sed -n 's/^after=//p' <<<"$output" | tr -d '\r')
	[ -n "$before" ]
	[ "$before" = "$after" ]
}

@test "tty: TIOCLINUX (console games) is refused with EPERM, also with high bits" {
	# The request is only meaningful on a virtual console; on a pty the
	# kernel says ENOTTY/EINVAL. The filter's answer comes first: EPERM.
	run pty_run 20 "$WICKET" run -C "$WS" -- sh -c '"$1" 0x541c x; "$1" 0xffffffff0000541c x' _ "$TI"
	[ "$(grep -c 'tiocsti: EPERM' <<<"$output")" = 2 ]
}

@test "tty: writing to another terminal of the host (/dev/pts/N)" {
	# A pty of the host that is not the sandbox's own terminal: the
	# sandbox's /dev/pts is a new devpts instance, so the path leads
	# nowhere (or to a pty of the sandbox's own).
	"$PY" - "$OUT/pts" "$OUT/pts.log" >/dev/null 2>&1 3>&- <<'EOF' &
import os, pty, select, sys, time
m, s = pty.openpty()
name = os.ttyname(s)
os.chmod(name, 0o666)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(name)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
end = time.time() + 25
with open(sys.argv[2], "ab") as log:
    while time.time() < end:
        r, _, _ = select.select([m], [], [], 0.1)
        if r:
            log.write(os.read(m, 4096))
            log.flush()
EOF
	track_pid $!
	wait_for test -s "$OUT/pts"
	pts=$(cat "$OUT/pts")
	: >"$OUT/pts.log"
	sbx sh -c 'echo "PWNED-$2" >"$1"; ls -l /dev/pts/' _ "$pts" "$RND"
	sleep 0.3
	run cat "$OUT/pts.log"
	refute_output --partial "PWNED-$RND"
	# Without the sandbox the write arrives.
	echo "sanity-$RND" >"$pts"
	wait_for grep -q "sanity-$RND" "$OUT/pts.log"
}

# The attacker for the terminal tests: on every descriptor it has (and
# on /dev/tty, its controlling terminal), change
# the mode (fchmod, and chmod through /proc/self/fd), the group (to its
# own), the modes (raw, no echo, another interrupt key) and the window
# size; then say so on stdout and stderr.
TTY_ATTACK='
import fcntl, os, struct, termios
fds = [int(n) for n in os.listdir("/proc/self/fd")]
try:
    fds.append(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
except OSError:
    pass
for fd in fds:
    def tc():
        a = termios.tcgetattr(fd)
        a[3] &= ~(termios.ECHO | termios.ICANON | termios.ISIG)
        a[6][termios.VINTR] = b"\x18"
        termios.tcsetattr(fd, termios.TCSANOW, a)
    for f in (lambda: os.fchmod(fd, 0o666), lambda: os.chmod("/proc/self/fd/%d" % fd, 0o666),
              lambda: os.fchown(fd, -1, os.getgid()), lambda: os.fchown(fd, os.getuid(), -1), tc,
              lambda: fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 3, 9, 0, 0))):
        try:
            f()
        except (OSError, termios.error):
            pass
print("attacked-out", flush=True)
os.write(2, b"attacked-err\n")
'

# tty_attack HOW: wicket runs the attacker on a pty this test holds (the
# user's terminal), started HOW (see below); fd 5 is that terminal too.
# Judged outside: the terminal's mode, owner, group, termios and window
# size, from the test's own descriptor of it, are what they were (and so
# are those of a second terminal, $T2, that the test holds); and the
# attacker's lines reached the terminal.
tty_attack() {
	PYTHONPATH=$BATS_TEST_DIRNAME/../lib bounded 90 "$PY" - "$1" "$WICKET" "$WS" "$PY" "$TTY_ATTACK" <<'EOF'
import fcntl, os, select, sys, termios
from ptydrive import Term, check, run
how, wicket, ws, py, attack = sys.argv[1:6]
wk = [wicket, "run", "-C", ws, "--", py, "-c", attack]
scripts = {
    # stdin a pipe or /dev/null, stdout and stderr the terminal
    "stdin-null": 'exec "$@" </dev/null 5>&1',
    "stdin-pipe": 'echo x | "$@" 5>&1',
    # only stderr on the terminal
    "stderr-only": '"$@" </dev/null 5>&2 >"$WS/out.log"; cat "$WS/out.log"',
    # stdin the terminal too, wicket in the foreground (the session's pty)
    "all": 'exec "$@" 5>&1',
    # none of the three: the terminal is only the controlling one (/dev/tty)
    "none": '"$@" </dev/null >"$WS/out.log" 2>&1; cat "$WS/out.log"',
    # stdin the terminal, stdout and stderr another one ($T2)
    "other": 'exec "$@" >"$T2" 2>&1',
}
def main():
    if how == "background":
        # wicket in a process group of its own that is not the terminal's
        # foreground: it may not read the terminal.
        prog = [py, "-c", "import os, sys\n"
                "pid = os.fork()\n"
                "if pid == 0:\n"
                "    os.setpgid(0, 0)\n"
                "    os.dup2(1, 5)\n"
                "    os.execvp(sys.argv[1], sys.argv[1:])\n"
                "_, st = os.waitpid(pid, 0)\n"
                "print('bg-exit', os.waitstatus_to_exitcode(st))\n"] + wk
    else:
        prog = ["sh", "-c", scripts[how], "sh"] + wk
    m2, s2 = os.openpty()
    t2 = os.ttyname(s2)
    t = Term(prog, env=dict(os.environ, WS=ws, T2=t2))
    def state():
        return [(os.stat(n), termios.tcgetattr(fd), fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
                for n, fd in ((t.name, t.s), (t2, s2))]
    before = state()
    status = t.wait(60)
    after = state()
    out2 = b""
    while select.select([m2], [], [], 0.2)[0]:
        out2 += os.read(m2, 65536)
    sys.stdout.write(t.text() + "\n" + out2.decode(errors="replace") + "\n")
    shown = out2 if how == "other" else t.out
    check(b"attacked-out" in shown and b"attacked-err" in shown, "the attacker ran; its lines reached the terminal")
    for name, b, a in zip((t.name, t2), before, after):
        for what, x, y in (("mode", b[0].st_mode, a[0].st_mode), ("owner", b[0].st_uid, a[0].st_uid),
                           ("group", b[0].st_gid, a[0].st_gid), ("termios (stty -g)", b[1], a[1]),
                           ("window size", b[2], a[2])):
            check(x == y, "%s: the terminal's %s changed: %r -> %r" % (name, what, x, y))
    check(status == 0, "wicket exited with 0, not %d" % status)
    check(how != "background" or b"bg-exit 0" in t.out, "wicket in the background exited with 0")
run(main)
EOF
}

@test "tty: stdin /dev/null, stdout and stderr the terminal: its mode, owner, modes and size are the same after the session" {
	tty_attack stdin-null
}

@test "tty: stdin a pipe, stdout and stderr the terminal: the terminal is unchanged" {
	tty_attack stdin-pipe
}

@test "tty: only stderr the terminal: the terminal is unchanged" {
	tty_attack stderr-only
}

@test "tty: all three streams the terminal, wicket in the foreground: the terminal is unchanged" {
	tty_attack all
}

@test "tty: wicket in the background of its terminal: the terminal is unchanged" {
	tty_attack background
}

@test "tty: no stream the terminal, only the controlling one: /dev/tty inside does not lead to it" {
	tty_attack none
}

@test "tty: stdout and stderr another terminal than stdin's: neither terminal changes" {
	tty_attack other
}
