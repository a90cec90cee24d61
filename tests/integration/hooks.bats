#!/usr/bin/env bats
# The interactive shell's hooks (DESIGN §7): real bash and zsh, driven
# through a terminal (tmux on a private socket), with the user's own rc
# files from a test HOME. The prompt marker, the user's aliases, the block
# after a command the sandbox refused, nothing after one it did not, the
# exit status, the user's PROMPT_COMMAND, traps and set -u kept.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	command -v tmux >/dev/null || { echo "tmux is not installed (apt-get install tmux)" >&2; return 1; }
	WS=$(mk_workspace) && H=$(mk_outside) || return 1
	track "$WS" "$H"
	TMUX_SOCK=wicket-hooks-$$-$BATS_TEST_NUMBER
	own_tmux
	OUTF=$WS/.out
}

teardown() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	it_teardown
}

# start_shell SHELL [WICKET OPTIONS...]: `wicket shell` in a terminal, in
# the workspace, with HOME=$H; when it ends, its status goes to $OUTF.
start_shell() {
	local sh=$1
	shift
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 160 -y 50 \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" TERM=xterm LANG=C.UTF-8 \
		SHELL="$sh" XDG_STATE_HOME="$H/state" ${WICKET_PROMPT:+WICKET_PROMPT=$WICKET_PROMPT} \
		bash --norc --noprofile -c 'out=$1 && cd "$2" && shift 2 && "$@"; echo "wicket-exit=$?" >"$out.rc"; sleep 60' \
		_ "$OUTF" "$WS" "$WICKET" shell "$@"
}

pane() { tmux_screen -S -200 -J; }
keys() { tmux -L "$TMUX_SOCK" send-keys -l -- "$1"; tmux -L "$TMUX_SOCK" send-keys Enter; }

# wait_pane REGEX: until the screen matches (10 s at most).
wait_pane() { tmux_wait "$1" -S -200 -J; }

# wait_rc: the status `wicket shell` ended with.
wait_rc() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ -s "$OUTF.rc" ] && { cat "$OUTF.rc"; return 0; }
		sleep 0.1
	done
	echo "wicket shell did not end" >&2
	pane >&2
	return 1
}

bashrc() {
	cat >"$H/.bashrc" <<'RC'
alias hello='echo alias-from-bashrc'
PS1='[$?]\$ '
RC
}

@test "bash: the marker, the user's alias, the block after a refused command, none after a good one, exit 3" {
	bashrc
	start_shell /bin/bash
	wait_pane '^\(wicket\) \[0\][#$] $'
	keys 'hello'
	wait_pane '^alias-from-bashrc$'
	# The line is printed as it happens; the block before the next prompt.
	keys 'touch /var/tmp/wk-hook; sleep 0.3'
	wait_pane '^  why, and how to allow it: wicket why$'
	pane | grep -qxF 'wicket: the sandbox blocked 1 thing in that command:'
	# Said once: inline as it happened; the block does not repeat it.
	[ "$(pane | grep -cE '^sandbox: write blocked: /var/tmp/wk-hook \(create by touch\[[0-9]+\]\)$')" = 1 ]
	! pane | grep -qE '^  sandbox: write blocked: /var/tmp/wk-hook '
	# Two commands on the line: `ask` offers no replay, the line is to copy.
	pane | grep -qxF "  to run it outside the sandbox once: wicket ask -- bash -c 'touch /var/tmp/wk-hook; sleep 0.3'"
	# $? as the user's prompt sees it is the command's own.
	wait_pane '^\(wicket\) \[0\][#$] $'
	keys 'clear; (exit 4)'
	wait_pane '^\(wicket\) \[4\][#$] $'
	keys 'echo next'
	wait_pane '^next$'
	! pane | grep -q 'wicket:'
	keys 'exit 3'
	[ "$(wait_rc)" = wicket-exit=3 ]
	# No refused write of the history file at exit.
	! pane | grep -q 'bash_history'
}

@test "bash: PROMPT_COMMAND (array or string), a DEBUG trap, an EXIT trap, set -u and set -e are kept" {
	cat >"$H/.bashrc" <<RC
PS1='\\\$ '
PROMPT_COMMAND=('echo pc1 >>"$WS/.pc"' 'echo pc2 >>"$WS/.pc"')
trap 'echo dbg >>"$WS/.dbg"' DEBUG
trap 'echo bye >"$WS/.bye"' EXIT
set -u
RC
	start_shell /bin/bash
	wait_pane '^\(wicket\) [#$] $'
	keys 'touch /var/tmp/wk-hook2; sleep 0.3'
	wait_pane '^  why, and how to allow it: wicket why$'
	keys 'echo "pc=$(sort -u .pc | tr "\n" " ") dbg=$(sort -u .dbg)"'
	wait_pane '^pc=pc1 pc2 +dbg=dbg$'
	keys 'set -e; true'
	wait_pane '^\(wicket\) [#$] set -e; true$'
	keys 'exit'
	[ "$(wait_rc)" = wicket-exit=0 ]
	[ "$(cat "$WS/.bye")" = bye ]
}

