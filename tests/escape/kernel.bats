#!/usr/bin/env bats
# The kernel's own attack surface and global state: filtered system calls
# (EPERM, where the errno is the point), io_uring, the i386 and x32 entry
# points, sysctls, cgroups, /proc/self escalation, capabilities, setuid
# programs and raw devices. Judged on the host: the clock, the keyrings,
# the sysctl values, the cgroup tree, the files, the process's credentials
# as the host sees them.

load ../lib/common
load escape_helpers

setup() {
	need_probe sysprobe uring compat
	esc_setup
	SP=$(probe sysprobe)
}

teardown() {
	escape_cleanup
	common_teardown
}

# sanity_ok OP...: without the sandbox the call works (else the EPERM
# inside would prove nothing about the filter: say so, do not fail).
sanity_ok() {
	local out
	out=$("$SP" "$@" 2>&1) && return 0
	echo "note: '$*' fails without the sandbox too ($out): the EPERM below is not only the filter's"
	return 0
}

@test "kernel: bpf(2) is refused with EPERM" {
	sanity_ok bpf
	sbx "$SP" bpf
	assert_line "bpf: EPERM"
}

@test "kernel: perf_event_open(2) is refused with EPERM" {
	sanity_ok perf
	sbx "$SP" perf
	assert_line "perf: EPERM"
}

@test "kernel: keyctl, add_key, request_key are refused with EPERM and no key appears" {
	# Without the sandbox the key lands in the user keyring, where the
	# host sees it in /proc/keys (it expires after 30 s).
	"$SP" add_key "wk-sanity-$RND"
	grep -q "wk-sanity-$RND" /proc/keys

	sbx "$SP" keyctl + request_key + add_key "wk-escape-$RND"
	assert_line "keyctl: EPERM"
	assert_line "request_key: EPERM"
	assert_line "add_key: EPERM"
	run grep "wk-escape-$RND" /proc/keys
	[ "$status" -ne 0 ]
}

@test "kernel: reboot(2) is refused with EPERM" {
	# LINUX_REBOOT_CMD_CAD_ON: the default setting, harmless if it worked.
	sbx "$SP" reboot
	assert_line "reboot: EPERM"
}

@test "kernel: clock_settime, settimeofday, adjtimex, clock_adjtime are refused and the clock is unchanged" {
	sanity_ok adjtimex
	before=$(date +%s)
	sbx "$SP" clock_settime 978307200 + settimeofday 978307200 + adjtimex + clock_adjtime
	after=$(date +%s)
	if [ "$after" -lt "$before" ] || [ "$after" -gt $((before + 60)) ]; then
		# An escape moved the host's clock: put it back before failing.
		is_root && date -s "@$((before + 1))" >/dev/null
		echo "ESCAPE: the host clock moved from $before to $after"
		false
	fi
	assert_line "clock_settime: EPERM"
	assert_line "settimeofday: EPERM"
	assert_line "adjtimex: EPERM"
	assert_line "clock_adjtime: EPERM"
}

@test "kernel: syslog(2) and userfaultfd(2) are refused with EPERM" {
	sanity_ok userfaultfd
	sbx sh -c '"$1" syslog + userfaultfd; dmesg 2>/dev/null | head -n 3 >dmesg.txt' _ "$SP"
	assert_line "syslog: EPERM"
	assert_line "userfaultfd: EPERM"
	[ ! -s "$WS/dmesg.txt" ]
}

@test "kernel: io_uring cannot be set up (a file created through the ring does not appear)" {
	up=$(probe uring)
	"$up" "$OUT/sanity"
	[ -e "$OUT/sanity" ]

	sbx sh -c '"$1" "$2/uring-out"; "$1" "$3/uring-ws"; "$4" io_uring_setup' _ "$up" "$OUT" "$WS" "$SP"
	[ ! -e "$OUT/uring-out" ]
	[ ! -e "$WS/uring-ws" ]
	assert_line "io_uring_setup: EPERM"
}

