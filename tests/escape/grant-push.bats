#!/usr/bin/env bats
# git push approved as a grant (wicket(1), ESCALATION BY GRANT): under the
# default policy the workspace's .git is writable, so a push is never
# approved to run outside; an approver grants the push the one thing it
# needs (--write the local bare remote, --net the HTTP remote's address
# and port), and it runs in a sandbox of its own. What the session
# planted for git (a .git/commondir naming a directory with a pre-push
# hook) runs, if at all, inside that sandbox.
#
# Judged on the host: the remote's branch (read outside), markers in a
# directory neither the session nor the grant can write, what the HTTP
# servers logged.

load ../lib/common
load escape_helpers

setup() {
	command -v git >/dev/null || skip "git is not installed"
	esc_setup
	export XDG_STATE_HOME=$OUT/state
	AUDIT=$XDG_STATE_HOME/wicket/audit.jsonl
	# Git on the host reads nothing of the machine's or the user's config.
	export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
	# Where a planted hook would leave its mark: neither the session nor
	# any grant of this file can write here.
	mkout FAR
	REMOTE=$OUT/remote.git
	git init -q --bare -b main "$REMOTE"
	git -C "$WS" init -q -b main
	git -C "$WS" -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m one
	WANT=$(git -C "$WS" rev-parse main)
}

teardown() {
	escape_cleanup
	common_teardown
}

# approver GRANT [ARGV]: $OUT/approve, a program outside that keeps each
# request (OUT/asked.jsonl) and says yes only when the request's grant is
# the JSON object GRANT (and its argv the JSON array ARGV, when given).
approver() {
	printf '%s\n' "$1" >"$OUT/want-grant.json"
	printf '%s\n' "${2:-null}" >"$OUT/want-argv.json"
	cat >"$OUT/approve" <<EOF
#!$PY
import json, sys
req = json.load(sys.stdin)
with open("$OUT/asked.jsonl", "a") as f:
    f.write(json.dumps(req) + "\n")
grant = json.load(open("$OUT/want-grant.json"))
argv = json.load(open("$OUT/want-argv.json"))
sys.exit(0 if req.get("grant") == grant and argv in (None, req.get("argv")) else 1)
EOF
	chmod 755 "$OUT/approve"
}

# remote_main REPO: the commit REPO's main names, read outside ("" if none).
remote_main() { git -C "$1" rev-parse -q --verify refs/heads/main 2>/dev/null || true; }

# serve_git DIR: git's smart HTTP for the bare repositories in DIR
# (tests/lib/git_http.py), on a port the kernel picks; sets GIT_PORT. Its
# log (DIR/log) gets a line for every connection and every request.
serve_git() {
	: >"$1/log"
	"$PY" "$WICKET_SRCDIR/tests/lib/git_http.py" "$1" "$1/log" "$1/port" 55 \
		>/dev/null 2>"$1/server.err" 3>&- &
	track_pid $!
	wait_for test -s "$1/port" || return 1
	GIT_PORT=$(cat "$1/port")
}

# bare_served DIR: DIR/remote.git, a bare repository that takes pushes
# over HTTP.
bare_served() {
	git init -q --bare -b main "$1/remote.git"
	git -C "$1/remote.git" config http.receivepack true
}

# PLANT: a shell snippet run in the workspace inside the session, `sh -c
# "$PLANT" _ FAR REMOTE`: a directory "evil" that git takes for the
# repository's common directory (its objects, refs and config copied,
# and a pre-push hook), named by a new .git/commondir. The hook leaves
# a mark in FAR (outside every sandbox), one in the workspace (where the
# grant's sandbox may write), one in the remote (the grant's own), and
# tries the remote's hooks, config and commondir.
PLANT='mkdir evil && cp -a .git/HEAD .git/refs .git/objects .git/config evil/ && mkdir evil/hooks &&
	cat >evil/hooks/pre-push <<HOOK &&
#!/bin/sh
touch "$1/pwned"
touch "$PWD/hook-ran"
touch "$2/hook-was-here"
printf "#!/bin/sh\ntouch $1/pwned-later\n" >"$2/hooks/post-receive" && chmod +x "$2/hooks/post-receive"
printf "[core]\n\tfsmonitor = \"touch $1/pwned-later; false\"\n" >>"$2/config"
echo "$PWD/evil" >"$2/commondir"
exit 0
HOOK
	chmod 755 evil/hooks/pre-push && echo "$PWD/evil" >.git/commondir'

# remote_state: the remote's hooks and config, and whether it has a
# commondir, for a before/after comparison.
remote_state() {
	(cd "$REMOTE" && find hooks -printf '%p %m %s\n' | sort && sha256sum config &&
		if [ -e commondir ]; then echo commondir; else echo no commondir; fi)
}

