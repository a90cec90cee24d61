#!/usr/bin/env bats
# Reshaping the sandbox from inside: mount, umount, pivot_root, chroot, the
# new mount API, unshare and setns. The sandbox's shape is fixed: these
# calls are refused (EPERM from the filter, where the errno is the point),
# and what they would be used for -- a writable view of the host, an
# uncovered secret, a mount leaking back to the host -- does not happen.

load ../lib/common
load escape_helpers

setup() {
	need_probe sysprobe
	esc_setup
	SP=$(probe sysprobe)
}

teardown() {
	escape_cleanup
	common_teardown
}

# host_mounts_under DIR: host mount points at or below DIR.
host_mounts_under() { awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo; }

@test "mounts: remounting the tree read-write, then writing outside" {
	sbx sh -c '
		"$1" remount_rw / + remount_rw "$2" + mount_setattr_rw / + mount_setattr_rw "$2" + write "$2/via-syscall" pwned
		mount -o remount,rw "$2" 2>&1; mount -o remount,rw,bind / 2>&1
		echo pwned >"$2/via-mount-cmd"' _ "$SP" "$OUT"
	[ ! -e "$OUT/via-syscall" ]
	[ ! -e "$OUT/via-mount-cmd" ]
	unchanged_f=$(cat "$OUT/f")
	[ "$unchanged_f" = original ]
	# The mount calls themselves are the filter's: EPERM, not EROFS/EINVAL.
	assert_line "remount_rw: EPERM"
	assert_line "mount_setattr_rw: EPERM"
}

@test "mounts: a bind or tmpfs mount made inside does not appear on the host" {
	mkdir "$OUT/mnt"
	[ -z "$(host_mounts_under "$OUT")" ]
	sbx sh -c '"$1" bind "$2" "$3/mnt" + mount_tmpfs "$3/mnt" + mount_tmpfs "$2"
		mount --bind "$2" "$3/mnt" 2>&1; mount -t tmpfs none "$3/mnt" 2>&1' _ "$SP" "$WS" "$OUT"
	assert_line "bind: EPERM"
	assert_line "mount_tmpfs: EPERM"
	[ -z "$(host_mounts_under "$OUT")" ]
	[ -z "$(host_mounts_under "$WS")" ]
	[ -z "$(ls -A "$OUT/mnt")" ]
}

@test "mounts: unmounting the cover of ~/.ssh to read the key" {
	home=$OUT/home
	mkdir -p "$home/.ssh"
	printf 'PRIVATE-%s\n' "$RND" >"$home/.ssh/id_ed25519"
	HOME=$home sbx sh -c '
		"$1" umount "$HOME/.ssh" + umount "$HOME" + read "$HOME/.ssh/id_ed25519"
		umount -l "$HOME/.ssh" 2>&1; cat "$HOME/.ssh/id_ed25519" 2>&1; cat "$HOME/.ssh/id_ed25519" >leak 2>&1' _ "$SP"
	assert_line "umount: EPERM"
	refute_output --partial "PRIVATE-$RND"
	run cat "$WS/leak"
	refute_output --partial "PRIVATE-$RND"
	# Without the sandbox the same read does give the key.
	run sh -c 'cat "$1/.ssh/id_ed25519"' _ "$home"
	assert_output "PRIVATE-$RND"
}

@test "mounts: chroot into a directory, then writing to its root" {
	mkdir -p "$WS/jail" "$OUT/jail"
	attack='"$1" chroot "$2" + write /chroot-marker pwned'
	if is_root; then
		# The attack itself works without the sandbox (needs CAP_SYS_CHROOT).
		sh -c "$attack" _ "$SP" "$OUT/jail"
		[ -f "$OUT/jail/chroot-marker" ]
	fi
	sbx sh -c "$attack"'; chroot "$2" /bin/true 2>&1' _ "$SP" "$WS/jail"
	assert_line "chroot: EPERM"
	[ ! -e "$WS/jail/chroot-marker" ]
}

@test "mounts: pivot_root onto a directory of the workspace" {
	mkdir -p "$WS/new/old"
	sbx "$SP" bind "$WS/new" "$WS/new" + pivot_root "$WS/new" "$WS/new/old" + chdir / + write /pivot-marker pwned
	assert_line "pivot_root: EPERM"
	[ ! -e "$WS/new/pivot-marker" ]
	[ ! -e "$WS/pivot-marker" ]
}

@test "mounts: the new mount API (fsopen, open_tree, mount_setattr)" {
	sbx "$SP" fsopen + open_tree / + open_tree "$WS" + mount_setattr_rw /var + write "$OUT/new" pwned
	assert_line "fsopen: EPERM"
	assert_line "open_tree: EPERM"
	assert_line "mount_setattr_rw: EPERM"
	[ ! -e "$OUT/new" ]
}

@test "mounts: unshare of every namespace kind (and what it would be for)" {
	# Without the sandbox, an unprivileged user namespace is allowed here
	# (wicket itself relies on it): the probe is known to work.
	"$SP" unshare user
	sbx sh -c '
		for ns in user mount pid net ipc uts cgroup time user,mount; do "$1" unshare $ns; done
		"$1" unshare user,mount + remount_rw "$2" + umount "$2" + write "$2/new" pwned
		unshare -rm sh -c "mount -o remount,rw,bind \"$2\"; echo pwned >\"$2/new2\"" 2>&1' _ "$SP" "$OUT"
	[ "$(echo "$output" | grep -c '^unshare: EPERM$')" -ge 10 ]
	refute_line "unshare: OK"
	[ ! -e "$OUT/new" ]
	[ ! -e "$OUT/new2" ]
}

@test "mounts: clone with any CLONE_NEW* flag is refused, clone3 says ENOSYS" {
	"$SP" clone user
	sbx sh -c 'for ns in user mount pid net ipc uts cgroup time; do "$1" clone $ns; done; "$1" clone3' _ "$SP"
	[ "$(echo "$output" | grep -c '^clone: EPERM$')" = 8 ]
	refute_line "clone: OK"
	assert_line "clone3: ENOSYS"
}

@test "mounts: setns into the host's namespaces through inherited descriptors" {
	# The caller leaks descriptors of its own namespaces; joining the
	# host's mount namespace would give back the writable host view.
	sbx sh -c '
		for fd in 5 6 7 8 9; do "$1" setns $fd; done
		"$1" setns 5 + write "$2/via-mntns" pwned
		nsenter --mount=/proc/self/fd/5 sh -c "echo pwned >\"$2/via-nsenter\"" 2>&1' _ "$SP" "$OUT" \
		5</proc/self/ns/mnt 6</proc/self/ns/net 7</proc/self/ns/pid 8</proc/self/ns/ipc 9</proc/self/ns/user
	[ "$(echo "$output" | grep -c '^setns: EPERM$')" -ge 5 ]
	refute_line "setns: OK"
	[ ! -e "$OUT/via-mntns" ]
	[ ! -e "$OUT/via-nsenter" ]
}
