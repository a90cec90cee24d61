#!/usr/bin/env bats
# The user configuration, $XDG_CONFIG_HOME/wicket/config.json: the policy
# per directory (the deepest entry that holds the workspace, by whole path
# components: the workspace's real path against the entry as written),
# --policy first; shown by `wicket
# policy show` and `wicket doctor`; a bad file stops everything with 125;
# no session can rewrite it (judged on the host's file).

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	it_setup_home
	mkdir -p "$XDG_CONFIG_HOME/wicket" "$WS/strict/deeper" "$WS/ro" "$WS/strictly"
	CONF=$XDG_CONFIG_HOME/wicket/config.json
}

teardown() { it_teardown; }

conf() { printf '%s\n' "$1" >"$CONF"; }

# policy_in DIR [OPTIONS]: the policy a session in DIR gets.
policy_in() {
	(cd "$1" && shift && bounded 60 "$WICKET" run "$@" -- sh -c 'echo "$WICKET_POLICY"')
}

@test "the deepest entry holding the workspace picks its policy; --policy comes first; elsewhere the default" {
	ln -s "$WS/strict" "$OUT/link"
	conf '{"directories": [
		{"path": "'"$WS"'", "policy": "workspace-write-strict"},
		{"path": "'"$OUT"'/link/deeper", "policy": "read-only"},
		{"path": "'"$WS"'/ro", "policy": "read-only"}]}'
	[ "$(policy_in "$WS")" = workspace-write-strict ]
	[ "$(policy_in "$WS/strict")" = workspace-write-strict ]
	# An entry is compared as written: through a symbolic link it
	# matches nothing (a link a session planted would re-aim it; see the
	# attack below), and the workspace above it picks.
	[ "$(policy_in "$WS/strict/deeper")" = workspace-write-strict ]
	[ "$(policy_in "$WS/ro")" = read-only ]
	[ "$(policy_in "$WS/ro" --policy workspace-write)" = workspace-write ]
	mkdir "$OUT/other"
	[ "$(policy_in "$OUT/other")" = workspace-write ]
	# By whole components: /x/ro is not /x/rox.
	conf '{"directories": [{"path": "'"$WS"'/strict", "policy": "read-only"}]}'
	[ "$(policy_in "$WS/strictly")" = workspace-write ]
	# Enforced, not only named: read-only here means the write fails.
	conf '{"directories": [{"path": "'"$WS"'/ro", "policy": "read-only"}]}'
	(cd "$WS/ro" && bounded 60 "$WICKET" run -- sh -c 'echo x >made' 2>/dev/null) || true
	[ ! -e "$WS/ro/made" ]
}

@test "a policy file relative to the config's directory, and ~ in a path" {
	mkdir -p "$HOME/src/work"
	printf '{"extends": "read-only", "description": "mine"}\n' >"$XDG_CONFIG_HOME/wicket/mine.json"
	conf '{"directories": [{"path": "~/src/work", "policy": "mine.json"}]}'
	[ "$(policy_in "$HOME/src/work")" = "$XDG_CONFIG_HOME/wicket/mine.json" ]
}

@test "wicket policy show and wicket doctor say which policy, and which entry chose it" {
	conf '{"directories": [{"path": "/nowhere", "policy": "read-only"}, {"path": "'"$WS"'/ro", "policy": "read-only"}]}'
	run --separate-stderr bash -c 'cd "$1" && timeout 60 "$2" policy show' _ "$WS/ro" "$WICKET"
	assert_equal "$status" 0
	assert_line --index 0 'policy:      read-only'
	assert_line --index 1 "chosen by:   $CONF: /directories/1 (the directory $WS/ro)"
	run --separate-stderr bash -c 'cd "$1" && timeout 60 "$2" policy show --json' _ "$WS/ro" "$WICKET"
	"$PY" -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["chosen_by"] == {"by": "config", "file": sys.argv[2], "path": sys.argv[3], "entry": 1}, d' "$output" "$CONF" "$WS/ro"
	run --separate-stderr bash -c 'cd "$1" && timeout 60 "$2" policy show' _ "$OUT" "$WICKET"
	assert_line --index 1 "chosen by:   the default (no entry of $CONF holds this directory)"
	run --separate-stderr bash -c 'cd "$1" && timeout 60 "$2" doctor' _ "$WS/ro" "$WICKET"
	assert_equal "$status" 0
	assert_line "config:        $CONF: 2 directories"
	assert_line "policy here:   read-only ($CONF: /directories/1: $WS/ro)"
	run --separate-stderr bash -c 'cd "$1" && timeout 60 "$2" doctor --json' _ "$WS/ro" "$WICKET"
	"$PY" -c 'import json, sys; c = json.loads(sys.argv[1])["config"]; assert c["policy"] == "read-only" and c["entry"] == 1 and c["directories"] == 2 and c["errors"] == [], c' "$output"
}

