#!/usr/bin/env bats
# Code left behind for later: what a session plants in a place that the
# user's shells and tools run from (config homes, nested repositories,
# what `wicket why` would have the user make writable), judged by what
# those tools do on the host after the session: a file they make outside.

load ../lib/common
load escape_helpers
load ../lib/domains

setup() {
	esc_setup
	PWNED=$OUT/pwned
	export XDG_STATE_HOME=$OUT/state
}

teardown() {
	if [ -n "${DOM_PID:-}" ]; then
		kill -TERM "$DOM_PID" 2>/dev/null || true
		wait "$DOM_PID" 2>/dev/null || true
	fi
	escape_cleanup
	common_teardown
}

# --- 1: config homes inside a writable root ---------------------------------

@test "planted: \$ZDOTDIR as the workspace: its .zshrc is not the session's to write" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	local zd=$HOME/.config/zsh
	mkdir -p "$zd"
	echo ': the user own' >"$zd/.zshrc"
	# The next zsh outside, as the user starts it.
	zsh_outside() { env -i PATH=/usr/bin:/bin HOME="$HOME" ZDOTDIR="$zd" zsh -i -c true </dev/null >/dev/null 2>&1 || true; }
	# Sanity: a .zshenv there is what zsh runs.
	echo "touch '$PWNED'" >"$zd/.zshenv"
	zsh_outside
	[ -e "$PWNED" ]
	rm -f "$PWNED" "$zd/.zshenv"

	(cd "$zd" && ZDOTDIR=$zd bounded 30 "$WICKET" run --allow-shared-write -- sh -c '
		echo "touch $1" >>.zshrc; echo "touch $1" >.zshenv; echo "touch $1" >.zlogin' _ "$PWNED") \
		</dev/null >/dev/null 2>&1 || true
	zsh_outside
	env -i PATH=/usr/bin:/bin HOME="$HOME" ZDOTDIR="$zd" zsh -l -i -c true </dev/null >/dev/null 2>&1 || true
	not_pwned "zsh outside ran a startup file planted in \$ZDOTDIR"
	rm -rf "$HOME/.config"
}

@test "planted: \$XDG_CONFIG_HOME inside the workspace: curl's and git's config there are not the session's" {
	command -v curl >/dev/null || skip "curl is not installed"
	local cfg=$WS/cfg
	mkdir -p "$cfg"
	curl_outside() { env -i PATH=/usr/bin:/bin HOME="$OUT" XDG_CONFIG_HOME="$cfg" curl -s "file://$OUT/f" >/dev/null 2>&1 || true; }
	# Sanity: the .curlrc there decides where curl writes.
	printf 'output = "%s"\n' "$PWNED" >"$cfg/.curlrc"
	curl_outside
	[ -e "$PWNED" ]
	rm -f "$PWNED" "$cfg/.curlrc"

	XDG_CONFIG_HOME=$cfg sbx sh -c 'printf "output = \"%s\"\n" "$1" >"$2/.curlrc"
		mkdir -p "$2/tmux" && echo "run-shell \"touch $1\"" >"$2/tmux/tmux.conf"' _ "$PWNED" "$cfg"
	curl_outside
	not_pwned "curl outside took a .curlrc planted in \$XDG_CONFIG_HOME"
	if [ -e "$cfg/tmux/tmux.conf" ]; then
		echo "ESCAPE: a tmux.conf was planted in \$XDG_CONFIG_HOME"
		false
	fi
}

# --- 2: nested repositories that existed at the start -----------------------

PLANT_FSMONITOR='printf "[core]\n\tfsmonitor = \"touch %s; false\"\n" "$1" >>"$2/config"'

host_status() {
	(cd "$1" && env -i PATH=/usr/bin:/bin HOME="$OUT" GIT_CONFIG_GLOBAL=/dev/null \
		GIT_CONFIG_NOSYSTEM=1 git status --short) >/dev/null 2>&1 || true
}

# Places whose way goes through a writable root: the end looks again,
# however old the directory that names them.

@test "planted: a startup file linked through the workspace, re-aimed by the session, does not stay live" {
	local home=$OUT/home
	# The home unchanged since well before the start: the end may take
	# the start's answer for what is in it, but not for a link's target.
	linked_bashrc "$home"
	HOME=$home sbx sh -c 'echo "touch $1" >"$2/evil" && ln -sfn evil "$2/link"' _ "$PWNED" "$WS"
	bash_outside
	not_pwned "bash outside ran a .bashrc the session re-aimed through the workspace"
}

