#!/usr/bin/env bats
# Escapes through the filesystem: every write, name change and metadata
# change outside the workspace must leave the real filesystem untouched.
# Each attack is first shown to work without the sandbox on a throwaway
# target, then judged by the state of the real target after the sandbox.

load ../lib/common
load escape_helpers

setup() {
	need_probe fsprobe
	esc_setup
	printf 'original\n' >"$OUT/g"
	chmod 644 "$OUT/g"
}

teardown() {
	escape_cleanup
	common_teardown
}

unchanged() { # FILE: content is still "original"
	[ -f "$1" ]
	[ "$(cat "$1")" = original ]
}

changed() { # FILE: content is no longer "original" (a working attack)
	if unchanged "$1"; then return 1; fi
}

@test "fs: creating a file outside the workspace (direct, via .., via /proc/self/root)" {
	attack='echo pwned >"$1"'
	sh -c "$attack" _ "$OUT/sanity"
	[ -f "$OUT/sanity" ]

	rel="../$(basename "$OUT")"
	sbx sh -c "$attack; $attack; $attack" _ "$OUT/new" "$rel/new2" "/proc/self/root$OUT/new3"
	[ ! -e "$OUT/new" ]
	[ ! -e "$OUT/new2" ]
	[ ! -e "$OUT/new3" ]
}

@test "fs: overwriting and appending to a file outside" {
	attack='echo pwned >"$1"; echo pwned >>"$1"; cp /etc/hostname "$1"; dd if=/dev/zero of="$1" bs=1 count=4 conv=notrunc'
	sh -c "$attack" _ "$OUT/g" 2>/dev/null
	changed "$OUT/g"

	sbx sh -c "$attack" _ "$OUT/f"
	unchanged "$OUT/f"
}

@test "fs: truncating a file outside (truncate(2), O_TRUNC)" {
	attack='truncate -s 0 "$1"; : >"$1"; truncate -s 1M "$1"'
	sh -c "$attack" _ "$OUT/g"
	changed "$OUT/g"

	before=$(meta_of "$OUT/f")
	sbx sh -c "$attack" _ "$OUT/f"
	unchanged "$OUT/f"
	[ "$(meta_of "$OUT/f")" = "$before" ]
}

@test "fs: renaming, deleting and moving away files and directories outside" {
	mkdir "$OUT/d" "$OUT/sd"
	attack='mv "$1/f" "$1/f.moved"; rm -f "$1/g"; rmdir "$1/d"; mv "$1/sd" "$1/sd.moved"; mv "$1/f" "$2/"'
	mkout sanity
	printf 'original\n' >"$sanity/f"
	printf 'original\n' >"$sanity/g"
	mkdir "$sanity/d" "$sanity/sd"
	sh -c "$attack" _ "$sanity" "$WS" || true
	[ -e "$sanity/f.moved" ]
	[ ! -e "$sanity/g" ]
	[ ! -e "$sanity/d" ]

	sbx sh -c "$attack"' ; mv "$1/f" "$2/stolen"' _ "$OUT" "$WS"
	unchanged "$OUT/f"
	unchanged "$OUT/g"
	[ -d "$OUT/d" ]
	[ -d "$OUT/sd" ]
	[ ! -e "$OUT/f.moved" ]
	[ ! -e "$OUT/sd.moved" ]
}

@test "fs: creating directories, fifos, sockets and symlinks outside" {
	attack='mkdir "$1/dir"; mkfifo "$1/fifo"; ln -s /etc/passwd "$1/link"
		"$2" -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$1/sock"'
	mkout sanity
	sh -c "$attack" _ "$sanity" "$PY"
	[ -d "$sanity/dir" ]
	[ -p "$sanity/fifo" ]
	[ -L "$sanity/link" ]
	[ -S "$sanity/sock" ]

	sbx sh -c "$attack" _ "$OUT" "$PY"
	[ ! -e "$OUT/dir" ]
	[ ! -e "$OUT/fifo" ]
	[ ! -L "$OUT/link" ]
	[ ! -e "$OUT/sock" ]
}