@test "a bad configuration: every error with the file and the JSON pointer, status 125, nothing started" {
	local bad
	while IFS= read -r bad; do
		conf "$bad"
		run --separate-stderr wsrun "$WS" -- touch "$WS/started"
		assert_equal "$status" 125
		[[ $stderr == *"$CONF"* ]]
		[ ! -e "$WS/started" ]
		run --separate-stderr bash -c 'cd "$1" && timeout 60 "$2" policy show' _ "$WS" "$WICKET"
		assert_equal "$status" 125
	done <<'EOF'
{"directories": [
[]
{"directories": {}}
{"directories": [{"path": "relative", "policy": "read-only"}]}
{"directories": [{"path": "/x", "policy": ""}]}
{"directories": [{"path": "/x", "policy": "read-only", "extra": 1}]}
{"directories": [{"path": "/x", "policy": "read-only"}, {"path": "/x/", "policy": "read-only"}]}
{"dirs": []}
{"directories": [{"path": "/x", "policy": "read-only"}], "directories": []}
EOF
	conf '{"directories": [{"path": "/x", "policy": "no-such-policy"}, {"path": "'"$WS"'", "policy": "no-such-policy"}]}'
	run --separate-stderr wsrun "$WS" -- true
	assert_equal "$status" 125
	conf '{"directories": [{"path": 1, "policy": "read-only"}], "x": 2}'
	run --separate-stderr wsrun "$WS" -- true
	assert_equal "$status" 125
	assert_equal "$stderr" "wicket: $CONF: (top level): unknown key \"x\" (known: directories)
wicket: $CONF: /directories/0: \"path\": expected a directory (absolute, or ~/...)
wicket: $CONF: 2 errors; nothing started (see wicket(1), FILES)"
	run --separate-stderr bash -c 'cd "$1" && timeout 60 "$2" doctor' _ "$WS" "$WICKET"
	assert_equal "$status" 125
	assert_line "config:        $CONF: INVALID, no session starts until it is fixed:"
}

@test "a configuration others could write is refused (125)" {
	conf '{"directories": []}'
	chmod 666 "$CONF"
	run --separate-stderr wsrun "$WS" -- true
	assert_equal "$status" 125
	[[ $stderr == *"writable by everyone"* ]]
}

@test "attack: a session whose workspace holds the configuration cannot rewrite it (the host's file)" {
	conf '{"directories": [{"path": "'"$WS"'", "policy": "read-only"}]}'
	local before
	before=$(sha256sum <"$CONF")
	# The configuration's own directory is the workspace here.
	run --separate-stderr bash -c 'cd "$1" && timeout 60 "$2" run --policy workspace-write -- sh -c "
		echo {} >wicket/config.json && echo wrote
		mv wicket/config.json wicket/old 2>/dev/null && echo moved
		mv wicket wicket.old 2>/dev/null && echo moved-dir
		touch made-here"' _ "$XDG_CONFIG_HOME" "$WICKET"
	assert_equal "$status" 0
	assert_equal "$output" ""
	[ -f "$XDG_CONFIG_HOME/made-here" ]
	[ "$(sha256sum <"$CONF")" = "$before" ]
	[ "$(policy_in "$WS")" = read-only ]
}

@test "attack: a configuration the session creates where there was none is moved aside after it" {
	rm -rf "$XDG_CONFIG_HOME/wicket"
	run --separate-stderr bash -c 'cd "$1" && timeout 60 "$2" run -- sh -c "
		mkdir -p wicket && printf %s \"{\\\"directories\\\": [{\\\"path\\\": \\\"/\\\", \\\"policy\\\": \\\"full-access\\\"}]}\" >wicket/config.json"' _ "$XDG_CONFIG_HOME" "$WICKET"
	[ ! -e "$XDG_CONFIG_HOME/wicket/config.json" ]
	[ "$(policy_in "$WS")" = workspace-write ]
}

@test "attack: a session cannot re-aim an entry in its workspace (a link to /) and choose every later session's policy" {
	mkdir -p "$HOME/src/trusted" "$HOME/other"
	conf '{"directories": [{"path": "~/src/trusted", "policy": "full-access"}]}'
	# The session's workspace holds the entry's directory.
	(cd "$HOME/src" && bounded 60 "$WICKET" run -- sh -c 'rm -rf trusted && ln -s / trusted') 2>/dev/null || true
	# The entry's directory is pinned: the session could not replace it.
	[ -d "$HOME/src/trusted" ] && [ ! -L "$HOME/src/trusted" ]
	# Nor would a link there (made before, or by hand) re-aim the entry:
	# entries are compared as written.
	rmdir "$HOME/src/trusted" && ln -s / "$HOME/src/trusted"
	# A later session elsewhere: the default policy, and sandboxed.
	[ "$(policy_in "$HOME/other")" = workspace-write ]
	(cd "$HOME/other" && bounded 60 "$WICKET" run -- sh -c 'echo x >"$1/made"' _ "$OUT") 2>/dev/null || true
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: a later session ran without its sandbox"
		false
	fi
}

@test "attack: a session cannot rewrite an entry's policy file that lies in its workspace, nor make a missing one" {
	mkdir -p "$WS/play" "$WS/game"
	printf '{"extends": "workspace-write"}\n' >"$WS/play/p.json"
	conf '{"directories": [{"path": "'"$WS"'/play", "policy": "'"$WS"'/play/p.json"},
		{"path": "'"$WS"'/game", "policy": "'"$WS"'/game/p.json"}]}'
	(cd "$WS" && bounded 60 "$WICKET" run -- sh -c '
		printf "{\"extends\": \"full-access\"}\n" >play/p.json
		printf "{\"extends\": \"full-access\"}\n" >game/p.json' 2>/dev/null) || true
	[ "$(cat "$WS/play/p.json")" = '{"extends": "workspace-write"}' ]
	[ ! -e "$WS/game/p.json" ]
	(cd "$WS/play" && bounded 60 "$WICKET" run -- sh -c 'echo x >"$1/made"' _ "$OUT") 2>/dev/null || true
	[ ! -e "$OUT/made" ]
}

@test "attack: a session cannot rewrite a file that an entry's policy extends, nor make a missing one" {
	mkdir -p "$WS/play/base" "$WS/game"
	# play's policy extends a file beside it, which extends one more:
	# every file along the chain decides the later session's policy.
	printf '{"extends": "./base/one.json"}\n' >"$WS/play/p.json"
	printf '{"extends": "two.json"}\n' >"$WS/play/base/one.json"
	printf '{"extends": "workspace-write-strict"}\n' >"$WS/play/base/two.json"
	# game's extends a file that does not exist yet (wicket refuses it
	# today; a session must not be able to make it).
	printf '{"extends": "./base.json"}\n' >"$WS/game/p.json"
	conf '{"directories": [{"path": "'"$WS"'/play", "policy": "'"$WS"'/play/p.json"},
		{"path": "'"$WS"'/game", "policy": "'"$WS"'/game/p.json"}]}'
	# The session in the workspace that holds them all.
	(cd "$WS" && bounded 60 "$WICKET" run -- sh -c '
		printf "{\"extends\": \"full-access\"}\n" >play/base/two.json
		printf "{\"extends\": \"full-access\"}\n" >play/base/one.json
		printf "{\"extends\": \"full-access\"}\n" >game/base.json' 2>/dev/null) || true
	[ "$(cat "$WS/play/base/one.json")" = '{"extends": "two.json"}' ]
	[ "$(cat "$WS/play/base/two.json")" = '{"extends": "workspace-write-strict"}' ]
	[ ! -e "$WS/game/base.json" ]
	# Judged by the effect: a later session in play is still sandboxed.
	(cd "$WS/play" && bounded 60 "$WICKET" run -- sh -c 'echo x >"$1/made"' _ "$OUT") 2>/dev/null || true
	if [ -e "$OUT/made" ]; then
		echo "ESCAPE: a later session ran without its sandbox"
		false
	fi
}

