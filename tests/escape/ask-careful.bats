#!/usr/bin/env bats
# `wicket ask --outside`: only the person at the terminal may approve a
# command to run outside; an allow rule or an approver is never asked,
# and CAREFUL (the command's code is the sandbox's to write) is the
# advice the question and the audit give. A rule matches the whole argv,
# not a prefix, and approves only the grant it gives.
#
# Every attack here has an allow rule that names the command and an
# approver that says yes to anything (and leaves $OUT/approver-ran: the
# teardown fails a test where it was asked, unless the test says so).
# The sessions have no terminal, so a request --outside is refused.
# Judged by a marker file outside the sandbox ($OUT/made), which the
# command would create. The same attacks on a grant: grant.bats.

load ../lib/common
load escape_helpers
bats_require_minimum_version 1.5.0

setup() {
	command -v git >/dev/null || skip "git is not installed"
	WS=$(mk_workspace) && OUT=$(mk_outside) || return 1
	export XDG_STATE_HOME=$OUT/state
	AUDIT=$XDG_STATE_HOME/wicket/audit.jsonl
	printf '#!/bin/sh\ncat >/dev/null\ntouch "%s/approver-ran"\nexit 0\n' "$OUT" >"$OUT/yes"
	chmod 755 "$OUT/yes"
	export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
	export WS OUT WICKET PY
	HOSTTMP=
	APPROVER_OK=
}

teardown() {
	local asked=
	[ -e "$OUT/approver-ran" ] && asked=1
	[ -n "$HOSTTMP" ] && rm -rf -- "$HOSTTMP"
	escape_cleanup
	common_teardown
	if [ -n "$asked" ] && [ -z "$APPROVER_OK" ]; then
		echo "the approver was asked about a request to run outside"
		return 1
	fi
}

wsrun() {
	local ws=$1
	shift
	(cd "$ws" && bounded 90 "$WICKET" run "$@")
}

# not_run_outside CMD SETUP: in a session whose approver says yes to
# anything, SETUP (sh code, $1 the outside directory) makes the sandbox's
# programs, then `wicket ask --outside -- CMD` (split at blanks) must be
# refused (no terminal: 123) without the approver asked, and leave no
# $OUT/made; then `wicket ask -- CMD`, which the approver approves, runs
# on a grant (nothing more): what it runs still leaves no $OUT/made.
not_run_outside() {
	rm -f "$OUT/made" "$OUT/approver-ran"
	run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c "$2"'
		"$2" ask --outside -- $3
		echo "rc=$?"' _ "$OUT" "$WICKET" "$1" </dev/null
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: $1 ran a program of the sandbox's outside"
		return 1
	fi
	assert_line "rc=123"
	[ ! -e "$OUT/approver-ran" ]
	run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c "$2"'
		"$2" ask -- $3
		echo "rc=$?"' _ "$OUT" "$WICKET" "$1" </dev/null
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: $1 approved on a grant ran a program of the sandbox's outside"
		return 1
	fi
	[ -e "$OUT/approver-ran" ]
	rm -f "$OUT/approver-ran"
}

# policy NAME BASE ALLOW-JSON: a policy file outside the workspace.
policy() {
	printf '{"extends": "%s", "escalation": {"allow": %s, "timeout": 10}}\n' "$2" "$3" >"$OUT/$1.json"
	chmod 644 "$OUT/$1.json"
}

# A repository in the workspace with one commit, and a bare one outside
# to push to (the sandbox cannot write it).
mkrepos() {
	git -C "$WS" init -q -b main
	git -C "$WS" -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m one
	git init -q --bare "$OUT/bare.git"
}

@test "ask careful: the documented rule [git, push] does not approve git push --receive-pack=<command>; nor does [git, push, **]" {
	mkrepos
	policy exact workspace-write-strict '[["git", "push"]]'
	policy open workspace-write-strict '[["git", "push", "**"]]'
	for p in exact open; do
		run --separate-stderr wsrun "$WS" --policy "$OUT/$p.json" --approver "$OUT/yes" -- sh -c '
			"$1" ask --outside -- git push --receive-pack="sh -c \"touch $2/made\" #" "$2/bare.git" HEAD:main
			echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
		assert_line "rc=123"
		[ ! -e "$OUT/made" ]
	done
	assert_equal "$(grep -c '"by":"no-terminal"' "$AUDIT")" 2
	grep -q 'CAREFUL: the git option --receive-pack' "$AUDIT"
}

@test "ask careful: autoconf in the workspace (configure.ac's m4_esyscmd) is not run on an approver's yes" {
	# red team 12, F5: build tools that read code from the working
	# directory were not all known; an approver's yes ran it outside.
	command -v autoconf >/dev/null || skip "autoconf is not installed"
	run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c '
		printf "m4_esyscmd([touch %s/made])AC_INIT([x],[1])\nAC_OUTPUT\n" "$2" >configure.ac
		"$1" ask --outside -- autoconf </dev/null
		echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: autoconf ran the sandbox's m4_esyscmd outside on an approver's yes"
		false
	fi
	assert_line "rc=123"
	grep -q '"by":"no-terminal"' "$AUDIT"
}

@test "ask careful: an allowed git fetch with --upl=<command> (an abbreviation git accepts) is not run without a question" {
	mkrepos
	policy fetch workspace-write-strict '[{"argv": ["git", "fetch", "*", "*"], "cwd": "${cwd}"}]'
	run --separate-stderr wsrun "$WS" --policy "$OUT/fetch.json" --approver "$OUT/yes" -- sh -c '
		"$1" ask --outside -- git fetch --upl="sh -c \"touch $2/made\" #" "$2/bare.git"
		echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: git ran the sandbox's upload-pack command outside without a question"
		false
	fi
	assert_line "rc=123"
	grep -q 'CAREFUL: the git option --upl=' "$AUDIT"
}