@test "planted: a config directory linked into the workspace, made there by the session, does not stay live" {
	local home=$OUT/home
	mkdir -p "$home/.config"
	# Dangling at the start: nothing of it is there to protect.
	ln -s "$WS/tmux" "$home/.config/tmux"
	aged
	HOME=$home sbx sh -c 'mkdir "$2" && echo "run-shell \"touch $1\"" >"$2/tmux.conf"' _ "$PWNED" "$WS/tmux"
	# What tmux would read as ~/.config/tmux/tmux.conf when the user
	# starts it next.
	if [ -e "$home/.config/tmux/tmux.conf" ]; then
		echo "ESCAPE: a tmux.conf planted through a linked ~/.config/tmux stayed"
		false
	fi
}

@test "planted: a tool's directory reached through the workspace, re-aimed and filled by the session, does not stay live" {
	local home=$OUT/home
	mkdir -p "$home"
	# ~/.cargo leads through the workspace to nothing: the start finds no
	# ~/.cargo/config, and no place of the list is a link in the home.
	ln -s "$OUT/nowhere" "$WS/c"
	ln -s "$WS/c" "$home/.cargo"
	aged
	HOME=$home sbx sh -c 'mkdir "$1/cargo2" && echo "[alias]" >"$1/cargo2/config" &&
		ln -sfn cargo2 "$1/c"' _ "$WS"
	# What cargo would read as ~/.cargo/config when the user runs it next.
	if [ -e "$home/.cargo/config" ]; then
		echo "ESCAPE: a ~/.cargo/config planted through the workspace stayed"
		false
	fi
}

@test "planted: a nested repository's config, there at the start, is not the session's to write" {
	command -v git >/dev/null || skip "git is not installed"
	git -C "$WS" init -q
	git -C "$WS" init -q sub
	mkdir -p "$WS/deep/er"
	git -C "$WS/deep/er" init -q repo
	aged
	sbx sh -c "$PLANT_FSMONITOR"'
		'"${PLANT_FSMONITOR//\$2/\$3}"'
		printf "#!/bin/sh\ntouch %s\n" "$1" >"$2/hooks/post-checkout"; chmod +x "$2/hooks/post-checkout"' \
		_ "$PWNED" "$WS/sub/.git" "$WS/deep/er/repo/.git"
	host_status "$WS/sub"
	host_status "$WS/deep/er/repo"
	# The repositories stayed where they were (not moved aside as new).
	[ -d "$WS/sub/.git" ] && [ -d "$WS/deep/er/repo/.git" ]
	not_pwned "git status outside ran a core.fsmonitor planted in a nested repository"
	[ ! -e "$WS/sub/.git/hooks/post-checkout" ]
}

@test "planted: a nested repository made outside since the last walk: what the session changes in it goes" {
	command -v git >/dev/null || skip "git is not installed"
	git -C "$WS" init -q
	sbx true
	# Made after the walk of the end of that session: not in its index, so
	# not protected at the next start; the end finds its config changed.
	git -C "$WS" init -q later
	aged
	sbx sh -c "$PLANT_FSMONITOR" _ "$PWNED" "$WS/later/.git"
	host_status "$WS/later"
	not_pwned "git status outside ran a core.fsmonitor planted in a repository made after the last walk"
}

@test "planted: the first session in a root saves the index of its directories, for the next start" {
	sbx true
	# (a later session that changes nothing keeps it, and only marks it used)
	[ "$(find "$XDG_STATE_HOME/wicket/walk" -type f | wc -l)" = 1 ]
	local f
	f=$(find "$XDG_STATE_HOME/wicket/walk" -type f)
	sbx true
	[ -f "$f" ]
}

@test "planted: a nested repository with no commit and a root with no repository" {
	command -v git >/dev/null || skip "git is not installed"
	git -C "$WS" init -q lib/a
	aged
	sbx sh -c "$PLANT_FSMONITOR" _ "$PWNED" "$WS/lib/a/.git"
	host_status "$WS/lib/a"
	[ -d "$WS/lib/a/.git" ]
	not_pwned "git status outside ran a core.fsmonitor planted in a nested repository"
}

# --- 4: `wicket why` never advises --write for a place that runs code later --