@test "kernel: i386 system calls (int 0x80) cannot create files, inside or outside" {
	cp=$(probe compat)
	"$cp" i386-getpid >/dev/null || skip "this kernel has no i386 entry point (IA32 emulation off)"
	mkout sanity
	"$cp" i386-mkdir "$sanity/dir"
	"$cp" i386-creat "$sanity/file"
	[ -d "$sanity/dir" ]
	[ -f "$sanity/file" ]

	sbx sh -c 'for d in "$2" "$3"; do "$1" i386-mkdir "$d/i386-dir"; "$1" i386-creat "$d/i386-file"; done; echo after' \
		_ "$cp" "$OUT" "$WS"
	[ ! -e "$OUT/i386-dir" ]
	[ ! -e "$OUT/i386-file" ]
	# Even where the native call would be allowed, the foreign entry
	# point is not: the filter cannot read its numbers.
	[ ! -e "$WS/i386-dir" ]
	[ ! -e "$WS/i386-file" ]
	refute_line --regexp '^i386-(mkdir|creat): [0-9]+$'
}

@test "kernel: x32 system calls cannot create files, inside or outside" {
	cp=$(probe compat)
	run "$cp" x32-getpid
	[ "$status" = 0 ] || skip "this kernel has no x32 ABI (CONFIG_X86_X32_ABI off or disabled)"
	mkout sanity
	"$cp" x32-mkdir "$sanity/dir"
	[ -d "$sanity/dir" ]

	sbx sh -c 'for d in "$2" "$3"; do "$1" x32-mkdir "$d/x32-dir"; "$1" x32-creat "$d/x32-file"; done' _ "$cp" "$OUT" "$WS"
	[ ! -e "$OUT/x32-dir" ]
	[ ! -e "$OUT/x32-file" ]
	[ ! -e "$WS/x32-dir" ]
	[ ! -e "$WS/x32-file" ]
}

@test "kernel: sysctl writes and sethostname leave the host's values unchanged" {
	files=()
	for f in kernel/hostname kernel/domainname kernel/core_pattern kernel/modprobe kernel/sysrq \
		kernel/randomize_va_space fs/protected_symlinks vm/overcommit_memory; do
		[ -f "/proc/sys/$f" ] && files+=("/proc/sys/$f")
	done
	declare -A before
	for f in "${files[@]}"; do
		before[$f]=$(cat "$f")
		is_root && on_cleanup_restore "$f" "${before[$f]}"
	done
	if is_root; then
		# Writable without the sandbox (the current value, so no change).
		printf '%s\n' "${before[/proc/sys/kernel/hostname]}" >/proc/sys/kernel/hostname
	fi

	sbx sh -c 'for f; do echo "|/bin/sh -c wk-pwned" >"$f"; echo 0 >"$f"; done
		sysctl -w kernel.hostname=wk-pwned 2>&1; hostname wk-pwned 2>&1' _ "${files[@]}"
	sbx "$SP" sethostname wk-pwned
	assert_line "sethostname: EPERM"
	for f in "${files[@]}"; do
		[ "$(cat "$f")" = "${before[$f]}" ] || {
			echo "ESCAPE: $f changed to $(cat "$f")"
			false
		}
	done
}