@test "ask careful: rules match exactly: an exact git push runs on the rule's grant without a question, one more argument or right does not" {
	mkrepos
	# The grant: what a push writes (objects, refs), not the whole bare
	# repository: a session with all of it writable moves its existing
	# HEAD aside at the end as if the session had made it.
	policy exact workspace-write-strict '[{"argv": ["git", "push", "-q", "'"$OUT"'/bare.git", "HEAD:main"], "grant": {"write": ["'"$OUT"'/bare.git/objects", "'"$OUT"'/bare.git/refs"]}}]'
	run --separate-stderr wsrun "$WS" --policy "$OUT/exact.json" -- sh -c '
		"$1" ask --write "$2/bare.git/objects" --write "$2/bare.git/refs" -- git push -q "$2/bare.git" HEAD:main; echo "rc=$?"
		"$1" ask --write "$2/bare.git/objects" --write "$2/bare.git/refs" -- git push -q "$2/bare.git" HEAD:main --force; echo "rc=$?"
		"$1" ask --write "$2" -- git push -q "$2/bare.git" HEAD:main; echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
	assert_line --index 0 "rc=0"
	assert_line --index 1 "rc=123"
	# The same command with more rights than the rule gives: refused.
	assert_line --index 2 "rc=122"
	git -C "$OUT/bare.git" rev-parse -q --verify main
	grep -q '"decision":"approved","by":"rule"' "$AUDIT"
	grep -q 'the rule grants less than was asked' "$AUDIT"
}

@test "ask careful: a rule with a cwd matches only in that directory" {
	mkdir "$WS/sub"
	policy cwd workspace-write '[{"argv": ["pwd"], "cwd": "${cwd}/sub"}]'
	run --separate-stderr wsrun "$WS" --policy "$OUT/cwd.json" -- sh -c '
		cd sub && "$1" ask -- pwd; echo "rc=$?"
		cd .. && "$1" ask -- pwd; echo "rc=$?"' _ "$WICKET" </dev/null
	assert_equal "${lines[*]}" "$WS/sub rc=0 rc=123"
	grep -qF "\"rule\":\"pwd (in $WS/sub)\"" "$AUDIT"
}

@test "ask careful: a pre-push hook the sandbox wrote (no hooks directory at the start) does not run without a question" {
	mkrepos
	rm -rf "$WS/.git/hooks"
	policy exact workspace-write '[["git", "push", "-q", "'"$OUT"'/bare.git", "HEAD:main"]]'
	run --separate-stderr wsrun "$WS" --policy "$OUT/exact.json" --approver "$OUT/yes" -- sh -c '
		mkdir -p .git/hooks && printf "#!/bin/sh\ntouch %s/made\n" "$2" >.git/hooks/pre-push
		chmod 755 .git/hooks/pre-push
		"$1" ask --outside -- git push -q "$2/bare.git" HEAD:main; echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
	assert_line "rc=123"
	[ ! -e "$OUT/made" ]
	grep -q '"message":"CAREFUL: ' "$AUDIT"
}

@test "ask careful: a push to a bare repository whose pre-receive hook the sandbox wrote does not run without a question (by path and by remote name)" {
	mkrepos
	git -C "$WS" remote add up "$WS/target.git"
	policy exact workspace-write-strict '[["git", "push", "-q", "'"$WS"'/target.git", "HEAD:main"], ["git", "push", "-q", "up", "HEAD:main"]]'
	run --separate-stderr wsrun "$WS" --policy "$OUT/exact.json" --approver "$OUT/yes" -- sh -c '
		git init -q --bare target.git
		printf "#!/bin/sh\ntouch %s/made\n" "$2" >target.git/hooks/pre-receive
		chmod 755 target.git/hooks/pre-receive
		"$1" ask --outside -- git push -q "$PWD/target.git" HEAD:main; echo "rc=$?"
		"$1" ask --outside -- git push -q up HEAD:main; echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
	assert_line --index 0 "rc=123"
	assert_line --index 1 "rc=123"
	[ ! -e "$OUT/made" ]
}

@test "ask careful: python3 check.py in the workspace is CAREFUL: neither the rule nor the approver runs it" {
	policy py workspace-write '[["python3", "check.py"], {"argv": ["python3", "check.py"], "cwd": "${cwd}"}]'
	run --separate-stderr wsrun "$WS" --policy "$OUT/py.json" --approver "$OUT/yes" -- sh -c '
		printf "open(\"%s/made\", \"w\")\n" "$2" >check.py
		"$1" ask --outside -- python3 check.py; echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
	assert_line "rc=123"
	[ ! -e "$OUT/made" ]
	grep -qE "CAREFUL: python3[.0-9]* runs in $WS" "$AUDIT"
}

