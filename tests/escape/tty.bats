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
