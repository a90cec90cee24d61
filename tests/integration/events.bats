#!/usr/bin/env bats
# `wicket run --events FD|PATH` and `--session-id-file`: the JSON lines
# a harness reads (wicket(1), EVENTS): the session first, each denial
# with its category, rule and fixes, the end; a stream of each call's
# own; a reader that never reads does not hold the session; bytes from
# the sandbox still valid JSON. `wicket why --session ID` for each.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	WS=$(mk_workspace) && OUT=$(mk_outside) || return 1
	track "$WS" "$OUT"
	export XDG_STATE_HOME=$OUT/state HOME=$OUT/home
	mkdir -p "$HOME/data" "$HOME/.ssh"
	echo secret >"$HOME/.ssh/id_test"
	EV=$OUT/events.jsonl
}

teardown() { it_teardown; }

# check_stream FILE: every line a JSON object of schema 1 (events.h),
# the session first and the end last, each event's members as wicket(1)
# says; prints the denials as "CATEGORY OBJECT" lines.
check_stream() {
	"$PY" - "$1" <<'EOF'
import json, sys
lines = open(sys.argv[1], 'rb').read().split(b'\n')
assert lines[-1] == b'', 'the stream ends with a whole line'
docs = [json.loads(l.decode('utf-8')) for l in lines[:-1]]
assert docs and docs[0]['event'] == 'session' and docs[-1]['event'] == 'end', docs
sid = docs[0]['session']
need = {
    'session': {'session', 'policy', 'policy_source', 'policy_chain', 'sandbox', 'workspace',
                'writable', 'private_tmp', 'net', 'argv', 'pid'},
    'denial': {'session', 'kind', 'category', 'object', 'operation', 'pid', 'comm', 'argv',
               'rule', 'source', 'fixes', 'shown'},
    'end': {'session', 'status', 'denials', 'counts', 'refused', 'lost'},
    'proxy': {'session', 'decision', 'host', 'port', 'request', 'why'},
    'ask': {'session', 'phase', 'request'},
}
cats = {}
for d in docs:
    assert d['v'] == 1, d
    miss = need[d['event']] - set(d)
    assert not miss, (d['event'], miss)
    assert d['session'] == sid, d
    if d['event'] == 'denial':
        assert d['kind'] in ('write', 'read', 'network'), d
        assert all(f['kind'] in ('option', 'policy', 'ask', 'note', 'not') for f in d['fixes']), d
        assert all(isinstance(a, str) for a in d['argv']), d
        cats[d['category']] = cats.get(d['category'], 0) + 1
        print(d['category'], d['object'])
end = docs[-1]
assert end['counts'] == cats, (end['counts'], cats)
assert end['refused'] == bool(cats) and end['denials'] == sum(cats.values()), end
EOF
}

@test "the session first, each denial with its category, rule and fixes, the end with counts" {
	mkdir -p "$WS/keep"
	run wsrun "$WS" --events "$EV" --protect keep -- sh -c '
		touch "$HOME/data/wk-out" 2>/dev/null
		cat "$HOME/.ssh/id_test" 2>/dev/null
		echo >>"$HOME/.profile" 2>/dev/null
		touch keep/x 2>/dev/null
		exit 3'
	assert_equal "$status" 3
	run check_stream "$EV"
	assert_success
	assert_line "outside-writable $HOME/data/wk-out"
	assert_line "hidden $HOME/.ssh/id_test"
	assert_line "runs-later $HOME/.profile"
	assert_line "protected $WS/keep/x"
	"$PY" - "$EV" "$WS" "$HOME" <<'EOF'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
ws, home = sys.argv[2], sys.argv[3]
s = docs[0]
assert s['workspace'] == ws and ws in s['writable'] and s['net'] == 'none', s
assert s['policy'] == 'workspace-write' and s['argv'][0] == 'sh', s
end = docs[-1]
assert end['status'] == 3 and end['refused'] is True and end['lost'] == 0, end
out = [d for d in docs if d.get('object') == home + '/data/wk-out'][0]
assert out['operation'] == 'create' and out['argv'][0] == 'touch', out
assert out['argv'] == ['touch', home + '/data/wk-out'], out
fixes = {f['kind']: f for f in out['fixes']}
assert fixes['option'] == {'kind': 'option', 'option': '--write', 'value': home + '/data'}, fixes
assert fixes['ask']['command'][:2] == ['wicket', 'ask'], fixes
assert fixes['ask']['command'][-2:] == ['touch', home + '/data/wk-out'], fixes
later = [d for d in docs if d.get('category') == 'runs-later'][0]
assert any(f['kind'] == 'not' and f['option'] == '--write' for f in later['fixes']), later
hid = [d for d in docs if d.get('category') == 'hidden'][0]
assert hid['source'].startswith('built-in'), hid
EOF
}

