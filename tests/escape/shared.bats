#!/usr/bin/env bats
# Shared spaces: a workspace or writable root that other programs of the
# user (or other users) also use. `cd /tmp && wicket` would give the
# sandbox the host's /tmp with every socket in it (a tmux server's among
# them); a writable $HOME, the files shells and desktops run at login.
# Such roots are refused (exit 125) unless --allow-shared-write accepts
# them, and the startup files stay protected in every writable root. A
# home's .config and the directories on PATH inside a home (~/bin,
# ~/.local/bin, the caller's PATH entries) are shared spaces too.
#
# Judged outside: the host's tmux server got no new window, the startup
# files are what they were, nothing new sits where a shell would run it.

load ../lib/common
load escape_helpers

setup() {
	esc_setup
	H=$OUT/home
	mkdir -p "$H"
}

teardown() {
	escape_cleanup
	common_teardown
}

# in_dir DIR ARGS...: `wicket run ARGS...` from DIR, HOME=$H, bounded.
in_dir() {
	local d=$1
	shift
	(cd "$d" && HOME=$H bounded 30 "$WICKET" run "$@")
}

# assert_refused_shared ROOT: the last `run` was refused, exit 125, with
# one line naming ROOT and the option that accepts it.
assert_refused_shared() {
	assert_equal "$status" 125
	[ "${#lines[@]}" -eq 1 ] || { echo "not one line: $output"; false; }
	assert_output --partial "$1"
	assert_output --partial "--allow-shared-write"
}

