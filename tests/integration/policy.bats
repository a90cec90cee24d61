#!/usr/bin/env bats
# JSON policies: --policy, the built-ins, extends, env, errors, and the
# `wicket policy` commands (wicket-policy(5)). Judged by effects on the
# real file system wherever there is one.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

teardown() { it_teardown; }

# pol DIR NAME JSON: write a policy file DIR/NAME (mode 644), print its path.
pol() {
	printf '%s\n' "$3" >"$1/$2"
	chmod 644 "$1/$2"
	printf '%s\n' "$1/$2"
}

# ---- wicket policy list / show / check -----------------------------------

@test "policy list: the built-ins with their descriptions, then files from the search path, shadowing marked" {
	local cfg
	cfg=$(mk_outside)
	track "$cfg"
	mkdir -p "$cfg/wicket/policies"
	pol "$cfg/wicket/policies" mine.json '{"extends": "read-only", "description": "my own"}' >/dev/null
	pol "$cfg/wicket/policies" read-only.json '{"extends": "read-only", "description": "refined"}' >/dev/null
	pol "$cfg/wicket/policies" broken.json '{"filesystem": 1}' >/dev/null
	run --separate-stderr env XDG_CONFIG_HOME="$cfg" "$WICKET" policy list
	assert_equal "$status" 0
	assert_line --regexp "^mine +$cfg/wicket/policies/mine.json +my own$"
	assert_line --regexp "^read-only +$cfg/wicket/policies/read-only.json +refined$"
	assert_line --regexp "^broken +.*INVALID: .*broken.json: /filesystem: expected an object, got an integer$"
	assert_line --regexp '^workspace-write +\(built-in\) +The default: '
	assert_line --regexp '^workspace-write-strict +\(built-in\) +Like workspace-write, but all of .git is read-only'
	assert_line --regexp '^full-access +\(built-in\) +NO SANDBOX'
	assert_line --regexp '^read-only +\(built-in\) +\(shadowed\) Look, don.t touch'
}

@test "policy check: valid files pass (exit 0); every error of every bad file is reported with file and JSON pointer (exit 125)" {
	local d good bad
	d=$(mk_outside)
	track "$d"
	good=$(pol "$d" good.json '{"extends": "workspace-write", "network": {"mode": "ports", "connect": [443]}}')
	bad=$(pol "$d" bad.json '{"extends": "workspace-write",
	  "filesystem": {"write": ["build", 7], "hide": ["~bob/x"]},
	  "netwrok": {},
	  "network": {"mode": "ports", "connect": [0, 70000]}}')
	run --separate-stderr "$WICKET" policy check "$good"
	assert_equal "$status" 0
	assert_output "$good: ok (built-in read-only -> built-in workspace-write -> $good)"
	run --separate-stderr "$WICKET" policy check "$good" "$bad"
	assert_equal "$status" 125
	assert_equal "$stderr" "wicket: $bad: /netwrok: unknown key \"netwrok\"; did you mean \"network\"?
wicket: $bad: /filesystem/write/0: relative path \"build\"; write an absolute path or \${cwd}/build
wicket: $bad: /filesystem/write/1: expected a path (a string), got an integer
wicket: $bad: /filesystem/hide/0: \"~bob/x\": ~user is not supported; write \${home}/... or an absolute path
wicket: $bad: /network/connect/0: port 0 out of range (1-65535)
wicket: $bad: /network/connect/1: port 70000 out of range (1-65535)"
	run --separate-stderr "$WICKET" policy check "$d/absent.json"
	assert_equal "$status" 125
	assert_regex "$stderr" "absent.json: cannot open: No such file or directory"
	run --separate-stderr "$WICKET" policy check
	assert_equal "$status" 125
}

