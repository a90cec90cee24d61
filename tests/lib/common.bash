# shellcheck shell=bash
# Shared helpers for the bats suites. Every suite starts with:
#   load ../lib/common
# Environment (set by tests/run-tests / make check):
#   WICKET              the launcher under test
#   WICKET_TEST_BINDIR  build directory of tests/ (helper programs)
#   WICKET_SRCDIR       source directory

bats_load_library bats-support 2>/dev/null || load '/usr/lib/bats/bats-support/load'
bats_load_library bats-assert 2>/dev/null || load '/usr/lib/bats/bats-assert/load'

: "${WICKET:?WICKET must point to the built launcher (run through make check)}"
: "${WICKET_TEST_BINDIR:=$(dirname "$WICKET")/../tests}"

# wk ARGS...: the launcher.
wk() { "$WICKET" "$@"; }

# is_root: true when the suite runs as root (then `wicket` uses no user
# namespace and drops capabilities instead).
is_root() { [ "$(id -u)" = 0 ]; }

# The directories below are usually made inside $(...), a subshell, so
# they are recorded in a file, not a shell array, for common_teardown.
_wk_track() {
	printf '%s\n' "$1" >>"${BATS_TEST_TMPDIR:-${TMPDIR:-/tmp}}/.wicket-cleanup"
}

# mk_outside: a fresh directory OUTSIDE any workspace and outside /tmp
# (the sandbox gets a private /tmp), writable by the current user, so an
# escape can be judged by its effect on the real filesystem. Removed by
# common_teardown.
mk_outside() {
	local d
	d=$(mktemp -d /var/tmp/wicket-outside.XXXXXX) || return 1
	chmod 755 "$d"
	_wk_track "$d"
	printf '%s\n' "$d"
}

# mk_workspace: a fresh workspace directory outside /tmp (the ordinary case).
mk_workspace() {
	local d
	d=$(mktemp -d /var/tmp/wicket-ws.XXXXXX) || return 1
	chmod 755 "$d"
	_wk_track "$d"
	printf '%s\n' "$d"
}

# common_teardown: call from teardown() when mk_outside/mk_workspace used.
common_teardown() {
	local list="${BATS_TEST_TMPDIR:-${TMPDIR:-/tmp}}/.wicket-cleanup" d
	[ -f "$list" ] || return 0
	while IFS= read -r d; do
		case $d in
		/var/tmp/wicket-outside.* | /var/tmp/wicket-ws.*) [ -d "$d" ] && rm -rf -- "$d" ;;
		esac
	done <"$list"
	rm -f -- "$list"
}

# in_ws WS ARGS...: run `wicket run ARGS...` with WS as the current dir.
in_ws() {
	local ws=$1
	shift
	(cd "$ws" && "$WICKET" run "$@")
}

# need_fd N: descriptor N usable in this test: the soft limit on open
# files (1024 by default for an ordinary user) raised past N, up to the
# hard limit; the test skipped, saying why, when the hard limit is lower.
need_fd() {
	local n=$1 hard soft
	hard=$(ulimit -Hn) soft=$(ulimit -Sn)
	[ "$soft" = unlimited ] || [ "$soft" -gt "$n" ] && return 0
	if [ "$hard" != unlimited ] && [ "$hard" -le "$n" ]; then
		skip "needs descriptor $n, past the hard limit on open files ($hard)"
	fi
	ulimit -Sn $((n + 1))
}

# bounded: run a command with a hard time limit (seconds) so no test hangs.
bounded() {
	local secs=$1
	shift
	timeout --kill-after=5 "$secs" "$@"
}

# own_tmux: tmux servers of this test keep their sockets in its own
# temporary directory (removed with it), not in a tmux-UID directory in
# the shared /tmp that outlives the run.
own_tmux() { export TMUX_TMPDIR=$BATS_TEST_TMPDIR; }

# tmux_screen ARGS...: the screen of the tmux server on socket $TMUX_SOCK
# (tmux capture-pane -p ARGS): what a person at that terminal sees.
tmux_screen() { tmux -L "$TMUX_SOCK" capture-pane -p "$@"; }

# tmux_wait REGEX ARGS...: until that screen matches REGEX (10 s at most).
tmux_wait() {
	local re=$1 i
	shift
	for ((i = 0; i < 100; i++)); do
		tmux_screen "$@" | grep -qE -- "$re" && return 0
		sleep 0.1
	done
	echo "the screen never matched: $re" >&2
	tmux_screen "$@" | cat -v >&2
	return 1
}

# wait_for_file FILE [TENTHS]: until FILE exists (at most TENTHS/10 s,
# default 10 s). Fails when it never appears.
wait_for_file() {
	local f=$1 n=${2:-100} i
	for ((i = 0; i < n; i++)); do
		[ -e "$f" ] && return 0
		sleep 0.1
	done
	echo "timed out waiting for $f" >&2
	return 1
}

# wait_for_grep PATTERN FILE [TENTHS]: until FILE has a line matching the
# fixed string PATTERN.
wait_for_grep() {
	local pat=$1 f=$2 n=${3:-100} i
	for ((i = 0; i < n; i++)); do
		grep -qF -- "$pat" "$f" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timed out waiting for '$pat' in $f" >&2
	return 1
}