@test "ask careful: a program reached through /proc/PID/root is not found: the sandbox's view has no host pids" {
	printf '#!/bin/sh\ncat >/dev/null\nexit 0\n' >"$OUT/yes"
	(
		cd "$WS" && bounded 60 "$WICKET" run --approver "$OUT/yes" -- sh -c '
			printf "#!/bin/sh\ntouch %s/made\n" "$2" >/tmp/tool && chmod 755 /tmp/tool
			: >ready
			for i in $(seq 450); do [ -s pid ] && break; sleep 0.1; done
			"$1" ask -- "/proc/$(cat pid)/root/tmp/tool"; echo "rc=$?" >rc' _ "$WICKET" "$OUT" </dev/null
	) &
	local sup=$! i p init=
	# Bounds of 60 s: a loaded machine may take seconds to start it.
	for i in $(seq 600); do [ -e "$WS/ready" ] && break; sleep 0.1; done
	# A process of the sandbox, by its host pid: its root is the sandbox's
	# view, with the private /tmp the tool was written to.
	for p in /proc/[0-9]*; do
		grep -qs "$OUT/made" "$p/root/tmp/tool" && init=${p#/proc/} && break
	done
	[ -n "$init" ]
	echo "$init" >"$WS/pid.tmp" && mv "$WS/pid.tmp" "$WS/pid"
	wait "$sup" || true
	# The program is looked for in the sandbox's view, where /proc is the
	# sandbox's own: no process has that (host) number there.
	[ "$(cat "$WS/rc")" = "rc=127" ]
	[ ! -e "$OUT/made" ]
	grep -q 'command not found' "$AUDIT"
}

@test "ask careful: a program under /tmp or /dev/shm (the sandbox's own inside, another outside) is CAREFUL" {
	HOSTTMP=$(mktemp -d /tmp/wicket-careful.XXXXXX)
	local shm
	shm=$(mktemp -d /dev/shm/wicket-careful.XXXXXX) && track_dir "$shm"
	for d in "$HOSTTMP" "$shm"; do
		printf '#!/bin/sh\ntouch %s/made\n' "$OUT" >"$d/tool"
		chmod 755 "$d" "$d/tool"
	done
	policy tmp workspace-write '[["'"$HOSTTMP"'/tool"], ["'"$shm"'/tool"]]'
	run --separate-stderr wsrun "$WS" --policy "$OUT/tmp.json" --approver "$OUT/yes" -- sh -c '
		for d in "$2" "$3"; do
			mkdir -p "$d" && printf "#!/bin/sh\necho sandbox\n" >"$d/tool" && chmod 755 "$d/tool"
			"$1" ask --outside -- "$d/tool"; echo "rc=$?"
		done' _ "$WICKET" "$HOSTTMP" "$shm" </dev/null
	assert_line --index 0 "rc=123"
	assert_line --index 1 "rc=123"
	[ ! -e "$OUT/made" ]
	assert_equal "$(grep -c 'CAREFUL: the program ' "$AUDIT")" 2
}

# A clone whose submodule is not checked out: the index has the gitlink,
# sub/ is an empty directory of the workspace.
mksubrepos() {
	local g=(-c user.name=t -c user.email=t@example.invalid -c protocol.file.allow=always)
	git init -q -b main "$OUT/upsub"
	git -C "$OUT/upsub" "${g[@]}" commit -q --allow-empty -m sub
	git init -q -b main "$OUT/up"
	git -C "$OUT/up" "${g[@]}" commit -q --allow-empty -m one
	git -C "$OUT/up" "${g[@]}" submodule add -q "$OUT/upsub" sub
	git -C "$OUT/up" "${g[@]}" commit -q -m sub
	rmdir "$WS"
	git clone -q "$OUT/up" "$WS"
	chmod -R a+rX "$OUT/up" "$OUT/upsub"
}

@test "ask careful: git status, diff or add allowed by a rule do not run the config of a repository the sandbox makes at a gitlink (core.fsmonitor)" {
	mksubrepos
	# The man page's example rule, and the same for diff and add -A.
	policy st workspace-write-strict '[{"argv": ["git", "status"], "cwd": "${cwd}"}, {"argv": ["git", "diff"], "cwd": "${cwd}"}, {"argv": ["git", "add", "-A", "--dry-run"], "cwd": "${cwd}"}]'
	for c in status diff "add -A --dry-run"; do
		run --separate-stderr wsrun "$WS" --policy "$OUT/st.json" --approver "$OUT/yes" -- sh -c '
			rm -f .gitmodules
			git init -q sub && git -C sub config core.fsmonitor "touch $2/made; false"
			"$1" ask --outside -- git $3
			echo "rc=$?"' _ "$WICKET" "$OUT" "$c" </dev/null
		if [ -e "$OUT/made" ]; then
			echo "ESCAPE: git $c ran the sandbox's core.fsmonitor outside without a question"
			false
		fi
		assert_line "rc=123"
		rm -rf "$WS/sub/.git"
	done
	grep -q 'CAREFUL: git .*submodule' "$AUDIT"
}

@test "ask careful: git status --ignore-submodules in the same workspace is still approved by its rule, and runs" {
	mksubrepos
	policy st workspace-write-strict '[{"argv": ["git", "status", "--ignore-submodules"], "cwd": "${cwd}"}]'
	run --separate-stderr wsrun "$WS" --policy "$OUT/st.json" -- sh -c '
		git init -q sub && git -C sub config core.fsmonitor "touch $2/made; false"
		"$1" ask -- git status --ignore-submodules
		echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
	assert_line "rc=0"
	assert_line "On branch main"
	[ ! -e "$OUT/made" ]
}

@test "ask careful: git push --repo=<a bare repository the sandbox made> allowed by [git, push, *] does not run its pre-receive hook" {
	mkrepos
	policy push workspace-write-strict '[{"argv": ["git", "push", "*"], "cwd": "${cwd}"}]'
	for opt in --repo --rep; do
		run --separate-stderr wsrun "$WS" --policy "$OUT/push.json" --approver "$OUT/yes" -- sh -c '
			git init -q --bare evil.git
			printf "#!/bin/sh\ntouch %s/made\n" "$2" >evil.git/hooks/pre-receive
			chmod 755 evil.git/hooks/pre-receive
			"$1" ask --outside -- git push "$3=$PWD/evil.git"
			echo "rc=$?"' _ "$WICKET" "$OUT" "$opt" </dev/null
		if [ -e "$OUT/made" ]; then
			echo "ESCAPE: $opt= pushed to a repository whose hook the sandbox wrote, outside"
			false
		fi
		assert_line "rc=123"
		rm -rf "$WS/evil.git"
	done
}

@test "ask careful: [git, diff, --ignore-submodules, *] does not approve --ignore-submodules=none after it (git obeys the last)" {
	mksubrepos
	policy df workspace-write-strict '[{"argv": ["git", "diff", "--ignore-submodules", "*"], "cwd": "${cwd}"}]'
	for last in --ignore-submodules=none --ignore-submodules=dirty --no-ignore-submodules; do
		run --separate-stderr wsrun "$WS" --policy "$OUT/df.json" --approver "$OUT/yes" -- sh -c '
			git init -q sub && git -C sub config core.fsmonitor "touch $2/made; false"
			echo x >sub/s
			"$1" ask -- git diff --ignore-submodules "$3"
			echo "rc=$?"' _ "$WICKET" "$OUT" "$last" </dev/null
		if [ -e "$OUT/made" ]; then
			echo "ESCAPE: git diff --ignore-submodules $last ran the sandbox's core.fsmonitor outside"
			false
		fi
		rm -rf "$WS/sub/.git" "$WS/sub/s"
	done
}

@test "ask careful: [git, grep, **] does not approve git grep -O<command> (its pager), nor --open-files-in-pager=" {
	mkrepos
	printf 'hi\n' >"$WS/f"
	git -C "$WS" add f
	policy gr workspace-write-strict '[{"argv": ["git", "grep", "**"], "cwd": "${cwd}"}]'
	for o in "-Otouch $OUT/made; :" "--open-files-in-pager=touch $OUT/made; :" "--open=touch $OUT/made; :"; do
		run --separate-stderr wsrun "$WS" --policy "$OUT/gr.json" --approver "$OUT/yes" -- sh -c '
			"$1" ask --outside -- git grep --no-recurse-submodules "$2" hi
			echo "rc=$?"' _ "$WICKET" "$o" </dev/null
		if [ -e "$OUT/made" ]; then
			echo "ESCAPE: git grep $o ran a command of the sandbox's choosing outside"
			false
		fi
		assert_line "rc=123"
	done
}

@test "ask careful: [git, log, *] does not approve git log --output=FILE (a file of the person's, outside)" {
	mkrepos
	printf 'original\n' >"$OUT/victim"
	policy lg workspace-write-strict '[{"argv": ["git", "log", "*"], "cwd": "${cwd}"}, {"argv": ["git", "log", "*", "*"], "cwd": "${cwd}"}]'
	for o in "--output=$OUT/victim" "--outp=$OUT/victim" "-o $OUT/victim"; do
		# shellcheck disable=SC2086 # -o FILE is two words
		run --separate-stderr wsrun "$WS" --policy "$OUT/lg.json" --approver "$OUT/yes" -- sh -c '
			"$1" ask --outside -- git log $2
			echo "rc=$?"' _ "$WICKET" "$o" </dev/null
		if [ "$(cat "$OUT/victim")" != original ]; then
			echo "ESCAPE: git log $o overwrote a file outside the sandbox"
			false
		fi
		assert_line "rc=123"
	done
}

@test "ask: an approved command does not read what the sandbox writes to its standard input (a pipe, a file), unless a rule says stdin: true" {
	command -v vim >/dev/null || skip "vim is not installed"
	printf 'notes\n' >"$WS/notes.txt"
	policy ed workspace-write-strict '[["vim", "-es", "notes.txt"], ["wc", "-c"]]'
	# By the approver, then by a rule; a pipe, then a file: vim's ex
	# mode takes its standard input as commands ("!" runs one).
	for how in "--approver $OUT/yes" ""; do
		# shellcheck disable=SC2086 # $how is zero or two words
		run --separate-stderr wsrun "$WS" --policy "$OUT/ed.json" $how -- sh -c '
			printf "!touch %s/made\nq!\n" "$2" | "$1" ask -- vim -es notes.txt
			printf "!touch %s/made\nq!\n" "$2" >keys
			"$1" ask -- vim -es notes.txt <keys
			printf abc | "$1" ask -- wc -c' _ "$WICKET" "$OUT" </dev/null
		if [ -e "$OUT/made" ]; then
			echo "ESCAPE: an approved vim ran what the sandbox typed into its standard input (${how:-a rule})"
			false
		fi
		assert_line 0
		[[ "$stderr" == *"with /dev/null as its standard input"* ]]
	done
	grep -q '"stdin":"pipe","stdin_replaced":"/dev/null"' "$AUDIT"
	grep -q '"stdin":"file","stdin_replaced":"/dev/null"' "$AUDIT"
	# A rule that says so passes the input on: the person chose it.
	policy edin workspace-write-strict '[{"argv": ["wc", "-c"], "stdin": true}]'
	run --separate-stderr wsrun "$WS" --policy "$OUT/edin.json" -- sh -c '
		printf abc | "$1" ask -- wc -c' _ "$WICKET" </dev/null
	assert_line 3
	[[ "$stderr" != *"standard input"* ]]
	# /dev/null given is /dev/null: no notice.
	run --separate-stderr wsrun "$WS" --policy "$OUT/ed.json" -- sh -c '"$1" ask -- wc -c </dev/null' _ "$WICKET"
	assert_line 0
	[[ "$stderr" != *"standard input"* ]]
	grep -q '"stdin":"null"' "$AUDIT"
}

@test "ask careful: [git, push, origin, *] does not approve ./git-clone (a link to git, which git takes for git clone) push origin -u<command>" {
	mkrepos
	git -C "$WS" remote add origin "$OUT/bare.git"
	policy pu workspace-write-strict '[{"argv": ["git", "push", "origin", "*"], "cwd": "${cwd}"}]'
	run --separate-stderr wsrun "$WS" --policy "$OUT/pu.json" -- sh -c '
		git init -q push && git -C push -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m x
		ln -s "$(command -v git)" git-clone
		"$1" ask -- ./git-clone push origin "-utouch $2/made; git-upload-pack"
		echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: a rule for git push approved git-clone, which ran a command outside"
		false
	fi
	assert_line "rc=123"
}

@test "ask careful: a program the sandbox wrote in a writable root inside a read root kept in its /tmp is CAREFUL (--read /tmp/X --write /tmp/X/out)" {
	HOSTTMP=$(mktemp -d /tmp/wicket-keep.XXXXXX)
	chmod 755 "$HOSTTMP"
	mkdir -p "$HOSTTMP/proj/out"
	chmod 777 "$HOSTTMP/proj/out"
	run --separate-stderr wsrun "$WS" --read "$HOSTTMP/proj" --write "$HOSTTMP/proj/out" --approver "$OUT/yes" -- sh -c '
		printf "#!/bin/sh\ntouch %s/made\n" "$2" >"$3/out/evil.sh" && chmod 755 "$3/out/evil.sh"
		"$1" ask --outside -- "$3/out/evil.sh"
		echo "rc=$?"' _ "$WICKET" "$OUT" "$HOSTTMP/proj" </dev/null
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: the approver approved a program the sandbox wrote, and it ran outside"
		false
	fi
	assert_line "rc=123"
}

@test "ask careful: a program that runs another it is given (find -exec, tar --to-command, setarch) does not run one of the sandbox's" {
	mkrepos
	for c in 'find . -maxdepth 0 -exec ./evil ;' 'setarch x86_64 ./evil' 'env -i PATH=/bin prlimit --nofile=64 sh ./evil.sh'; do
		not_run_outside "$c" '
			printf "#!/bin/sh\ntouch %s/made\n" "$1" >evil && chmod 755 evil
			printf "touch %s/made\n" "$1" >evil.sh'
	done
}

@test "ask careful: a program made after the request, before find -exec or tar --to-command runs it, does not run outside" {
	# The approver says yes at once; the command waits a second (find's
	# first -exec, tar's checkpoint), and the sandbox writes ./evil
	# meanwhile: a check of what ./evil is at request time (an empty file,
	# not a program) says nothing.
	mkrepos
	tar -cf "$WS/a.tar" -C "$WS" .git/HEAD
	local c
	for c in 'find . -maxdepth 0 -exec sleep 1 ; -exec ./evil ;' \
		'find . -maxdepth 0 -exec sleep 1 ; -exec env ./evil ;' \
		'find . -maxdepth 1 -name evil -exec sleep 1 ; -exec {} ;' \
		'tar -xf a.tar --checkpoint=1 --checkpoint-action=sleep=1 --to-command=./evil' \
		'tar xf a.tar --checkpoint=1 --checkpoint-action=sleep=1 --to-com=./evil'; do
		rm -f "$WS/evil"
		run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c '
			: >evil
			(sleep 0.4; printf "#!/bin/sh\ntouch %s/made\n" "$2" >evil.new && chmod 755 evil.new && mv evil.new evil) &
			"$1" ask --outside -- $3
			echo "rc=$?"; wait' _ "$WICKET" "$OUT" "$c" </dev/null
		if [ -e "$OUT/made" ]; then
			echo "ESCAPE: $c ran a program the sandbox made after the request"
			false
		fi
		assert_line "rc=123"
	done
}

@test "ask careful: env PATH=, find -exec ... + ..., find -execdir with a wrapper, run-parts and zip -TT do not run the sandbox's program (red team 10)" {
	mkrepos
	local c
	for c in 'env PATH=@WS@/bin wkx' \
		'find . -maxdepth 1 -name wkx -exec env -u + {} ;' \
		'find . -maxdepth 1 -name wkx -execdir env ./wkx ;' \
		'run-parts ./bin' \
		'zip -q -T -TT ./wkx ../out.zip wkx'; do
		case $c in zip*) command -v zip >/dev/null || continue ;; esac
		not_run_outside "${c//@WS@/$WS}" '
			mkdir -p bin && printf "#!/bin/sh\ntouch %s/made\n" "$1" >bin/wkx && chmod 755 bin/wkx
			cp bin/wkx wkx'
	done
}