@test "bash: a string PROMPT_COMMAND ending in ';' is kept; our hook runs after it" {
	cat >"$H/.bashrc" <<RC
PS1='\\\$ '
PROMPT_COMMAND='echo pcs >>"$WS/.pcs";'
RC
	start_shell /bin/bash
	wait_pane '^\(wicket\) [#$] $'
	keys 'true'
	keys 'echo "n=$(wc -l <.pcs)"'
	wait_pane '^n=[2-9]$'
	keys 'exit'
	[ "$(wait_rc)" = wicket-exit=0 ]
}

@test "bash: another policy is named in the marker; WICKET_PROMPT=0 leaves the prompt alone" {
	bashrc
	start_shell /bin/bash --policy workspace-write-strict
	wait_pane '^\(workspace-write-strict\) \[0\][#$] $'
	keys 'exit'
	wait_rc >/dev/null
	tmux -L "$TMUX_SOCK" kill-server
	# A new server under a new name (reusing the name races with the old
	# server's exit).
	TMUX_SOCK=${TMUX_SOCK}b
	rm -f "$OUTF.rc"
	WICKET_PROMPT=0 start_shell /bin/bash
	wait_pane '^\[0\][#$] $'
	keys 'exit 5'
	[ "$(wait_rc)" = wicket-exit=5 ]
}

@test "zsh: the marker, the user's alias, ZDOTDIR restored, the block, exit 3" {
	command -v zsh >/dev/null || { echo "zsh is not installed (apt-get install zsh)" >&2; return 1; }
	cat >"$H/.zshrc" <<'RC'
alias hello='echo alias-from-zshrc'
PROMPT='%# '
RC
	echo 'export FROM_ZSHENV=yes' >"$H/.zshenv"
	start_shell "$(command -v zsh)"
	wait_pane '^\(wicket\) [%#] $'
	keys 'hello; echo "zd=${ZDOTDIR-unset} env=$FROM_ZSHENV"'
	wait_pane '^alias-from-zshrc$'
	wait_pane '^zd=unset env=yes$'
	keys 'touch /var/tmp/wk-zhook; sleep 0.3'
	wait_pane '^  why, and how to allow it: wicket why$'
	# Said once: inline as it happened; the block does not repeat it.
	[ "$(pane | grep -cE '^sandbox: write blocked: /var/tmp/wk-zhook \(create by touch\[[0-9]+\]\)$')" = 1 ]
	! pane | grep -qE '^  sandbox: write blocked: /var/tmp/wk-zhook '
	pane | grep -qxF "  to run it outside the sandbox once: wicket ask -- zsh -c 'touch /var/tmp/wk-zhook; sleep 0.3'"
	keys 'clear; echo quiet'
	wait_pane '^quiet$'
	! pane | grep -q 'wicket:'
	keys 'exit 3'
	[ "$(wait_rc)" = wicket-exit=3 ]
}

@test "zsh: a user ZDOTDIR is honoured and restored" {
	command -v zsh >/dev/null || { echo "zsh is not installed (apt-get install zsh)" >&2; return 1; }
	mkdir "$H/zconf"
	echo "PROMPT='z> '" >"$H/zconf/.zshrc"
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 160 -y 50 \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" TERM=xterm ZDOTDIR="$H/zconf" \
		SHELL="$(command -v zsh)" XDG_STATE_HOME="$H/state" \
		bash --norc -c 'cd "$1" && "$2" shell; echo "wicket-exit=$?" >"$3.rc"; sleep 60' _ "$WS" "$WICKET" "$OUTF"
	wait_pane '^\(wicket\) z> $'
	keys 'echo "zd=$ZDOTDIR"'
	wait_pane "^zd=$H/zconf\$"
	keys 'exit'
	[ "$(wait_rc)" = wicket-exit=0 ]
}

