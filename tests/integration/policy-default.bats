#!/usr/bin/env bats
# The default sandbox: filesystem, /tmp, /dev, git, secrets, environment,
# network.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

teardown() { it_teardown; }

# ---- the workspace --------------------------------------------------------

@test "the current directory is the writable workspace (content and metadata), on the real filesystem" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	echo orig >"$ws/existing"
	mkdir "$ws/olddir"
	run --separate-stderr wsrun "$ws" -- sh -c '
		pwd
		echo changed >existing && echo new >new && mkdir -p d/e && mv olddir newdir &&
		ln -s new link && chmod 600 new && touch -d 2001-02-03 existing &&
		rm -f gone-later && : >gone-later && rm gone-later && echo done'
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	assert_equal "$output" "$ws
done"
	assert_equal "$(cat "$ws/existing")" changed
	assert_equal "$(cat "$ws/new")" new
	assert_equal "$(stat -c %a "$ws/new")" 600
	assert_equal "$(date -r "$ws/existing" +%Y-%m-%d)" 2001-02-03
	[ -d "$ws/d/e" ] && [ -d "$ws/newdir" ] && [ ! -e "$ws/olddir" ] && [ -L "$ws/link" ]
}

@test "the workspace is the canonical current directory, even when entered through a symlink" {
	local ws out
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	ln -s "$ws" "$out/link"
	run --separate-stderr bounded 60 bash -c 'cd "$1/link" && "$WICKET" run -- sh -c "pwd -P; touch via-link; touch \"$1/beside-link\" 2>/dev/null || echo link-dir-ro"' _ "$out"
	assert_equal "$status" 0
	assert_equal "$output" "$ws
link-dir-ro"
	[ -f "$ws/via-link" ]
	[ -L "$out/link" ] && [ ! -e "$out/beside-link" ]
}