@test "policy check: escalation rules: \"**\" only last, no wildcard program; an open allow rule and an exact deny rule are warned about" {
	local d good bad
	d=$(mk_outside)
	track "$d"
	good=$(pol "$d" good.json '{"escalation": {"allow": [["git", "push", "**"], {"argv": ["git", "status"], "cwd": "${cwd}"}, ["make", "*"]], "deny": [["curl"], ["rm", "**"]]}}')
	run --separate-stderr "$WICKET" policy check "$good"
	assert_equal "$status" 0
	assert_line --index 1 "$good: warning: escalation.allow git push '**' accepts any further arguments, unread: an option among them can name a program to run (git push --receive-pack=..., -c ...); list the arguments, with \"*\" for one that may vary"
	assert_line --index 2 "$good: warning: escalation.deny curl refuses only exactly this command; add \"**\" to refuse it with any further arguments"
	assert_equal "${#lines[@]}" 3
	bad=$(pol "$d" bad.json '{"escalation": {"allow": [["**"], ["git", "**", "x"]]}}')
	run --separate-stderr "$WICKET" policy check "$bad"
	assert_equal "$status" 125
	assert_equal "$stderr" "wicket: $bad: /escalation/allow/0/0: the first element names the program; it cannot be a wildcard
wicket: $bad: /escalation/allow/1/1: \"**\" (any further arguments) can only be the last element; write \"\\\\**\" for a literal **"
	# "stdin": true widens an allow rule; a deny rule refuses whatever
	# the input, so it has no such key.
	good=$(pol "$d" in.json '{"escalation": {"allow": [{"argv": ["wc", "-c"], "stdin": true}]}}')
	run --separate-stderr "$WICKET" policy show "$good"
	assert_equal "$status" 0
	assert_line --regexp "^  allow +wc -c   \(any standard input\)$"
	bad=$(pol "$d" badin.json '{"escalation": {"allow": [{"argv": ["wc"], "stdin": "yes"}], "deny": [{"argv": ["rm"], "stdin": true}]}}')
	run --separate-stderr "$WICKET" policy check "$bad"
	assert_equal "$status" 125
	assert_equal "$stderr" "wicket: $bad: /escalation/allow/0/stdin: expected true or false, got a string
wicket: $bad: /escalation/deny/0/stdin: \"stdin\" belongs in an allow rule (a deny rule refuses the command whatever its input)"
}

@test "policy check: a syntax error gives line and column" {
	local d f
	d=$(mk_outside)
	track "$d"
	f=$(pol "$d" syn.json '{
  "network": {"mode": "none",}
}')
	run --separate-stderr "$WICKET" policy check "$f"
	assert_equal "$status" 125
	assert_regex "$stderr" "^wicket: $f:2:30: syntax error: "
}

@test "policy show: variables expanded, canonical paths, skipped paths noted, and what the kernel enforces" {
	local ws out f link
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	mkdir "$out/real"
	ln -s "$out/real" "$out/link"
	f=$(pol "$out" p.json "{\"extends\": \"workspace-write\", \"filesystem\": {\"write\": [\"$out/link\", \"\${cwd}/not-there\"]}}")
	link=$ws/via
	ln -s "$ws" "$link"
	run --separate-stderr bash -c 'cd "$1" && "$2" policy show "$3"' _ "$link" "$WICKET" "$f"
	assert_equal "$status" 0
	assert_line "workspace:   $ws"
	assert_line --regexp "^  write +$ws +read-write mount"
	assert_line --regexp "^  write +$out/real +read-write mount"
	assert_line --regexp "^  protect +$ws/.git/hooks +does not exist"
	assert_line "  - write $ws/not-there skipped: does not exist ($f: /filesystem/write/1)"
	assert_line --regexp '^  enforced own empty network namespace; seccomp: unix sockets only'
	run --separate-stderr bash -c 'cd "$1" && "$2" policy show "$3" --json' _ "$ws" "$WICKET" "$f"
	assert_equal "$status" 0
	run "$PY" -c '
import json, sys
p = json.loads(sys.stdin.read())
w = p["filesystem"]["write"]
print(p["name"], p["sandbox"], p["network"]["mode"], len(p["chain"]))
print([r["path"] for r in w])
print(p["notes"][0])
print(p["filesystem"]["private_tmp"], "/" in [r["path"] for r in p["filesystem"]["read"]])
' <<<"$output"
	assert_line --index 0 "$f True none 3"
	assert_line --index 1 "['$ws', '$out/real', None]"
	assert_line --index 2 "write $ws/not-there skipped: does not exist ($f: /filesystem/write/1)"
	assert_line --index 3 "True True"
}

@test "policy: unknown subcommands and options are errors (125)" {
	run --separate-stderr "$WICKET" policy frob
	assert_equal "$status" 125
	assert_regex "$stderr" "unknown command 'frob'"
	run --separate-stderr "$WICKET" policy show --jsn
	assert_equal "$status" 125
	run --separate-stderr "$WICKET" policy
	assert_equal "$status" 125
	run --separate-stderr "$WICKET" policy show no-such-policy
	assert_equal "$status" 125
	assert_regex "$stderr" 'no policy named "no-such-policy"'
}