@test "attack: a policy an entry names by name, or any policy in the search directory, cannot be widened through a file it extends" {
	mkdir -p "$XDG_CONFIG_HOME/wicket/policies" "$WS/shared" "$WS/a"
	printf '{"extends": "%s/shared/base.json"}\n' "$WS" >"$XDG_CONFIG_HOME/wicket/policies/locked.json"
	printf '{"extends": "%s/shared/other.json"}\n' "$WS" >"$XDG_CONFIG_HOME/wicket/policies/spare.json"
	printf '{"extends": "read-only"}\n' >"$WS/shared/base.json"
	printf '{"extends": "read-only"}\n' >"$WS/shared/other.json"
	chmod 644 "$XDG_CONFIG_HOME/wicket/policies/"*.json
	conf '{"directories": [{"path": "'"$WS"'/a", "policy": "locked"}]}'
	(cd "$WS" && bounded 60 "$WICKET" run -- sh -c '
		printf "{\"sandbox\": false}\n" >shared/base.json
		printf "{\"sandbox\": false}\n" >shared/other.json' 2>/dev/null) || true
	[ "$(cat "$WS/shared/base.json")" = '{"extends": "read-only"}' ]
	[ "$(cat "$WS/shared/other.json")" = '{"extends": "read-only"}' ]
	(cd "$WS/a" && bounded 60 "$WICKET" run -- sh -c 'echo x >"$1/made"' _ "$OUT") 2>/dev/null || true
	(cd "$OUT" && bounded 60 "$WICKET" run --policy spare -- sh -c 'echo x >"$1/made2"' _ "$OUT") 2>/dev/null || true
	if [ -e "$OUT/made" ] || [ -e "$OUT/made2" ]; then
		echo "ESCAPE: a later session ran without its sandbox"
		false
	fi
}

@test "attack: config.json and policies linked into a dotfiles tree (GNU stow) are protected where they lead; a link the session could re-aim stops it" {
	mkdir -p "$WS/dotfiles/wicket/policies" "$HOME/proj" "$XDG_CONFIG_HOME/wicket/policies"
	printf '{"directories": [{"path": "%s/proj", "policy": "careful"}]}\n' "$HOME" >"$WS/dotfiles/wicket/config.json"
	printf '{"extends": "read-only"}\n' >"$WS/dotfiles/wicket/policies/careful.json"
	chmod 644 "$WS/dotfiles/wicket/config.json" "$WS/dotfiles/wicket/policies/careful.json"
	ln -sf "$WS/dotfiles/wicket/config.json" "$CONF"
	ln -s "$WS/dotfiles/wicket/policies/careful.json" "$XDG_CONFIG_HOME/wicket/policies/careful.json"
	(cd "$WS" && bounded 60 "$WICKET" run -- sh -c '
		printf "{\"directories\": [{\"path\": \"/\", \"policy\": \"full-access\"}]}\n" >dotfiles/wicket/config.json
		printf "{\"sandbox\": false}\n" >dotfiles/wicket/policies/careful.json' 2>/dev/null) || true
	[ "$(policy_in "$HOME/proj")" = careful ]
	(cd "$HOME/proj" && bounded 60 "$WICKET" run -- sh -c 'echo x >"$1/made"' _ "$OUT") 2>/dev/null || true
	[ ! -e "$OUT/made" ]
	# An entry's policy reached through a link inside the session's
	# writable root: the session could re-aim it, so it does not start.
	mkdir -p "$WS/real"
	printf '{"extends": "read-only"}\n' >"$WS/real/p.json"
	chmod 644 "$WS/real/p.json"
	ln -s real "$WS/pol"
	conf '{"directories": [{"path": "'"$HOME"'/proj", "policy": "'"$WS"'/pol/p.json"}]}'
	run --separate-stderr bash -c 'cd "$1" && timeout 60 "$2" run -- true' _ "$WS" "$WICKET"
	assert_equal "$status" 125
	assert_regex "$stderr" "goes through the symlink $WS/pol inside the writable root"
}

@test "attack: a session cannot replace an entry's directory in its workspace by a link to another entry's" {
	mkdir -p "$WS/locked" "$HOME/play"
	conf '{"directories": [{"path": "'"$WS"'/locked", "policy": "read-only"},
		{"path": "'"$HOME"'/play", "policy": "full-access"}]}'
	(cd "$WS" && bounded 60 "$WICKET" run -- sh -c '
		rm -rf locked; mv locked gone; ln -s "$1" locked' _ "$HOME/play" 2>/dev/null) || true
	[ -d "$WS/locked" ] && [ ! -L "$WS/locked" ]
	# The user's next session there: still the entry's policy.
	[ "$(policy_in "$WS/locked")" = read-only ]
	# What is in it stays writable to a session whose root holds it.
	(cd "$WS" && bounded 60 "$WICKET" run -- sh -c 'echo x >locked/f') 2>/dev/null
	[ -f "$WS/locked/f" ]
}

@test "attack: a session cannot make a link where an entry's directory does not exist yet (nor on the way to it)" {
	conf '{"directories": [{"path": "'"$WS"'/vendor/untrusted", "policy": "read-only"},
		{"path": "'"$WS"'/vendor2/deep/untrusted", "policy": "read-only"}]}'
	(cd "$WS" && bounded 60 "$WICKET" run -- sh -c '
		mkdir -p vendor other/untrusted
		ln -s ../other vendor/untrusted
		ln -s other vendor2' 2>/dev/null) || true
	# Both links were moved aside when the session ended.
	[ ! -L "$WS/vendor/untrusted" ] && [ ! -L "$WS/vendor2" ]
	# A directory made in its place is the entry's own: kept.
	(cd "$WS" && bounded 60 "$WICKET" run -- sh -c 'mkdir -p vendor/untrusted') 2>/dev/null || true
	[ -d "$WS/vendor/untrusted" ] && [ ! -L "$WS/vendor/untrusted" ]
	[ "$(policy_in "$WS/vendor/untrusted")" = read-only ]
}
