#!/usr/bin/env bats
# Reaching services outside the sandbox over the network and over unix
# sockets. Every listener is started by the test on the host (127.0.0.1
# only, or a socket path/abstract name of its own) and judged by what it
# received; after the sandboxed attempt, the same client is run without
# the sandbox and must get through, so a broken client or listener
# cannot pass as "blocked".
#
# Not claimed here: pathname sockets outside /run, /tmp, /dev/shm and the
# hidden stores are reachable on kernels whose Landlock (ABI < 9) cannot
# mediate connect(2) to them -- a documented limitation.

load ../lib/common
load escape_helpers

setup() {
	need_probe sysprobe
	esc_setup
}

teardown() {
	escape_cleanup
	common_teardown
}

# attempt KIND [WICKET OPTS...]: the client inside the sandbox, then
# (once the listener is shown deaf to it) outside, which must be heard.
attempt() {
	local kind=$1
	shift
	sbx_opts "$@" -- "$PY" -c "$NET_CLIENT" "$kind" "$LISTEN_ADDR" "escape-$RND"
	if listener_heard; then
		echo "ESCAPE: the listener heard the sandbox:"
		cat "$LISTEN_LOG"
		return 1
	fi
	"$PY" -c "$NET_CLIENT" "$kind" "$LISTEN_ADDR" "sanity-$RND"
	listener_heard
	grep -q "sanity-$RND" "$LISTEN_LOG"
}

# sockdir PARENT: a fresh directory for a listening socket under PARENT,
# in $SOCKDIR (removed by the cleanup).
sockdir() {
	SOCKDIR=$(mktemp -d "$1/wicket-test-XXXXXX") || return 1
	chmod 755 "$SOCKDIR"
	track_dir "$SOCKDIR"
}

@test "net: TCP to a 127.0.0.1 listener on the host (--net none)" {
	listen tcp
	attempt tcp
}

@test "net: UDP to a 127.0.0.1 listener on the host (--net none)" {
	listen udp
	attempt udp
}

@test "net: a raw IP socket sending UDP to a 127.0.0.1 listener (--net none)" {
	listen udp
	sbx "$PY" -c "$NET_CLIENT" raw-udp "$LISTEN_ADDR" "escape-$RND"
	if listener_heard; then
		cat "$LISTEN_LOG"
		false
	fi
	assert_line "raw-udp: EPERM"
	if is_root; then
		"$PY" -c "$NET_CLIENT" raw-udp "$LISTEN_ADDR" "sanity-$RND"
		listener_heard
	fi
}

@test "net: in --net none only what the private loopback needs opens: every other family and protocol is refused with EPERM" {
	# Refused, family type protocol: inet and inet6 UDP (name lookups must
	# fail where they are explained), inet raw, ICMP, SCTP, MPTCP, UDP-Lite;
	# inet6 raw; packet; netlink uevent/audit/netfilter/generic/sock_diag;
	# vsock, key, alg, xdp, can, bluetooth, tipc, rds, ax25, ipx, appletalk.
	sp=$(probe sysprobe)
	refused="2,2,0 2,2,17 10,2,0 2,3,17 2,2,1 2,1,132 2,1,262 2,2,136 10,3,58 17,2,768 17,3,768 16,3,15 16,3,9 16,3,12 16,3,16 16,3,4 40,1,0 15,3,2 38,5,0 44,3,0 29,3,1 31,3,1 30,2,0 21,5,0 3,2,0 4,2,0 5,2,0 9,5,0"
	# Opened, in the sandbox's own network namespace, where they reach
	# its loopback alone (the host's listeners: the tests above): unix,
	# TCP over inet and inet6, and netlink route, which shows that
	# loopback.
	opened="1,1,0 2,1,0 2,1,6 10,1,0 10,1,6 16,3,0 16,2,0"
	# Without the sandbox at least netlink and inet work here.
	"$sp" socket 16 3 0
	"$sp" socket 2 1 0
	sbx sh -c 'for s; do IFS=,; set -- $s; "$0" socket "$1" "$2" "$3"; done' "$sp" $refused
	[ "$(grep -c '^socket: EPERM$' <<<"$output")" = "$(echo "$refused" | wc -w)" ]
	sbx sh -c 'for s; do IFS=,; set -- $s; "$0" socket "$1" "$2" "$3"; done' "$sp" $opened
	[ "$(grep -c '^socket: OK$' <<<"$output")" = "$(echo "$opened" | wc -w)" ]
}

@test "net: the private loopback of --net none holds lo alone, and no route leads out" {
	sbx "$PY" -c '
import socket
s = socket.socket()
try:
    s.connect(("192.0.2.1", 9))
    print("ROUTE")
except OSError as e:
    print("no route", e.errno)
print(sorted(n for _, n in socket.if_nameindex()))'
	assert_line "no route 101"
	assert_line "['lo']"
}

@test "net: an abstract unix socket on the host (--net none)" {
	listen abstract "wicket-test-$RND"
	attempt abstract
}

@test "net: an abstract unix socket on the host with --net full (Landlock scope)" {
	listen abstract "wicket-test-full-$RND"
	attempt abstract --net full
}

@test "net: a pathname unix socket under /run (system and session services)" {
	[ -d /run ] || skip "no /run on this system"
	if [ -w /run ]; then
		sockdir /run
	elif [ -d /run/lock ] && [ -w /run/lock ]; then
		sockdir /run/lock
	else
		sockdir "/run/user/$(id -u)" 2>/dev/null || skip "no directory under /run is writable by $(id -un)"
	fi
	listen unix "$SOCKDIR/agent.sock"
	attempt unix
}

@test "net: a pathname unix socket in the host's /tmp" {
	sockdir /tmp
	listen unix "$SOCKDIR/agent.sock"
	attempt unix
}

@test "net: a pathname unix socket in the host's /dev/shm" {
	[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm on the host"
	sockdir /dev/shm
	listen unix "$SOCKDIR/agent.sock"
	attempt unix
}

@test "net: a pathname unix socket inside a hidden store (~/.gnupg/S.gpg-agent)" {
	home=$OUT/home
	mkdir -p "$home/.gnupg" "$home/.ssh"
	listen unix "$home/.gnupg/S.gpg-agent"
	HOME=$home attempt unix
	# The same for an agent socket under ~/.ssh.
	listen unix "$home/.ssh/agent.sock"
	HOME=$home attempt unix
}