@test "network categories: off, around the proxy, a name not allowed, a port, a unix socket" {
	"$PY" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$OUT/host.sock"
	wsrun "$WS" --events "$OUT/a.jsonl" -- "$PY" -c '
import socket, sys
for fam, addr in ((socket.AF_INET, ("192.0.2.1", 9)), (socket.AF_UNIX, sys.argv[1])):
    try:
        socket.socket(fam).connect(addr)
    except OSError:
        pass' "$OUT/host.sock" 2>/dev/null || true
	run check_stream "$OUT/a.jsonl"
	assert_success
	# (Not 127.0.0.1: that is the sandbox's own loopback, refusing nothing.)
	assert_line 'network-off connect 192.0.2.1:9/tcp'
	assert_line "unix-socket connect unix:$OUT/host.sock"
	wsrun "$WS" --events "$OUT/b.jsonl" --net domains --allow-domain allowed.invalid -- "$PY" -c '
import os, socket, urllib.request
try:
    socket.create_connection(("192.0.2.1", 9), timeout=5)
except OSError:
    pass
try:
    urllib.request.urlopen("http://refused.invalid/", timeout=10)
except Exception:
    pass' 2>/dev/null </dev/null || true
	run check_stream "$OUT/b.jsonl"
	assert_success
	assert_line 'proxy-bypassed connect 192.0.2.1:9/tcp'
	assert_line --regexp '^name-not-allowed .*refused\.invalid'
	wsrun "$WS" --events "$OUT/c.jsonl" --net ports:80 -- "$PY" -c '
import socket
try:
    socket.create_connection(("127.0.0.1", 81), timeout=5)
except OSError:
    pass' 2>/dev/null || true
	run check_stream "$OUT/c.jsonl"
	assert_success
	assert_line 'port-not-allowed connect 127.0.0.1:81/tcp'
}

@test "8 parallel calls: each stream and each why --session has its own denials only" {
	local i pids=()
	for i in 1 2 3 4 5 6 7 8; do
		(cd "$WS" && bounded 120 "$WICKET" run --events "$OUT/ev$i" --session-id-file "$OUT/sid$i" \
			-- sh -c 'touch "$HOME/data/wk-par-$1" 2>/dev/null; touch "$HOME/data/wk-par-$1-b" 2>/dev/null; true' _ "$i" \
			>/dev/null 2>&1) &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i"; done
	local ids=() par
	for par in 1 2 3 4 5 6 7 8; do ids[par]=$(cat "$OUT/sid$par"); done
	for par in 1 2 3 4 5 6 7 8; do
		run check_stream "$OUT/ev$par"
		assert_success
		assert_equal "$output" "outside-writable $HOME/data/wk-par-$par
outside-writable $HOME/data/wk-par-$par-b"
		[[ ${ids[par]} =~ ^[0-9a-f]{16}$ ]]
		grep -q "\"session\":\"${ids[par]}\"" "$OUT/ev$par"
		run --separate-stderr wkb why --session "${ids[par]}" --json
		assert_success
		"$PY" - "$output" "${ids[par]}" "$HOME/data/wk-par-$par" <<'EOF'
import json, sys
d, sid, obj = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
assert d['session'] == sid, d
assert sorted(e['object'] for e in d['denials']) == [obj, obj + '-b'], (obj, d['denials'])
assert all(e['category'] == 'outside-writable' for e in d['denials']), d['denials']
assert d['command'] == 'sh' and d['argv'][-1] == obj.rsplit('-', 1)[1], d['argv']
EOF
	done
	# Ids unique: eight of them.
	[ "$(cat "$OUT"/sid? | sort -u | wc -l)" -eq 8 ]
	# The last session of this user, as before.
	run --separate-stderr wkb why --json
	assert_success
}

