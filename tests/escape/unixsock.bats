#!/usr/bin/env bats
# Host services on pathname unix sockets outside the writable roots and
# the session's private /tmp and /dev/shm (DESIGN §4; its /run is a
# read-only cover, lib/classify.c): a docker.sock-like
# stream service that acts on connect, a syslog-like datagram socket. On
# kernels without Landlock's RESOLVE_UNIX (ABI 9) the supervisor decides
# every unix connect and datagram send (launcher/supervisor/unixnotify.c). Each
# attack is judged by the service itself (what it logged), after the same
# client is shown to reach it without the sandbox.

load ../lib/common
load escape_helpers

setup() {
	need_probe unixprobe
	esc_setup
	UP=$(probe unixprobe)
}

teardown() {
	escape_cleanup
	common_teardown
}

# service KIND PATH: a stream (unix) or datagram (unix-dgram) service on
# the host at PATH.
service() { listen "$1" "$2"; }

# unreached OP PATH [WICKET OPTS...]: the probe's OP on PATH inside the
# sandbox is never heard by the service; then the same from outside (on
# the service's own path) is.
unreached() {
	local op=$1 path=$2
	shift 2
	sbx_opts "$@" -- "$UP" "$op" "$path" "escape-$RND"
	if listener_heard; then
		echo "ESCAPE: the host service heard the sandbox:"
		cat "$LISTEN_LOG"
		return 1
	fi
	# The refusal is the sandbox's, not a broken client: EACCES.
	assert_line "$op: EACCES"
	"$UP" "$op" "$LISTEN_ADDR" "sanity-$RND"
	listener_heard
	grep -q "sanity-$RND" "$LISTEN_LOG"
	: >"$LISTEN_LOG"
}

@test "unixsock: a stream service under /var/tmp is not reached" {
	service unix "$OUT/svc.sock"
	unreached connect "$OUT/svc.sock"
	# Also with --no-diagnostics: enforcement is not diagnostics.
	unreached connect "$OUT/svc.sock" --no-diagnostics
	# And with the network on: local services are not the network.
	unreached connect "$OUT/svc.sock" --net full
}

@test "unixsock: a datagram service under /var/tmp gets nothing (sendto, sendmsg, sendmmsg)" {
	service unix-dgram "$OUT/log.sock"
	unreached sendto "$OUT/log.sock"
	unreached sendmsg "$OUT/log.sock"
	unreached sendmmsg "$OUT/log.sock"
	unreached sendto "$OUT/log.sock" --no-diagnostics
}

@test "unixsock: a service under the user's HOME is not reached" {
	local home
	mkout home
	mkdir -p "$home/.local/run"
	chmod -R 755 "$home"
	service unix "$home/.local/run/agent.sock"
	HOME=$home unreached connect "$home/.local/run/agent.sock"
	service unix-dgram "$home/.local/run/notify.sock"
	HOME=$home unreached sendto "$home/.local/run/notify.sock"
}

@test "unixsock: a symlink in the workspace to an outside socket does not lead out" {
	service unix "$OUT/svc.sock"
	ln -s "$OUT/svc.sock" "$WS/link.sock"
	ln -s "$OUT" "$WS/linkdir"
	unreached connect "$WS/link.sock"
	unreached connect link.sock
	unreached connect linkdir/svc.sock
	# ".." after a symlink is the target's parent, as for the kernel.
	unreached connect "./linkdir/../${OUT##*/}/svc.sock"
	service unix-dgram "$OUT/log.sock"
	ln -s "$OUT/log.sock" "$WS/log.sock"
	unreached sendto log.sock
	unreached sendmsg "$WS/log.sock"
}

@test "unixsock: /proc/self/root, /proc/1/root and /proc/self/fd/N do not lead out" {
	service unix "$OUT/svc.sock"
	unreached connect "/proc/self/root$OUT/svc.sock"
	unreached connect "/proc/1/root$OUT/svc.sock"
	unreached connect "/proc/self/cwd/../../../..$OUT/svc.sock"
	# An O_PATH descriptor of the outside socket, connected through its
	# magic link.
	unreached fdpath "$OUT/svc.sock"
	service unix-dgram "$OUT/log.sock"
	unreached sendto "/proc/self/root$OUT/log.sock"
}