# A repository whose log fills more than a screen, so that git pages it.
mklongrepo() {
	mkrepos
	local i
	for ((i = 0; i < 60; i++)); do
		git -C "$WS" -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m "c$i"
	done
}

@test "ask: an approved git log on a terminal the sandbox holds (its own pty) cannot be typed into: a pager's shell escape does not run" {
	command -v less >/dev/null || skip "less is not installed"
	mklongrepo
	policy log workspace-write-strict '[{"argv": ["git", "log"], "cwd": "${cwd}"}]'
	printf '%s\n' 'import os, pty, subprocess, sys, time, select, fcntl, termios, struct' \
		'm, s = pty.openpty()' \
		'fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 3, 80, 0, 0))' \
		'p = subprocess.Popen([sys.argv[1], "ask", "--", "git", "log"], stdin=s, stdout=s, stderr=s)' \
		'seen = []' \
		'def drain(t):' \
		'    end = time.time() + t' \
		'    while time.time() < end:' \
		'        if select.select([m], [], [], 0.2)[0]:' \
		'            try: seen.append(os.read(m, 4096))' \
		'            except OSError: return' \
		'drain(3)' \
		'os.write(m, ("!touch %s/made\n" % sys.argv[2]).encode())' \
		'drain(2)' \
		'os.write(m, b"\nq")' \
		'drain(1)' \
		'try: p.wait(timeout=10)' \
		'except subprocess.TimeoutExpired: p.kill(); p.wait()' \
		'print("rc=%d" % p.returncode)' \
		'print(b"".join(seen).decode("utf-8", "replace").replace("\r\n", " ").replace("\n", " "))' >"$WS/typer.py"
	run --separate-stderr wsrun "$WS" --policy "$OUT/log.json" -- "$PY" typer.py "$WICKET" "$OUT" </dev/null
	echo "$output"
	echo "$stderr"
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: the sandbox typed a shell command into the pager of an approved git log"
		false
	fi
	assert_line "rc=125"
	assert_output --partial "terminal that is not the"
	assert_output --partial "session's"
}