# ---- run --policy: errors start nothing -----------------------------------

@test "run --policy: a bad policy is refused with every error; nothing starts" {
	local ws d f
	ws=$(mk_workspace)
	track "$ws"
	d=$(mk_outside)
	track "$d"
	f=$(pol "$d" bad.json '{"filesystem": {"write": ["rel"]}, "network": {"mode": "some"}}')
	run --separate-stderr wsrun "$ws" --policy "$f" -- touch started
	assert_equal "$status" 125
	assert_equal "$output" ""
	assert_regex "$stderr" "$f: /filesystem/write/0: relative path \"rel\""
	assert_regex "$stderr" "$f: /network/mode: unknown mode \"some\""
	assert_regex "$stderr" "policy $f: 2 errors; nothing started"
	[ ! -e "$ws/started" ]
	run --separate-stderr wsrun "$ws" --policy no-such -- touch started
	assert_equal "$status" 125
	[ ! -e "$ws/started" ]
	run --separate-stderr wsrun "$ws" --policy -- touch started
	assert_equal "$status" 125
	[ ! -e "$ws/started" ]
}

@test "run --policy: a policy file others can write, or someone else owns, is refused" {
	local ws d f
	ws=$(mk_workspace)
	track "$ws"
	d=$(mk_outside)
	track "$d"
	f=$(pol "$d" loose.json '{"extends": "workspace-write"}')
	chmod 666 "$f"
	run --separate-stderr wsrun "$ws" --policy "$f" -- touch started
	assert_equal "$status" 125
	assert_regex "$stderr" "$f: writable by everyone \(mode 0666\); refusing it \(fix: chmod go-w $f\)"
	chmod 664 "$f"
	run --separate-stderr wsrun "$ws" --policy "$f" -- touch started
	assert_equal "$status" 125
	assert_regex "$stderr" "writable by its group"
	[ ! -e "$ws/started" ]
	# A parent along "extends" is checked the same way.
	chmod 644 "$f"
	pol "$d" child.json '{"extends": "loose.json"}' >/dev/null
	chmod 646 "$f"
	run --separate-stderr wsrun "$ws" --policy "$d/child.json" -- touch started
	assert_equal "$status" 125
	[ ! -e "$ws/started" ]
	if is_root; then
		chmod 644 "$f"
		chown 65534 "$f"
		run --separate-stderr wsrun "$ws" --policy "$f" -- touch started
		assert_equal "$status" 125
		assert_regex "$stderr" "owned by uid 65534, not by you or root"
		[ ! -e "$ws/started" ]
	fi
}

# ---- the built-ins enforce what they say ---------------------------------

