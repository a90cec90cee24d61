#!/usr/bin/env bats
# `wicket` inside every session: the wicket that started it is first in
# PATH (and $WICKET_EXE), read-only, the same file whatever the sandbox
# does to its name; the hooks' hints name a command that exists even when
# the user's rc files set PATH; `wicket run` and `wicket doctor` inside a
# session say so (status 125) instead of blaming a container runtime.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	it_setup_ws
	# The launcher under test is not in PATH (a build tree's, as in the
	# README), nor is any other wicket.
	export PATH=/usr/local/bin:/usr/bin:/bin
	export HOME=$OUT/home
	mkdir -p "$HOME"
	export XDG_CONFIG_HOME=$OUT/config
	TMUX_SOCK=wicket-inside-$$-$BATS_TEST_NUMBER
	own_tmux
}

teardown() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	it_teardown
}

@test "inside a session 'wicket why' and 'wicket ask' are found in PATH, and are the session's wicket" {
	! command -v wicket
	run --separate-stderr wsrun "$WS" -- sh -c 'command -v wicket; [ "$WICKET_EXE" = "$(command -v wicket)" ] && echo same;
		touch /var/tmp/wk-inside 2>/dev/null; wicket why; echo "why=$?"; wicket ask -- true </dev/null; echo "ask=$?"'
	assert_equal "$status" 0
	assert_line --index 0 --regexp '^/.*/wicket$'
	assert_line --index 1 same
	assert_line --regexp '^write blocked: /var/tmp/wk-inside$'
	assert_line 'why=0'
	# No terminal and no approver: refused by the supervisor (123), not 127.
	assert_line 'ask=123'
}

@test "the session's wicket is read-only: rewriting it from inside leaves the host's file unchanged" {
	# Started by a wicket inside its own (writable) workspace, as from a
	# build tree opened as the workspace.
	cp "$WICKET" "$WS/wicket"
	local before
	before=$(sha256sum <"$WS/wicket")
	cat >"$OUT/attack" <<'SH'
echo "#!/bin/sh" >"$WICKET_EXE" && echo wrote
truncate -s 0 "$(command -v wicket)" && echo truncated
echo "#!/bin/sh" >./wicket && echo wrote-by-name
rm -f "$WICKET_EXE" && echo removed
true
SH
	run --separate-stderr bash -c 'cd "$1" && timeout --kill-after=5 60 ./wicket run -- sh "$2"' _ "$WS" "$OUT/attack"
	assert_equal "$status" 0
	# Not one of them succeeded (each prints a word when it does).
	assert_equal "$output" ""
	[ "$(sha256sum <"$WS/wicket")" = "$before" ]
}

@test "a wicket in the workspace replaced by name from inside: 'wicket' still runs the one that started the session" {
	# The session is started by a wicket that lies in its own workspace
	# (a build tree opened as the workspace): the sandbox can rename a
	# file of its own over that name. The fake would leave a mark.
	cp "$WICKET" "$WS/wicket"
	printf '#!/bin/sh\ntouch %s/fake-ran\n' "$WS" >"$WS/fake"
	chmod 755 "$WS/fake"
	run --separate-stderr bash -c 'cd "$1" && bounded() { timeout --kill-after=5 "$@"; }; bounded 60 ./wicket run -- sh -c "mv -f fake wicket && echo replaced; wicket why >/dev/null; echo why=\$?; \$WICKET_EXE why >/dev/null; echo exe=\$?"' _ "$WS"
	assert_equal "$status" 0
	assert_line replaced
	assert_line why=0
	assert_line exe=0
	[ ! -e "$WS/fake-ran" ]
}

@test "under a policy that narrows reading, the session's wicket still runs; --env cannot redirect WICKET_EXE" {
	cat >"$OUT/narrow.json" <<'JSON'
{"extends": "workspace-write", "filesystem": {"read": ["/usr", "/lib", "/lib64", "/bin", "/etc", "${cwd}"]}}
JSON
	run --separate-stderr wsrun "$WS" -P "$OUT/narrow.json" --env WICKET_EXE=/bin/false --env WICKET_SESSION=x -- sh -c 'wicket why >/dev/null; echo "why=$?"; "$WICKET_EXE" why >/dev/null; echo "exe=$?"; [ "$WICKET_SESSION" != x ] && echo own-session'
	assert_equal "$status" 0
	assert_equal "$output" "why=0
exe=0
own-session"
}