@test "a workspace under /tmp stays visible and writable despite the private /tmp" {
	local ws
	ws=$(mk_tmp_workspace)
	track "$ws"
	[[ $ws == /tmp/* ]]
	echo orig >"$ws/existing"
	run --separate-stderr wsrun "$ws" -- sh -c 'pwd; cat existing; echo changed >existing; touch new; mkdir sub; echo "tmp=$TMPDIR"'
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	assert_equal "$output" "$ws
orig
tmp=/tmp"
	assert_equal "$(cat "$ws/existing")" changed
	[ -f "$ws/new" ] && [ -d "$ws/sub" ]
}

# ---- everything else read-only --------------------------------------------

@test "outside the workspace file content is read-only (write, create, delete, rename, link)" {
	local ws out before
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	echo orig >"$out/file"
	mkdir "$out/dir"
	# ".." is /var/tmp, which other tests change: compare the rest.
	before=$(ls -la --time-style=full-iso "$out" | grep -v ' \.\.$')
	run --separate-stderr wsrun "$ws" -- sh -c '
		o=$1; r=""
		{ echo x >"$o/file"; } 2>/dev/null && r="$r write"
		{ echo x >>"$o/file"; } 2>/dev/null && r="$r append"
		truncate -s 0 "$o/file" 2>/dev/null && r="$r truncate"
		{ true >"$o/new"; } 2>/dev/null && r="$r create"
		mkdir "$o/newdir" 2>/dev/null && r="$r mkdir"
		rm -f "$o/file" 2>/dev/null; [ -e "$o/file" ] || r="$r unlink"
		rmdir "$o/dir" 2>/dev/null && r="$r rmdir"
		mv "$o/file" "$o/moved" 2>/dev/null && r="$r rename"
		mv "$o/file" ./stolen 2>/dev/null && r="$r move-out"
		ln -s x "$o/sym" 2>/dev/null && r="$r symlink"
		ln "$o/file" "$o/hard" 2>/dev/null && r="$r hardlink"
		mkfifo "$o/fifo" 2>/dev/null && r="$r mkfifo"
		echo "escaped:$r"
		echo x >"$o/file"' _ "$out"
	assert_equal "$status" 2
	assert_equal "$output" "escaped:"
	assert_regex "$stderr" 'Read-only file system'
	assert_equal "$(cat "$out/file")" orig
	assert_equal "$(ls -la --time-style=full-iso "$out" | grep -v ' \.\.$')" "$before"
}

@test "outside the workspace metadata is read-only: chmod, chown, touch -d, setxattr fail with EROFS" {
	local ws out before
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	echo orig >"$out/file"
	echo orig >"$ws/file"
	before=$(file_state "$out/file")
	local script='
import os, sys
p = sys.argv[1]
res = []
for name, op in [
    ("chmod", lambda: os.chmod(p, 0o600)),
    ("chown", lambda: os.chown(p, os.getuid(), os.getgid())),
    ("utime", lambda: os.utime(p, (946684800, 946684800))),
    ("setxattr", lambda: os.setxattr(p, "user.wicket", b"1")),
]:
    try:
        op()
        res.append(name + "=ok")
    except OSError as e:
        res.append(name + "=" + (os.strerror(e.errno)))
print(" ".join(res))'
	run --separate-stderr wsrun "$ws" -- "$PY" -c "$script" "$out/file"
	assert_equal "$status" 0
	assert_equal "$output" "chmod=Read-only file system chown=Read-only file system utime=Read-only file system setxattr=Read-only file system"
	assert_equal "$(file_state "$out/file")" "$before"
	# The shell tools say the same.
	run --separate-stderr wsrun "$ws" -- sh -c 'chmod 600 "$1"; touch -d 2001-01-01 "$1"; chown "$(id -u)" "$1"; exit 0' _ "$out/file"
	# Three refusals, each explained once, and the summary.
	assert_equal "$(printf '%s\n' "$stderr" | grep -c 'Read-only file system')" 3
	assert_equal "$(printf '%s\n' "$stderr" | grep -c "^sandbox: write blocked: $out/file (")" 3
	assert_equal "${#stderr_lines[@]}" 7
	assert_equal "$(file_state "$out/file")" "$before"
	# Control: the same operations in the workspace work.
	run --separate-stderr wsrun "$ws" -- "$PY" -c "$script" "$ws/file"
	assert_equal "$output" "chmod=ok chown=ok utime=ok setxattr=ok"
	assert_equal "$(stat -c %a "$ws/file")" 600
}

@test "system directories are read-only too (/etc, /usr, /var, the home directory)" {
	local ws token d
	ws=$(mk_workspace)
	track "$ws"
	token=$(new_token)
	guard_path "/etc/$token" "/usr/$token" "/var/$token" "$HOME/$token"
	run --separate-stderr wsrun "$ws" -- sh -c '
		for d in /etc /usr /var "$HOME"; do
			touch "$d/$1" 2>&1 | grep -q "Read-only file system" && echo "$d ro"
		done' _ "$token"
	assert_equal "$status" 0
	assert_equal "$output" "/etc ro
/usr ro
/var ro
$HOME ro"
	for d in /etc /usr /var "$HOME"; do
		[ ! -e "$d/$token" ]
	done
}

# ---- /tmp -------------------------------------------------------------------

@test "/tmp is a private, empty tmpfs: the host's /tmp is invisible and nothing reaches it" {
	local ws marker token
	ws=$(mk_workspace)
	track "$ws"
	token=$(new_token)
	guard_path "/tmp/$token"
	marker=$(mktemp /tmp/wicket-it-marker.XXXXXX)
	guard_path "$marker"
	echo host >"$marker"
	run --separate-stderr wsrun "$ws" -- sh -c '
		stat -f -c %T /tmp
		ls -A /tmp | wc -l
		[ -e "$1" ] && echo host-visible
		echo inside >"/tmp/$2" && cat "/tmp/$2"' _ "$marker" "$token"
	rm -f "$marker"
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	assert_equal "$output" "tmpfs
0
inside"
	[ ! -e "/tmp/$token" ]
}

@test "each session gets a fresh /tmp" {
	local ws t
	ws=$(mk_workspace)
	track "$ws"
	t=$(new_token)
	guard_path "/tmp/$t"
	run --separate-stderr wsrun "$ws" -- sh -c 'echo one >"/tmp/$1" && ls /tmp' _ "$t"
	assert_equal "$output" "$t"
	run --separate-stderr wsrun "$ws" -- sh -c 'ls -A /tmp; [ -e "/tmp/$1" ] && echo still-there; true' _ "$t"
	assert_equal "$status" 0
	assert_equal "$output" ""
	[ ! -e "/tmp/$t" ]
}

@test "TMPDIR is /tmp inside, whatever it was outside" {
	local ws out
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	run --separate-stderr bounded 60 bash -c 'cd "$1" && TMPDIR="$2" "$WICKET" run -- sh -c "echo \$TMPDIR; mktemp -t wicket-it-tmpdir.XXXXXX"' _ "$ws" "$out"
	assert_equal "$status" 0
	assert_equal "${lines[0]}" /tmp
	assert_regex "${lines[1]}" '^/tmp/wicket-it-tmpdir\.'
	guard_path "${lines[1]}"
	[ ! -e "${lines[1]}" ]
	assert_equal "$(ls -A "$out")" ""
}

@test "a --write path under /tmp stays visible and writable" {
	local ws extra
	ws=$(mk_workspace)
	track "$ws"
	extra=$(mk_tmp_workspace)
	track "$extra"
	echo orig >"$extra/existing"
	run --separate-stderr wsrun "$ws" --write "$extra" -- sh -c 'cat "$1/existing"; echo changed >"$1/existing"; touch "$1/new"; ls -A /tmp | grep -vx "$(echo "$1" | cut -d/ -f3)" | wc -l' _ "$extra"
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	assert_equal "$output" "orig
0"
	assert_equal "$(cat "$extra/existing")" changed
	[ -f "$extra/new" ]
}

# ---- /dev -------------------------------------------------------------------

@test "/dev is minimal: exactly the essential nodes, and they work" {
	local ws t
	ws=$(mk_workspace)
	track "$ws"
	t=$(new_token)
	guard_path "/dev/shm/$t"
	run --separate-stderr wsrun "$ws" -- sh -c '
		ls -A /dev | tr "\n" " "; echo
		echo x >/dev/null && echo null-ok
		[ "$(head -c 3 /dev/zero | od -An -tx1 | tr -d " ")" = 000000 ] && echo zero-ok
		head -c 1 /dev/zero 2>&1 >/dev/full | grep -q "No space left" && echo full-ok
		[ "$(head -c 16 /dev/urandom | wc -c)" = 16 ] && echo urandom-ok
		[ "$(head -c 16 /dev/random | wc -c)" = 16 ] && echo random-ok
		[ -c /dev/tty ] && echo tty-node
		[ -d /dev/pts ] && [ -e /dev/ptmx ] && echo pts-ok
		echo shm >"/dev/shm/$1" && cat "/dev/shm/$1"
		echo via-fd >/dev/fd/1
		ls /dev/sd* /dev/vd* /dev/nvme* /dev/mem /dev/kmsg /dev/loop* /dev/console /dev/log 2>/dev/null | wc -l' _ "$t"
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	assert_equal "$output" "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero 
null-ok
zero-ok
full-ok
urandom-ok
random-ok
tty-node
pts-ok
shm
via-fd
0"
	[ ! -e "/dev/shm/$t" ]
}

@test "/dev itself cannot be written to, and /dev/shm is private" {
	local ws hostshm t
	ws=$(mk_workspace)
	track "$ws"
	t=$(new_token)
	guard_path "/dev/$t" "/dev/$t.d" "/dev/$t.null" "/dev/shm/$t" "$ws/$t.null"
	hostshm=""
	if [ -d /dev/shm ] && [ -w /dev/shm ]; then
		hostshm=$(mktemp "/dev/shm/$t.host.XXXXXX")
		guard_path "$hostshm"
	fi
	# Probes use names of their own: should the sandbox fail, nothing of
	# the host's /dev is touched (and teardown removes what was made).
	run --separate-stderr wsrun "$ws" -- sh -c '
		touch "/dev/$1" 2>/dev/null && echo created
		mkdir "/dev/$1.d" 2>/dev/null && echo mkdir
		mknod "/dev/$1.null" c 1 3 2>/dev/null && echo mknod
		mknod "./$1.null" c 1 3 2>/dev/null && echo mknod-ws
		ls -A /dev/shm | wc -l
		echo private >"/dev/shm/$1"' _ "$t"
	assert_equal "$status" 0
	assert_equal "$output" 0
	[ ! -e "/dev/$t" ] && [ ! -e "/dev/$t.d" ] && [ ! -e "/dev/$t.null" ]
	[ ! -e "/dev/shm/$t" ] && [ ! -e "$ws/$t.null" ]
}

@test "a pseudo-terminal can be opened inside (/dev/ptmx, /dev/pts)" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr wsrun "$ws" -- "$PY" -c '
import os
m, s = os.openpty()
name = os.ttyname(s)
os.write(m, b"ping\n")
print(name.startswith("/dev/pts/"), os.read(s, 100))'
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	assert_equal "$output" "True b'ping\\n'"
}

# ---- git ----------------------------------------------------------------------

@test "git add and commit work; .git/hooks and .git/config stay read-only; git config fails" {
	local ws home cfg
	ws=$(mk_workspace)
	track "$ws"
	home=$(mk_outside)
	track "$home"
	export HOME=$home GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=t@example.invalid \
		GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=t@example.invalid
	git -C "$ws" init -q
	echo hello >"$ws/file.txt"
	cfg=$(sha256sum <"$ws/.git/config")
	run --separate-stderr wsrun "$ws" -- sh -c 'git add file.txt && git commit -q -m "from the sandbox" && echo committed'
	assert_equal "$status" 0
	assert_equal "$output" committed
	assert_equal "$(git -C "$ws" log --format=%s)" "from the sandbox"
	assert_equal "$(git -C "$ws" status --porcelain)" ""
	# Hooks and config.
	run --separate-stderr wsrun "$ws" -- sh -c '
		r=""
		{ printf "#!/bin/sh\necho pwned\n" >.git/hooks/pre-commit; } 2>/dev/null && r="$r hook"
		chmod +x .git/hooks/pre-commit.sample 2>/dev/null && r="$r chmod-sample"
		mv .git/hooks .git/hooks.old 2>/dev/null && r="$r rename-hooks"
		mv .git .git.old 2>/dev/null && r="$r rename-git"
		{ echo "[core]" >>.git/config; } 2>/dev/null && r="$r append-config"
		git config x.y z 2>/dev/null && r="$r git-config"
		git config core.hooksPath /tmp 2>/dev/null && r="$r hookspath"
		echo "escaped:$r"'
	assert_equal "$status" 0
	assert_equal "$output" "escaped:"
	[ ! -e "$ws/.git/hooks/pre-commit" ]
	[ -d "$ws/.git/hooks" ] && [ ! -e "$ws/.git/hooks.old" ] && [ ! -e "$ws/.git.old" ]
	assert_equal "$(sha256sum <"$ws/.git/config")" "$cfg"
	run git -C "$ws" config --get x.y
	assert_equal "$output" ""
	[ ! -e "$ws/.git/config.lock" ]
}

# ---- secrets --------------------------------------------------------------------

@test "secret stores under HOME are hidden: .ssh .gnupg .aws .azure gcloud .kube docker netrc git-credentials gh pass keyrings" {
	local ws home p
	ws=$(mk_workspace)
	track "$ws"
	home=$(mk_outside)
	track "$home"
	local dirs=(.ssh .gnupg .aws .azure .config/gcloud .kube .config/gh .password-store .local/share/keyrings)
	local files=(.docker/config.json .netrc .git-credentials)
	for p in "${dirs[@]}"; do
		mkdir -p "$home/$p"
		echo "SECRET-in-$p" >"$home/$p/secret"
	done
	for p in "${files[@]}"; do
		mkdir -p "$(dirname "$home/$p")"
		echo "SECRET-in-$p" >"$home/$p"
	done
	echo visible >"$home/.profile-ok"
	echo visible >"$home/.config/other-tool"
	run --separate-stderr bounded 60 bash -c 'cd "$1" && HOME="$2" "$WICKET" run -- sh -c "
		cat \"\$HOME/.profile-ok\" \"\$HOME/.config/other-tool\"
		for p in $3; do
			cat \"\$HOME/\$p/secret\" 2>/dev/null && echo \"LEAK \$p\"
			n=\$(ls -A \"\$HOME/\$p\" 2>/dev/null | wc -l); [ \"\$n\" -eq 0 ] || echo \"LISTED \$p\"
		done
		for p in $4; do
			c=\$(cat \"\$HOME/\$p\" 2>/dev/null) && [ -n \"\$c\" ] && echo \"LEAK \$p\"
		done
		grep -r SECRET \"\$HOME\" 2>/dev/null
		echo end"' _ "$ws" "$home" "${dirs[*]}" "${files[*]}"
	assert_equal "$status" 0
	assert_equal "$output" "visible
visible
end"
	refute_output --partial SECRET
	# Nothing was changed on the real filesystem.
	for p in "${dirs[@]}"; do
		assert_equal "$(cat "$home/$p/secret")" "SECRET-in-$p"
	done
	for p in "${files[@]}"; do
		assert_equal "$(cat "$home/$p")" "SECRET-in-$p"
	done
}

@test "secrets stay hidden when the workspace is HOME itself" {
	local home
	home=$(mk_outside)
	track "$home"
	mkdir -p "$home/.ssh" "$home/.aws" "$home/.docker"
	echo "SECRET-key" >"$home/.ssh/id_ed25519"
	echo "SECRET-aws" >"$home/.aws/credentials"
	echo "SECRET-docker" >"$home/.docker/config.json"
	echo "SECRET-netrc" >"$home/.netrc"
	run --separate-stderr bounded 60 bash -c 'cd "$1" && HOME="$1" "$WICKET" run --allow-shared-write -- sh -c "
		cat .ssh/id_ed25519 .aws/credentials .docker/config.json .netrc 2>/dev/null
		ls -A .ssh .aws 2>/dev/null
		grep -r SECRET . 2>/dev/null
		touch ws-is-writable && echo end"' _ "$home"
	assert_equal "$status" 0
	assert_equal "$output" end
	[ -f "$home/ws-is-writable" ]
	assert_equal "$(cat "$home/.ssh/id_ed25519")" SECRET-key
	assert_equal "$(cat "$home/.netrc")" SECRET-netrc
}

# ---- environment -------------------------------------------------------------------

@test "secret-looking environment variables are removed" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr bounded 60 env \
		MY_TOKEN=wkleak-my-token GITHUB_TOKEN=wkleak-github DB_SECRET_KEY=wkleak-secret-key CLIENT_SECRET=wkleak-client-secret \
		DB_PASSWORD=wkleak-password MYSQL_PASSWORD_FILE=wkleak-password-file OPENAI_API_KEY=wkleak-api-key \
		AWS_ACCESS_KEY_ID=wkleak-aws-id AWS_SECRET_ACCESS_KEY=wkleak-aws-secret AWS_REGION=wkleak-aws-region \
		SSH_AUTH_SOCK=/wkleak/ssh-agent.sock \
		bash -c 'cd "$1" && "$WICKET" run -- env' _ "$ws"
	assert_equal "$status" 0
	refute_output --partial "wkleak"
	refute_output --regexp '^(MY_TOKEN|GITHUB_TOKEN|DB_SECRET_KEY|CLIENT_SECRET|DB_PASSWORD|MYSQL_PASSWORD_FILE|OPENAI_API_KEY|AWS_[A-Z_]*|SSH_AUTH_SOCK)='
	refute_output --partial "ssh-agent.sock"
}

@test "ordinary environment variables are kept (PATH, HOME, TERM, LANG, custom)" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr bounded 60 env TERM=xterm-test LANG=C.UTF-8 FOO=bar-value MY_SETTING="a b" \
		bash -c 'cd "$1" && "$WICKET" run -- env' _ "$ws"
	assert_equal "$status" 0
	# The session's own wicket first (wicket(1), ENVIRONMENT).
	assert_line "PATH=/run/wicket/bin:$PATH"
	assert_line "HOME=$HOME"
	assert_line "TERM=xterm-test"
	assert_line "LANG=C.UTF-8"
	assert_line "FOO=bar-value"
	assert_line "MY_SETTING=a b"
}

@test "WICKET=1, WICKET_POLICY and WICKET_SESSION are set by wicket, not inherited" {
	local ws s1 s2
	ws=$(mk_workspace)
	track "$ws"
	run --separate-stderr bounded 60 env WICKET_POLICY=evil WICKET_SESSION=fixed \
		bash -c 'cd "$1" && WICKET=0 "$2" run -- sh -c "echo \$WICKET \$WICKET_POLICY \$WICKET_SESSION; env | grep -cE \"^WICKET(_POLICY|_SESSION)?=\""' _ "$ws" "$WICKET"
	assert_equal "$status" 0
	assert_regex "${lines[0]}" '^1 workspace-write [0-9a-f]{8,}$'
	assert_equal "${lines[1]}" 3
	s1=${lines[0]##* }
	run --separate-stderr wsrun "$ws" -r -- sh -c 'echo $WICKET $WICKET_POLICY $WICKET_SESSION'
	assert_regex "$output" '^1 read-only [0-9a-f]{8,}$'
	s2=${output##* }
	[ "$s1" != "$s2" ]
}

# ---- network ----------------------------------------------------------------------

@test "the network is off: a connect to a 127.0.0.1 listener outside fails" {
	local ws d port
	ws=$(mk_workspace)
	track "$ws"
	d=$(mk_outside)
	track "$d"
	listener_start "$d"
	port=$(cat "$d/port")
	run --separate-stderr wsrun "$ws" -- "$PY" -c "$TCP_SEND" "$port" from-sandbox
	assert [ "$status" -ne 0 ]
	refute_output --partial connected
	# Control: the listener works from outside.
	run --separate-stderr "$PY" -c "$TCP_SEND" "$port" from-host
	assert_equal "$status" 0
	wait_for_grep from-host "$d/got" 100
	run ! grep -q from-sandbox "$d/got"
	# Explicit --net none, and a connect from a shell tool.
	run --separate-stderr wsrun "$ws" --net none -- "$PY" -c "$TCP_SEND" "$port" from-sandbox-2
	assert [ "$status" -ne 0 ]
	sleep 0.5
	run ! grep -q from-sandbox "$d/got"
}

@test "--net full: a connect to a 127.0.0.1 listener outside succeeds" {
	local ws d port
	ws=$(mk_workspace)
	track "$ws"
	d=$(mk_outside)
	track "$d"
	listener_start "$d"
	port=$(cat "$d/port")
	run --separate-stderr wsrun "$ws" --net full -- "$PY" -c "$TCP_SEND" "$port" full-from-sandbox
	assert_equal "$status" 0
	assert_equal "$output" connected
	wait_for_grep full-from-sandbox "$d/got" 100
}