@test "planted: why advises no --write that would let a planted startup file through" {
	local sp
	sp=$HOME/.local/lib/python3/site-packages
	local places=(
		"$sp/evil.pth"
		"$HOME/.cargo/config.toml"
		"$HOME/.gdbinit"
		"$HOME/.psqlrc"
		"$HOME/.pam_environment"
		"$HOME/.ipython/profile_default/startup/00-evil.py"
		"$HOME/.gradle/init.d/evil.gradle"
		"$HOME/.config/autostart/evil.desktop"
		"$HOME/.local/share/applications/evil.desktop"
		"$HOME/.npmrc"
		"$HOME/.config/pip/pip.conf"
		"$HOME/.emacs.d/init.el"
	)
	local p
	for p in "${places[@]}"; do
		mkdir -p "$(dirname "$p")"
	done
	plant='for p in "$@"; do echo "planted" >"$p"; done'
	(cd "$WS" && bounded 30 "$WICKET" run -- sh -c "$plant" _ "${places[@]}") </dev/null >/dev/null 2>&1 || true
	run "$WICKET" why
	echo "$output"
	for p in "${places[@]}"; do
		assert_output --partial "write blocked: $p"
	done
	# Each of them a place that runs code later: no --write at all.
	refute_output --partial "wicket run --write"
	refute_output --partial '"write":'
	# Whatever --write it does give, followed, must not let one through.
	for w in $(printf '%s\n' "$output" | sed -n 's/^ *wicket run --write \([^ ]*\) .*/\1/p' | sort -u); do
		(cd "$WS" && bounded 30 "$WICKET" run --write "$w" -- sh -c "$plant" _ "${places[@]}") \
			</dev/null >/dev/null 2>&1 || true
	done
	for p in "${places[@]}"; do
		if [ -e "$p" ] && grep -q planted "$p"; then
			echo "ESCAPE: following why's advice let the session plant $p"
			false
		fi
	done
}

# --- 5: the session's history merged into the user's ------------------------

@test "planted: history: a line bash reads as a time stamp cannot join a hidden command to a recalled one" {
	local hist=$OUT/new-history
	# The sandbox's history: a forged stamp (bash takes "#" and a digit
	# for one), then a line the user knows, then a hidden one that a
	# stamped file would join to it.
	printf 'printf "#1x\\nls\\ntouch %s\\n#2 and more\\nls -l\\ntouch %s\\n" >>"$WICKET_HISTFILE"\n' \
		"$PWNED" "$PWNED" >"$WS/plant.sh"
	(cd "$WS" && echo '. ./plant.sh' | HISTFILE=$hist SHELL=/bin/bash bounded 30 "$WICKET") \
		</dev/null >/dev/null 2>&1 || true
	[ -s "$hist" ]
	cat -A "$hist"
	# The merged block is marked as the sandbox's, and has no stamp of its.
	grep -q '^# wicket: ' "$hist"
	[ "$(grep -c '^#[0-9]' "$hist")" = 0 ]
	# The user's bash, later, with dated history: recalls `ls`.
	for recall in '!ls' '!ls -l'; do
		echo "$recall" | env -i PATH=/usr/bin:/bin HOME="$OUT" HISTFILE="$hist" \
			HISTTIMEFORMAT='%F ' bash --norc -i >/dev/null 2>&1 || true
	done
	not_pwned "bash outside ran a line joined to a recalled entry by a forged time stamp"
}

# --- 6: credentials the startup files export again --------------------------

# tokens_home: the user's startup files export tokens the policy removes.
tokens_home() {
	TOK=tok$RANDOM$RANDOM
	printf 'export GITHUB_TOKEN=gh-%s\n' "$TOK" >>"$HOME/.bashrc"
	printf 'export NPM_TOKEN=npm-%s\n' "$TOK" >>"$HOME/.profile"
	printf 'export HF_TOKEN=hf-%s\n' "$TOK" >>"$HOME/.zshenv"
	# zsh's login files, read after .zshenv by zsh -l (-lc, a login shell).
	printf 'export GITHUB_TOKEN=zp-%s\n' "$TOK" >>"$HOME/.zprofile"
	printf 'export NPM_TOKEN=zl-%s\n' "$TOK" >>"$HOME/.zlogin"
}

# no_token TEXT WHAT: TEXT (what left the sandbox) holds no token.
no_token() {
	if [[ $1 == *"$TOK"* ]]; then
		echo "ESCAPE: $2 had a token the policy removes"
		printf '%s\n' "$1" | grep "$TOK"
		false
	fi
}