@test "without a mount namespace (--best-effort) 'wicket why' works too, and its directory is gone after" {
	run --separate-stderr env WICKET_PRETEND_MISSING=namespaces bash -c 'cd "$1" && timeout 60 "$2" run --best-effort -- sh -c "d=\${WICKET_EXE%/*}; echo \$d; wicket why >/dev/null && echo why-ok; ln -sf /bin/false \$WICKET_EXE 2>/dev/null || echo not-replaced"' _ "$WS" "$WICKET"
	assert_equal "$status" 0
	assert_line why-ok
	assert_line not-replaced
	[[ ${lines[0]} == /tmp/wicket-bin-* ]]
	[ ! -e "${lines[0]}" ]
}

@test "'wicket run' and 'wicket doctor' inside a session say so, with status 125" {
	run --separate-stderr wsrun "$WS" -- sh -c 'wicket run -- true; echo "run=$?"; wicket doctor; echo "doctor=$?"; wicket -c true </dev/null; echo "shell=$?"'
	assert_equal "$status" 0
	assert_line run=125
	assert_line doctor=125
	assert_line shell=125
	[[ $stderr =~ run:\ this\ is\ already\ wicket\ session\ [0-9a-f]+\ \(policy\ workspace-write\) ]]
	[[ $stderr =~ doctor:\ this\ is\ wicket\ session\ [0-9a-f]+ ]]
	[[ $stderr != *"container runtime"* ]]
}

@test "a session whose variables were cleared (env -i) is still known as one by run and doctor" {
	run --separate-stderr wsrun "$WS" -- sh -c 'env -i /run/wicket/bin/wicket run -- true; echo "run=$?"; env -i /run/wicket/bin/wicket doctor; echo "doctor=$?"'
	assert_equal "$status" 0
	assert_line run=125
	assert_line doctor=125
	[[ $stderr == *"run: this is already wicket session (its variables cleared)"* ]]
	[[ $stderr == *"doctor: this is wicket session (its variables cleared)"* ]]
	[[ $stderr != *"container runtime"* ]]
}

# start_shell SHELL: `wicket shell` in a terminal, in the workspace, whose
# rc file sets PATH without any wicket in it.
start_shell() {
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 160 -y 50 \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$HOME" TERM=xterm LANG=C.UTF-8 \
		SHELL="$1" XDG_STATE_HOME="$XDG_STATE_HOME" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" \
		bash --norc --noprofile -c 'cd "$1" && "$2" shell; sleep 60' _ "$WS" "$WICKET"
}

pane() { tmux_screen -S -200 -J; }
keys() { tmux -L "$TMUX_SOCK" send-keys -l -- "$1"; tmux -L "$TMUX_SOCK" send-keys Enter; }

# hint_then_why SHELL PROMPT-REGEX: in SHELL (whose rc file set PATH), a
# refused write, the hint, then `wicket why` as the hint names it.
hint_then_why() {
	start_shell "$1"
	tmux_wait "$2" -S -200 -J
	keys 'touch /var/tmp/wk-hint; sleep 0.3'
	tmux_wait 'wicket why$' -S -200 -J
	keys 'wicket why; echo "why=$?"'
	tmux_wait '^why=0$' -S -200 -J
	pane | grep -qxF 'write blocked: /var/tmp/wk-hint'
	! pane | grep -q 'command not found'
}

@test "bash: the hint's 'wicket why' runs, though the user's .bashrc sets PATH" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	printf 'PATH=/usr/bin:/bin\nPS1="\\$ "\n' >"$HOME/.bashrc"
	hint_then_why /bin/bash '^\(wicket\) [#$] $'
	pane | grep -qxF '  why, and how to allow it: wicket why'
}

@test "zsh: the hint's 'wicket why' runs, though the user's .zshrc sets PATH" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	[ -x /usr/bin/zsh ] || skip "zsh is not installed"
	printf 'path=(/usr/bin /bin)\nPS1="%%# "\n' >"$HOME/.zshrc"
	hint_then_why /usr/bin/zsh '^\(wicket\) [#%] $'
}