@test "another shell runs without hooks, after one line saying so; --shell picks bash; bad --shell is refused" {
	start_shell /bin/sh
	wait_pane 'sh: no wicket hooks for this shell'
	keys 'exit 2'
	[ "$(wait_rc)" = wicket-exit=2 ]
	run --separate-stderr wkb shell --shell fish
	assert_equal "$status" 125
	assert_regex "$stderr" 'wicket: --shell fish: wicket knows bash and zsh'
	run --separate-stderr wkb run --shell bash -- true
	assert_equal "$status" 125
	tmux -L "$TMUX_SOCK" kill-server
	# A new server under a new name (reusing the name races with the old
	# server's exit).
	TMUX_SOCK=${TMUX_SOCK}b
	rm -f "$OUTF.rc"
	bashrc
	start_shell /bin/sh --shell bash
	wait_pane '^\(wicket\) \[0\][#$] $'
	keys 'echo "$BASH_VERSION" | cut -c1'
	wait_pane '^5$'
	keys 'exit'
	[ "$(wait_rc)" = wicket-exit=0 ]
}

@test "contrib/prompt/ps1.sh marks the prompt inside a session only, in bash and zsh" {
	local f=$WICKET_SRCDIR/contrib/prompt/ps1.sh
	run bash -c 'PS1="\$ "; WICKET=1 WICKET_POLICY=/etc/x/db.json; . "$1"; echo "$PS1"' _ "$f"
	assert_output '[db] $ '
	run bash -c 'PS1="\$ "; unset WICKET; . "$1"; echo "$PS1"' _ "$f"
	assert_output '$ '
	if command -v zsh >/dev/null; then
		run zsh -fc 'PROMPT="%# "; WICKET=1 WICKET_POLICY=read-only; . "$1"; print -r -- "$PROMPT"' _ "$f"
		assert_output '[read-only] %# '
	fi
}

@test "bash: 'ask' asks wicket ask for exactly the blocked command (an approver says yes); a user's own ask is kept" {
	bashrc
	local out
	out=$(mk_outside)
	track "$out"
	printf '#!/bin/sh\nexit 0\n' >"$H/yes" && chmod 755 "$H/yes"
	# OUT/mk FILE: one plain command whose own process is refused, and that
	# waits until the refusal is counted (the hooks' status file says so),
	# so that it shows after this command and not after the next one. It
	# lies outside the workspace: a program the sandbox could rewrite is
	# CAREFUL, which no approver may approve.
	printf '%s\n' '#!/bin/sh' 'st=/dev/fd/${WICKET_STATUS_FD%%:*}' 'n=$(head -n 1 "$st")' ': >"$1"' \
		'i=0; while [ "$i" -lt 100 ] && [ "$(head -n 1 "$st")" = "$n" ]; do sleep 0.05; i=$((i + 1)); done' >"$out/mk"
	chmod 755 "$out/mk"
	start_shell /bin/bash --approver "$H/yes"
	wait_pane '^\(wicket\) \[0\][#$] $'
	keys "$out/mk $out/made-by-ask"
	wait_pane '^  to run it outside the sandbox once, if approved: ask$'
	[ ! -e "$out/made-by-ask" ]
	keys 'clear; ask; echo "ask=$?"'
	wait_pane '^ask=[0-9]*$'
	# The approver said yes to that very command. It ran on a grant, in
	# a sandbox of its own: the hooks ask for no rights yet (deriving the
	# grant from the refusal is still to come), so the same write is
	# refused there, and nothing is made outside.
	"$PY" - "$H/state/wicket/audit.jsonl" "$out" <<'PYEOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
asks = [l for l in lines if "argv" in l]
assert len(asks) == 1, lines
a = asks[0]
assert a["argv"] == [sys.argv[2] + "/mk", sys.argv[2] + "/made-by-ask"], a
assert a["decision"] == "approved" and a["by"] == "approver" and a["grant"] == {}, a
assert a["reason"] == "blocked in the sandbox", a
PYEOF
	[ ! -e "$out/made-by-ask" ]
	keys 'exit'
	wait_rc >/dev/null
	# A user's own `ask` stays theirs; the block shows the long form.
	tmux -L "$TMUX_SOCK" kill-server
	TMUX_SOCK=${TMUX_SOCK}b
	rm -f "$OUTF.rc"
	printf 'ask() { echo users-own-ask; }\n' >>"$H/.bashrc"
	start_shell /bin/bash
	wait_pane '^\(wicket\) \[0\][#$] $'
	keys 'touch /var/tmp/wk-own; sleep 0.3'
	wait_pane "^  to run it outside the sandbox once: wicket ask -- bash -c 'touch /var/tmp/wk-own; sleep 0.3'$"
	keys 'ask'
	wait_pane '^users-own-ask$'
	keys 'exit'
	wait_rc >/dev/null
}
