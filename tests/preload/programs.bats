#!/usr/bin/env bats
# libwicket-preload with the programs people use: each denial gives
# exactly one line, with the exact text (pids as N).

load ../lib/common
load preload_helpers

setup() {
	shim_setup
	printf 'all:\n\techo x > %s/made\n' "$OUT" >"$WS/Makefile"
	tar -C "$WS" -cf "$WS/t.tar" w
}
teardown() { shim_teardown; }

# one CMD... : under the shim, CMD fails and names exactly $want.
one() {
	shim_run -- "$@"
	[ "$status" != 0 ] || { echo "$* succeeded"; return 1; }
	expect_diag "$want"
}

w() { want="sandbox: write blocked: $1 ($2 by $3[N])"; }

@test "sh and bash redirections" {
	w "$OUT/a" create sh; one sh -c "echo > '$OUT/a'"
	w "$OUT/f" "open for writing" bash; one bash -c "echo >> '$OUT/f'"
}

@test "coreutils: cp, mv, rm, ln, touch, mkdir, install, tee, dd, truncate, chmod" {
	w "$OUT/c" create cp; one cp "$OUT/f" "$OUT/c"
	w "$OUT/f" rename mv; one mv "$OUT/f" "$WS/"
	w "$OUT/w" rename mv; one mv "$WS/w" "$OUT/"
	w "$OUT/f" unlink rm; one rm "$OUT/f"
	w "$OUT/f" unlink rm; one rm -rf "$OUT/f"
	w "$OUT/l" symlink ln; one ln -s x "$OUT/l"
	w "$OUT/h" link ln; one ln "$WS/w" "$OUT/h"
	w "$OUT/f" "open for writing" touch; one touch "$OUT/f"
	w "$OUT/new" create touch; one touch "$OUT/new"
	w "$OUT/d" mkdir mkdir; one mkdir -p "$OUT/d/e"
	w "$OUT/w" create install; one install -m 644 "$WS/w" "$OUT/"
	w "$OUT/f" "open for writing" tee; one sh -c "echo x | tee '$OUT/f' >/dev/null; exit 1"
	w "$OUT/f" "open for writing" dd; one dd if=/dev/zero of="$OUT/f" count=1 status=none
	w "$OUT/f" "open for writing" truncate; one truncate -s0 "$OUT/f"
	w "$OUT/f" chmod chmod; one chmod 600 "$OUT/f"
	w "$WS/.git/config" "open for writing" touch; one touch "$WS/.git/config"
}

@test "sed -i, tar -x, make" {
	w "$OUT/sedXXXXXX" create sed; one sed -i s/o/0/ "$OUT/f"
	w "$OUT/w" create tar; one tar -C "$OUT" -xf "$WS/t.tar"
	w "$OUT/made" create sh; one make -s -C "$WS"
}

@test "python3, perl" {
	w "$OUT/f" "open for writing" python3; one "$PY" -c "open('$OUT/f', 'w')"
	w "$OUT/d" mkdir python3; one "$PY" -c "import os; os.mkdir('$OUT/d')"
	want="sandbox: read blocked: $OUT/secret/key (open by python3[N])"
	shim_run -P "$HPOL" -- "$PY" -c "open('$OUT/secret/key')"
	[ "$status" = 1 ]
	expect_diag "$want"
	want="sandbox: network blocked: connect 192.0.2.1:9/tcp (python3[N])"
	one "$PY" -c "import socket; socket.create_connection(('192.0.2.1', 9), timeout=2)"
	w "$OUT/f" "open for writing" perl; one perl -e "open(F, '>', '$OUT/f') or die \"\$!\n\""
	w "$OUT/f" unlink perl; one perl -e "unlink('$OUT/f') or die \"\$!\n\""
}

@test "git" {
	w "$OUT/repo" mkdir git; one git init -q "$OUT/repo"
	git -C "$WS" init -q 2>/dev/null || true
	w "$WS/.git/config" "open for writing" git
	# git writes config.lock and renames it over config: the rename is refused.
	shim_run -- git -C "$WS" config user.name wicket-test
	[ "$status" != 0 ]
	[ -n "$diag" ]
	[ "$(wc -l <<<"$diag")" = 1 ]
	[[ $diag = "sandbox: write blocked: $WS/.git/config ("*" by git[N])" ]]
}

@test "node and curl (when installed)" {
	if ! command -v node >/dev/null || ! command -v curl >/dev/null; then
		skip "node or curl is not installed (not part of a standard Debian 12 CI image)"
	fi
	w "$OUT/f" "open for writing" node; one node -e "require('fs').writeFileSync('$OUT/f', 'x')"
	want="sandbox: network blocked: connect 192.0.2.1:9/tcp (curl[N])"
	one curl -s --max-time 5 http://192.0.2.1:9/
}

@test "a denied write inside the workspace's own tree stays silent; so do successes" {
	shim_run -- sh -c "mkdir -p d && touch d/f && cp d/f d/g && mv d/g d/h && rm -rf d && sed -i s/w/v/ w && cat w"
	[ "$status" = 0 ]
	[ "$out" = v ]
	expect_diag
	[ -z "$err" ]
}
