#!/usr/bin/env bats
# Code a home directory's shells and tools run at the next login or tool
# start, beyond .bashrc and .profile: Debian's default .bashrc sources
# ~/.bash_aliases, its .profile puts ~/bin and ~/.local/bin first on PATH,
# tmux and vim run commands from their config. In a writable home
# (accepted with --allow-shared-write) those files are kept read-only or
# moved aside; a writable root that holds a directory of the PATH, or
# ~/.config, is refused without --allow-shared-write. Judged outside: a
# mark the planted code leaves, after the host's bash, git or tmux ran.

load ../lib/common
load escape_helpers

setup() {
	esc_setup
	H=$OUT/home
	mkdir -p "$H"
	if [ -f /etc/skel/.bashrc ] && [ -f /etc/skel/.profile ]; then
		cp /etc/skel/.bashrc /etc/skel/.profile "$H/"
	fi
	PWNED=$OUT/pwned
}

teardown() {
	escape_cleanup
	common_teardown
}

# What the person does after the session: open a shell, run git.
host_login() {
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" TERM=dumb bash -i -c true </dev/null >/dev/null 2>&1 || true
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" bash -l -c 'git --version' </dev/null >/dev/null 2>&1 || true
}

# in_home OPTS... -- CMD...: wicket run OPTS -- CMD with the test's home,
# from DIR ($RUN_IN, else the workspace); $output and $status as bats' run.
in_home() {
	local opts=()
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	status=0
	output=$(cd "${RUN_IN:-$WS}" && HOME=$H bounded 30 "$WICKET" run "${opts[@]}" -- "$@" 2>&1) || status=$?
	mapfile -t lines <<<"$output"
	printf '%s\n' "$output"
}

@test "home: ~/.bash_aliases, sourced by the default ~/.bashrc, in a writable home" {
	grep -qs bash_aliases "$H/.bashrc" || skip "this /etc/skel/.bashrc sources no .bash_aliases"
	RUN_IN=$H in_home --allow-shared-write -- sh -c 'echo "touch $1" >.bash_aliases' _ "$PWNED"
	[ "$status" -eq 0 ]
	host_login
	[ ! -e "$PWNED" ] || { echo "ESCAPE: the host's next interactive bash ran ~/.bash_aliases written in the sandbox"; false; }
	assert_output --partial quarantined-by-wicket
	# An existing one is read-only.
	echo ': aliases' >"$H/.bash_aliases"
	RUN_IN=$H in_home --allow-shared-write -- sh -c 'echo "touch $1" >>.bash_aliases' _ "$PWNED"
	host_login
	[ ! -e "$PWNED" ] || { echo "ESCAPE: an existing ~/.bash_aliases was changed"; false; }
	[ "$(cat "$H/.bash_aliases")" = ': aliases' ]
}