@test "shared: cd /tmp && wicket does not reach the host's tmux server" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	local name="wk-$RND" pid
	# The server's socket stays under /tmp, in the test's own directory
	# there when it has one.
	case $BATS_TEST_TMPDIR in /tmp/*) own_tmux ;; esac
	tmux -L "$name" -f /dev/null new-session -d -s t "sleep 120"
	pid=$(tmux -L "$name" display-message -p '#{pid}')
	track_pid "$pid"
	# The server is there, and reachable from outside.
	tmux -L "$name" new-window -d "sleep 121"
	[ "$(tmux -L "$name" list-windows | wc -l)" -eq 2 ]

	run in_dir /tmp -- tmux -L "$name" new-window -d "touch $OUT/pwned; sleep 122"
	# No window was opened by the sandbox, and nothing ran outside.
	[ "$(tmux -L "$name" list-windows | wc -l)" -eq 2 ]
	[ ! -e "$OUT/pwned" ]
	assert_refused_shared /tmp
}

@test "shared: each shared space is refused as the workspace, exit 125" {
	local rt
	mkout rt
	export XDG_RUNTIME_DIR=$rt
	for d in /tmp /var/tmp /run /var "$rt" "$H" "$(dirname "$H")"; do
		run in_dir "$d" -- true
		echo "workspace $d: $output"
		assert_refused_shared "$d"
	done
	# / and /dev/shm: refused even with the option, which cannot accept them.
	for d in / /dev/shm; do
		run in_dir "$d" --allow-shared-write -- true
		echo "workspace $d: $output"
		assert_equal "$status" 125
		[ "${#lines[@]}" -eq 1 ]
	done
}

@test "shared: a shared space given with --write, -C, through a symlink or in a policy is refused" {
	run in_dir "$WS" --write /tmp -- true
	assert_refused_shared /tmp
	run in_dir "$WS" -C /var/tmp -- true
	assert_refused_shared /var/tmp
	run in_dir "$WS" --write "$H" -- true
	assert_refused_shared "$H"
	ln -s /tmp "$OUT/tmplink"
	run in_dir "$OUT/tmplink" -- true
	assert_refused_shared /tmp
	run in_dir "$WS" --write "$OUT/tmplink" -- true
	assert_refused_shared /tmp
	printf '{"extends": "workspace-write", "filesystem": {"write": ["/var/tmp"]}}\n' >"$OUT/p.json"
	run in_dir "$WS" --policy "$OUT/p.json" -- true
	assert_refused_shared /var/tmp
	# The real home too, when HOME names another directory. A user
	# without one (CI's wicket-test: /nonexistent) is refused all the
	# same, for the missing path.
	real=$(getent passwd "$(id -u)" | cut -d: -f6)
	run in_dir "$WS" --write "$real" -- true
	if [ -d "$real" ]; then
		assert_refused_shared "$real"
	else
		assert_equal "$status" 125
		assert_output --partial "$real"
	fi
}

@test "shared: --allow-shared-write accepts it knowingly" {
	run in_dir "$WS" --allow-shared-write --write /var/tmp -- sh -c 'echo ok >"$1/f2"' _ "$OUT"
	assert_equal "$status" 0
	[ "$(cat "$OUT/f2")" = ok ]
}

@test "shared: the files shells and desktops run stay protected in a writable home" {
	printf 'orig\n' >"$H/.bashrc"
	printf 'orig\n' >"$H/.profile"
	mkdir -p "$H/.config/git" "$H/.config/systemd/user"
	printf 'orig\n' >"$H/.config/git/config"
	attack='for f in .bashrc .profile .config/git/config; do echo "touch $1" >>"$f"; done
		for f in .zshrc .bash_profile .bash_login .zshenv .gitconfig .config/fish/config.fish \
			.config/autostart/x.desktop .config/systemd/user/x.service \
			.local/share/systemd/user/x.service .config/environment.d/x.conf; do
			mkdir -p "$(dirname "$f")"; echo "touch $1" >"$f"
		done
		echo ok >plain'
	run in_dir "$H" --allow-shared-write -- sh -c "$attack" _ "$OUT/pwned"
	# The home was writable...
	[ "$(cat "$H/plain")" = ok ]
	# ...but not what a shell or a desktop would run from it.
	for f in .bashrc .profile .config/git/config; do
		[ "$(cat "$H/$f")" = orig ] || { echo "$f changed"; false; }
	done
	for f in .zshrc .bash_profile .bash_login .zshenv .gitconfig .config/fish .config/autostart \
		.config/systemd/user/x.service .local/share/systemd .config/environment.d; do
		[ ! -e "$H/$f" ] || { echo "$f planted"; false; }
	done
	# A login shell outside runs nothing planted.
	HOME=$H bash -lic true </dev/null >/dev/null 2>&1 || true
	[ ! -e "$OUT/pwned" ]
}

@test "shared: --write ~/.config, accepted, keeps autostart, systemd, fish and git protected" {
	mkdir -p "$H/.config/fish"
	printf 'orig\n' >"$H/.config/fish/config.fish"
	run in_dir "$WS" --write "$H/.config" -- true
	assert_refused_shared "$H/.config"
	run in_dir "$WS" --allow-shared-write --write "$H/.config" -- sh -c '
		echo "touch $2" >>"$1/fish/config.fish"
		mkdir -p "$1/autostart" "$1/git" && echo x >"$1/autostart/x.desktop"
		echo "[core] fsmonitor = touch $2" >"$1/git/config"
		echo ok >"$1/plain"' _ "$H/.config" "$OUT/pwned"
	[ "$(cat "$H/.config/plain")" = ok ]
	[ "$(cat "$H/.config/fish/config.fish")" = orig ]
	[ ! -e "$H/.config/autostart" ]
	[ ! -e "$H/.config/git" ]
}

# Beyond .bashrc and .profile: Debian's default .bashrc sources
# ~/.bash_aliases, its .profile puts ~/bin and ~/.local/bin first on PATH,
# tmux and vim run commands from their config. Judged outside: a mark the
# planted code leaves after the host's bash, git or tmux ran with $H.

# skel_home: Debian's default .bashrc and .profile in $H, or skip.
skel_home() {
	[ -f /etc/skel/.bashrc ] && [ -f /etc/skel/.profile ] || skip "no /etc/skel dot files"
	cp /etc/skel/.bashrc /etc/skel/.profile "$H/"
}

# host_login: what the person does after the session: open a shell, run git.
host_login() {
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" TERM=dumb bash -i -c true </dev/null >/dev/null 2>&1 || true
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" bash -l -c 'git --version' </dev/null >/dev/null 2>&1 || true
}

@test "shared: ~/.bash_aliases, sourced by the default ~/.bashrc, in a writable home" {
	skel_home
	grep -qs bash_aliases "$H/.bashrc" || skip "this /etc/skel/.bashrc sources no .bash_aliases"
	run in_dir "$H" --allow-shared-write -- sh -c 'echo "touch $1" >.bash_aliases' _ "$OUT/pwned"
	assert_equal "$status" 0
	host_login
	[ ! -e "$OUT/pwned" ] || { echo "ESCAPE: the host's next interactive bash ran ~/.bash_aliases written in the sandbox"; false; }
	assert_output --partial quarantined-by-wicket
	# An existing one is read-only.
	echo ': aliases' >"$H/.bash_aliases"
	run in_dir "$H" --allow-shared-write -- sh -c 'echo "touch $1" >>.bash_aliases' _ "$OUT/pwned"
	host_login
	[ ! -e "$OUT/pwned" ] || { echo "ESCAPE: an existing ~/.bash_aliases was changed"; false; }
	[ "$(cat "$H/.bash_aliases")" = ': aliases' ]
}

@test "shared: tmux and vim config in a writable home is read-only or moved aside" {
	mkdir -p "$H/.config/tmux" "$H/.vim"
	: >"$H/.config/tmux/tmux.conf"
	run in_dir "$H" --allow-shared-write -- sh -c 'for f in .config/tmux/tmux.conf .tmux.conf .vimrc .vim/plugin.vim .config/nvim/init.lua; do
		case $f in */*) mkdir -p "${f%/*}" 2>/dev/null ;; esac; echo "run-shell \"touch $1\"" >>"$f" 2>/dev/null; done; echo done' _ "$OUT/pwned"
	assert_line done
	[ ! -s "$H/.config/tmux/tmux.conf" ]
	[ ! -e "$H/.tmux.conf" ] && [ ! -e "$H/.vimrc" ] && [ ! -e "$H/.config/nvim" ]
	[ -z "$(ls "$H/.vim")" ]
}