@test "built-in read-only: nothing written anywhere (workspace, home, outside), private /tmp only" {
	local ws out home t
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	home=$(mk_outside)
	track "$home"
	t=$(new_token)
	guard_path "/tmp/$t"
	echo orig >"$ws/f"
	run --separate-stderr bash -c 'cd "$1" && HOME="$2" timeout --kill-after=5 60 "$3" run --policy read-only -- sh -c "
		echo \$WICKET_POLICY
		for d in \"\$1\" \"\$2\" \"\$HOME\"; do
			{ echo x >\"\$d/f\"; } 2>/dev/null && echo BAD-write-\$d
			touch \"\$d/new\" 2>/dev/null && echo BAD-create-\$d
		done
		echo t >/tmp/\$3 && cat /tmp/\$3" _ "$1" "$4" "$5"' _ "$ws" "$home" "$WICKET" "$out" "$t"
	assert_equal "$status" 0
	assert_output "read-only
t"
	assert_equal "$(cat "$ws/f")" orig
	[ ! -e "$ws/new" ] && [ ! -e "$out/f" ] && [ ! -e "$out/new" ] && [ ! -e "$home/new" ]
	[ ! -e "/tmp/$t" ]
}

@test "built-ins hide the secret stores: unreadable inside, intact outside" {
	local ws home name
	ws=$(mk_workspace)
	track "$ws"
	home=$(mk_outside)
	track "$home"
	mkdir -p "$home/.ssh" "$home/.aws" "$home/.config/gh"
	echo KEY >"$home/.ssh/id_ed25519"
	echo AWSKEY >"$home/.aws/credentials"
	echo GHTOKEN >"$home/.config/gh/hosts.yml"
	echo NETRC >"$home/.netrc"
	for name in read-only workspace-write workspace-write-strict; do
		run --separate-stderr bash -c 'cd "$1" && HOME="$2" timeout --kill-after=5 60 "$3" run --policy "$4" -- sh -c "
			cat \$HOME/.ssh/id_ed25519 \$HOME/.aws/credentials \$HOME/.config/gh/hosts.yml \$HOME/.netrc 2>/dev/null
			ls \$HOME/.ssh 2>/dev/null; echo end"' _ "$ws" "$home" "$WICKET" "$name"
		assert_equal "$status" 0
		assert_equal "$output" "end"
	done
	assert_equal "$(cat "$home/.ssh/id_ed25519")" KEY
	assert_equal "$(cat "$home/.netrc")" NETRC
}

@test "built-in workspace-write-strict: files in the workspace are writable, nothing in .git is" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	git -C "$ws" init -q
	git -C "$ws" -c user.name=t -c user.email=t@t commit -q --allow-empty -m base
	head=$(git -C "$ws" rev-parse HEAD)
	run --separate-stderr wsrun "$ws" --policy workspace-write-strict -- sh -c '
		echo edit >file && echo edited
		git add file 2>/dev/null && echo BAD-add
		git -c user.name=t -c user.email=t@t commit -q -m x 2>/dev/null && echo BAD-commit
		echo x >.git/refs/heads/planted 2>/dev/null && echo BAD-ref
		echo "#!/bin/sh" >.git/hooks/pre-commit 2>/dev/null && echo BAD-hook
		echo $WICKET_POLICY'
	assert_equal "$status" 0
	assert_output "edited
workspace-write-strict"
	assert_equal "$(cat "$ws/file")" edit
	assert_equal "$(git -C "$ws" rev-parse HEAD)" "$head"
	[ ! -e "$ws/.git/refs/heads/planted" ] && [ ! -e "$ws/.git/hooks/pre-commit" ]
	# The default still commits.
	run --separate-stderr wsrun "$ws" -- sh -c 'git add file && git -c user.name=t -c user.email=t@t commit -q -m y && echo committed'
	assert_output committed
	[ "$(git -C "$ws" rev-parse HEAD)" != "$head" ]
}

# ---- env.unset and env.set -------------------------------------------------

@test "env: inherited patterns and the policy's own are scrubbed; env.set is present, after unset, with variables expanded" {
	local ws d f
	ws=$(mk_workspace)
	track "$ws"
	d=$(mk_outside)
	track "$d"
	f=$(pol "$d" env.json '{"extends": "workspace-write",
		"env": {"unset": ["MY_*", "build_id"], "set": {"CACHE": "${cwd}/.cache", "MY_KEEP": "set-wins", "PLAIN": "v"}}}')
	run --separate-stderr bash -c 'cd "$1" && GITHUB_TOKEN=gh MY_SECRETISH=a MY_KEEP=old BUILD_ID=7 KEEP_ME=k timeout --kill-after=5 60 "$2" run --policy "$3" -- sh -c "env | sort | grep -E \"^(GITHUB_TOKEN|MY_|BUILD_ID|KEEP_ME|CACHE|PLAIN)\""' _ "$ws" "$WICKET" "$f"
	assert_equal "$status" 0
	assert_output "CACHE=$ws/.cache
KEEP_ME=k
MY_KEEP=set-wins
PLAIN=v"
}

# ---- extends chains layer as documented ----------------------------------