@test "ask: an approved git log cannot read the sandbox's commands from a standard error it can read back (a file opened read-write, a socket)" {
	command -v less >/dev/null || skip "less is not installed"
	command -v tmux >/dev/null || skip "tmux is not installed"
	mklongrepo
	policy log workspace-write-strict '[{"argv": ["git", "log"], "cwd": "${cwd}"}]'
	printf '!touch %s/made\nq\n' "$OUT" >"$WS/cmds"
	local sock=wicket-askpager-$$
	own_tmux
	# stdout on the session's terminal (git pages), stderr a file of the
	# sandbox's, opened for reading and writing: a pager with no terminal
	# of its own reads its keys from standard error.
	tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$OUT" TERM=xterm LANG=C.UTF-8 \
		XDG_STATE_HOME="$XDG_STATE_HOME" WICKET_DIAG=off \
		bash --norc --noprofile -c 'cd "$1" && "$2" run --policy "$3" -- sh -c "\"\$1\" ask -- git log 2<>cmds; echo ask-rc=\$?" _ "$2"; echo wicket-exit=$?; sleep 30' \
		_ "$WS" "$WICKET" "$OUT/log.json"
	local i
	for ((i = 0; i < 100; i++)); do
		tmux -L "$sock" capture-pane -p | grep -q '^wicket-exit=' && break
		# a pager that waits for keys gets a q from the person
		tmux -L "$sock" capture-pane -p | grep -q '^ask-rc=' || { [ $((i % 20)) = 19 ] && tmux -L "$sock" send-keys q; }
		sleep 0.1
	done
	tmux -L "$sock" kill-server 2>/dev/null || true
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: the pager of an approved git log ran a command the sandbox wrote to its stderr"
		false
	fi
}