PLANT_BIN='mkdir -p "$2" && printf "#!/bin/sh\ntouch %s\nexec /usr/bin/git \"\$@\"\n" "$1" >"$2/git" &&
	chmod 755 "$2/git"'

@test "shared: ~/.local/bin, first on PATH by the default ~/.profile, is refused with --write ~/.local" {
	command -v git >/dev/null || skip "git is not installed"
	skel_home
	mkdir -p "$H/.local"
	run in_dir "$WS" --write "$H/.local" -- sh -c "$PLANT_BIN" _ "$OUT/pwned" "$H/.local/bin"
	assert_refused_shared "$H/.local/bin"
	assert_output --partial "on PATH"
	host_login
	[ ! -e "$OUT/pwned" ] || { echo "ESCAPE: the host's next login shell ran ~/.local/bin/git written in the sandbox"; false; }
	# ~/bin alike, and the directory itself.
	mkdir "$H/bin"
	run in_dir "$WS" --write "$H/bin" -- true
	assert_refused_shared "$H/bin"
	# Accepted knowingly.
	run in_dir "$WS" --allow-shared-write --write "$H/.local" -- true
	assert_equal "$status" 0
}

@test "shared: a directory of the calling PATH inside the home is refused" {
	mkdir -p "$H/tools/bin" "$H/other"
	PATH=$H/tools/bin:$PATH run in_dir "$WS" --write "$H/tools" -- sh -c "$PLANT_BIN" _ "$OUT/pwned" "$H/tools/bin"
	assert_refused_shared "$H/tools/bin"
	[ ! -e "$H/tools/bin/git" ]
	# A directory of the home not on PATH is fine.
	PATH=$H/tools/bin:$PATH run in_dir "$WS" --write "$H/other" -- sh -c 'echo ok >"$1/f"' _ "$H/other"
	[ "$(cat "$H/other/f")" = ok ]
}

