#!/usr/bin/env bats
# `wicket ask` (wicket(1)): a command inside asks the supervisor to run
# one command once, in a sandbox of its own (the session's policy and a
# grant: `--write P`...), or with --outside, outside any sandbox; the
# policy's rules, an approver or the terminal decide (--outside: the
# terminal only); it runs with the requester's stdio and cwd; every
# request is one line of the audit log.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	WS=$(mk_workspace) && OUT=$(mk_outside) || return 1
	track "$WS" "$OUT"
	export XDG_STATE_HOME=$OUT/state
	AUDIT=$XDG_STATE_HOME/wicket/audit.jsonl
	# Approvers live outside the workspace: the sandbox cannot rewrite them.
	printf '#!/bin/sh\ncat >"%s/req.$$.json"\nexit 0\n' "$OUT" >"$OUT/yes"
	printf '#!/bin/sh\ncat >/dev/null\nexit 1\n' >"$OUT/no"
	printf '#!/bin/sh\ncat >/dev/null\nexec sleep 30\n' >"$OUT/slow"
	chmod 755 "$OUT/yes" "$OUT/no" "$OUT/slow"
	# A directory outside that a grant makes writable: what the command
	# leaves there is seen from outside (its own pid namespace hides its
	# pid, the session's view hides nothing of the host's).
	mkdir "$OUT/g"
	GR=$OUT/g
	export WS OUT GR WICKET
}

teardown() { it_teardown; }

# gone_after_session PATTERN WHAT: no process whose command line matches
# PATTERN (pgrep -f; a zombie has none) is left, 5 s at most for their end
# to be seen; else they are killed and the test fails saying WHAT. By
# pattern: a command on a grant runs in a pid namespace of its own, the
# pid it sees is not the host's.
gone_after_session() {
	local i p
	for ((i = 0; i < 50; i++)); do
		pgrep -f "$1" >/dev/null || return 0
		sleep 0.1
	done
	for p in $(pgrep -f "$1"); do kill -KILL "$p" 2>/dev/null || true; done
	echo "$2 ($(pgrep -f "$1" | tr '\n' ' '))"
	return 1
}

# policy NAME JSON-ESCALATION: a policy file extending workspace-write.
policy() {
	printf '{"extends": "workspace-write", "escalation": %s}\n' "$2" >"$OUT/$1.json"
	chmod 644 "$OUT/$1.json"
}

@test "ask: outside a session it says so and exits 125" {
	run --separate-stderr env -u WICKET_FD -u WICKET_SESSION "$WICKET" ask -- true
	assert_equal "$status" 125
	assert_equal "$stderr" "wicket: ask: not inside a wicket session (outside one, run the command itself)"
	run --separate-stderr "$WICKET" ask
	assert_equal "$status" 125
}

