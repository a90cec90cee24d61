#!/usr/bin/env bats
# A grant's rights are what was approved, not what a name means later
# (wicket(1), ASKING FOR MORE: GRANTS): a path swapped for a link between
# the decision and the grant's sandbox, what a grant's command plants
# where it may write when its wicket is killed before it can look, a port
# limit reached through another spelling of the address, and a wider
# --read that would lift the secret stores beneath it.
#
# Judged outside: a file outside every grant, a listener's log, a
# planted hook run by git outside after the session.

load ../lib/common
load escape_helpers

setup() {
	esc_setup
	export XDG_STATE_HOME=$OUT/state
	# The approver says yes to every grant asked for (a lax one: the
	# attacks must hold whatever it approves).
	printf '#!/bin/sh\ncat >"%s/req.json"\nexit 0\n' "$OUT" >"$OUT/yes"
	chmod 755 "$OUT/yes"
	mkdir "$OUT/victim"
}

teardown() { escape_cleanup; common_teardown; }

wsrun() {
	local ws=$1
	shift
	(cd "$ws" && bounded 90 "$WICKET" run "$@")
}

@test "grant race: a granted directory swapped for a link after the decision grants nothing" {
	mkdir "$WS/d"
	# The person (here an approver) approves --write WS/d; while it
	# decides, WS/d becomes a link to a directory outside: the sandbox's
	# move, made here in the approver so that it always comes in between.
	cat >"$OUT/swap" <<EOF
#!/bin/sh
cat >/dev/null
mv "$WS/d" "$WS/d.real" && ln -s "$OUT/victim" "$WS/d"
exit 0
EOF
	chmod 755 "$OUT/swap"
	run --separate-stderr wsrun "$WS" --approver "$OUT/swap" -- sh -c '
		wicket ask --write "$1/d" -- sh -c "echo pwned >\"\$1/d/x\"" _ "$1"; echo "rc=$?"' _ "$WS"
	assert_success
	[ ! -e "$OUT/victim/x" ]
	[ ! -e "$WS/d.real/x" ]
	assert_output "rc=125"
	[[ $stderr == *"goes through a symbolic link"* ]]
}