@test "unixsock: an address rewritten by another thread while the call waits does not lead out" {
	service unix "$OUT/svc.sock"
	local dg=$LISTEN_LOG daddr=$LISTEN_ADDR
	# The datagram service on BAD.d, as the probe expects.
	service unix-dgram "$OUT/svc.sock.d"
	local ddg=$LISTEN_LOG
	sbx "$UP" race "$WS/good.sock" "$OUT/svc.sock" "escape-$RND"
	sleep 0.3
	if [ -s "$dg" ] || [ -s "$ddg" ]; then
		echo "ESCAPE: the host services heard the sandbox:"
		cat "$dg" "$ddg"
		false
	fi
	# The race was run: the good address got through some of the time.
	assert_line --regexp '^race: [1-9][0-9]* good'
	"$UP" connect "$daddr" "sanity-$RND"
	sleep 0.3
	grep -q "sanity-$RND" "$dg"
}

@test "unixsock: sends without a destination made at once do not become sends to a host socket" {
	# The supervisor's lane makes a send that names no destination on
	# the spot. Another thread gives it one after any check (the name in
	# the msghdr, the descriptor by dup2), and a sendmmsg carries one in
	# its second message: the host service hears nothing.
	service unix-dgram "$OUT/log.sock"
	sbx "$UP" fastrace "$OUT/log.sock" "escape-$RND"
	if listener_heard; then
		echo "ESCAPE: the host service heard the sandbox:"
		head -n 5 "$LISTEN_LOG"
		false
	fi
	# The race was run: the messages without a destination got through.
	assert_line --regexp '^fastrace: [1-9][0-9]* good'
	"$UP" sendto "$LISTEN_ADDR" "sanity-$RND"
	listener_heard
	grep -q "sanity-$RND" "$LISTEN_LOG"
}

@test "unixsock: a host socket under a read root inside the private /tmp or /run is not reached" {
	# A read root under /tmp is bound into the session's private /tmp (and
	# one under /run into its cover): the sockets in it are the host's,
	# even though the path looks like the session's own /tmp.
	local d
	d=$(mktemp -d /tmp/wicket-rt.XXXXXX)
	_ESC_DIRS+=("$d")
	chmod 755 "$d"
	service unix "$d/x.sock"
	cat >"$OUT/read-tmp.json" <<JSON
{"extends": "workspace-write", "filesystem": {"read": ["/", "$d"]}}
JSON
	unreached connect "$d/x.sock" --policy "$OUT/read-tmp.json"
	service unix-dgram "$d/y.sock"
	unreached sendto "$d/y.sock" --policy "$OUT/read-tmp.json"
}

@test "unixsock: renaming the parent of a read root kept in the private /tmp does not move a host socket into reach" {
	local d
	d=$(mktemp -d /tmp/wicket-rt.XXXXXX)
	_ESC_DIRS+=("$d")
	chmod 755 "$d"
	mkdir -p "$d/a/b"
	chmod -R 755 "$d/a"
	service unix "$d/a/b/x.sock"
	# The kept root's parent is a directory of the session's own tmpfs:
	# were it renamed, the mount would move with it, and the socket would
	# lie, by name, in the private /tmp.
	sbx_opts --read "$d/a/b" -- sh -c 'mv "$1/a" "$1/c"; "$2" connect "$1/c/b/x.sock" "escape-$3"; "$2" connect "$1/a/b/x.sock" "escape-$3"' _ "$d" "$UP" "$RND"
	if listener_heard; then
		echo "ESCAPE: the host service heard the sandbox:"
		cat "$LISTEN_LOG"
		false
	fi
	"$UP" connect "$LISTEN_ADDR" "sanity-$RND"
	listener_heard
}

@test "unixsock: a socket in the workspace behind a directory the sandbox may not search is not reached through the supervisor" {
	# Root only: it needs a directory of another user, mode 0700. The
	# sandbox of a root session is uid 0 with no capability, which the
	# kernel refuses there; the supervisor (root, with its capabilities)
	# must not look it up for it.
	[ "$(id -u)" = 0 ] || skip "needs root to make a directory of another user"
	mkdir "$WS/priv"
	service unix "$WS/priv/x.sock"
	chmod 777 "$WS/priv/x.sock"
	chown 65534:65534 "$WS/priv"
	chmod 700 "$WS/priv"
	sbx_opts -- "$UP" connect "$WS/priv/x.sock" "escape-$RND"
	if listener_heard; then
		echo "ESCAPE: the supervisor lent the sandbox its search permission:"
		cat "$LISTEN_LOG"
		false
	fi
	assert_line "connect: EACCES"
	"$UP" connect "$LISTEN_ADDR" "sanity-$RND"
	listener_heard
}
