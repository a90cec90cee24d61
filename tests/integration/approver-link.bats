#!/usr/bin/env bats
# The approver a harness holds (wicket(1), --approver-fd, --approver-socket):
# the same JSON requests an approver program gets, one a line with an
# "id", over a socket the harness keeps; its answers, one a line, decide.
# Judged outside: what a grant made on the host, and what the harness got.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	WS=$(mk_workspace) && OUT=$(mk_outside) || return 1
	track "$WS" "$OUT"
	export XDG_STATE_HOME=$OUT/state
	mkdir "$OUT/g" "$OUT/h"
	GR=$OUT/g GR2=$OUT/h
	LINK=$BATS_TEST_DIRNAME/../lib/approver_link.py
	REQS=$OUT/reqs.jsonl
	export WS OUT GR GR2 WICKET
}

teardown() { it_teardown; }

# harness MODE ANSWERS WICKET-RUN-ARGS...: wicket run in $WS with the
# harness's approver ({FD} or {SOCK} where its place goes).
harness() {
	local mode=$1 answers=$2
	shift 2
	(cd "$WS" && bounded 90 "$PY" "$LINK" "$mode" "$answers" "$REQS" -- "$WICKET" run "$@")
}

@test "approver link: yes over the descriptor: the command runs on the grant asked for" {
	run --separate-stderr harness fd '[{"approve": true}]' --approver-fd '{FD}' -- sh -c '
		"$1" ask --write "$2" --reason "make it" -- sh -c "echo hi >\"\$0/made\"" "$2"
		echo "rc=$?"' _ "$WICKET" "$GR"
	assert_equal "$status" 0
	assert_output "rc=0"
	[ "$(cat "$GR/made")" = hi ]
	"$PY" - "$REQS" "$GR" <<'PYEOF'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 1, reqs
r = reqs[0]
assert r["v"] == 1 and r["type"] == "ask" and r["id"] == 1, r
assert r["grant"] == {"write": [sys.argv[2]]}, r
assert r["reason"] == "make it", r
PYEOF
}

@test "approver link: no, with a message: exit 122, the message said, nothing runs" {
	run --separate-stderr harness fd '[{"approve": false, "message": "not \u001b[2Jtoday"}]' \
		--approver-fd '{FD}' -- sh -c '
		"$1" ask --write "$2" -- touch "$2/made"; echo "rc=$?"' _ "$WICKET" "$GR"
	assert_output "rc=122"
	# Printable only: the harness's words reach the requester's terminal.
	assert_equal "$stderr" "wicket: ask: refused: the approver said no: not ?[2Jtoday"
	[ ! -e "$GR/made" ]
}

@test "approver link: a yes may narrow the grant; a grant wider than asked is refused" {
	run --separate-stderr harness fd '[{"approve": true, "grant": {"write": ["'"$GR"'"]}},
		{"approve": true, "grant": {"write": ["'"$OUT"'"]}}]' --approver-fd '{FD}' -- sh -c '
		"$1" ask --write "$2" --write "$3" -- sh -c "touch \"\$0/a\"; touch \"\$1/b\"" "$2" "$3"
		echo "rc=$?"
		"$1" ask --write "$2" -- touch "$2/c"; echo "rc=$?"' _ "$WICKET" "$GR" "$GR2"
	assert_line --index 0 "rc=1"
	assert_line --index 1 "rc=122"
	[ -e "$GR/a" ]
	[ ! -e "$GR2/b" ]
	[ ! -e "$GR/c" ]
	grep -q "grants more than was asked" <<<"$stderr"
}

@test "approver link: over a unix socket wicket connects to" {
	run --separate-stderr harness socket '[{"approve": true}]' --approver-socket '{SOCK}' -- sh -c '
		"$1" ask --write "$2" -- touch "$2/made"; echo "rc=$?"' _ "$WICKET" "$GR"
	assert_output "rc=0"
	[ -e "$GR/made" ]
	[ "$(wc -l <"$REQS")" -eq 1 ]
}

@test "approver link: a line that is not an answer ends the link; every later request is refused unasked" {
	run --separate-stderr harness fd '["garbage", {"approve": true}]' --approver-fd '{FD}' -- sh -c '
		"$1" ask --write "$2" -- touch "$2/a"; echo "rc=$?"
		"$1" ask --write "$2" -- touch "$2/b"; echo "rc=$?"' _ "$WICKET" "$GR"
	assert_line --index 0 "rc=122"
	assert_line --index 1 "rc=122"
	[ ! -e "$GR/a" ] && [ ! -e "$GR/b" ]
	[ "$(wc -l <"$REQS")" -eq 1 ]
	grep -q "is not {\"id\": N" <<<"$stderr"
}

@test "approver link: a harness that closes or never answers: refused, no answer in time" {
	run --separate-stderr harness fd '["close"]' --approver-fd '{FD}' -- sh -c '
		"$1" ask --write "$2" -- touch "$2/a"; echo "rc=$?"' _ "$WICKET" "$GR"
	assert_output "rc=122"
	[ ! -e "$GR/a" ]
	printf '{"extends": "workspace-write", "escalation": {"mode": "prompt", "timeout": 1}}\n' \
		>"$OUT/t.json"
	run --separate-stderr harness fd '["none"]' --policy "$OUT/t.json" --approver-fd '{FD}' -- sh -c '
		"$1" ask --write "$2" -- touch "$2/a"; echo "rc=$?"' _ "$WICKET" "$GR"
	assert_output "rc=123"
	[ ! -e "$GR/a" ]
}

@test "approver link: --outside is never sent to it; the sandbox does not hold the descriptor" {
	run --separate-stderr harness fd '[{"approve": true}]' --approver-fd '{FD}' -- sh -c '
		"$1" ask --outside -- touch "$2/out"; echo "rc=$?"
		for fd in 3 4 5 6 7 8 9; do
			eval "printf \"{\\\"type\\\": \\\"forged\\\"}\\n\" >&$fd" 2>/dev/null
		done; echo done' _ "$WICKET" "$GR"
	# (no terminal to ask on: the person alone may answer it)
	assert_line --index 0 "rc=123"
	assert_line --index 1 "done"
	[ ! -e "$GR/out" ]
	# Nothing reached the harness: not the --outside request, not a line
	# the sandbox wrote on any descriptor it has.
	[ ! -s "$REQS" ]
}

@test "approver link: bad options exit 125" {
	cd "$WS"
	run --separate-stderr bounded 30 "$WICKET" run --approver-fd 1 -- true
	assert_equal "$status" 125
	run --separate-stderr bounded 30 "$WICKET" run --approver-fd 9 -- true 9</dev/null
	assert_equal "$status" 125
	grep -q "not a stream socket" <<<"$stderr"
	run --separate-stderr bounded 30 "$WICKET" run --approver-fd x -- true
	assert_equal "$status" 125
	run --separate-stderr bounded 30 "$WICKET" run --approver-socket "$OUT/none.sock" -- true
	assert_equal "$status" 125
	run --separate-stderr harness fd '[]' --approver "$OUT/x" --approver-fd '{FD}' -- true
	assert_equal "$status" 125
	grep -q "one approver, not two" <<<"$stderr"
}
