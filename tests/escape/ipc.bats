#!/usr/bin/env bats
# Shared state with the host besides files and sockets: /tmp and /dev/shm
# (private tmpfs mounts inside), System V shared memory, message queues
# and semaphores, POSIX message queues (a private IPC namespace). Host
# objects are created by the test, attacked from inside, and inspected on
# the host afterwards; each attack is first shown to work unsandboxed.

load ../lib/common
load escape_helpers

setup() {
	need_probe ipcprobe
	esc_setup
	IP=$(probe ipcprobe)
	# System V keys: random, positive, unlikely to collide.
	KEY=$((0x57000000 + RANDOM * 32768 + RANDOM))
}

teardown() {
	escape_cleanup
	common_teardown
}

@test "ipc: a file written to /tmp inside does not appear in the host's /tmp" {
	track_dir "/tmp/wicket-escape-$RND"
	track_dir "/tmp/wicket-escape-dir-$RND"
	sbx sh -c 'echo "$1" >/tmp/wicket-escape-"$1"; mkdir /tmp/wicket-escape-dir-"$1"; ls /tmp/wicket-escape-"$1"' _ "$RND"
	assert_line "/tmp/wicket-escape-$RND"
	[ ! -e "/tmp/wicket-escape-$RND" ]
	[ ! -e "/tmp/wicket-escape-dir-$RND" ]
	# The same command outside does create it (the judge sees /tmp).
	sh -c 'echo "$1" >/tmp/wicket-escape-"$1"' _ "$RND"
	[ -e "/tmp/wicket-escape-$RND" ]
}

@test "ipc: a file in the host's /tmp is not readable or writable inside" {
	f=$(mktemp /tmp/wicket-escape.XXXXXX)
	track_dir "$f"
	printf 'HOSTTMP-%s\n' "$RND" >"$f"
	chmod 666 "$f"
	run cat "$f"
	assert_output "HOSTTMP-$RND"
	sbx sh -c 'cat "$1"; grep -r -s -h HOSTTMP /tmp; echo pwned >>"$1"; rm -f "$1"' _ "$f"
	refute_output --partial "HOSTTMP-$RND"
	[ "$(cat "$f")" = "HOSTTMP-$RND" ]
}

@test "ipc: /dev/shm is private in both directions (POSIX shared memory)" {
	[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm on the host"
	host=/dev/shm/wicket-escape-host-$RND
	printf 'HOSTSHM-%s\n' "$RND" >"$host"
	chmod 666 "$host"
	track_dir "$host"
	track_dir "/dev/shm/wicket-escape-in-$RND"
	track_dir "/dev/shm/wicket-escape-py-$RND"
	sbx sh -c 'cat "$1"; echo pwned >>"$1"; echo "$2" >/dev/shm/wicket-escape-in-"$2"
		"$3" -c "from multiprocessing import shared_memory as s; m = s.SharedMemory(\"wicket-escape-py-$2\", create=True, size=64); m.buf[:5] = b\"pwned\"; m.close()"' \
		_ "$host" "$RND" "$PY"
	refute_output --partial "HOSTSHM-$RND"
	[ "$(cat "$host")" = "HOSTSHM-$RND" ]
	[ ! -e "/dev/shm/wicket-escape-in-$RND" ]
	[ ! -e "/dev/shm/wicket-escape-py-$RND" ]
}

@test "ipc: System V shared memory of the host is neither readable nor writable" {
	"$IP" shm-create "$KEY" "HOSTSHM-$RND"
	track_shm "$KEY"
	# Unsandboxed: readable and writable (then restored).
	run "$IP" shm-read "$KEY"
	assert_output "value: HOSTSHM-$RND"
	"$IP" shm-write "$KEY" "pwned"
	run "$IP" shm-read "$KEY"
	assert_output "value: pwned"
	"$IP" shm-write "$KEY" "HOSTSHM-$RND"

	sbx sh -c '"$1" shm-read "$2"; "$1" shm-write "$2" pwned; "$1" shm-create "$2" pwned; "$1" shm-rm "$2"; ipcs -m' _ "$IP" "$KEY"
	refute_output --partial "HOSTSHM-$RND"
	run "$IP" shm-read "$KEY"
	assert_output "value: HOSTSHM-$RND"
}

@test "ipc: System V message queues of the host get nothing and lose nothing" {
	"$IP" msg-create "$KEY"
	track_msg "$KEY"
	"$IP" msg-send "$KEY" sanity
	run "$IP" msg-count "$KEY"
	assert_output "value: 1"

	sbx sh -c '"$1" msg-send "$2" pwned; "$1" msg-count "$2"; "$1" msg-rm "$2"' _ "$IP" "$KEY"
	run "$IP" msg-count "$KEY"
	assert_output "value: 1"
}

@test "ipc: System V semaphores of the host cannot be changed" {
	"$IP" sem-create "$KEY"
	track_sem "$KEY"
	"$IP" sem-add "$KEY"
	run "$IP" sem-value "$KEY"
	assert_output "value: 1"

	sbx sh -c '"$1" sem-add "$2"; "$1" sem-add "$2"; "$1" sem-rm "$2"' _ "$IP" "$KEY"
	run "$IP" sem-value "$KEY"
	assert_output "value: 1"
}

@test "ipc: POSIX message queues of the host get nothing and lose nothing" {
	q=/wicket-escape-$RND
	"$IP" mq-create "$q" || skip "POSIX message queues are not available here"
	track_mq "$q"
	"$IP" mq-send "$q" sanity
	run "$IP" mq-count "$q"
	assert_output "value: 1"

	sbx sh -c '"$1" mq-send "$2" pwned; "$1" mq-count "$2"; "$1" mq-rm "$2"; "$1" mq-create "$2"' _ "$IP" "$q"
	run "$IP" mq-count "$q"
	assert_output "value: 1"
}

@test "ipc: System V objects made inside do not appear on the host" {
	k2=$((KEY + 1))
	track_shm "$k2"
	track_msg "$k2"
	sbx sh -c '"$1" shm-create "$2" "INSIDE-$3"; "$1" msg-create "$2"' _ "$IP" "$k2" "$RND"
	assert_line "shm-create: OK"
	run "$IP" shm-read "$k2"
	refute_output --partial "INSIDE-$RND"
	run "$IP" msg-count "$k2"
	[ "$status" -ne 0 ]
}