@test "extends: a chain of files (relative paths) layers: lists append, the child's scalars win" {
	local ws out d
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	d=$(mk_outside)
	track "$d"
	mkdir "$out/cache" "$out/cache/secret"
	echo S >"$out/cache/secret/s"
	mkdir -p "$d/sub"
	pol "$d" base.json "{\"extends\": \"workspace-write\", \"description\": \"base\",
		\"filesystem\": {\"write\": [\"$out/cache\"]}, \"env\": {\"set\": {\"A\": \"base\", \"B\": \"base\"}}}" >/dev/null
	pol "$d/sub" child.json "{\"extends\": \"../base.json\", \"description\": \"child\",
		\"filesystem\": {\"hide\": [\"$out/cache/secret\"], \"protect\": [\"\${cwd}/keep\"]},
		\"env\": {\"set\": {\"A\": \"child\"}}}" >/dev/null
	echo k >"$ws/keep"
	run --separate-stderr wsrun "$ws" --policy "$d/sub/child.json" -- sh -c '
		echo "$A $B"
		echo w >"$1/cache/new" && echo cache-writable
		cat "$1/cache/secret/s" 2>/dev/null || echo secret-hidden
		echo x >keep 2>/dev/null || echo keep-protected
		echo ws >ws-file && echo ws-writable
		cat ~/.ssh/id_rsa 2>/dev/null; true' _ "$out"
	assert_equal "$status" 0
	assert_output "child base
cache-writable
secret-hidden
keep-protected
ws-writable"
	assert_equal "$(cat "$out/cache/new")" w
	assert_equal "$(cat "$ws/keep")" k
	run --separate-stderr "$WICKET" policy show "$d/sub/child.json"
	assert_line "extends:     built-in read-only -> built-in workspace-write -> $d/base.json -> $d/sub/child.json"
	assert_line "description: child"
}

@test "extends: a cycle is an error; nothing starts" {
	local ws d
	ws=$(mk_workspace)
	track "$ws"
	d=$(mk_outside)
	track "$d"
	pol "$d" a.json '{"extends": "b.json"}' >/dev/null
	pol "$d" b.json '{"extends": "a.json"}' >/dev/null
	run --separate-stderr wsrun "$ws" --policy "$d/a.json" -- touch started
	assert_equal "$status" 125
	assert_regex "$stderr" "\"extends\" cycle: $d/a.json -> $d/b.json -> $d/a.json"
	[ ! -e "$ws/started" ]
}

@test "names: a policy in \$XDG_CONFIG_HOME/wicket/policies is found by name, and one named like a built-in refines it" {
	local ws cfg out
	ws=$(mk_workspace)
	track "$ws"
	cfg=$(mk_outside)
	track "$cfg"
	out=$(mk_outside)
	track "$out"
	mkdir -p "$cfg/wicket/policies"
	pol "$cfg/wicket/policies" workspace-write.json "{\"extends\": \"workspace-write\", \"filesystem\": {\"write\": [\"$out\"]}}" >/dev/null
	# The default policy is now the refined one: the workspace and $out.
	run --separate-stderr bash -c 'cd "$1" && XDG_CONFIG_HOME="$2" timeout --kill-after=5 60 "$3" run -- sh -c "touch in-ws \"\$1/in-out\" && echo \$WICKET_POLICY" _ "$4"' _ "$ws" "$cfg" "$WICKET" "$out"
	assert_equal "$status" 0
	assert_output workspace-write
	[ -e "$ws/in-ws" ] && [ -e "$out/in-out" ]
	# Without it, $out is read-only again.
	run --separate-stderr bash -c 'cd "$1" && XDG_CONFIG_HOME=/nonexistent timeout --kill-after=5 60 "$2" run -- sh -c "touch \"\$1/again\" 2>/dev/null || echo ro" _ "$3"' _ "$ws" "$WICKET" "$out"
	assert_output ro
	[ ! -e "$out/again" ]
}

@test "options layer on top of a policy: --write adds, --read-only drops the policy's writable roots, --net replaces the mode" {
	local ws out d f
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	d=$(mk_outside)
	track "$d"
	f=$(pol "$d" p.json "{\"extends\": \"workspace-write\", \"filesystem\": {\"write\": [\"$d\"]}}")
	run --separate-stderr wsrun "$ws" --policy "$f" --write "$out" -- sh -c 'touch a "$1/b" "$2/c" && echo ok' _ "$out" "$d"
	assert_output ok
	[ -e "$ws/a" ] && [ -e "$out/b" ] && [ -e "$d/c" ]
	run --separate-stderr wsrun "$ws" --policy "$f" --read-only -- sh -c 'touch x 2>/dev/null || echo ws-ro; touch "$1/y" 2>/dev/null || echo d-ro; echo $WICKET_POLICY' _ "$d"
	assert_output "ws-ro
d-ro
$f"
	[ ! -e "$ws/x" ] && [ ! -e "$d/y" ]
	run --separate-stderr wsrun "$ws" --policy full-access --write "$out" -- true
	assert_equal "$status" 125
	assert_regex "$stderr" "runs without a sandbox"
	run --separate-stderr wsrun "$ws" --net ports -- true
	assert_equal "$status" 125
	assert_regex "$stderr" "lists no ports"
}