@test "fs: hard links in both directions across the workspace boundary" {
	printf 'mine\n' >"$WS/mine"
	# Outside file linked into the workspace, then written through the
	# link; workspace file linked out.
	attack='ln "$1/f" "$2/hl" && echo pwned >>"$2/hl"; ln "$2/mine" "$1/out-hl"'
	mkout sanity_ws
	printf 'mine\n' >"$sanity_ws/mine"
	sh -c "$attack" _ "$OUT" "$sanity_ws"
	[ "$(stat -c %h "$OUT/f")" = 2 ]
	rm -f "$sanity_ws/hl" "$OUT/out-hl"
	printf 'original\n' >"$OUT/f"
	[ "$(stat -c %h "$OUT/f")" = 1 ]

	sbx sh -c "$attack" _ "$OUT" "$WS"
	unchanged "$OUT/f"
	[ "$(stat -c %h "$OUT/f")" = 1 ]
	[ ! -e "$OUT/out-hl" ]
}

@test "fs: an O_TMPFILE linked into a directory outside" {
	p=$(probe fsprobe)
	"$p" tmplink "$WS" "$OUT/sanity" pwned
	[ "$(cat "$OUT/sanity")" = pwned ]

	sbx "$p" tmplink "$WS" "$OUT/tmplinked" pwned
	[ ! -e "$OUT/tmplinked" ]
	sbx "$p" tmplink /tmp "$OUT/tmplinked2" pwned
	[ ! -e "$OUT/tmplinked2" ]
}

@test "fs: RENAME_EXCHANGE of a workspace file with a file outside" {
	p=$(probe fsprobe)
	mkout sanity
	printf 'other\n' >"$sanity/x"
	"$p" exchange "$sanity/x" "$OUT/g"
	[ "$(cat "$OUT/g")" = other ]

	printf 'pwned\n' >"$WS/evil"
	sbx "$p" exchange "$WS/evil" "$OUT/f"
	unchanged "$OUT/f"
	[ "$(cat "$WS/evil")" = pwned ]
}

@test "fs: writing through a symlink planted in the workspace" {
	ln -s "$OUT/f" "$WS/link"
	ln -s "$OUT" "$WS/dirlink"
	attack='echo pwned >link; echo pwned >dirlink/new; cp /etc/hostname dirlink/f'
	mkout sanity_ws
	ln -s "$OUT/g" "$sanity_ws/link"
	(cd "$sanity_ws" && sh -c 'echo pwned >link')
	changed "$OUT/g"

	sbx sh -c "$attack"
	unchanged "$OUT/f"
	[ ! -e "$OUT/new" ]
}

@test "fs: reopening a read-only descriptor for writing through /proc/self/fd" {
	p=$(probe fsprobe)
	"$p" reopen "$OUT/g" pwned
	changed "$OUT/g"

	sbx "$p" reopen "$OUT/f" pwned
	unchanged "$OUT/f"
}

@test "fs: a shared writable mapping of a file outside" {
	p=$(probe fsprobe)
	"$p" mmapw "$OUT/g" PWNED
	changed "$OUT/g"

	sbx "$p" mmapw "$OUT/f" PWNED
	unchanged "$OUT/f"
}

@test "fs: chmod of files and directories outside" {
	mkdir "$OUT/d"
	attack='chmod 777 "$1/f" "$1/d"; chmod u+s "$1/f"; chmod 644 "$1/f"'
	mkout sanity
	printf 'x\n' >"$sanity/f"
	mkdir "$sanity/d"
	before=$(meta_of "$sanity/f")
	sh -c "$attack" _ "$sanity"
	[ "$(meta_of "$sanity/f")" != "$before" ]

	before_f=$(meta_of "$OUT/f") before_d=$(meta_of "$OUT/d")
	sbx sh -c "$attack" _ "$OUT"
	[ "$(meta_of "$OUT/f")" = "$before_f" ]
	[ "$(meta_of "$OUT/d")" = "$before_d" ]
}

@test "fs: chown outside (to another user as root, to oneself otherwise)" {
	if is_root; then owner=1234:1234; else owner=$(id -u):$(id -g); fi
	before_g=$(meta_of "$OUT/g")
	sleep 0.01
	chown "$owner" "$OUT/g"
	[ "$(meta_of "$OUT/g")" != "$before_g" ]

	before=$(meta_of "$OUT/f")
	sleep 0.01
	sbx chown "$owner" "$OUT/f"
	[ "$(meta_of "$OUT/f")" = "$before" ]
}