# interactive SHELL: the interactive shell of a session, on a terminal
# (script(1)), counts the tokens in its environment.
interactive() {
	command -v script >/dev/null || skip "script (util-linux) is not installed"
	local out
	out=$(cd "$WS" && printf 'echo "n=$(env | grep -c %s)"; exit 0\n' "$TOK" |
		SHELL=$1 bounded 30 script -qec "$WICKET" /dev/null 2>&1 | tr -d '\r') || true
	if [[ $out != *n=0* ]]; then
		echo "ESCAPE: the interactive $1 had a token the policy removes"
		printf '%s\n' "$out" | grep -a 'n='
		false
	fi
}

@test "planted: env.unset holds in bash -lc, zsh -c, zsh -lc and the interactive shell, after the user's startup files" {
	tokens_home
	local out
	out=$(cd "$WS" && bounded 30 "$WICKET" run -- bash -lc 'env' 2>&1) || true
	no_token "$out" "bash -lc"
	interactive /bin/bash
	if command -v zsh >/dev/null; then
		out=$(cd "$WS" && bounded 30 "$WICKET" run -- zsh -c 'env' 2>&1) || true
		no_token "$out" "zsh -c"
		out=$(cd "$WS" && bounded 30 "$WICKET" run -- zsh -lc 'env' 2>&1) || true
		no_token "$out" "zsh -lc"
		out=$(cd "$WS" && bounded 30 "$WICKET" run -- zsh -l -i -c 'env' 2>&1) || true
		no_token "$out" "zsh -lic"
		interactive "$(command -v zsh)"
	fi
	# A token a program in the sandbox passes on itself is its own.
	out=$(cd "$WS" && bounded 30 "$WICKET" run -- env MY_TOKEN=mine bash -lc 'echo "got=$MY_TOKEN"' 2>&1) || true
	[[ $out == *got=mine* ]]
}

@test "planted: a .zshenv that unsets RCS (no other startup file read) keeps no token in zsh -lc" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	TOK=tok$RANDOM$RANDOM
	printf 'setopt no_rcs\nexport HF_TOKEN=hf-%s\n' "$TOK" >"$HOME/.zshenv"
	local out
	out=$(cd "$WS" && bounded 30 "$WICKET" run -- zsh -lc 'env' 2>&1) || true
	no_token "$out" "zsh -lc with no_rcs"
	out=$(cd "$WS" && bounded 30 "$WICKET" run -- zsh -l -i -c 'env' 2>&1) || true
	no_token "$out" "zsh -lic with no_rcs"
}

@test "planted: with one allowed domain, a token the startup files export does not reach its server" {
	tokens_home
	dom_setup
	local get='curl -fsS "http://pkg.wk.test:$1/hello.txt?t=${GITHUB_TOKEN-}${NPM_TOKEN-}${HF_TOKEN-}"'
	dom_run "$DOM/allow.json" bash -lc "$get" _ "$HTTP_PORT"
	[ "$status" -eq 0 ]
	if command -v zsh >/dev/null; then
		dom_run "$DOM/allow.json" zsh -c "$get" _ "$HTTP_PORT"
		[ "$status" -eq 0 ]
		dom_run "$DOM/allow.json" zsh -lc "$get" _ "$HTTP_PORT"
		[ "$status" -eq 0 ]
	fi
	cat "$DOM/log"
	server_got GET
	if grep -q "$TOK" "$DOM/log"; then
		echo "ESCAPE: a token the policy removes reached the server through the proxy"
		false
	fi
}

@test "planted: at start, wicket names the startup files that set a name the policy removes, in one line" {
	tokens_home
	run -0 bash -c 'cd "$1" && "$2" run -- true 2>&1' _ "$WS" "$WICKET"
	echo "$output"
	[ "$(printf '%s\n' "$output" | grep -c 'startup files')" = 1 ]
	assert_output --partial "$HOME/.bashrc"
	assert_output --partial "$HOME/.profile"
	assert_output --partial "$HOME/.zprofile"
	assert_output --partial "$HOME/.zlogin"
	assert_output --partial "GITHUB_TOKEN"
}

# --- 3: the end-of-session walk cannot be worn out --------------------------