@test "grant push: an approver grants --write to a local bare remote (default policy); the push lands" {
	git -C "$WS" remote add origin "$REMOTE"
	approver '{"write": ["'"$REMOTE"'"]}' '["git", "push", "origin", "main"]'
	# The session alone cannot push: the remote is outside the workspace.
	sbx sh -c 'git push -q origin main; echo "rc=$?"'
	refute_line rc=0
	[ -z "$(remote_main "$REMOTE")" ]

	sbx_opts --approver "$OUT/approve" -- sh -c '
		wicket ask --write "$1" -- git push origin main; echo "rc=$?"' _ "$REMOTE"
	assert_line rc=0
	[ "$(remote_main "$REMOTE")" = "$WANT" ]
	# The remote is whole after its grant's sandbox ended (nothing of it
	# moved aside), and git outside takes it for a repository.
	[ -f "$REMOTE/HEAD" ]
	git -C "$REMOTE" fsck --no-progress
	"$PY" - "$AUDIT" "$REMOTE" <<'PYEOF'
import json, sys
audit, remote = sys.argv[1], sys.argv[2]
lines = [json.loads(l) for l in open(audit)]
assert len(lines) == 1, lines
l = lines[0]
assert l["argv"] == ["git", "push", "origin", "main"], l
assert l["grant_asked"] == {"write": [remote]} and l["grant"] == {"write": [remote]}, l
assert l["decision"] == "approved" and l["by"] == "approver" and l["status"] == 0, l
PYEOF

	# A request for more than the approver gives is refused (exit 122),
	# and nothing runs.
	git -C "$WS" -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m two
	sbx_opts --approver "$OUT/approve" -- sh -c '
		wicket ask --write "$1" -- git push origin main; echo "rc=$?"' _ "$OUT"
	assert_line rc=122
	[ "$(remote_main "$REMOTE")" = "$WANT" ]
}

@test "grant push: over HTTP (git http-backend on 127.0.0.1), --net 127.0.0.1:PORT; the grant is port-exact" {
	local srv other
	mkout srv
	mkout other
	bare_served "$srv"
	bare_served "$other"
	serve_git "$other"
	local other_port=$GIT_PORT
	serve_git "$srv"
	local port=$GIT_PORT
	[ "$port" != "$other_port" ]
	git -C "$WS" remote add origin "http://127.0.0.1:$port/remote.git"
	approver '{"net": ["127.0.0.1:'"$port"'"]}'
	# The judge works: a client on the host reaches the other server, and
	# its log says so.
	git ls-remote "http://127.0.0.1:$other_port/remote.git" >/dev/null
	grep -q '^GET /remote.git/info/refs' "$other/log"
	: >"$other/log"
	# The session alone reaches neither (network off).
	sbx sh -c 'git push -q origin main; echo "rc=$?"'
	refute_line rc=0
	[ ! -s "$srv/log" ]

	sbx_opts --approver "$OUT/approve" -- sh -c '
		wicket ask --net "127.0.0.1:$1" -- git push origin main; echo "rc=$?"
		wicket ask --net "127.0.0.1:$1" -- git push "http://127.0.0.1:$2/remote.git" main
		echo "rc=$?"' _ "$port" "$other_port"
	# The first push is approved and lands; the second, the same grant
	# on another port of the same address, is refused by the proxy ...
	[[ "$(grep '^rc=' <<<"$output" | tr '\n' ' ')" =~ ^rc=0\ rc=[1-9][0-9]*\ $ ]]
	[ "$(remote_main "$srv/remote.git")" = "$WANT" ]
	grep -q '^POST /remote.git/git-receive-pack' "$srv/log"
	# ... so the other server saw no connection at all.
	[ -z "$(remote_main "$other/remote.git")" ]
	if [ -s "$other/log" ]; then
		echo "the grant for port $port reached port $other_port:"
		cat "$other/log"
		false
	fi
}

@test "grant push: a planted .git/commondir with a pre-push hook runs only inside the grant's sandbox" {
	local r
	# The plant works without the sandbox: git push on the host runs the
	# hook, which leaves its mark in FAR, and the hook it put in the
	# remote runs as the push lands.
	mkout r
	git -C "$r" init -q -b main
	git -C "$r" -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m one
	git init -q --bare -b main "$r/remote.git"
	git -C "$r" remote add origin "$r/remote.git"
	(cd "$r" && sh -c "$PLANT" _ "$FAR" "$r/remote.git" && git push -q origin main) >/dev/null 2>&1
	[ -e "$FAR/pwned" ] && [ -e "$FAR/pwned-later" ]
	rm -f "$FAR/pwned" "$FAR/pwned-later"

	git -C "$WS" remote add origin "$REMOTE"
	approver '{"write": ["'"$REMOTE"'"]}' '["git", "push", "origin", "main"]'
	local before
	before=$(remote_state)
	# .git/commondir is absent at the start: the session may create it
	# (it is watched as absent, and moved aside when the session ends).
	[ ! -e "$WS/.git/commondir" ]
	sbx_opts --approver "$OUT/approve" -- sh -c "$PLANT"'
		[ -f .git/commondir ] && echo planted
		wicket ask --write "$2" -- git push origin main; echo "rc=$?"' _ "$FAR" "$REMOTE"
	assert_line planted
	assert_line rc=0
	# The push went through the planted common directory and landed.
	[ "$(remote_main "$REMOTE")" = "$WANT" ]
	# The hook ran, in the grant's sandbox: where that sandbox may write
	# (the workspace, the granted remote) its marks are there ...
	[ -e "$WS/hook-ran" ]
	[ -e "$REMOTE/hook-was-here" ]
	# ... and nowhere else: nothing in FAR, and the remote's hooks,
	# config and commondir (protected in the grant's sandbox, or moved
	# aside after it) are what they were.
	if [ -e "$FAR/pwned" ]; then
		echo "ESCAPE: the planted pre-push hook wrote outside the grant's sandbox"
		false
	fi
	[ "$(remote_state)" = "$before" ]
	# What the session planted in the workspace's .git is moved aside:
	# git on the host, in the workspace and in the remote, runs nothing
	# of it.
	[ ! -e "$WS/.git/commondir" ]
	git -C "$WS" -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m two
	(cd "$WS" && git push -q origin main && git status --short) >/dev/null 2>&1 || true
	git -C "$REMOTE" status >/dev/null 2>&1 || true
	[ ! -e "$FAR/pwned" ]
	[ ! -e "$FAR/pwned-later" ]
}