@test "fs: utimes outside (touch -d, touch -m)" {
	attack='touch -d "2001-02-03 04:05:06" "$1"; touch -m "$1"; touch -a "$1"'
	before_g=$(meta_of "$OUT/g")
	sh -c "$attack" _ "$OUT/g"
	[ "$(meta_of "$OUT/g")" != "$before_g" ]

	before=$(meta_of "$OUT/f")
	sbx sh -c "$attack" _ "$OUT/f"
	[ "$(meta_of "$OUT/f")" = "$before" ]
}

@test "fs: setxattr outside" {
	p=$(probe fsprobe)
	"$p" setxattr "$OUT/g" user.wicket pwned
	run "$PY" -c 'import os,sys; print(os.listxattr(sys.argv[1]))' "$OUT/g"
	assert_output "['user.wicket']"

	before=$(meta_of "$OUT/f")
	sbx "$p" setxattr "$OUT/f" user.wicket pwned
	run "$PY" -c 'import os,sys; print(os.listxattr(sys.argv[1]))' "$OUT/f"
	assert_output "[]"
	[ "$(meta_of "$OUT/f")" = "$before" ]
}

@test "fs: inode flags outside (chattr, FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR)" {
	p=$(probe fsprobe)
	before_g=$(lsattr "$OUT/g" 2>/dev/null | cut -d' ' -f1) || skip "lsattr cannot read inode flags on $OUT's filesystem"
	"$p" setflags "$OUT/g" || skip "this filesystem has no settable inode flags"
	[ "$(lsattr "$OUT/g" | cut -d' ' -f1)" != "$before_g" ]
	chattr -d "$OUT/g"
	"$p" fsxattr "$OUT/g"
	[ "$(lsattr "$OUT/g" | cut -d' ' -f1)" != "$before_g" ]

	before=$(lsattr "$OUT/f" | cut -d' ' -f1)
	meta=$(meta_of "$OUT/f")
	sbx sh -c '"$1" setflags "$2"; "$1" fsxattr "$2"; chattr +d "$2"; chattr +i "$2"; chattr +a "$2"' _ "$p" "$OUT/f"
	[ "$(lsattr "$OUT/f" | cut -d' ' -f1)" = "$before" ]
	[ "$(meta_of "$OUT/f")" = "$meta" ]
}

@test "fs: renaming or removing the workspace itself from inside" {
	mkout sanity
	mkdir "$sanity/ws"
	(cd "$sanity/ws" && sh -c 'cd .. && mv ws ws.moved')
	[ -d "$sanity/ws.moved" ]

	name=$(basename "$WS")
	sbx sh -c 'cd .. && mv "$1" "$1.moved"; rmdir "$1"; mv "$1" /tmp/' _ "$name"
	[ -d "$WS" ]
	[ ! -e "$WS.moved" ]
}

@test "fs: --read-only leaves the workspace unwritten" {
	attack='echo pwned >new; mkdir newdir; echo pwned >>f; touch -d 2001-01-01 f; chmod 777 f'
	cp "$OUT/f" "$WS/f"
	before=$(meta_of "$WS/f")
	sbx_opts --read-only -- sh -c "$attack"
	[ ! -e "$WS/new" ]
	[ ! -e "$WS/newdir" ]
	unchanged "$WS/f"
	[ "$(meta_of "$WS/f")" = "$before" ]

	# Without --read-only the same commands do write: the attack works.
	sbx sh -c "$attack"
	[ -e "$WS/new" ]
}

@test "fs: metadata of the host's device nodes bound into /dev" {
	nodes="/dev/null /dev/zero /dev/full /dev/random /dev/urandom"
	[ -e /dev/tty ] && nodes="$nodes /dev/tty"
	declare -A node_meta
	for n in $nodes; do node_meta[$n]=$(meta_of "$n"); done
	# chmod to the node's current mode: harmless, but any success shows in
	# the change time.
	sbx sh -c 'for n; do touch -d "2001-02-03" "$n"; chmod "$(stat -c %a "$n")" "$n"; chown "$(id -u)" "$n"; done' _ $nodes
	for n in $nodes; do
		[ "$(meta_of "$n")" = "${node_meta[$n]}" ] || {
			echo "$n changed: ${node_meta[$n]} -> $(meta_of "$n")"
			false
		}
	done
}