@test "home: tmux and vim config in a writable home is read-only or moved aside" {
	mkdir -p "$H/.config/tmux" "$H/.vim"
	: >"$H/.config/tmux/tmux.conf"
	RUN_IN=$H in_home --allow-shared-write -- sh -c 'for f in .config/tmux/tmux.conf .tmux.conf .vimrc .vim/plugin.vim .config/nvim/init.lua; do
		case $f in */*) mkdir -p "${f%/*}" 2>/dev/null ;; esac; echo "run-shell \"touch $1\"" >>"$f" 2>/dev/null; done; echo done' _ "$PWNED"
	assert_line done
	[ ! -s "$H/.config/tmux/tmux.conf" ]
	[ ! -e "$H/.tmux.conf" ] && [ ! -e "$H/.vimrc" ] && [ ! -e "$H/.config/nvim" ]
	[ -z "$(ls "$H/.vim")" ]
}

PLANT_BIN='mkdir -p "$2" && printf "#!/bin/sh\ntouch %s\nexec /usr/bin/git \"\$@\"\n" "$1" >"$2/git" &&
	chmod 755 "$2/git"'

@test "home: ~/.local/bin, first on PATH by the default ~/.profile, is refused with --write ~/.local" {
	command -v git >/dev/null || skip "git is not installed"
	[ -f "$H/.profile" ] || skip "no /etc/skel/.profile"
	mkdir -p "$H/.local"
	in_home --write "$H/.local" -- sh -c "$PLANT_BIN" _ "$PWNED" "$H/.local/bin"
	[ "$status" -eq 125 ]
	assert_output --partial "$H/.local/bin"
	assert_output --partial "on PATH"
	host_login
	[ ! -e "$PWNED" ] || { echo "ESCAPE: the host's next login shell ran ~/.local/bin/git written in the sandbox"; false; }
	# ~/bin alike, and the directory itself.
	in_home --write "$H/bin" -- true
	[ "$status" -eq 125 ]
	assert_output --partial "$H/bin"
	# Accepted knowingly.
	in_home --allow-shared-write --write "$H/.local" -- true
	[ "$status" -eq 0 ]
}

@test "home: a directory of the calling PATH inside the home is refused" {
	mkdir -p "$H/tools/bin" "$H/other"
	status=0
	output=$(cd "$WS" && HOME=$H PATH=$H/tools/bin:$PATH bounded 30 "$WICKET" run --write "$H/tools" -- \
		sh -c "$PLANT_BIN" _ "$PWNED" "$H/tools/bin" 2>&1) || status=$?
	printf '%s\n' "$output"
	[ "$status" -eq 125 ]
	assert_output --partial "$H/tools/bin"
	[ ! -e "$H/tools/bin/git" ]
	# A directory of the home not on PATH is fine.
	output=$(cd "$WS" && HOME=$H PATH=$H/tools/bin:$PATH bounded 30 "$WICKET" run --write "$H/other" -- \
		sh -c 'echo ok >"$1/f"' _ "$H/other" 2>&1)
	[ "$(cat "$H/other/f")" = ok ]
}

@test "home: ~/.config (tmux's tmux.conf, run at the next server start) is refused with --write ~/.config" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	mkdir -p "$H/.config"
	in_home --write "$H/.config" -- sh -c \
		'mkdir -p "$HOME/.config/tmux" && printf "run-shell \"touch %s\"\n" "$1" >"$HOME/.config/tmux/tmux.conf"' \
		_ "$PWNED"
	[ "$status" -eq 125 ]
	assert_output --partial "refusing to make $H/.config writable"
	local sock=wicket-home-$$ i
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" tmux -L "$sock" new-session -d 'sleep 5' || true
	for ((i = 0; i < 20; i++)); do
		[ -e "$PWNED" ] && break
		sleep 0.1
	done
	tmux -L "$sock" kill-server 2>/dev/null || true
	[ ! -e "$PWNED" ] || { echo "ESCAPE: the host's next tmux server ran ~/.config/tmux/tmux.conf written in the sandbox"; false; }
}

@test "home: a file ~/.gitconfig includes (~/ path) in a writable home" {
	command -v git >/dev/null || skip "git is not installed"
	printf '[include]\n\tpath = ~/shared/git.inc\n' >"$H/.gitconfig"
	mkdir -p "$H/shared" "$H/repo"
	: >"$H/shared/git.inc"
	git -C "$H/repo" init -q
	RUN_IN=$H in_home --allow-shared-write -- sh -c 'printf "[core]\n\tfsmonitor = \"touch %s; false\"\n" "$1" >>shared/git.inc' _ "$PWNED"
	(cd "$H/repo" && env -i PATH=/usr/bin:/bin HOME="$H" GIT_CONFIG_NOSYSTEM=1 git status --short) >/dev/null 2>&1 || true
	[ ! -e "$PWNED" ] || { echo "ESCAPE: git on the host ran a command from a file ~/.gitconfig includes"; false; }
	[ ! -s "$H/shared/git.inc" ]
}
