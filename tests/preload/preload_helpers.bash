# shellcheck shell=bash
# Helpers of the preload shim's suite. Load after ../lib/common.
#
# The launcher does not inject the shim yet: these tests start every
# command as `wicket run [--no-diagnostics] -- env LD_PRELOAD=$SHIM
# WICKET_RULES=... WICKET_DIAG=stderr CMD`, with WICKET_RULES written to
# match the session's policy (the workspace and /tmp writable, "/"
# readable, the test's own hidden directory, the network mode).

SHIM=$WICKET_TEST_BINDIR/../preload/libwicket-preload.so
PROBE=$WICKET_TEST_BINDIR/preload/shimprobe
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=$(command -v python3); fi

_SHIM_PIDS=()

# Once the launcher injects the shim itself, these tests turn that off
# (--no-diagnostics) and inject their own; a launcher without the option
# injects nothing.
NODIAG=()
if "$WICKET" --help 2>&1 | grep -q -- '--no-diagnostics'; then
	NODIAG=(--no-diagnostics)
fi

# need_shim: fail (never skip) when the shim or the probe was not built.
need_shim() {
	[ -r "$SHIM" ] || { echo "$SHIM not built: run make" >&2; return 1; }
	[ -x "$PROBE" ] || { echo "$PROBE not built: run make check" >&2; return 1; }
}

# shim_setup: WS (workspace, with .git/config protected by the default
# policy, a file w), OUT (outside: f, sub/, tool, secret/{key,tool}),
# HPOL (workspace-write hiding $OUT/secret) and RULES for it.
shim_setup() {
	need_shim || return 1
	WS=$(mk_workspace) && OUT=$(mk_outside) || return 1
	WS=$(realpath "$WS") OUT=$(realpath "$OUT")
	mkdir -p "$WS/.git" "$OUT/sub" "$OUT/secret"
	printf '[core]\n' >"$WS/.git/config"
	printf 'w\n' >"$WS/w"
	printf 'original\n' >"$OUT/f"
	printf 'key\n' >"$OUT/secret/key"
	cp /bin/true "$OUT/tool"
	cp /bin/true "$OUT/secret/tool"
	chmod 755 "$OUT/sub" "$OUT/secret"
	HPOL=$OUT/hide.json
	printf '{"extends": "workspace-write", "filesystem": {"hide": ["%s/secret"]}}\n' "$OUT" >"$HPOL"
	chmod 644 "$HPOL"
	RULES=$(printf 'r /\nw %s\nw /tmp\np %s/.git/config\np %s/.git/hooks\nh %s/secret\nn none' \
		"$WS" "$WS" "$WS" "$OUT")
	cd "$WS" || return 1
}

shim_teardown() {
	local p
	for p in "${_SHIM_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	_SHIM_PIDS=()
	cd / || true
	common_teardown
}

# shim_run [WICKET OPTS...] -- CMD...: CMD in the sandbox (workspace $WS)
# under the shim; bounded to 60 s. Sets status, out (stdout), err (the
# whole stderr), diag (its "sandbox:" lines, each pid replaced by N) and
# rest (stderr without them). Checks every pid is a number.
shim_run() { _shim_run 1 "$@"; }
# plain_run: the same without the shim (for byte-for-byte comparisons).
plain_run() { _shim_run 0 "$@"; }

_shim_run() {
	local with=$1 opts=() o e
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	o=$BATS_TEST_TMPDIR/stdout e=$BATS_TEST_TMPDIR/stderr
	status=0
	if [ "$with" = 1 ]; then
		(cd "$WS" && bounded 60 "$WICKET" run "${NODIAG[@]}" "${opts[@]}" -- \
			env LD_PRELOAD="$SHIM" WICKET_RULES="$RULES" WICKET_DIAG="${SHIM_DIAG-stderr}" "$@") \
			>"$o" 2>"$e" 3>&- || status=$?
	else
		(cd "$WS" && bounded 60 "$WICKET" run "${NODIAG[@]}" "${opts[@]}" -- "$@") \
			>"$o" 2>"$e" 3>&- || status=$?
	fi
	out=$(cat "$o")
	err=$(cat "$e")
	diag=$(grep '^sandbox: ' "$e" | sed -E 's/\[[0-9]+\]\)$/[N])/')
	rest=$(grep -v -e '^sandbox: ' -e '^wicket: the sandbox blocked ' "$e" || true)
	if grep '^sandbox: ' "$e" | grep -qvE '\[[1-9][0-9]*\]\)$'; then
		echo "a line without a pid: $(grep '^sandbox: ' "$e")"
		return 1
	fi
}

# expect_diag LINE...: the "sandbox:" lines are exactly LINE... (pids as N),
# in order. No argument: none at all.
expect_diag() {
	local want=""
	[ $# -gt 0 ] && want=$(printf '%s\n' "$@")
	if [ "$diag" != "$want" ]; then
		printf 'expected diagnostics:\n%s\ngot:\n%s\n(stdout: %s)\n(stderr: %s)\n' \
			"${want:-<none>}" "${diag:-<none>}" "$out" "$err" >&2
		return 1
	fi
}

# listener PORTFILE: a TCP listener on 127.0.0.1 (ephemeral port written
# to PORTFILE) accepting for at most 40 s; killed by pid in teardown.
listener() {
	timeout --kill-after=5 45 "$PY" - "$1" >/dev/null 2>&1 3>&- <<'PYEOF' &
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 0))
s.listen(8)
s.settimeout(0.3)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
end = time.monotonic() + 40
while time.monotonic() < end:
    try:
        c, _ = s.accept()
        c.close()
    except socket.timeout:
        pass
PYEOF
	_SHIM_PIDS+=("$!")
	local i
	for ((i = 0; i < 100; i++)); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# free_port: a TCP port on 127.0.0.1 with no listener (bound, then released).
free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