@test "ask careful: git's dashed form is git: git-status enters submodules, a link named git-clone clones (F1)" {
	mksubrepos
	local exec_path
	exec_path=$(git --exec-path)
	[ -e "$exec_path/git-status" ] || skip "no $exec_path/git-status"
	run --separate-stderr wsrun "$WS" --policy workspace-write-strict --approver "$OUT/yes" -- sh -c '
		git init -q sub && git -C sub config core.fsmonitor "touch $2/made; false"
		"$1" ask --outside -- "$3/git-status"; echo "rc=$?"
		rm -rf sub/.git
		git init -q push && ln -s "$(command -v git)" git-clone
		"$1" ask --outside -- ./git-clone push origin "-utouch $2/made; git-upload-pack"; echo "rc=$?"
		rm -rf push origin git-clone' _ "$WICKET" "$OUT" "$exec_path" </dev/null
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: git's dashed form ran code the sandbox chose, outside, without a question"
		false
	fi
	assert_line --index 0 "rc=123"
	assert_line --index 1 "rc=123"
}

@test "ask careful: git show / log -p --submodule=diff allowed by a rule or an approver do not run a submodule's diff.external the sandbox wrote (F3)" {
	local g=(-c user.name=t -c user.email=t@example.invalid -c protocol.file.allow=always)
	git init -q -b main "$OUT/upsub"
	git -C "$OUT/upsub" "${g[@]}" commit -q --allow-empty -m one
	echo a >"$OUT/upsub/f"
	git -C "$OUT/upsub" add f
	git -C "$OUT/upsub" "${g[@]}" commit -q -m two
	git init -q -b main "$OUT/up"
	git -C "$OUT/up" "${g[@]}" submodule add -q "$OUT/upsub" sub
	git -C "$OUT/up" "${g[@]}" commit -q -m sub
	git -C "$OUT/up/sub" checkout -q HEAD~1
	git -C "$OUT/up" add sub
	git -C "$OUT/up" "${g[@]}" commit -q -m bump
	rmdir "$WS"
	git clone -q "$OUT/up" "$WS"
	chmod -R a+rX "$OUT/up" "$OUT/upsub"
	policy show workspace-write-strict '[{"argv": ["git", "show", "*"], "cwd": "${cwd}"}]'
	for how in "--policy $OUT/show.json" "--policy workspace-write-strict --approver $OUT/yes"; do
		# shellcheck disable=SC2086 # $how is two or four words
		run --separate-stderr wsrun "$WS" $how -- sh -c '
			git clone -q --no-checkout "$2/upsub" sub.new && rm -rf sub && mv sub.new sub
			git -C sub config diff.external "sh -c \"touch $2/made\" #"
			"$1" ask --outside -- git show --submodule=diff; echo "rc=$?"
			"$1" ask --outside -- git log -p --submodule=diff; echo "rc=$?"
			rm -rf sub/.git' _ "$WICKET" "$OUT" </dev/null
		if [ -e "$OUT/made" ]; then
			echo "ESCAPE: a diff of a submodule ran the sandbox's diff.external outside ($how)"
			false
		fi
		assert_line --index 0 "rc=123"
		assert_line --index 1 "rc=123"
	done
}