@test "hide: a hidden path that does not exist inside a writable root cannot be planted for later (moved aside at the end)" {
	local ws
	ws=$(mk_workspace)
	track "$ws"
	# The workspace is the home directory, which has no ~/.ssh yet.
	run --separate-stderr bash -c 'cd "$1" && HOME="$1" timeout --kill-after=5 60 "$2" run --allow-shared-write -- sh -c "mkdir -p ~/.ssh && echo evil-key >~/.ssh/authorized_keys && echo planted"' _ "$ws" "$WICKET"
	assert_equal "$status" 0
	assert_output planted
	[ ! -e "$ws/.ssh" ]
	assert_regex "$stderr" "the session created $ws/.ssh, a protected or hidden path that did not exist when it started"
	q=$(echo "$ws"/.ssh.quarantined-by-wicket-*)
	[ -f "$q/authorized_keys" ]
}

@test "read: a child's read list replaces the inherited \"/\": only the listed trees (and the writable ones) are readable" {
	local ws out d f
	ws=$(mk_workspace)
	track "$ws"
	out=$(mk_outside)
	track "$out"
	d=$(mk_outside)
	track "$d"
	echo outside-secret >"$out/s"
	echo mine >"$ws/m"
	f=$(pol "$d" narrow.json '{"extends": "workspace-write",
		"filesystem": {"read": ["/usr", "/etc", "/lib", "/lib64", "/bin", "/proc", "${cwd}"]}}')
	run --separate-stderr "$WICKET" policy show "$f"
	refute_line --regexp '^  read +/ '
	run --separate-stderr wsrun "$ws" --policy "$f" -- sh -c 'cat m; cat "$1/s" 2>/dev/null || echo outside-unreadable; echo w >new && echo ws-writable' _ "$out"
	assert_equal "$status" 0
	assert_output "mine
outside-unreadable
ws-writable"
}

@test "read-only: a workspace under /tmp stays visible (read-only) over the private /tmp" {
	local ws
	ws=$(mk_tmp_workspace)
	echo here >"$ws/f"
	run --separate-stderr wsrun "$ws" --policy read-only -- sh -c 'pwd; cat f; touch g 2>/dev/null || echo ro'
	assert_equal "$status" 0
	assert_output "$ws
here
ro"
	[ ! -e "$ws/g" ]
}

@test "attack: a policy planted in the search path from inside does not unsandbox the next session" {
	local home
	home=$(mk_workspace)
	track "$home"
	# The workspace is the home directory: ~/.config/wicket/policies is
	# inside the writable root. Plant a default policy that turns the
	# sandbox off, and a change to the policy file of the session itself.
	mkdir -p "$home/.config"
	pol "$home" mine.json '{"extends": "workspace-write"}' >/dev/null
	run --separate-stderr bash -c 'cd "$1" && HOME="$1" XDG_CONFIG_HOME= timeout --kill-after=5 60 "$2" run --allow-shared-write --policy ./mine.json -- sh -c "
		mkdir -p ~/.config/wicket/policies 2>/dev/null
		echo {\"extends\": \"full-access\"} >~/.config/wicket/policies/workspace-write.json 2>/dev/null
		echo {\"extends\": \"full-access\"} >mine.json 2>/dev/null || echo mine-protected
		true"' _ "$home" "$WICKET"
	assert_equal "$status" 0
	assert_output mine-protected
	assert_equal "$(cat "$home/mine.json")" '{"extends": "workspace-write"}'
	[ ! -e "$home/.config/wicket" ]
	assert_regex "$stderr" "moved it to $home/.config/wicket.quarantined-by-wicket-"
	# The next plain session is sandboxed.
	run --separate-stderr bash -c 'cd "$1" && HOME="$1" XDG_CONFIG_HOME= timeout --kill-after=5 60 "$2" run --allow-shared-write -- sh -c "grep ^NoNewPrivs /proc/self/status"' _ "$home" "$WICKET"
	assert_equal "$status" 0
	assert_output $'NoNewPrivs:\t1'
}
