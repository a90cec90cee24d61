#!/usr/bin/env bats
# The command-line forms of the common policy edits: --net none|full|
# ports:LIST, --env NAME[=VALUE], --hide, --read, next to --write and
# --protect. Each is judged by its effect outside the sandbox (a host file,
# a host listener) or by what reaches the caller; a path that does not
# exist is an error (125), not a silent no-op.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	it_setup_home
}

teardown() { it_teardown; }

@test "--protect, --hide, --read and --write of a path that does not exist: 125, naming it" {
	local opt
	for opt in --protect --hide --read --write; do
		run --separate-stderr wsrun "$WS" "$opt" "$WS/no-such" -- true
		assert_equal "$status" 125
		[[ $stderr == *"$opt $WS/no-such: No such file or directory"* ]]
	done
}

@test "--protect keeps an existing file of the workspace read-only: the host's file is unchanged" {
	echo keep >"$WS/conf"
	run --separate-stderr wsrun "$WS" --protect conf -- sh -c 'echo changed >conf; rm -f conf; echo other >other'
	[ "$(cat "$WS/conf")" = keep ]
	[ "$(cat "$WS/other")" = other ]
}

@test "--hide covers a file of the workspace: its content does not come out, and 'why' names the option" {
	echo secret-$$ >"$WS/key"
	run --separate-stderr wsrun "$WS" --hide "$WS/key" -- sh -c 'cat key; echo "#" >>key'
	[[ $output != *secret-$$* ]]
	[ "$(cat "$WS/key")" = "secret-$$" ]
	run --separate-stderr wkb why
	[[ $output == *'hidden by the rule "'"$WS"'/key" (--hide on the command line)'* ]]
}

@test "--read adds a read root to a policy that narrows reading" {
	mkdir "$OUT/data" && echo visible-$$ >"$OUT/data/f"
	cat >"$OUT/narrow.json" <<'JSON'
{"extends": "workspace-write", "filesystem": {"read": ["/usr", "/lib", "/lib64", "/bin", "/etc", "${cwd}"]}}
JSON
	run --separate-stderr wsrun "$WS" -P "$OUT/narrow.json" -- /bin/cat "$OUT/data/f"
	assert_equal "$status" 1
	run --separate-stderr wsrun "$WS" -P "$OUT/narrow.json" --read "$OUT/data" -- /bin/cat "$OUT/data/f"
	assert_equal "$status" 0
	assert_equal "$output" "visible-$$"
}

@test "--read of a hidden path is refused (125): the command line does not lift a hide rule" {
	mkdir -p "$HOME/.ssh"
	run --separate-stderr wsrun "$WS" --read "$HOME/.ssh" -- true
	assert_equal "$status" 125
	[[ $stderr == *"--read $HOME/.ssh: it is hidden by the policy's rule"* ]]
}

@test "--net ports:LIST reaches a host listener on a listed port and no other" {
	local a=$OUT/a b=$OUT/b
	mkdir "$a" "$b"
	listener_start "$a"
	listener_start "$b"
	local pa pb
	pa=$(cat "$a/port") pb=$(cat "$b/port")
	run --separate-stderr wsrun "$WS" --net "ports:$pa" -- "$PY" -c "$TCP_SEND" "$pa" tok-a-$$
	assert_equal "$status" 0
	run --separate-stderr wsrun "$WS" --net "ports:$pa,1" -- "$PY" -c "$TCP_SEND" "$pb" tok-b-$$
	[ "$status" -ne 0 ]
	refute_output --partial connected
	[[ $stderr == *"network blocked: connect 127.0.0.1:$pb/tcp"* ]]
	wait_for_grep "tok-a-$$" "$a/got" 50
	# The one listener that got anything got tok-a (the refused connect
	# never reached the kernel's TCP stack: nothing to wait for).
	! grep -q "tok-b-$$" "$b/got" 2>/dev/null
}

@test "--net ports: a bad list is refused (125)" {
	local bad
	for bad in ports: ports:0 ports:65536 ports:80,x ports:,80 udp; do
		run --separate-stderr wsrun "$WS" --net "$bad" -- true
		assert_equal "$status" 125
	done
}

@test "--env NAME=VALUE sets a variable; --env NAME passes on one the policy removes; unset NAME is an error" {
	run --separate-stderr env MY_TOKEN=tok-$$ bash -c 'cd "$1" && timeout 60 "$2" run --env MY_TOKEN --env GREETING=hi -- sh -c "echo \$MY_TOKEN \$GREETING"' _ "$WS" "$WICKET"
	assert_equal "$status" 0
	assert_equal "$output" "tok-$$ hi"
	# Without it, the policy's env.unset removes it.
	run --separate-stderr env MY_TOKEN=tok-$$ bash -c 'cd "$1" && timeout 60 "$2" run -- sh -c "echo \${MY_TOKEN-gone}"' _ "$WS" "$WICKET"
	assert_equal "$output" gone
	run --separate-stderr env -u NO_SUCH_VAR bash -c 'cd "$1" && timeout 60 "$2" run --env NO_SUCH_VAR -- true' _ "$WS" "$WICKET"
	assert_equal "$status" 125
	[[ $stderr == *"NO_SUCH_VAR is not set here"* ]]
	run --separate-stderr wsrun "$WS" --env 9X=1 -- true
	assert_equal "$status" 125
}