@test "fs: writing into a named pipe outside that a host process reads" {
	# A FIFO is not a file on the (read-only) file system: the read-only
	# mount does not stop writes into it, only Landlock does.
	mkfifo "$OUT/fifo" "$OUT/sanity-fifo"
	reader() { # FIFO LOG: read for up to 4 s, log what arrives
		bounded 4 "$PY" -c '
import os, sys, select, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
end = time.time() + 3
with open(sys.argv[2], "ab") as log:
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            d = os.read(fd, 4096)
            if d:
                log.write(d)
                log.flush()
            else:
                time.sleep(0.05)
' "$1" "$2" >/dev/null 2>&1 3>&- &
		track_pid $!
	}
	reader "$OUT/sanity-fifo" "$OUT/sanity.log"
	sleep 0.3
	bounded 5 sh -c 'echo "sanity" >"$1"' _ "$OUT/sanity-fifo"
	wait_for grep -q sanity "$OUT/sanity.log"

	: >"$OUT/fifo.log"
	reader "$OUT/fifo" "$OUT/fifo.log"
	sleep 0.3
	sbx sh -c 'echo PWNED >"$1"; "$2" -c "import os,sys; fd=os.open(sys.argv[1], os.O_WRONLY|os.O_NONBLOCK); os.write(fd, b\"PWNED\")" "$1"' _ "$OUT/fifo" "$PY"
	sleep 0.3
	[ ! -s "$OUT/fifo.log" ]
}

@test "fs: a directory descriptor inherited from the caller gives no write or metadata access outside" {
	# The caller leaks a descriptor of a directory outside (shells, editors
	# and agents leak descriptors). The file behind it must stay as
	# read-only as every other file outside the workspace.
	attack='
import os, sys
for step in (lambda: os.chmod("f", 0o777, dir_fd=7),
             lambda: os.utime("f", (0, 0), dir_fd=7),
             lambda: os.setxattr("/proc/self/fd/7/f", "user.wicket", b"pwned"),
             lambda: os.chmod("/proc/self/fd/7/f", 0o4777)):
    try:
        step()
    except OSError as e:
        print(e)
'
	mkout sanity
	printf 'x\n' >"$sanity/f"
	before=$(meta_of "$sanity/f")
	"$PY" -c "$attack" 7<"$sanity"
	[ "$(meta_of "$sanity/f")" != "$before" ]

	before=$(meta_of "$OUT/f")
	sbx "$PY" -c "$attack" 7<"$OUT"
	[ "$(meta_of "$OUT/f")" = "$before" ]
}

@test "fs: standard output redirected to a file outside gives no metadata access to it" {
	# `wicket run -- cmd >/outside/log` is ordinary use: the sandbox may
	# write the file through the descriptor it was given, but must not
	# turn it into something else (setuid and executable, new times,
	# extended attributes), as it can for no other file outside.
	attack='chmod 4755 /dev/stdout; touch -d "2001-02-03" /proc/self/fd/1
		"$1" -c "import os; os.setxattr(\"/proc/self/fd/1\", \"user.wicket\", b\"pwned\")"'
	: >"$OUT/sanity.log"
	chmod 644 "$OUT/sanity.log"
	before=$(meta_of "$OUT/sanity.log")
	sh -c "$attack" _ "$PY" >"$OUT/sanity.log"
	[ "$(meta_of "$OUT/sanity.log")" != "$before" ]

	: >"$OUT/out.log"
	chmod 644 "$OUT/out.log"
	before=$(meta_of "$OUT/out.log")
	(cd "$WS" && bounded 30 "$WICKET" run -- sh -c 'echo ran >ran; '"$attack" _ "$PY" >"$OUT/out.log" 2>/dev/null) || true
	[ -e "$WS/ran" ]
	after=$(meta_of "$OUT/out.log")
	xattrs=$("$PY" -c 'import os,sys; print(os.listxattr(sys.argv[1]))' "$OUT/out.log")
	echo "before: $before"
	echo "after:  $after, xattrs $xattrs"
	# The shell's own '>' truncates the file when wicket starts, which
	# legitimately moves mtime and ctime; what the attack forges is the
	# mode, the owner, a 2001 date and an xattr.
	read -r m0 u0 g0 _ <<<"$before"
	read -r m1 u1 g1 _ <<<"$after"
	[ "$m1 $u1 $g1" = "$m0 $u0 $g0" ]
	case $after in *2001-02-03*) false ;; esac
	[ "$xattrs" = "[]" ]
}

