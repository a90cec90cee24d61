#!/usr/bin/env bats
# Escalation by grant (issue 28): a rule or an approver that says yes to
# `wicket ask --write G -- CMD` runs CMD in a sandbox of its own, the
# session's policy and the grant, never outside. Each attack below ran
# code the sandbox wrote OUTSIDE it when a rule or an approver approved
# the command itself; here the planted code runs, if at all, inside the
# grant's sandbox: it may write G ($GR/inside shows it ran), and the
# marker $OUT/made, in a directory neither the session nor the grant can
# write, stays absent. The same command asked --outside never reaches a
# rule or an approver: with no terminal it is refused ("no-terminal").
#
# Programs that are not the point (npm, cargo, perf, dpkg-buildpackage,
# dbus-launch) are stand-ins in $OUT/bin that do what the program does:
# read their configuration upward from the cwd, run the command it names.

load ../lib/common
load escape_helpers
bats_require_minimum_version 1.5.0

setup() {
	ask_setup || return 1
	mkdir "$OUT/g" "$OUT/bin"
	GR=$OUT/g
	# The approver keeps each request it was shown, then says yes.
	printf '#!/bin/sh\ncat >"%s/asked.$$"\nexit 0\n' "$OUT" >"$OUT/yes"
	chmod 755 "$OUT/yes"
	# The planted code: a trace in the grant, then the marker outside.
	PAYLOAD="touch $GR/inside; touch $OUT/made"
	export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
	export GR PAYLOAD
	stand_ins
}

teardown() { escape_cleanup; common_teardown; }

stand_ins() {
	# npm: package.json's script (test, or run NAME) from the nearest
	# directory upward that has one; .npmrc's onload-script on any
	# command, view included.
	cat >"$OUT/bin/npm" <<'EOF'
#!/bin/sh
d=$PWD
while :; do
	if [ -f "$d/.npmrc" ]; then
		s=$(sed -n 's/^onload-script=//p' "$d/.npmrc")
		[ -z "$s" ] || sh -c "$s"
	fi
	[ -f "$d/package.json" ] && break
	[ "$d" = / ] && exit 1
	d=$(dirname "$d")
done
case $1 in
view) echo 1.0.0 ;;
test | run)
	s=$(sed -n 's/^ *"'"${2:-test}"'": *"\(.*\)",*$/\1/p' "$d/package.json")
	cd "$d" && exec sh -c "$s" ;;
esac
EOF
	# cargo: build.rustc-wrapper of the nearest .cargo/config.toml
	# upward, run as rustc is (fetch asks rustc for its version).
	cat >"$OUT/bin/cargo" <<'EOF'
#!/bin/sh
d=$PWD
while :; do
	f=$d/.cargo/config.toml
	if [ -f "$f" ]; then
		w=$(sed -n 's/^rustc-wrapper *= *"\(.*\)"$/\1/p' "$f")
		[ -z "$w" ] || exec "$w" rustc -vV
	fi
	[ "$d" = / ] && exit 0
	d=$(dirname "$d")