@test "shared: ~/.config (tmux's tmux.conf, run at the next server start) is refused with --write ~/.config" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	mkdir -p "$H/.config"
	run in_dir "$WS" --write "$H/.config" -- sh -c \
		'mkdir -p "$HOME/.config/tmux" && printf "run-shell \"touch %s\"\n" "$1" >"$HOME/.config/tmux/tmux.conf"' \
		_ "$OUT/pwned"
	assert_refused_shared "$H/.config"
	local sock=wicket-shared-$$ i
	own_tmux
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" TMUX_TMPDIR="$TMUX_TMPDIR" \
		tmux -L "$sock" new-session -d 'sleep 5' || true
	for ((i = 0; i < 20; i++)); do
		[ -e "$OUT/pwned" ] && break
		sleep 0.1
	done
	tmux -L "$sock" kill-server 2>/dev/null || true
	[ ! -e "$OUT/pwned" ] || { echo "ESCAPE: the host's next tmux server ran ~/.config/tmux/tmux.conf written in the sandbox"; false; }
}

@test "shared: a file ~/.gitconfig includes (~/ path) in a writable home" {
	command -v git >/dev/null || skip "git is not installed"
	printf '[include]\n\tpath = ~/shared/git.inc\n' >"$H/.gitconfig"
	mkdir -p "$H/shared" "$H/repo"
	: >"$H/shared/git.inc"
	git -C "$H/repo" init -q
	run in_dir "$H" --allow-shared-write -- sh -c 'printf "[core]\n\tfsmonitor = \"touch %s; false\"\n" "$1" >>shared/git.inc' _ "$OUT/pwned"
	(cd "$H/repo" && env -i PATH=/usr/bin:/bin HOME="$H" GIT_CONFIG_NOSYSTEM=1 git status --short) >/dev/null 2>&1 || true
	[ ! -e "$OUT/pwned" ] || { echo "ESCAPE: git on the host ran a command from a file ~/.gitconfig includes"; false; }
	[ ! -s "$H/shared/git.inc" ]
}

@test "shared: startup files and git config linked from the home into the workspace (dotfiles, stow) stay as they were" {
	mkdir -p "$WS/dotfiles/nvim" "$H/.config"
	printf '[user]\n\tname = t\n' >"$WS/dotfiles/gitconfig"
	printf 'orig\n' >"$WS/dotfiles/bashrc"
	printf 'orig\n' >"$WS/dotfiles/nvim/init.lua"
	ln -s "$WS/dotfiles/gitconfig" "$H/.gitconfig"
	ln -s "$WS/dotfiles/bashrc" "$H/.bashrc"
	ln -s "$WS/dotfiles/nvim" "$H/.config/nvim"
	# A link whose target does not exist yet: made in the session, moved aside.
	ln -s "$WS/dotfiles/zshrc" "$H/.zshrc"
	run in_dir "$WS" -- sh -c '
		printf "[core]\n\tfsmonitor = touch %s\n" "$1" >>dotfiles/gitconfig
		echo "touch $1" >>dotfiles/bashrc
		echo "os.execute(\"touch $1\")" >>dotfiles/nvim/init.lua
		echo "touch $1" >dotfiles/nvim/plugin.lua
		echo "touch $1" >dotfiles/zshrc
		true' _ "$OUT/pwned"
	[ "$(cat "$WS/dotfiles/gitconfig")" = "$(printf '[user]\n\tname = t')" ]
	[ "$(cat "$WS/dotfiles/bashrc")" = orig ]
	[ "$(cat "$WS/dotfiles/nvim/init.lua")" = orig ]
	[ ! -e "$WS/dotfiles/nvim/plugin.lua" ]
	[ ! -e "$WS/dotfiles/zshrc" ]
	# and what the host would run reads only what was there
	(cd "$WS" && HOME=$H git status >/dev/null 2>&1) || true
	[ ! -e "$OUT/pwned" ]
}