@test "fs: moving aside an absent protected path never moves a file outside the writable roots" {
	# A policy's protect rule names a path that does not exist (on the
	# command line that is an error); the session makes its parent a
	# symlink to a directory outside, where a file of that name lives. At
	# the end, wicket must not rename the outside file.
	mkdir "$OUT/d"
	printf 'keep\n' >"$OUT/d/x"
	printf '{"extends": "workspace-write", "filesystem": {"protect": ["%s/sub/x"]}}\n' "$WS" >"$OUT/absent.json"
	sbx_opts --policy "$OUT/absent.json" -- ln -s "$OUT/d" sub
	assert_equal "$status" 0
	[ "$(cat "$OUT/d/x")" = keep ]
	[ -z "$(ls "$OUT/d" | grep -v '^x$')" ]
}

@test "fs: the end-of-session cleanup of a writable directory never follows a link the sandbox swapped in" {
	# Without a pid namespace and seccomp (--best-effort), a process of the
	# sandbox outlives the session and races the supervisor's removal of
	# the session's private /tmp: each directory it empties is exchanged
	# for a link to a directory of the user's outside (OUT/canary). Judged
	# by the canary's files on the host.
	need_probe rmrace
	if ! (cd "$WS" && WICKET_PRETEND_MISSING=namespaces,seccomp bounded 30 "$WICKET" run --best-effort \
		-- true 2>/dev/null); then
		skip "wicket does not start without namespaces as $(id -un) (capability bounding set)"
	fi
	mkdir "$OUT/canary"
	local i
	for ((i = 0; i < 2000; i++)); do : >"$OUT/canary/v$(printf %04d "$i")"; done
	(cd "$WS" && WICKET_PRETEND_MISSING=namespaces,seccomp bounded 60 "$WICKET" run --best-effort -- \
		sh -c '"$1" "$TMPDIR" "$2" 16000 "$3"' _ "$(probe rmrace)" "$OUT/canary" "$WS/racer.pid" \
		2>/dev/null) || true
	[ -s "$WS/racer.pid" ]
	track_pid "$(cat "$WS/racer.pid")"
	# The cleanup ran before wicket exited.
	assert_equal "$(find "$OUT/canary" -type f | wc -l)" 2000
}

@test "fs: a protected file or a directory of the workspace given as stdin reaches nothing past the view" {
	# Red team 14, F1: a descriptor inherited from inside a writable root
	# points at the host's writable mount, not the session's view, where
	# .git/config is read-only and ~/.ssh hidden; through /proc/self/fd/0
	# (reopened, or walked with .. for a directory) the sandbox wrote the
	# protected file and read past the covers.
	git -C "$WS" init -q
	cfg_before=$(cat "$WS/.git/config")
	(cd "$WS" && bounded 30 "$WICKET" run -- sh -c \
		'echo "[core] fsmonitor = touch /tmp/x" >>/proc/self/fd/0; cat /proc/self/fd/0 >seen' \
		<"$WS/.git/config" 2>/dev/null) || true
	[ "$(cat "$WS/.git/config")" = "$cfg_before" ]
	# The file is still readable as stdin (through the view).
	cmp -s "$WS/seen" "$WS/.git/config"

	echo secret >"$OUT/secret"
	rm -f "$WS/got"
	run bash -c 'cd "$1" && exec timeout 30 "$2" run -- sh -c '\''cat /proc/self/fd/0/../'"${OUT##*/}"'/secret >got; touch /proc/self/fd/0/.git/hooks/planted; chmod 600 /proc/self/fd/0/../'"${OUT##*/}"'/secret'\'' <.' _ "$WS" "$WICKET"
	echo "$output"
	[ ! -e "$WS/.git/hooks/planted" ]
	! grep -q secret "$WS/got" 2>/dev/null
	[ "$(stat -c %a "$OUT/secret")" != 600 ]
	# A directory is refused as stdin, as it is outside the workspace.
	[ "$status" = 125 ]
	[[ "$output" == *"stdin is the directory"* ]]
}