@test "kernel: cgroups: no new cgroup, no release_agent, no moving out" {
	[ -d /sys/fs/cgroup ] || skip "no cgroup file system mounted"
	agents=()
	for a in /sys/fs/cgroup/*/release_agent /sys/fs/cgroup/release_agent; do
		[ -f "$a" ] && agents+=("$a")
	done
	declare -A before
	for a in "${agents[@]}"; do before[$a]=$(cat "$a"); done
	dirs=()
	for d in /sys/fs/cgroup /sys/fs/cgroup/*/; do
		[ -f "${d%/}/cgroup.procs" ] && dirs+=("${d%/}")
	done
	[ ${#dirs[@]} -gt 0 ] || skip "no cgroup hierarchy with cgroup.procs here"
	if is_root; then
		mkdir "${dirs[0]}/wk-sanity-$RND"
		rmdir "${dirs[0]}/wk-sanity-$RND"
	fi

	sbx sh -c 'name=$1; shift
		for d; do mkdir "$d/$name"; echo $$ >"$d/cgroup.procs"; echo "$PWD/x" >"$d/release_agent"; echo 1 >"$d/notify_on_release"; done' \
		_ "wk-escape-$RND" "${dirs[@]}"
	for d in "${dirs[@]}"; do
		if [ -e "$d/wk-escape-$RND" ]; then
			rmdir "$d/wk-escape-$RND" 2>/dev/null || true
			echo "ESCAPE: cgroup $d/wk-escape-$RND was created"
			false
		fi
	done
	for a in "${agents[@]}"; do [ "$(cat "$a")" = "${before[$a]}" ]; done
}

@test "kernel: /proc/self escalation (oom_score_adj, loginuid, uid_map, setgroups) does not stick" {
	mark="5.$RANDOM$RANDOM"
	attack='echo -1000 >/proc/self/oom_score_adj; echo 0 >/proc/self/loginuid
		echo "0 0 1" >/proc/self/uid_map; echo "0 0 1" >/proc/self/gid_map; echo allow >/proc/self/setgroups
		echo 1 >/proc/self/make-it-fail; exec sleep "$1"'
	host_adj=$(cat /proc/self/oom_score_adj)
	host_loginuid=$(cat /proc/self/loginuid 2>/dev/null || echo none)
	# Without the sandbox the attack works where the caller may lower its
	# OOM score (CAP_SYS_RESOURCE): the judge below then catches it.
	sh -c "$attack" _ "$mark" 2>/dev/null &
	track_pid $!
	p=$(pid_of_comm sleep "$mark")
	if [ "$(cat "/proc/$p/oom_score_adj")" != -1000 ]; then
		echo "note: the caller cannot lower its OOM score either (no CAP_SYS_RESOURCE)"
	fi
	kill "$p"
	mark="5.$RANDOM$RANDOM"

	sbx_bg sh -c "$attack" _ "$mark"
	p=$(pid_of_comm sleep "$mark")
	[ "$(cat "/proc/$p/oom_score_adj")" = "$host_adj" ]
	[ "$(cat "/proc/$p/loginuid" 2>/dev/null || echo none)" = "$host_loginuid" ]
	if is_root; then
		[ "$(awk '{print $1, $2, $3}' "/proc/$p/uid_map")" = "0 0 4294967295" ]
	else
		[ "$(awk '{print $1, $2, $3}' "/proc/$p/uid_map")" = "$(id -u) $(id -u) 1" ]
		[ "$(cat "/proc/$p/setgroups")" = deny ]
	fi
	kill "$p"
}

@test "kernel: the sandboxed process holds no capability, has no_new_privs and a filter" {
	mark="6.$RANDOM$RANDOM"
	sbx_bg sleep "$mark"
	p=$(pid_of_comm sleep "$mark")
	for f in CapInh CapPrm CapEff CapBnd CapAmb; do
		[ "$(status_field "$p" "$f")" = 0000000000000000 ] || {
			echo "$f = $(status_field "$p" "$f")"
			false
		}
	done
	[ "$(status_field "$p" NoNewPrivs)" = 1 ]
	[ "$(status_field "$p" Seccomp)" = 2 ]
	kill "$p"
}

@test "kernel: setuid programs do not elevate (no_new_privs, nosuid)" {
	mark="7.$RANDOM$RANDOM"
	if is_root; then
		# A setuid-root program run by root: full capabilities without
		# the sandbox; none inside.
		cp /bin/sleep "$OUT/suid-sleep"
		chmod 4755 "$OUT/suid-sleep"
		"$OUT/suid-sleep" "$mark" &
		track_pid $!
		p=$(pid_of_comm suid-sleep "$mark")
		[ "$(status_field "$p" CapEff)" != 0000000000000000 ]
		kill "$p"
		mark="8.$RANDOM$RANDOM"
		sbx_bg "$OUT/suid-sleep" "$mark"
		p=$(pid_of_comm suid-sleep "$mark")
		[ "$(status_field "$p" CapEff)" = 0000000000000000 ]
		[ "$(status_field "$p" CapPrm)" = 0000000000000000 ]
		kill "$p"
	else
		[ -u /bin/su ] || skip "no setuid su on this system"
		# su waits for a password with root's euid without the sandbox.
		sh -c 'sleep 5 | su -c "true $1" root' _ "$mark" >/dev/null 2>&1 &
		track_pid $!
		p=$(pid_of_comm su "$mark")
		[ "$(status_field "$p" Uid | awk '{print $2}')" = 0 ]
		kill "$p" 2>/dev/null || true
		mark="8.$RANDOM$RANDOM"
		sbx_bg sh -c 'sleep 5 | su -c "true $1" root' _ "$mark"
		p=$(pid_of_comm su "$mark")
		[ "$(status_field "$p" Uid | awk '{print $2}')" = "$(id -u)" ]
		[ "$(status_field "$p" CapEff)" = 0000000000000000 ]
	fi
}

@test "kernel: the raw block device behind / cannot be read (directly or through mknod)" {
	src=$(findmnt -no SOURCE / 2>/dev/null || true)
	[ -b "$src" ] || skip "/ is not on a block device here ($src)"
	majmin=$(stat -c '%t %T' "$src")
	maj=$((0x${majmin% *})) min=$((0x${majmin#* }))
	if [ "$(head -c 4096 "$src" 2>/dev/null | wc -c)" != 4096 ]; then
		echo "note: $src is not readable without the sandbox either"
	fi
	sbx sh -c 'head -c 4096 "$1" >raw1 2>/dev/null; mknod blk b "$2" "$3" 2>&1; head -c 4096 blk >raw2 2>/dev/null
		"$4" mknod_blk "$PWD/blk2" "$2" "$3"; head -c 4096 blk2 >raw3 2>/dev/null; head -c 4096 "/sys/dev/block/$2:$3" >raw4 2>/dev/null' \
		_ "$src" "$maj" "$min" "$SP"
	for f in raw1 raw2 raw3 raw4; do
		[ ! -s "$WS/$f" ] || {
			echo "ESCAPE: $f holds $(wc -c <"$WS/$f") bytes of $src"
			false
		}
	done
	[ ! -b "$WS/blk" ]
	[ ! -b "$WS/blk2" ]
}

@test "kernel: /dev/mem, /dev/kmem, /dev/port, /dev/kmsg and other host devices are absent" {
	devs="/dev/mem /dev/kmem /dev/port /dev/kmsg /dev/console /dev/tty0 /dev/tty1 /dev/vda /dev/sda /dev/nvme0n1 \
		/dev/loop0 /dev/loop-control /dev/fuse /dev/kvm /dev/vsock /dev/vhost-vsock /dev/net/tun /dev/uinput /dev/cpu/0/msr"
	if is_root && [ -c /dev/kmsg ]; then
		# The host's kernel log is readable without the sandbox.
		[ -n "$(bounded 3 dd if=/dev/kmsg iflag=nonblock bs=4096 count=1 2>/dev/null | head -c 100)" ]
	fi
	sbx sh -c 'for d; do [ -e "$d" ] && echo "present: $d"; dd if="$d" iflag=nonblock bs=4096 count=1 2>/dev/null >>devleak; done; true' _ $devs
	refute_output --partial "present:"
	[ ! -s "$WS/devleak" ]
}