done
EOF
	# perf stat [OPTIONS] -- CMD: runs CMD.
	printf '%s\n' '#!/bin/sh' 'while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done' 'shift' 'exec "$@"' >"$OUT/bin/perf"
	# dpkg-buildpackage: runs ./debian/rules clean, then build.
	printf '%s\n' '#!/bin/sh' './debian/rules clean && exec ./debian/rules build' >"$OUT/bin/dpkg-buildpackage"
	# dbus-launch [--options] PROGRAM ARGS: runs PROGRAM.
	printf '%s\n' '#!/bin/sh' 'while [ $# -gt 0 ]; do case $1 in --*) shift ;; *) break ;; esac; done' 'exec "$@"' >"$OUT/bin/dbus-launch"
	chmod 755 "$OUT"/bin/*
}

# attack POLICY SETUP CMD...: in a session of POLICY (a name or a file)
# whose approver says yes to anything, with $OUT/bin first in PATH,
# SETUP (sh code, eval'd in the session's shell: it may cd) plants the
# payload; then CMD is asked on a grant of --write $GR, then --outside.
# Sets output/lines: "grant=RC" and "outside=RC".
attack() {
	local pol=$1 setup=$2
	shift 2
	rm -f "$OUT/made" "$GR/inside" "$OUT"/asked.*
	run --separate-stderr env PATH="$OUT/bin:$PATH" bash -c 'cd "$1" && w=$2 p=$3 o=$4 && shift 4 && exec timeout 90 "$w" run --policy "$p" --approver "$o/yes" -- "$@"' \
		_ "$WS" "$WICKET" "$pol" "$OUT" sh -c '
		w=$1 setup=$2
		shift 2
		eval "$setup" >/dev/null 2>&1
		"$w" ask --write "$GR" -- "$@" </dev/null >/dev/null 2>&1
		echo "grant=$?"
		"$w" ask --outside -- "$@" </dev/null >/dev/null 2>&1
		echo "outside=$?"' _ "$WICKET" "$setup" "$@" </dev/null
}

# contained WHAT [ran]: the marker outside is absent; the approver was
# asked once (the grant's request), the request --outside never; with
# "ran", the planted code did run, inside the grant's sandbox.
contained() {
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: $1 ran the sandbox's code outside"
		return 1
	fi
	assert_line "outside=123"
	assert_equal "$(find "$OUT" -maxdepth 1 -name 'asked.*' | wc -l)" 1
	grep -q '"grant":{"write":\["'"$GR"'"\]}' "$OUT"/asked.*
	if [ "${2-}" = ran ] && [ ! -e "$GR/inside" ]; then
		echo "the planted code of $1 did not run at all: the test proves nothing"
		return 1
	fi
	return 0
}

# The audit: every grant request approved by the approver, every one
# --outside refused for want of a terminal, never by an approver.
audit_says() {
	"$PY" - "$AUDIT" "$GR" "$1" <<'PYEOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
asks = [l for l in lines if "argv" in l]
grant = [l for l in asks if not l.get("outside")]
out = [l for l in asks if l.get("outside")]
assert len(grant) == len(out) == int(sys.argv[3]), asks
for l in grant:
    assert l["decision"] == "approved" and l["by"] in ("approver", "rule"), l
    assert l["grant_asked"] == {"write": [sys.argv[2]]} == l["grant"], l
for l in out:
    assert l["decision"] == "denied" and l["by"] == "no-terminal", l
    assert "grant" not in l and "grant_asked" not in l, l
PYEOF
}

@test "grant: npm test, npm view and cargo fetch from a read-only .git/hooks run the planted package.json, .npmrc and rustc-wrapper only inside" {
	git -C "$WS" init -q
	# shellcheck disable=SC2016 # $PAYLOAD is expanded inside
	local plant='printf "{\n  \"scripts\": {\n    \"test\": \"%s\"\n  }\n}\n" "$PAYLOAD" >package.json
		printf "onload-script=%s\n" "$PAYLOAD" >.npmrc
		mkdir -p .cargo && printf "#!/bin/sh\n%s\n" "$PAYLOAD" >wrap && chmod 755 wrap
		printf "[build]\nrustc-wrapper = \"%s/wrap\"\n" "$PWD" >.cargo/config.toml
		cd .git/hooks'
	local c
	for c in "npm test" "npm view left-pad version" "cargo fetch"; do
		# shellcheck disable=SC2086 # the command's words
		attack workspace-write "$plant" $c
		contained "$c" ran
	done
	audit_says 3
}

@test "grant: git status --ignore-submodules and git blame under workspace-write-strict run core.fsmonitor and textconv scripts only inside" {
	git -C "$WS" init -q -b main
	mkdir "$WS/tools"
	printf '#!/bin/sh\nexit 1\n' >"$WS/tools/fsmonitor"
	printf '#!/bin/sh\ncat "$1"\n' >"$WS/tools/conv"
	chmod 755 "$WS/tools/fsmonitor" "$WS/tools/conv"
	echo "f diff=x" >"$WS/.gitattributes"
	echo hi >"$WS/f"
	git -C "$WS" config core.fsmonitor "$WS/tools/fsmonitor"
	git -C "$WS" config diff.x.textconv "$WS/tools/conv"
	git -C "$WS" add f .gitattributes
	git -C "$WS" -c user.name=t -c user.email=t@example.invalid commit -q -m one
	# The rules give a grant that covers the request: no approver asked.
	printf '{"extends": "workspace-write-strict", "escalation": {"allow": [{"argv": ["git", "status", "--ignore-submodules"], "cwd": "${cwd}", "grant": {"write": ["%s"]}}, {"argv": ["git", "blame", "f"], "cwd": "${cwd}", "grant": {"write": ["%s"]}}]}}\n' "$GR" "$GR" >"$OUT/strict.json"
	chmod 644 "$OUT/strict.json"
	# shellcheck disable=SC2016
	local plant='printf "#!/bin/sh\n%s\nexit 1\n" "$PAYLOAD" >tools/fsmonitor
		printf "#!/bin/sh\n%s\ncat \"\$1\"\n" "$PAYLOAD" >tools/conv'
	attack "$OUT/strict.json" "$plant" git status --ignore-submodules
	[ ! -e "$OUT/made" ] || { echo "ESCAPE: git status ran core.fsmonitor outside"; false; }
	[ -e "$GR/inside" ]
	assert_line "grant=0"
	assert_line "outside=123"
	attack "$OUT/strict.json" "$plant" git blame f
	[ ! -e "$OUT/made" ] || { echo "ESCAPE: git blame ran the textconv outside"; false; }
	[ -e "$GR/inside" ]
	assert_line "grant=0"
	assert_line "outside=123"
	# Rules decided; the approver never saw either.
	[ -z "$(find "$OUT" -maxdepth 1 -name 'asked.*')" ]
	[ "$(grep -c '"decision":"approved","by":"rule"' "$AUDIT")" = 2 ]
}

@test "grant: an empty element of LD_LIBRARY_PATH or PYTHONPATH loads the workspace's library or sitecustomize only inside" {
	command -v cc >/dev/null || skip "no C compiler"
	# A program of the host's that needs a library of the host's; the
	# user's LD_LIBRARY_PATH starts with an empty element (the cwd).
	mkdir "$OUT/lib"
	printf 'int wk_dep(void) { return 0; }\n' >"$OUT/dep.c"
	printf 'int wk_dep(void);\nint main(void) { return wk_dep(); }\n' >"$OUT/use.c"
	cc -shared -fPIC -o "$OUT/lib/libwkdep.so" "$OUT/dep.c"
	cc -o "$OUT/bin/usedep" "$OUT/use.c" -L"$OUT/lib" -lwkdep
	printf '#include <fcntl.h>\n#include <unistd.h>\nint wk_dep(void) { return 0; }\n__attribute__((constructor)) static void init(void) { close(open("%s/made", O_CREAT|O_WRONLY, 0644)); close(open("%s/inside", O_CREAT|O_WRONLY, 0644)); }\n' "$OUT" "$GR" >"$WS/evil.c"
	cc -shared -fPIC -o "$WS/evil.so" "$WS/evil.c"
	rm "$WS/evil.c"
	export LD_LIBRARY_PATH=":$OUT/lib" PYTHONPATH=":/nonexistent"
	# The man page's kind of safe rule, and an approver.
	attack workspace-write 'mv evil.so libwkdep.so' usedep
	contained "usedep with LD_LIBRARY_PATH=$LD_LIBRARY_PATH" ran
	# shellcheck disable=SC2016
	attack workspace-write 'printf "open(\"%s/inside\", \"w\"); open(\"%s/made\", \"w\")\n" "$GR" "$OUT" >sitecustomize.py' \
		"$PY" -c 'print(1)'
	contained "python3 with PYTHONPATH=$PYTHONPATH" ran
	audit_says 2
}

@test "grant: perf stat -- make, bats, gcc -B., dpkg-buildpackage and prove run the workspace's code only inside" {
	command -v make >/dev/null || skip "make is not installed"
	# shellcheck disable=SC2016
	attack workspace-write 'printf "all:\n\t%s\n" "$PAYLOAD" >Makefile' perf stat -- make
	contained "perf stat -- make" ran
	# shellcheck disable=SC2016
	attack workspace-write 'printf "@test x {\n  %s\n}\n" "$PAYLOAD" >t.bats' bats t.bats
	contained "bats t.bats" ran
	local n=2
	if command -v gcc >/dev/null; then
		# shellcheck disable=SC2016
		attack workspace-write 'printf "#!/bin/sh\n%s\n" "$PAYLOAD" >as && chmod 755 as && echo "int x;" >x.c' \
			gcc -B. -c x.c -o x.o
		contained "gcc -B." ran
		n=$((n + 1))
	fi
	# shellcheck disable=SC2016
	attack workspace-write 'mkdir -p debian && printf "#!/bin/sh\n%s\n" "$PAYLOAD" >debian/rules && chmod 755 debian/rules' \
		dpkg-buildpackage -us -uc
	contained "dpkg-buildpackage" ran
	n=$((n + 1))
	if command -v prove >/dev/null; then
		# shellcheck disable=SC2016
		attack workspace-write 'mkdir -p t && printf "system(q{%s}); print qq{1..1\nok 1\n};\n" "$PAYLOAD" >t/a.t' prove
		contained "prove" ran
		n=$((n + 1))
	fi
	audit_says "$n"
}

@test "grant: scp -o ProxyCommand and dbus-launch ./data.txt (made executable after the question) run their command only inside" {
	local n=1
	if command -v scp >/dev/null; then
		attack workspace-write ':' scp -o "ProxyCommand=sh -c '$PAYLOAD'" -o BatchMode=yes x:/etc/hostname "$GR/copy"
		contained "scp -o ProxyCommand" ran
		n=2
	fi
	# Passed as data; the sandbox makes it a program while the command
	# is asked (here: before; the grant's sandbox decides either way).
	# shellcheck disable=SC2016
	attack workspace-write 'printf "#!/bin/sh\n%s\n" "$PAYLOAD" >data.txt && chmod 755 data.txt' dbus-launch ./data.txt
	contained "dbus-launch ./data.txt" ran
	audit_says "$n"
}

@test "grant: a 5000-byte awk program and 143 rm arguments run only on the grant: what they reach outside it stays" {
	printf 'keep\n' >"$OUT/victim"
	local prog args=() i
	prog="BEGIN { x = \"$(head -c 2400 /dev/zero | tr '\0' a)\"; system(\"$PAYLOAD\"); y = \"$(head -c 2400 /dev/zero | tr '\0' b)\" }"
	[ "${#prog}" -ge 4800 ]
	attack workspace-write ':' awk "$prog"
	contained "a long awk program" ran
	for ((i = 0; i < 71; i++)); do args+=("$WS/f$i"); done
	args+=("$OUT/victim")
	for ((i = 71; i < 142; i++)); do args+=("$WS/f$i"); done
	[ "${#args[@]}" = 143 ]
	attack workspace-write ':' rm -f "${args[@]}"
	[ "$(cat "$OUT/victim")" = keep ] || { echo "ESCAPE: rm reached a file outside its grant"; false; }
	assert_line "outside=123"
	audit_says 2
	# The audit keeps what was asked: the grant, the argument count.
	grep -q '"argc":145' "$AUDIT"
}

# drive: a python program on stdin with tests/lib/ptydrive importable.
drive() { PYTHONPATH=$BATS_TEST_DIRNAME/../lib bounded 120 "$PY" - "$@"; }

@test "grant: 143 rm arguments or a 5000-byte awk program asked --outside on a small terminal are refused, never shown with a hidden middle" {
	printf 'keep\n' >"$OUT/victim"
	drive <<'PYEOF'
import os
from ptydrive import Term, check, run

def main():
    out, ws, w = os.environ["OUT"], os.environ["WS"], os.environ["WICKET"]
    t = Term([w, "run", "--", "bash", "--norc", "--noprofile", "-i"], cwd=ws,
             env=dict(os.environ, PS1="wk$ ", HISTFILE=""), rows=24, cols=80)
    t.expect(r"wk\$ ")
    # The victim in the middle of 143 arguments.
    t.line('set -- $(seq -f "%s/f%%g" 0 70) "%s/victim" $(seq -f "%s/f%%g" 71 141); '
           '"%s" ask --outside -- rm -f "$@"; echo "rc=$?"' % (ws, out, ws, w))
    t.expect(r"rc=122\r\n")
    check(open(out + "/victim").read() == "keep\n", "rm ran outside")
    t.line('"%s" ask --outside -- awk "BEGIN { x = \\"$(head -c 2400 /dev/zero | tr "\\0" a)\\"; '
           'system(\\"touch %s/made\\"); y = \\"$(head -c 2400 /dev/zero | tr "\\0" b)\\" }"; echo "rc=$?"' % (w, out))
    t.expect(r"rc=122\r\n")
    check(not os.path.exists(out + "/made"), "awk ran outside")
    # No question was drawn at all: no word was ever hidden.
    check(b"[y/N]" not in t.out, "a question was shown")
    check(b"not shown" not in t.out, "a question hid part of the command")
    t.line("exit 0")
    t.wait()

run(main)
PYEOF
	"$PY" - "$AUDIT" "$OUT" <<'PYEOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
asks = [l for l in lines if "argv" in l]
assert len(asks) == 2, asks
for l in asks:
    assert l["outside"] is True and l["decision"] == "denied" and l["by"] == "terminal", l
    assert "too long to show whole" in l["message"], l
assert asks[0]["argc"] == 145, asks[0]
PYEOF
}