@test "fs: without a mount namespace, a log given to append to is only appended to" {
	# Red team 14, F3: with no view to reopen through, stdio passes as it
	# is, and the Landlock rule that lets /dev/stdout be reopened gave a
	# '>>' log writing by path: reopened, it was truncated or written
	# from its start. Judged by the log outside.
	printf 'line one\nline two\n' >"$OUT/app.log"
	(cd "$WS" && WICKET_PRETEND_MISSING=namespaces bounded 30 "$WICKET" run --best-effort -- \
		sh -c '(: >/proc/self/fd/1); (printf XX 1<>/proc/self/fd/1); echo appended' \
		>>"$OUT/app.log" 2>/dev/null) || true
	cat "$OUT/app.log"
	[ "$(head -n 2 "$OUT/app.log")" = "$(printf 'line one\nline two')" ]
	# What it wrote is appended (through the pipe wicket copies from).
	tail -n 1 "$OUT/app.log" | grep -q 'appended$'
}

@test "fs: an output file of the caller's that is a protected path of the workspace is refused" {
	# Red team 15, B: a link the sandbox planted (build.log ->
	# .git/hooks/pre-commit) turned the caller's next '> build.log' into
	# the hook, which the sandbox then wrote and made executable; '2>>
	# .git/config' passed as it was, too. Judged by the files outside.
	git -C "$WS" init -q
	cfg_before=$(cat "$WS/.git/config")
	(cd "$WS" && bounded 30 "$WICKET" run -- ln -s .git/hooks/pre-commit build.log) || true
	[ -L "$WS/build.log" ]
	run bash -c 'cd "$1" && exec timeout 30 "$2" run -- sh -c '\''printf "#!/bin/sh\ntouch planted\n"; chmod 755 /proc/self/fd/1'\'' >build.log' _ "$WS" "$WICKET"
	echo "$output"
	[ "$status" = 125 ]
	[[ "$output" == *"protects"* ]]
	[ ! -s "$WS/.git/hooks/pre-commit" ] || ! grep -q planted "$WS/.git/hooks/pre-commit"
	[ ! -x "$WS/.git/hooks/pre-commit" ] || [ ! -s "$WS/.git/hooks/pre-commit" ]
	run bash -c 'cd "$1" && exec timeout 30 "$2" run -- sh -c '\''echo "[core] fsmonitor = touch planted" >&2'\'' 2>>.git/config' _ "$WS" "$WICKET"
	[ "$status" = 125 ]
	[ "$(cat "$WS/.git/config")" = "$cfg_before" ]
}

@test "fs: without a mount namespace, a log given to append to cannot be truncated through its descriptor" {
	# Red team 15, C: with no view, stdio passed as it was, and through
	# the descriptor itself (opened before Landlock) the sandbox could
	# ftruncate the log outside or take its O_APPEND away and write from
	# its start. Judged by the log outside.
	printf 'line one\nline two\n' >"$OUT/app.log"
	(cd "$WS" && WICKET_PRETEND_MISSING=namespaces bounded 30 "$WICKET" run --best-effort -- "$PY" -c '
import fcntl, os
for f in (lambda: os.ftruncate(2, 0),
          lambda: fcntl.fcntl(2, fcntl.F_SETFL, fcntl.fcntl(2, fcntl.F_GETFL) & ~os.O_APPEND),
          lambda: os.pwrite(2, b"OVERWRITTEN", 0)):
    try:
        f()
    except OSError:
        pass
os.write(2, b"appended\n")
' 2>>"$OUT/app.log") || true
	cat "$OUT/app.log"
	[ "$(head -n 2 "$OUT/app.log")" = "$(printf 'line one\nline two')" ]
	grep -qx appended "$OUT/app.log"
}

@test "fs: without a mount namespace, a stdin opened for writing outside is refused" {
	# Red team 16, F1: with no view, a '0<> file' outside every writable
	# root passed as it was, and the command wrote over the file through
	# it (a pipe cannot stand in for stdin). Judged by the file outside.
	echo original >"$OUT/rw.txt"
	run bash -c 'cd "$1" && WICKET_PRETEND_MISSING=namespaces exec timeout 30 "$2" run --best-effort -- sh -c "echo PWNED >&0" 0<>"$3"' _ "$WS" "$WICKET" "$OUT/rw.txt"
	echo "$output"
	[ "$(cat "$OUT/rw.txt")" = original ]
	[ "$status" = 125 ]
}