@test "ask careful: bundled short options: git grep -iO<command>, git clone -qu<command> and -qc<config> are not run without a question (F14, F15)" {
	mkrepos
	printf 'hi\n' >"$WS/f"
	git -C "$WS" add f
	git -C "$WS" -c user.name=t -c user.email=t@example.invalid commit -q -m f
	git -C "$WS" push -q "$OUT/bare.git" HEAD:main
	git -C "$OUT/bare.git" symbolic-ref HEAD refs/heads/main
	chmod -R a+rX "$WS" "$OUT/bare.git"
	policy gr workspace-write-strict '[{"argv": ["git", "grep", "**"], "cwd": "${cwd}"}]'
	run --separate-stderr wsrun "$WS" --policy "$OUT/gr.json" --approver "$OUT/yes" -- sh -c '
		"$1" ask --outside -- git grep --no-recurse-submodules "-iOtouch $2/made-grep; :" hi; echo "rc=$?"
		mkdir -p h && printf "#!/bin/sh\ntouch %s/made-hook\n" "$2" >h/post-checkout
		chmod 755 h/post-checkout
		cd "$2"
		"$1" ask --outside -- git clone -qccore.hooksPath="$3/h" "$2/bare.git" "$2/c1"; echo "rc=$?"
		"$1" ask --outside -- git clone "-qutouch $2/made-upload; git-upload-pack" "$2/bare.git" "$2/c2"; echo "rc=$?"' _ "$WICKET" "$OUT" "$WS" </dev/null
	if ls "$OUT"/made-*; then
		echo "ESCAPE: a bundled short option ran a command of the sandbox's choosing outside"
		false
	fi
	assert_line --index 0 "rc=123"
	assert_line --index 1 "rc=123"
	assert_line --index 2 "rc=123"
}

@test "ask careful: env --chdir=<workspace> make, bash --rcfile F -c CODE and flock F -c CODE are not run without a question (F6)" {
	command -v make >/dev/null || skip "make is not installed"
	command -v flock >/dev/null || skip "flock is not installed"
	chmod a+rx "$OUT"
	run --separate-stderr wsrun "$WS" --policy workspace-write --approver "$OUT/yes" -- sh -c '
		printf "all:\n\ttouch %s/made-make\n" "$2" >Makefile
		printf "touch %s/made-bash\n" "$2" >x.sh
		printf "touch %s/made-flock\n" "$2" >y.sh
		cd "$2"
		"$1" ask --outside -- env --chdir="$3" make; echo "rc=$?"
		"$1" ask --outside -- bash --rcfile /dev/null -c ". $3/x.sh"; echo "rc=$?"
		"$1" ask --outside -- flock /etc/hostname -c ". $3/y.sh"; echo "rc=$?"' _ "$WICKET" "$OUT" "$WS" </dev/null
	if ls "$OUT"/made-*; then
		echo "ESCAPE: a wrapper or shell ran the workspace's code outside without a question"
		false
	fi
	assert_line --index 0 "rc=123"
	assert_line --index 1 "rc=123"
	assert_line --index 2 "rc=123"
}

@test "ask careful: git --bare at the workspace's top, the dynamic loader, ssh -F, curl -K: code or files the sandbox chose are not run or written without a question (F7, F17)" {
	command -v curl >/dev/null || skip "curl is not installed"
	local ldso
	ldso=$(ldd "$(command -v touch)" | awk '$1 ~ /^\/.*ld-/ {print $1; exit}')
	[ -n "$ldso" ] || skip "no dynamic loader found"
	mkrepos
	printf 'original\n' >"$OUT/victim"
	chmod a+rwx "$OUT" && chmod a+rw "$OUT/victim"
	policy cu workspace-write-strict '[{"argv": ["curl", "*"], "cwd": "${cwd}"}]'
	run --separate-stderr wsrun "$WS" --policy "$OUT/cu.json" --approver "$OUT/yes" -- sh -c '
		cp -r .git/HEAD .git/objects .git/refs . && mkdir -p info && echo "* diff=x" >info/attributes
		printf "[core]\n\tbare = true\n[diff \"x\"]\n\ttextconv = \"touch %s/made-git #\"\n" "$2" >config
		h=$(echo hi | git --git-dir=. hash-object -w --stdin)
		t=$(printf "100644 blob %s\tf\n" "$h" | git --git-dir=. mktree)
		git --git-dir=. -c user.email=a@b -c user.name=a commit-tree -m x "$t" >refs/heads/main
		"$1" ask --outside -- git --bare log -p --ignore-submodules >/dev/null; echo "rc=$?"
		cp "$(command -v touch)" prog
		"$1" ask --outside -- "$3" ./prog "$2/made-ld"; echo "rc=$?"
		printf "Host x\n  ProxyCommand sh -c \"touch %s/made-ssh\"\n" "$2" >cfg
		"$1" ask --outside -- ssh -F ./cfg x true 2>/dev/null; echo "rc=$?"
		echo "touch $2/made-login" >payload
		printf "url = \"file://%s/payload\"\noutput = \"%s/victim\"\nsilent\n" "$PWD" "$2" >curlcfg
		"$1" ask --outside -- curl -K./curlcfg; echo "rc=$?"' _ "$WICKET" "$OUT" "$ldso" </dev/null
	echo "$output"
	echo "$stderr"
	if ls "$OUT"/made-* || [ "$(cat "$OUT/victim")" != original ]; then
		echo "ESCAPE: the sandbox's code ran, or its file was written, outside without a question"
		false
	fi
	local i
	for i in 0 1 2 3; do assert_line --index "$i" "rc=123"; done
}