@test "planted: a flood of entries left by one session does not let a later one keep a planted repository" {
	command -v git >/dev/null || skip "git is not installed"
	# Session 1: 2.5 million names (hard links, 60000 to a file) in ten
	# directories: more than any bound of entries a walk could have. It
	# takes the kernel half a minute to make them: only with
	# WICKET_TEST_FLOOD=full; else 25000, which takes the same paths.
	local per=2500
	[ "${WICKET_TEST_FLOOD-}" != full ] || per=250000
	(cd "$WS" && bounded 600 "$WICKET" run -- "$PY" -c '
import os, sys
per = int(sys.argv[1])
for d in range(10):
    os.mkdir("f%d" % d)
    for i in range(per):
        if i % 60000 == 0:
            src = "f%d/x%d" % (d, i)
            open(src, "w").close()
        else:
            os.link(src, "f%d/%x" % (d, i))
' "$per") </dev/null
	[ -e "$WS/f9/$(printf %x $((per - 1)))" ]
	aged
	# Session 2: a repository planted in each of them, and in a new one.
	local plant='for d in "$@"; do mkdir -p "$d/sub" && git init -q "$d/sub" &&
		git -C "$d/sub" config core.fsmonitor "touch '"$PWNED"'; false"; done'
	sbx sh -c "$plant" _ f0 f1 f2 f3 f4 f5 f6 f7 f8 f9 new
	local d
	for d in f0 f1 f2 f3 f4 f5 f6 f7 f8 f9 new; do
		host_status "$WS/$d/sub"
	done
	not_pwned "git status outside ran a core.fsmonitor planted after a flood of entries"
}

@test "planted: a repository below the walk's depth or in a directory it cannot read does not stay live" {
	command -v git >/dev/null || skip "git is not installed"
	# Past a bound of the walk of the end (NEST_DEPTH levels; a directory
	# the session made unreadable, which git still passes through with
	# search permission alone), each with a core.fsmonitor that leaves a
	# mark outside.
	local deep=deep i
	for i in $(seq 1 260); do deep=$deep/d; done
	sbx sh -c 'mkdir -p "$1" && git init -q "$1/r" &&
		git -C "$1/r" config core.fsmonitor "touch $2-deep; false" &&
		git init -q shut/in/r && git -C shut/in/r config core.fsmonitor "touch $2-shut; false" &&
		chmod 100 shut' _ "$deep" "$PWNED"
	host_status "$WS/$deep/r"
	host_status "$WS/shut/in/r"
	chmod -R u+rwx "$WS"
	if ls "$OUT" | grep -q pwned; then
		echo "ESCAPE: git outside ran a core.fsmonitor planted where the walk of the end could not look"
		false
	fi
}

@test "planted: a directory closed to its user before the session, opened, planted and closed again, does not stay live" {
	command -v git >/dev/null || skip "git is not installed"
	# Closed (no search permission) before the session: the end leaves
	# such a directory alone when its mode did not change. The session
	# opens it, plants a repository whose core.fsmonitor leaves a mark
	# outside, and closes it again.
	mkdir -p "$WS/shut"
	chmod 000 "$WS/shut"
	sbx sh -c 'chmod 700 shut && git init -q shut/r &&
		git -C shut/r config core.fsmonitor "touch $1-reclosed; false" && chmod 000 shut' _ "$PWNED"
	chmod -R u+rwx "$WS"
	[ -d "$WS/shut/r" ] && host_status "$WS/shut/r"
	if ls "$OUT" | grep -q pwned; then
		echo "ESCAPE: git outside ran a core.fsmonitor planted in a directory closed again"
		false
	fi
}

@test "planted: past the bound of git directories the end lists, a planted hook does not stay live" {
	command -v git >/dev/null || skip "git is not installed"
	git -C "$WS" init -q
	aged
	# 300 bare repositories in .git/modules (more than the 256 entries of
	# a directory the check lists), each with a hook a push into it runs.
	sbx sh -c 'git init -q --bare .git/modules/m0 &&
		printf "#!/bin/sh\ntouch %s\n" "$1" >.git/modules/m0/hooks/post-update &&
		chmod +x .git/modules/m0/hooks/post-update &&
		i=1; while [ $i -lt 300 ]; do cp -a .git/modules/m0 .git/modules/m$i; i=$((i + 1)); done' \
		_ "$PWNED"
	assert_output --partial "too many git directories"
	local h n=0
	(cd "$WS" && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -c user.name=t \
		-c user.email=t@example.invalid commit -q --allow-empty -m probe) >/dev/null 2>&1
	for h in "$WS"/.git/modules/*/hooks/post-update; do
		[ -e "$h" ] || continue
		n=$((n + 1))
		(cd "$WS" && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
			git push -q "${h%/hooks/post-update}" HEAD:refs/heads/main) >/dev/null 2>&1 || true
	done
	echo "hooks left where git runs them: $n"
	not_pwned "a push outside ran a hook planted past the bound of the check"
}