@test "a reader that never reads: the session ends, lines are whole, the loss is counted" {
	run bounded 120 "$PY" - "$WICKET" "$WS" "$HOME" <<'EOF'
import json, os, subprocess, sys
wicket, ws, home = sys.argv[1:4]
r0, w0 = os.pipe()
os.dup2(r0, 20)
os.dup2(w0, 3)
for f in {r0, w0} - {3, 20}:
    os.close(f)
r = 20
# A storm of distinct denials, far more than a pipe and the buffer hold,
# into a pipe nobody reads while the session runs.
code = 'import sys\nfor i in range(6000):\n    try: open("%s/data/wk-storm-%%d-%%s" %% (i, "x" * 200), "w")\n    except OSError: pass\n' % home
p = subprocess.run([wicket, 'run', '--events', '3', '--', sys.executable, '-c', code], cwd=ws,
                   pass_fds=(3,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
os.close(3)
data = b''
while True:
    b = os.read(r, 1 << 16)
    if not b:
        break
    data += b
assert p.returncode == 0, p.returncode
assert data.endswith(b'\n'), data[-100:]
docs = [json.loads(l) for l in data.split(b'\n')[:-1]]
assert docs[0]['event'] == 'session', docs[0]
n = sum(d['event'] == 'denial' for d in docs)
assert 0 < n < 6000, n
print('denials read', n, 'end' if docs[-1]['event'] == 'end' else 'no end')
EOF
	assert_success
}

@test "bytes from the sandbox in paths and arguments stay valid JSON" {
	local bad
	bad=$(printf 'wk-\377\033]0;x\007-\303') # invalid UTF-8, control characters
	run wsrun "$WS" --events "$EV" -- "$PY" -c '
import os, sys
try:
    open(os.fsencode(sys.argv[1]), "w")
except OSError:
    pass' "$HOME/data/$bad"
	"$PY" - "$EV" <<'EOF'
import json, sys
docs = [json.loads(l.decode('utf-8')) for l in open(sys.argv[1], 'rb')]
d = [d for d in docs if d['event'] == 'denial'][0]
assert '\ufffd' in d['argv'][-1] and '\x1b' in d['argv'][-1], d['argv']
# No command offered in words that are not what the process had.
assert all('command' not in f for f in d['fixes'] if f['kind'] == 'ask'), d['fixes']
EOF
}

@test "--session-id-file is there before the command runs; --events refuses what the command shares" {
	run --separate-stderr wsrun "$WS" --session-id-file "$WS/sid" -- sh -c 'cat sid; echo "$WICKET_SESSION"'
	assert_success
	assert_equal "${lines[0]}" "${lines[1]}"
	for fd in 0 1 2; do
		run --separate-stderr wsrun "$WS" --events "$fd" -- true
		assert_equal "$status" 125
	done
	touch "$EV"
	run --separate-stderr wsrun "$WS" --events "$EV" -- true
	assert_equal "$status" 125
	assert_regex "$stderr" "exists already"
}

@test "the command inherits no descriptor of the stream" {
	run wsrun "$WS" --events 3 -- sh -c 'echo "{\"v\":1,\"event\":\"forged\"}" >&3' 3>"$EV"
	assert_failure
	run grep -c '^{"v":1,"event":"forged"' "$EV"
	assert_output 0
}

@test "an ask fix names the process's argv, not its comm" {
	ln -s /bin/sh "$WS/git-receive-pack-wk"
	wsrun "$WS" --events "$EV" -- ./git-receive-pack-wk -c 'echo >"$HOME/data/wk-git"' 2>/dev/null || true
	"$PY" - "$EV" <<'EOF'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
d = [d for d in docs if d['event'] == 'denial'][0]
assert d['comm'] == 'git-receive-pac', d['comm']
cmd = [f for f in d['fixes'] if f['kind'] == 'ask'][0]['command']
assert cmd[cmd.index('--') + 1:] == d['argv'] and d['argv'][0] == './git-receive-pack-wk', cmd
EOF
}

@test "records kept by total size: the oldest go, the newest always stays" {
	mkdir -p "$XDG_STATE_HOME/wicket/sessions"
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		head -c $((1 << 20)) /dev/zero | tr '\0' ' ' >"$XDG_STATE_HOME/wicket/sessions/000000000$((i - 1)).000000000-00000000000000$(printf %02d "$i").json"
	done
	# Pruned at the end of a session whose record is large (over 64 KiB:
	# three denials of a shell with 30 KB of arguments), as at one in 16.
	local long
	long=$(head -c 30000 /dev/zero | tr '\0' a)
	wsrun "$WS" --session-id-file "$OUT/sid" -- sh -c 'for i in 1 2 3; do echo 2>/dev/null >"/var/tmp/.nope-$$-$i"; done; true' _ "$long"
	local total
	total=$(du -cb "$XDG_STATE_HOME"/wicket/sessions/*.json | tail -n1 | cut -f1)
	[ "$total" -le $((8 << 20)) ]
	[ ! -e "$XDG_STATE_HOME/wicket/sessions/0000000000.000000000-0000000000000001.json" ]
	run --separate-stderr wkb why --session "$(cat "$OUT/sid")" --json
	assert_success
}

@test "ask: the request put to the approver and its decision" {
	printf '#!/bin/sh\ncat >/dev/null; exit 1\n' >"$OUT/no"
	chmod 755 "$OUT/no"
	run --separate-stderr wsrun "$WS" --events "$EV" --approver "$OUT/no" -- sh -c '
		"$1" ask --write "$2" --reason "to make it" -- touch "$2/x"' _ "$WICKET" "$HOME/data"
	assert_equal "$status" 122
	"$PY" - "$EV" "$HOME/data" <<'EOF'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
asks = [d for d in docs if d['event'] == 'ask']
assert [a['phase'] for a in asks] == ['asked', 'decided'], asks
assert asks[0]['to'] == 'approver', asks[0]
assert asks[1]['decision'] == 'denied' and asks[1]['by'] == 'approver', asks[1]
for a in asks:
    assert a['request']['argv'] == ['touch', sys.argv[2] + '/x'], a
    assert a['request']['reason'] == 'to make it', a
EOF
}

@test "proxy: each decision, allowed and refused, with host, port and why" {
	wsrun "$WS" --events "$EV" --allow-domain localhost --allow-address 127.0.0.1 -- "$PY" -c '
import urllib.request
for url in ("http://localhost:9/", "http://refused.invalid:8080/"):
    try:
        urllib.request.urlopen(url, timeout=10)
    except Exception:
        pass' </dev/null 2>/dev/null || true
	"$PY" - "$EV" <<'EOF'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
px = {d['host']: d for d in docs if d['event'] == 'proxy'}
assert set(px) == {'localhost', 'refused.invalid'}, px
ok, no = px['localhost'], px['refused.invalid']
assert ok['decision'] == 'allowed' and ok['port'] == 9, ok
assert ok['why'] == 'in the allowed domains (localhost)' and ok['address'] == '127.0.0.1', ok
assert no['decision'] == 'refused' and no['port'] == 8080 and no['why'], no
EOF
}