@test "ask careful: ssh -S, ssh -o ControlPath= and tmux -S do not hand the terminal to a server the sandbox runs at a socket in its workspace (F15)" {
	command -v ssh >/dev/null || skip "ssh is not installed"
	command -v tmux >/dev/null || skip "tmux is not installed"
	[ -n "$PY" ] || skip "python3 is not installed"
	run --separate-stderr wsrun "$WS" --policy workspace-write --approver "$OUT/yes" -- sh -c '
		"$2" -c "
import socket
s = socket.socket(socket.AF_UNIX)
s.bind(\"ctl\")
s.listen(4)
s.settimeout(30)
while True:
    c, _ = s.accept()
    open(\"reached\", \"a\").write(\"x\\n\")
    c.close()
" &
		sleep 1
		"$1" ask --outside -- ssh -S ./ctl -o BatchMode=yes localhost true </dev/null 2>/dev/null; echo "rc=$?"
		"$1" ask --outside -- ssh -o ControlPath=./ctl -o BatchMode=yes localhost true </dev/null 2>/dev/null; echo "rc=$?"
		"$1" ask --outside -- tmux -S ./ctl attach </dev/null 2>/dev/null; echo "rc=$?"
		kill $!' _ "$WICKET" "$PY" </dev/null
	echo "$output"
	if [ -e "$WS/reached" ]; then
		echo "ESCAPE: a client outside connected to the sandbox's server, and would hand it the terminal"
		false
	fi
	local i
	for i in 0 1 2; do assert_line --index "$i" "rc=123"; done
}

@test "ask careful: curl --engine and openssl -engine do not load a library the sandbox compiled (F9)" {
	command -v curl >/dev/null || skip "curl is not installed"
	command -v openssl >/dev/null || skip "openssl is not installed"
	command -v cc >/dev/null || skip "no C compiler"
	chmod a+rwx "$OUT"
	printf '#include <fcntl.h>\n#include <unistd.h>\n__attribute__((constructor)) static void init(void) { close(open("%s/made", O_CREAT|O_WRONLY, 0644)); }\n' "$OUT" >"$WS/e.c"
	cc -shared -fPIC -o "$WS/e.so" "$WS/e.c" || skip "cannot build a shared library"
	run --separate-stderr wsrun "$WS" --policy workspace-write --approver "$OUT/yes" -- sh -c '
		"$1" ask --outside -- curl -s --engine "$PWD/e.so" http://127.0.0.1:1/; echo "rc=$?"
		"$1" ask --outside -- openssl req -engine "$PWD/e.so" -help 2>/dev/null; echo "rc=$?"' _ "$WICKET" </dev/null
	echo "$output"
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: a library the sandbox built was loaded outside without a question"
		false
	fi
	assert_line --index 0 "rc=123"
	assert_line --index 1 "rc=123"
}

@test "ask careful: less --lesskey-src, ssh-keygen -D and vim -S with files the sandbox wrote do not run their code (F11)" {
	command -v less >/dev/null || skip "less is not installed"
	command -v vim >/dev/null || skip "vim is not installed"
	command -v ssh-keygen >/dev/null || skip "ssh-keygen is not installed"
	command -v cc >/dev/null || skip "no C compiler"
	chmod a+rwx "$OUT"
	printf '#include <fcntl.h>\n#include <unistd.h>\n__attribute__((constructor)) static void init(void) { close(open("%s/made-keygen", O_CREAT|O_WRONLY, 0644)); }\nint C_GetFunctionList(void **p) { return 1; }\n' "$OUT" >"$WS/p.c"
	cc -shared -fPIC -o "$WS/p.so" "$WS/p.c" || skip "cannot build a shared library"
	printf '#env\nLESSOPEN=|touch %s/made-less %%s\n' "$OUT" >"$WS/keys.src"
	printf ':call writefile([], "%s/made-vim")\n:qa!\n' "$OUT" >"$WS/x.vim"
	run --separate-stderr wsrun "$WS" --policy workspace-write --approver "$OUT/yes" -- sh -c '
		"$1" ask --outside -- less --lesskey-src="$PWD/keys.src" /etc/hostname >/dev/null; echo "rc=$?"
		"$1" ask --outside -- ssh-keygen -D "$PWD/p.so" >/dev/null 2>&1; echo "rc=$?"
		"$1" ask --outside -- vim -es -N -S "$PWD/x.vim"; echo "rc=$?"' _ "$WICKET" </dev/null
	echo "$output"
	if ls "$OUT"/made-*; then
		echo "ESCAPE: code the sandbox wrote ran outside without a question"
		false
	fi
	local i
	for i in 0 1 2; do assert_line --index "$i" "rc=123"; done
}

@test "ask careful: sed -f a script the sandbox wrote, or a script with e, does not run its command (F1)" {
	chmod a+rwx "$OUT"
	run --separate-stderr wsrun "$WS" --policy workspace-write --approver "$OUT/yes" -- sh -c '
		printf "1e touch %s/made-f\n" "$2" >x.sed
		"$1" ask --outside -- sed -f x.sed /etc/hostname >/dev/null; echo "rc=$?"
		"$1" ask --outside -- sed -n "1e touch $2/made-e" /etc/hostname >/dev/null; echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
	echo "$output"
	if ls "$OUT"/made-*; then
		echo "ESCAPE: sed ran the sandbox's command outside without a question"
		false
	fi
	assert_line --index 0 "rc=123"
	assert_line --index 1 "rc=123"
}

@test "ask careful: wget --use-askpass does not run the sandbox's program (F3)" {
	command -v wget >/dev/null || skip "wget is not installed"
	chmod a+rwx "$OUT"
	run --separate-stderr wsrun "$WS" --policy workspace-write --approver "$OUT/yes" -- sh -c '
		printf "#!/bin/sh\ntouch %s/made\n" "$2" >ap && chmod +x ap
		"$1" ask --outside -- wget -q --spider --use-askpass="$PWD/ap" --user=x http://127.0.0.1:1/; echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
	echo "$output"
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: wget ran the sandbox's askpass program outside without a question"
		false
	fi
	assert_line "rc=123"
}

@test "ask careful: scalar does not run git with the config of a repository the sandbox wrote (F13)" {
	command -v scalar >/dev/null || skip "scalar is not installed"
	chmod a+rwx "$OUT"
	run --separate-stderr wsrun "$WS" --policy workspace-write --approver "$OUT/yes" -- sh -c '
		git init -q repo && cd repo && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x &&
		git config core.sshCommand "touch $2/made; false #" && git remote add origin ssh://h/x && cd .. &&
		"$1" ask --outside -- scalar run fetch repo </dev/null >/dev/null 2>&1; echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
	echo "$output"
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: scalar ran the config of the sandbox's repository outside without a question"
		false
	fi
	assert_line "rc=123"
}