@test "grant race: what a grant's command plants is moved aside even when its wicket is killed" {
	command -v git >/dev/null || skip "git is not installed"
	git init -q --bare "$OUT/remote.git"
	chmod -R a+rX "$OUT"
	# The command plants a commondir with a hook of its own in the
	# granted repository, then stops the shell whose end would end it and
	# ignores every signal: only the session's SIGKILL ends its wicket.
	cat >"$WS/plant.sh" <<'EOF'
trap "" HUP TERM INT QUIT
R=$1 E=$1/objects/info/e
mkdir -p "$E/hooks" "$E/objects" "$E/refs/heads"
cp "$R/config" "$E/config"
printf '#!/bin/sh\ntouch %s/HOOK-RAN\n' "$2" >"$E/hooks/pre-receive"
chmod +x "$E/hooks/pre-receive"
echo objects/info/e >"$R/commondir"
echo planted >"$3/planted"
kill -STOP $PPID
sleep 60
EOF
	run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c '
		wicket ask --write "$1/remote.git" -- sh -c "sh \"\$1/plant.sh\" \"\$2/remote.git\" \"\$2\" \"\$1\" & wait" _ "$2" "$1" &
		i=0
		while [ ! -e "$2/planted" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
		echo ended' _ "$OUT" "$WS"
	assert_success
	assert_output ended
	[ -e "$WS/planted" ]
	# The planted commondir is gone from the repository, and a push from
	# outside runs no hook of the sandbox's.
	[ ! -e "$OUT/remote.git/commondir" ]
	ls "$OUT/remote.git" | grep -q '^commondir.quarantined-by-wicket-'
	git init -q "$OUT/c"
	git -C "$OUT/c" -c user.email=t@t -c user.name=t commit -q --allow-empty -m t
	git -C "$OUT/c" push -q "$OUT/remote.git" HEAD:refs/heads/main 2>/dev/null || true
	[ ! -e "$OUT/HOOK-RAN" ]
}

@test "grant race: a port granted on an address is not reached through its v4-mapped form" {
	command -v curl >/dev/null || skip "curl is not installed"
	# Two listeners on 127.0.0.1 that log the port of every connection.
	"$PY" - "$OUT/hits" >"$OUT/ports" 2>/dev/null <<'EOF' &
import selectors, socket, sys
sel = selectors.DefaultSelector()
ports = []
for _ in range(2):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    sel.register(s, selectors.EVENT_READ)
    ports.append(s.getsockname()[1])
print(*ports, flush=True)
for _ in range(100):
    events = sel.select(timeout=60)
    if not events:
        break
    for key, _ in events:
        c, _ = key.fileobj.accept()
        with open(sys.argv[1], "a") as f:
            f.write("hit %d\n" % key.fileobj.getsockname()[1])
        c.close()
EOF
	_ESC_PIDS+=("$!")
	local i
	for ((i = 0; i < 100; i++)); do
		[ -s "$OUT/ports" ] && break
		sleep 0.1
	done
	local p1 p2
	read -r p1 p2 <"$OUT/ports"
	[ -n "$p2" ]
	run --separate-stderr wsrun "$WS" --allow-address "127.0.0.1:$p1" -- sh -c '
		for port in "$1" "$2"; do
			curl -s -m 10 --noproxy "" -x "$http_proxy" "http://[::ffff:127.0.0.1]:$port/" >/dev/null
			curl -s -m 10 --noproxy "" -x "$http_proxy" "http://127.0.0.1:$port/" >/dev/null
		done; echo done' _ "$p1" "$p2"
	assert_success
	# The granted port is reached, by both spellings; the other by none.
	[ "$(grep -c "hit $p1" "$OUT/hits")" = 2 ]
	! grep -q "hit $p2" "$OUT/hits"
}

@test "grant race: --read of the home lifts no secret store beneath it" {
	local home=$OUT/home
	mkdir -p "$home/.ssh"
	printf 'SECRET%s\n' "$RND" >"$home/.ssh/id_test"
	chmod -R a+rX "$home"
	run --separate-stderr bounded 60 env HOME="$home" "$WICKET" run -C "$WS" --approver "$OUT/yes" -- sh -c '
		wicket ask --read "$1" -- cat "$1/.ssh/id_test"; echo "home=$?"
		wicket ask --read "$1/.ssh" -- cat "$1/.ssh/id_test"; echo "store=$?"' _ "$home"
	assert_success
	# The store named itself is read; the home's grant left it hidden.
	assert_line "home=1"
	assert_line "SECRET$RND"
	assert_line "store=0"
	[ "$(grep -c "SECRET$RND" <<<"$output")" = 1 ]
}

@test "grant race: no grant makes writable a place that runs code later (the list why follows)" {
	local home=$OUT/home site
	site=$home/.local/lib/python3.11/site-packages
	mkdir -p "$site" "$home/.config/zsh" "$home/proj"
	chmod -R a+rX "$home"
	run --separate-stderr bounded 60 env HOME="$home" ZDOTDIR="$home/.config/zsh" "$WICKET" run -C "$WS" \
		--approver "$OUT/yes" -- sh -c '
		wicket ask --write "$1" -- sh -c "echo import os >\"\$1/evil.pth\"" _ "$1"; echo "site=$?"
		wicket ask --write "$2" -- sh -c "echo touch x >\"\$1/.zshrc\"" _ "$2"; echo "zdot=$?"
		wicket ask --write "$3" -- true; echo "proj=$?"' _ "$site" "$home/.config/zsh" "$home/proj"
	assert_success
	# A site directory is refused: what runs there has no fixed name.
	# $ZDOTDIR may be granted, its startup files kept read-only or moved
	# aside when made: none is left for the next zsh.
	assert_line "site=125"
	assert_line "proj=0"
	[ ! -e "$site/evil.pth" ]
	[ ! -e "$home/.config/zsh/.zshrc" ]
	[[ $stderr == *"runs code later"* ]]
}

@test "grant race: the grant's sandbox has the session's policy, not one the sandbox put in its way" {
	# A relative --policy, looked up again from the asker's directory.
	printf '{"extends": "workspace-write"}\n' >"$WS/pol.json"
	chmod 644 "$WS/pol.json"
	run --separate-stderr wsrun "$WS" --policy pol.json --approver "$OUT/yes" -- sh -c '
		mkdir sub && printf "{\"extends\": \"full-access\"}\n" >sub/pol.json && cd sub &&
		wicket ask -- sh -c "touch \"\$1/relative\"" _ "$1"; echo "rc=$?"' _ "$OUT"
	assert_success
	[ ! -e "$OUT/relative" ]
	# A name the search directories resolve, shadowed by a file the
	# sandbox makes where the user's config home lies in the workspace.
	mkdir "$WS/cfg"
	XDG_CONFIG_HOME=$WS/cfg run --separate-stderr wsrun "$WS" --approver "$OUT/yes" -- sh -c '
		mkdir -p cfg/wicket/policies &&
		printf "{\"extends\": \"full-access\"}\n" >cfg/wicket/policies/workspace-write.json &&
		wicket ask -- sh -c "touch \"\$1/shadowed\"" _ "$1"; echo "rc=$?"' _ "$OUT"
	[ ! -e "$OUT/shadowed" ]
}

@test "grant race: a hidden path's directories cannot be renamed away from its rule" {
	mkdir -p "$WS/config"
	printf 'TOP%s\n' "$RND" >"$WS/config/secrets.json"
	printf '{"extends": "workspace-write", "filesystem": {"hide": ["%s/config/secrets.json"]}}\n' \
		"$WS" >"$OUT/hide.json"
	chmod 644 "$OUT/hide.json"
	run --separate-stderr wsrun "$WS" --policy "$OUT/hide.json" --approver "$OUT/yes" -- sh -c '
		mv config config2; echo "mv=$?"
		wicket ask -- sh -c "cat config2/secrets.json config/secrets.json" 2>/dev/null; echo "ask=$?"'
	assert_success
	refute_output --partial "TOP$RND"
	[ -e "$WS/config/secrets.json" ]
	# And the next session's rule still finds it where it was.
	run --separate-stderr wsrun "$WS" --policy "$OUT/hide.json" -- sh -c 'cat config*/secrets.json'
	refute_output --partial "TOP$RND"
}