# chain_ended_with_session WHAT ASK...: wicket ask --write $GR -- ASK...
# (which starts a fork chain writing $GR/alive, and stays: a grant's
# sandbox ends with its command, and all in it) in a session that then
# ends; the chain must have started, the session ended within 15 s, and
# the chain no longer move, judged outside; else fail saying WHAT.
chain_ended_with_session() {
	local what=$1 t0=$SECONDS a b
	shift
	run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c '
		w=$1 out=$2
		shift 2
		"$w" ask --write "$out" -- sh -c "\"\$@\" && exec sleep 30" _ "$@" </dev/null &
		i=0
		while [ ! -s "$out/alive" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		sleep 0.5; echo started' _ "$WICKET" "$GR" "$@"
	assert_success
	assert_output started
	[ -s "$GR/alive" ]
	[ $((SECONDS - t0)) -lt 15 ]
	a=$(cat "$GR/alive")
	sleep 1
	b=$(cat "$GR/alive")
	if [ "$a" != "$b" ]; then
		echo "$what outlived the session ($a, then $b)"
		return 1
	fi
}

@test "ask: the approver says yes: the command runs on its grant with the requester's cwd and stdio, its status comes back" {
	mkdir "$WS/sub"
	printf '#!/bin/sh\ntouch "$1/made"; touch "$2/beyond" 2>/dev/null; pwd; echo err >&2; exit 7\n' >"$OUT/act"
	chmod 755 "$OUT/act"
	run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c '
		cd sub && "$1" ask --write "$2" --reason "make the file" -- "$3/act" "$2" "$3"
		echo "rc=$?"' _ "$WICKET" "$GR" "$OUT"
	assert_equal "$status" 0
	assert_line --index 0 "$WS/sub"
	assert_line --index 1 "rc=7"
	# What the grant gives is written; the rest of outside is not.
	[ -f "$GR/made" ]
	[ ! -e "$OUT/beyond" ]
	# (the grant's sandbox says what it blocked on the same stderr)
	grep -qx err <<<"$stderr"
	"$PY" - "$OUT" "$WS" "$GR" <<'PYEOF'
import glob, json, sys
out, ws, gr = sys.argv[1], sys.argv[2], sys.argv[3]
reqs = glob.glob(out + "/req.*.json")
assert len(reqs) == 1, reqs
r = json.load(open(reqs[0]))
assert r["v"] == 1 and r["type"] == "ask", r
assert r["argv"] == [out + "/act", gr, out], r
assert r["grant"] == {"write": [gr]}, r
assert r["path"] == out + "/act", r
assert r["cwd"] == ws + "/sub", r
assert r["reason"] == "make the file", r
assert r["comm"] == "wicket" and r["exe"].endswith("/wicket"), r
assert isinstance(r["pid"], int) and isinstance(r["sandbox_pid"], int), r
assert r["path_writable_in_sandbox"] is False, r
PYEOF
}

@test "ask: the approver says no: exit 122, one line, nothing runs" {
	run --separate-stderr wsrun "$WS" --approver "$OUT/no" -- sh -c '
		"$1" ask -- touch "$2/made"; echo "rc=$?"' _ "$WICKET" "$OUT"
	assert_equal "$status" 0
	assert_equal "$output" "rc=122"
	assert_equal "$stderr" "wicket: ask: refused: the approver said no (exit status 1)"
	[ ! -e "$OUT/made" ]
}

@test "ask: no answer within the policy's timeout (or a shorter --timeout): exit 123, the approver is ended" {
	policy slow '{"mode": "approver", "approver": "'"$OUT"'/slow", "timeout": 1}'
	SECONDS=0
	run --separate-stderr wsrun "$WS" --policy "$OUT/slow.json" -- sh -c '
		"$1" ask -- touch "$2/made"; echo "rc=$?"' _ "$WICKET" "$OUT"
	assert_equal "$output" "rc=123"
	assert_equal "$stderr" "wicket: ask: no one answered: no answer in time"
	[ "$SECONDS" -lt 10 ]
	[ ! -e "$OUT/made" ]
	# --timeout shortens the policy's 120 s; it cannot lengthen a short one.
	SECONDS=0
	run --separate-stderr wsrun "$WS" --approver "$OUT/slow" -- sh -c '
		"$1" ask --timeout 1 -- true; echo "rc=$?"' _ "$WICKET"
	assert_equal "$output" "rc=123"
	[ "$SECONDS" -lt 10 ]
	run --separate-stderr wsrun "$WS" --policy "$OUT/slow.json" -- sh -c '
		"$1" ask --timeout 100 -- true; echo "rc=$?"' _ "$WICKET"
	assert_equal "$output" "rc=123"
	[ "$SECONDS" -lt 20 ]
	! pgrep -f "^sleep 30$" -u "$(id -u)" -P 1 >/dev/null || true
}

@test "ask: a policy allow rule approves without asking; a deny rule refuses even with an approver that says yes" {
	policy rules '{"mode": "deny", "allow": [["true"], ["sh", "-c", "exit 5"]], "deny": [["touch", "**"]]}'
	run --separate-stderr wsrun "$WS" --policy "$OUT/rules.json" -- sh -c '
		"$1" ask -- true; echo "rc=$?"
		"$1" ask -- /bin/true; echo "rc=$?"
		cd / && "$1" ask -- sh -c "exit 5"; echo "rc=$?"
		"$1" ask -- sh -c "exit 6"; echo "rc=$?"' _ "$WICKET"
	assert_equal "$status" 0
	assert_equal "${lines[*]}" "rc=0 rc=0 rc=5 rc=122"
	assert_equal "$stderr" 'wicket: ask: refused: the policy refuses every request (escalation.mode "deny")'
	run --separate-stderr wsrun "$WS" --policy "$OUT/rules.json" --approver "$OUT/yes" -- sh -c '
		"$1" ask -- touch "$2/made"; echo "rc=$?"
		"$1" ask -- /usr/bin/touch "$2/made"; echo "rc=$?"' _ "$WICKET" "$OUT"
	assert_equal "${lines[*]}" "rc=122 rc=122"
	assert_line --index 0 "rc=122"
	[ ! -e "$OUT/made" ]
	grep -qF '"by":"rule","rule":"touch '"'"'**'"'"'"' "$AUDIT"
}

@test "ask: the command starts with no signal ignored or blocked, though wicket was started with some ignored" {
	# The supervisor keeps an ignored SIGHUP ignored, and SIG_IGN
	# survives an exec: the command's child must set each back itself.
	policy sigs '{"allow": [["grep", "-E", "*", "/proc/self/status"]]}'
	run --separate-stderr bash -c 'trap "" HUP PIPE INT; cd "$1" && exec timeout 60 "$2" run --policy "$3" -- "$2" ask -- grep -E "^Sig(Blk|Ign):" /proc/self/status' _ "$WS" "$WICKET" "$OUT/sigs.json"
	assert_equal "$status" 0
	assert_equal "${lines[*]}" "SigBlk:	0000000000000000 SigIgn:	0000000000000000"
}

@test "ask: an allow rule runs a program the sandbox wrote only on its grant: what else it writes outside stays unwritten" {
	# The rule decides on rights, not on the program: the sandbox may
	# change ./tool, and what runs has the session's policy and the
	# rule's grant, no more.
	policy allowtool '{"allow": [{"argv": ["'"$WS"'/tool", "*", "*"], "grant": {"write": ["'"$GR"'"]}}]}'
	printf '#!/bin/sh\ntouch "$1/made" "$2/made" 2>/dev/null; echo ran\n' >"$WS/tool" && chmod 755 "$WS/tool"
	run --separate-stderr wsrun "$WS" --policy "$OUT/allowtool.json" -- sh -c '
		"$1" ask --write "$2" -- ./tool "$2" "$3"; echo "rc=$?"
		"$1" ask -- ./tool "$2" "$3"; echo "rc=$?"
		"$1" ask --write "$3" -- ./tool "$2" "$3"; echo "rc=$?"
		"$1" ask --outside -- ./tool "$2" "$3"; echo "rc=$?"' _ "$WICKET" "$GR" "$OUT" </dev/null
	assert_equal "${lines[*]}" "ran rc=0 ran rc=0 rc=122 rc=123"
	[ -e "$GR/made" ]
	[ ! -e "$OUT/made" ]
	# A request for more than the rule grants is refused by it; one to
	# run outside never reaches it (and has no one to ask here).
	[[ "$stderr" == *"the rule grants less than was asked: --write $OUT is not in its grant"* ]]
	assert_equal "$(grep -c '"decision":"approved","by":"rule"' "$AUDIT")" 2
	grep -q '"outside":true,.*"decision":"denied","by":"no-terminal"' "$AUDIT"
}

@test "ask: a command run on a grant asks for nothing more, on a grant or outside" {
	run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c '
		"$1" ask --write "$2" -- sh -c "
			\"\$0\" ask --write \"\$1\" -- touch \"\$1/again\"; echo inner=\$?
			\"\$0\" ask --outside -- touch \"\$1/outside\"; echo inner=\$?" "$1" "$2"
		echo "rc=$?"' _ "$WICKET" "$GR" </dev/null
	assert_equal "${lines[*]}" "inner=122 inner=122 rc=0"
	[ ! -e "$GR/again" ] && [ ! -e "$GR/outside" ]
	assert_equal "$(grep -c 'a command run on a grant asks for nothing more' <<<"$stderr")" 2
	# The approver saw the first request only.
	assert_equal "$(find "$OUT" -maxdepth 1 -name 'req.*.json' | wc -l)" 1
}

@test "ask: without a terminal and without an approver: no one to ask, exit 123" {
	run --separate-stderr wsrun "$WS" -- sh -c '"$1" ask -- touch "$2/made"; echo "rc=$?"' _ "$WICKET" "$OUT" </dev/null
	assert_equal "$output" "rc=123"
	assert_equal "$stderr" "wicket: ask: no one answered: no terminal to ask on"
	[ ! -e "$OUT/made" ]
}

@test "ask: stdio through pipes and files" {
	# cat reads data on its standard input, which the sandbox writes:
	# the rule says it may ("stdin": true).
	policy cat '{"allow": [{"argv": ["cat"], "stdin": true}, ["sh", "-c", "echo to-stderr >&2"]]}'
	run --separate-stderr wsrun "$WS" --policy "$OUT/cat.json" -- sh -c '
		printf "one\ntwo\n" | "$1" ask -- cat | tr a-z A-Z
		printf "in a file\n" >in.txt
		"$1" ask -- cat <in.txt >out.txt 2>err.txt; echo "rc=$?"
		(cd / && "$1" ask -- sh -c "echo to-stderr >&2") 2>>err.txt
		cat out.txt err.txt' _ "$WICKET" </dev/null
	assert_equal "$status" 0
	assert_equal "${lines[*]}" "ONE TWO rc=0 in a file to-stderr"
}

@test "ask: ten requests at once are each answered" {
	run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c '
		cd /
		for i in 0 1 2 3 4 5 6 7 8 9; do
			"$1" ask -- sh -c "sleep 0.3; exit $i" & 
		done
		n=0
		for j in 0 1 2 3 4 5 6 7 8 9; do wait %$((j + 1)); n=$((n + $?)); done
		echo "sum=$n"' _ "$WICKET"
	assert_equal "$status" 0
	assert_equal "$output" "sum=45"
	[ "$(grep -c '"decision":"approved","by":"approver"' "$AUDIT")" = 10 ]
}

@test "ask: from Python's subprocess.run (descriptors closed) and from a make recipe" {
	command -v make >/dev/null || skip "no make"
	policy py '{"allow": [["echo", "from-python"], ["echo", "from-make"]]}'
	printf 'all:\n\t"$(WICKET)" ask -- echo from-make\n' >"$WS/Makefile"
	run --separate-stderr wsrun "$WS" --policy "$OUT/py.json" -- sh -c '
		"$2" -c "import subprocess, sys; r = subprocess.run([sys.argv[1], \"ask\", \"--\", \"echo\", \"from-python\"]); print(\"rc=%d\" % r.returncode)" "$1"
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory WICKET="$1"' \
		_ "$WICKET" "$PY" </dev/null
	assert_equal "$status" 0
	assert_equal "${lines[*]}" "from-python rc=0 from-make"
}

@test "ask: SIGTERM, SIGINT and SIGHUP to wicket ask reach the command; it exits with the command's status" {
	# Programs outside the workspace (a shell in it would be CAREFUL).
	printf '#!/bin/sh\ntrap "exit 42" TERM; touch "$1"; while :; do sleep 0.1; done\n' >"$OUT/trapper"
	printf '#!/bin/sh\ntouch "$1"; exec sleep 30\n' >"$OUT/sleeper"
	chmod 755 "$OUT/trapper" "$OUT/sleeper"
	policy sl '{"allow": [["'"$OUT"'/trapper", "*"], ["'"$OUT"'/sleeper", "*"]]}'
	run with_signal TERM "$WS/ready" sh -c 'cd "$1" && exec "$2" run --policy "$3" -- "$2" ask -- "$4/trapper" "$1/ready"' _ "$WS" "$WICKET" "$OUT/sl.json" "$OUT"
	# (the loop's sleep, in the same process group, is ended too)
	assert_equal "${lines[-1]}" "exit 42"
	rm -f "$WS/ready"
	run with_signal INT "$WS/ready" sh -c 'cd "$1" && exec "$2" run --policy "$3" -- "$2" ask -- "$4/sleeper" "$1/ready"' _ "$WS" "$WICKET" "$OUT/sl.json" "$OUT"
	assert_output "exit 130"
}

@test "ask: a command that ignores SIGHUP and SIGTERM does not outlive the session it was approved in" {
	# Its signals ignored (nohup does that much), its sleeps too.
	printf '#!/bin/sh\ntrap "" HUP TERM\necho $$ >"$1/pid.new" && mv "$1/pid.new" "$1/pid"\nwhile :; do sleep 0.1; done\n' >"$OUT/stay"
	chmod 755 "$OUT/stay"
	run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c '
		"$1" ask --write "$2" -- "$3/stay" "$2" </dev/null >/dev/null 2>&1 &
		i=0
		while [ ! -s "$2/pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		echo started' _ "$WICKET" "$GR" "$OUT"
	assert_success
	assert_output started
	[ -s "$GR/pid" ]
	# Judged outside: neither the command nor the wicket that runs its
	# sandbox is left once wicket run has returned.
	gone_after_session "$OUT/stay" "an approved command outlived its session"
	grep -q '"message":"the session ended while it ran"' "$AUDIT"
}

@test "ask: what an approved command leaves running in a session of its own (setsid -f) neither outlives the session nor holds it open" {
	# It holds the session's output (a pipe here), which wicket relays
	# until no one writes: the session ends all the same, and so does it.
	# (It stops by itself after 30 s, so that a failure cannot hang.)
	# A grant's sandbox ends with its command and takes such a process
	# with it; so the command stays, and the session ends first.
	printf '#!/bin/sh\ntrap "" HUP TERM\necho $$ >"$1/pid.new" && mv "$1/pid.new" "$1/pid"\ni=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done\n' >"$OUT/stay"
	chmod 755 "$OUT/stay"
	local t0=$SECONDS
	run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c '
		"$1" ask --write "$2" -- sh -c "setsid -f \"\$1\" \"\$2\"; echo rc=\$?; exec sleep 30" _ "$3/stay" "$2" </dev/null &
		i=0
		while [ ! -s "$2/pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done' _ "$WICKET" "$GR" "$OUT"
	assert_success
	assert_output rc=0
	[ -s "$GR/pid" ]
	gone_after_session "$OUT/stay" \
		"a process an approved command left behind outlived the session"
	# Ended by the session (about 2 s), not by itself (30 s).
	[ $((SECONDS - t0)) -lt 20 ]
}

@test "ask: a fork chain an approved command leaves behind (each generation forks, then exits) ends with the session, as root and not" {
	# red team 11: what the supervisor adopts forks again before it is
	# signalled; its process group is signalled instead. The chain stops
	# by itself after 20 s, so that a failure cannot hang.
	cat >"$OUT/chain" <<'EOF_SH'
#!/bin/sh
trap "" HUP TERM
[ "$(date +%s)" -lt "$2" ] || exit 0
echo $$ >"$1/alive.$$" && mv "$1/alive.$$" "$1/alive"
"$0" "$1" "$2" </dev/null &
exit 0
EOF_SH
	chmod 755 "$OUT/chain"
	chain_ended_with_session "a fork chain of an approved command" \
		setsid -f "$OUT/chain" "$GR" "$(($(date +%s) + 20))"
}

@test "ask: a C fork chain as fast as fork goes, left by an approved command, ends with the session" {
	# The shell chain above forks a few hundred times a second; this one
	# as fast as the kernel lets it, in a session of its own, ignoring
	# SIGHUP and SIGTERM. It stops by itself after 20 s.
	local chain=$WICKET_TEST_BINDIR/escape/probes/forkchain
	[ -x "$chain" ]
	chain_ended_with_session "a C fork chain of an approved command" "$chain" "$GR" 20
	# And no process of it is left.
	! pgrep -f "^$chain $GR 20\$" >/dev/null
}

@test "ask: the audit log: one line per request, owner-only, no environment, the grant asked and given" {
	policy au '{"allow": [{"argv": ["true", "*", "b"], "grant": {"write": ["'"$GR"'"]}}], "deny": [["false"]]}'
	run -123 --separate-stderr env WK_SECRET_VALUE=s3cr3t bash -c 'cd "$1" && timeout 60 "$2" run --policy "$3" -- sh -c "
		\"\$0\" ask --reason \"why not\" --write \"\$1\" -- true a b
		\"\$0\" ask -- false
		\"\$0\" ask -- nonexistent-wk-cmd
		\"\$0\" ask --outside -- true a b" "$2" "$4"' _ "$WS" "$WICKET" "$OUT/au.json" "$GR" </dev/null
	[ "$(stat -c %a "$AUDIT")" = 600 ]
	! grep -q s3cr3t "$AUDIT"
	"$PY" - "$AUDIT" "$WS" "$OUT/au.json" "$GR" <<'PYEOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 4, lines
a, b, c, d = (json.loads(l) for l in lines)
gr = sys.argv[4]
assert a["grant_asked"] == {"write": [gr]} and a["grant"] == {"write": [gr]}, a
assert b["grant_asked"] == {} and "grant" not in b and "outside" not in b, b
assert d["outside"] is True and "grant_asked" not in d and "grant" not in d, d
assert d["decision"] == "denied" and d["by"] == "no-terminal", d
for x in (a, b, c, d):
    for k in ("time", "session", "policy", "pid", "sandbox_pid", "comm", "exe", "argv", "path",
              "cwd", "reason", "decision", "by", "status", "duration_ms"):
        assert k in x, (k, x)
    assert x["cwd"] == sys.argv[2] and x["policy"] == sys.argv[3], x
    assert len(x["session"]) == 16 and x["comm"] == "wicket", x
assert a["argv"] == ["true", "a", "b"] and a["decision"] == "approved" and a["by"] == "rule", a
assert a["rule"] == "true '*' b" and a["status"] == 0 and a["reason"] == "why not", a
assert a["path"].endswith("/true") and a["path"].startswith("/"), a
assert b["decision"] == "denied" and b["by"] == "rule" and b["rule"] == "false" and b["status"] is None, b
assert c["decision"] == "denied" and c["by"] == "error" and c["path"] is None, c
assert "not found" in c["message"], c
assert a["time"].endswith("Z"), a
PYEOF
}

@test "ask: a cwd that is not the same directory outside (the private /tmp) is refused" {
	run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c 'mkdir -p /tmp/x && cd /tmp/x && "$1" ask -- true; echo "rc=$?"' _ "$WICKET"
	assert_equal "$output" "rc=125"
	assert_regex "$stderr" "not the same directory outside the sandbox"
}

# drive: a python program on stdin with tests/lib/ptydrive importable.
drive() { PYTHONPATH=$BATS_TEST_DIRNAME/../lib bounded 120 "$PY" - "$@"; }

@test "ask on the terminal: the question shows who asks, the grant and what would run; y runs it, n and Enter do not; the relay resumes" {
	TIOCSTI=$WICKET_TEST_BINDIR/escape/probes/tiocsti
	export TIOCSTI
	drive <<'PYEOF'
import os
from ptydrive import Term, check, run

def main():
    out, ws, gr = os.environ["OUT"], os.environ["WS"], os.environ["GR"]
    t = Term([os.environ["WICKET"], "run", "--", "bash", "--norc", "--noprofile", "-i"],
             cwd=ws, env=dict(os.environ, PS1="wk$ ", HISTFILE=""))
    t.expect(r"wk\$ ")
    w = os.environ["WICKET"]
    t.line('"%s" ask --write "%s" --reason "$(printf "need\\033[31mit")" -- touch "%s/yes" "a b"; echo "rc=$?"' % (w, gr, gr))
    t.expect(r"asks to run a command in a sandbox of its own:\r\nthis session's policy, with these rights added\.\r\n")
    t.expect(r"  asked by: wicket \(pid \d+ in the sandbox\)\r\n  grant:    --write %s\r\n  in:       " % gr + ws + r"\r\n")
    t.expect(r"  reason:   \$'need\\x1b\[31mit'\r\n")
    t.expect(r"  program:  /\S*/touch\r\n  argv:     3 words, one a line, as a shell would take them:\r\n"
             r"  \[0\]       touch\r\n  \[1\]       %s/yes\r\n  \[2\]       'a b'\r\n" % gr)
    t.expect(r"Run it once in that sandbox of its own\? \[y/N\] ")
    t.send("y\r")
    t.expect(r"rc=0\r\n")
    check(os.path.exists(gr + "/yes"), "y ran it")
    # --outside: said so, and only y at the terminal runs it there.
    t.line('"%s" ask --outside -- touch "%s/outside"; echo "rc=$?"' % (w, out))
    t.expect(r"asks to run a command OUTSIDE the sandbox, with\r\nyour own rights and environment")
    t.expect(r"  \[1\]       %s/outside\r\n" % out)
    t.expect(r"Run it outside the sandbox once\? \[y/N\] ")
    t.send("y\r")
    t.expect(r"rc=0\r\n")
    check(os.path.exists(out + "/outside"), "y ran it outside")
    t.line('"%s" ask -- touch "%s/refused"; echo "rc=$?"' % (w, out))
    t.expect(r"\[y/N\] ")
    t.send("n\r")
    t.expect(r"rc=122\r\n")
    t.line('"%s" ask -- touch "%s/refused"; echo "rc=$?"' % (w, out))
    t.expect(r"\[y/N\] ")
    t.send("\r")
    t.expect(r"rc=122\r\n")
    t.line('"%s" ask -- touch "%s/refused"; echo "rc=$?"' % (w, out))
    t.expect(r"\[y/N\] ")
    t.send("\x03")
    t.expect(r"rc=122\r\n")
    check(not os.path.exists(out + "/refused"), "n, Enter and Ctrl-C ran nothing: %s" % os.listdir(out))
    # The sandbox answers for itself: "y" pushed into its terminal
    # (TIOCSTI) and written to it, while the question is up.
    t.line('( sleep 1; "%s" 0x5412 "y" ; "%s" 0x5412 "$(printf "\\r")"; printf "y\\r" >/dev/tty; printf "y\\r" ) & '
           '"%s" ask --timeout 3 -- touch "%s/self"; echo "rc=$?"' % (os.environ["TIOCSTI"], os.environ["TIOCSTI"], w, out))
    t.expect(r"\[y/N\] ")
    t.expect(r"rc=123\r\n", timeout=20)
    check(not os.path.exists(out + "/self"), "the sandbox could not answer its own question")
    # The relay is back: the shell still works.
    t.line("echo back-$((6*7))")
    t.expect(r"back-42")
    t.line("exit 0")
    check(t.wait() == 0, "wicket exits with the shell's status")

run(main)
PYEOF
}
