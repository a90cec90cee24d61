#!/usr/bin/env bats
# Shell completions (shellhooks/wicket.bash-completion, shellhooks/_wicket):
# subcommands, options, option values, policy names from `wicket policy
# list`, paths, and the wrapped command after `--`.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

BC=/usr/share/bash-completion/bash_completion

setup() {
	[ -r "$BC" ] || { echo "bash-completion is not installed (apt-get install bash-completion)" >&2; return 1; }
	COMP=$WICKET_SRCDIR/shellhooks/wicket.bash-completion
	# `wicket` in PATH, as the completion calls it for the policy names.
	BIN=$(dirname "$WICKET")
}

teardown() { it_teardown; }

# complete WORD...: what bash offers for the command line WORD... (the last
# word is the one being completed), one per line, sorted.
complete() {
	run --separate-stderr bounded 60 env PATH="$BIN:/usr/bin:/bin" WICKET_COMPLETION_PROBE=1 bash -c '
		. "$1" && . "$2" || exit 1
		shift 2
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_wicket
		printf "%s\n" "${COMPREPLY[@]}" | sort -u' _ "$BC" "$COMP" "$@"
	assert_equal "$status" 0
}

@test "bash: subcommands, and options of the shell" {
	complete wicket ''
	assert_output "ask
doctor
exec
help
policy
run
session
shell
version
why"
	complete wicket --sh
	assert_output "--shell"
}

@test "bash: run's options and their values" {
	complete wicket run --n
	assert_output "--net
--no-diagnostics"
	complete wicket run --net ''
	assert_output "domains
full
none
ports
ports:"
	complete wicket run --allow
	assert_output "--allow-address
--allow-domain
--allow-shared-write"
	complete wicket run --allow-domain ''
	assert_output ""
	complete wicket run --h
	assert_output "--help
--hide
--host"
	complete wicket run --re
	assert_output "--read
--read-only"
	complete wicket run --hide /us
	assert_output "/usr"
	complete wicket run --env WICKET_COMPLETION_PROB
	assert_output "WICKET_COMPLETION_PROBE"
	complete wicket shell --shell ''
	assert_output "bash
zsh"
	complete wicket why --
	assert_output "--count
--help
--json
--list
--session"
}

@test "bash: policy names from wicket policy list, and policy subcommands" {
	complete wicket run --policy work
	assert_output "workspace-write
workspace-write-strict"
	complete wicket policy ''
	assert_output "check
list
show"
	complete wicket policy show read
	assert_output "read-only"
}

@test "bash: paths for --write, and the wrapped command after -- or after run's options" {
	complete wicket run --write /us
	assert_output "/usr"
	complete wicket run -- base
	assert_line basename
	complete wicket run --net full base
	assert_line basename
	# The command's own arguments are the command's business, not wicket's.
	complete wicket run -- ls --hel
	assert_line --help
	refute_line --net
}

@test "bash: ask's options, and the command after --; --approver takes a program" {
	complete wicket ask --
	assert_output "--
--env
--help
--net
--outside
--read
--reason
--socket
--timeout
--write"
	# A grant's option takes a value: the word after it is not the command.
	complete wicket ask --net example.org --wr
	assert_output "--write"
	# ask's -r takes a reason: the word after it is not the command.
	complete wicket ask -r because ''
	assert_line --reason
	complete wicket ask --reason why -- base
	assert_line basename
	complete wicket ask -- ls --hel
	assert_line --help
	refute_line --reason
	complete wicket run --appr
	assert_output "$(printf '%s\n' --approver --approver-fd --approver-socket)"
	complete wicket run --approver-fd 3 --no
	assert_output "--no-diagnostics"
	complete wicket run --approver base
	assert_line basename
	# After the approver, run's options again.
	complete wicket run --approver /bin/true --no
	assert_output "--no-diagnostics"
}

@test "bash: warm sessions: session's verbs, start's options, the names running, exec's command" {
	complete wicket session ''
	assert_output "list
start
stop"
	complete wicket session start --na
	assert_output "--name"
	complete wicket session start --name x --net ''
	assert_output --partial "domains"
	# The names are those `wicket session list` gives.
	local st
	st=$(mk_outside)
	# The directory as wicket makes it: one of the user's alone.
	mkdir -p -m 0700 "$st/wicket" "$st/wicket/warm"
	mkfifo "$st/up"
	bounded 60 python3 -c 'import socket, sys, signal
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1])
s.listen(1)
print("up", flush=True)
signal.pause()' "$st/wicket/warm/agent.sock" >"$st/up" &
	local pid=$! line
	read -r line <"$st/up"
	[ "$line" = up ]
	XDG_STATE_HOME=$st complete wicket exec ''
	assert_output "agent"
	XDG_STATE_HOME=$st complete wicket session stop a
	assert_output "agent"
	kill "$pid"
	complete wicket exec agent --c
	assert_output "--cwd"
	complete wicket exec agent -- ls --hel
	assert_output --partial "--help"
}

@test "zsh: ask and --approver are in the completion" {
	command -v zsh >/dev/null || { echo "zsh is not installed (apt-get install zsh)" >&2; return 1; }
	# Parsed by zsh (no syntax error), and naming both.
	run zsh -n "$WICKET_SRCDIR/shellhooks/_wicket"
	assert_success
	grep -qF 'ask\:"run a command once in a sandbox with more rights' "$WICKET_SRCDIR/shellhooks/_wicket"
	grep -qF -- "--outside[" "$WICKET_SRCDIR/shellhooks/_wicket"
	grep -q -- "--approver\[" "$WICKET_SRCDIR/shellhooks/_wicket"
	grep -q -- "ask)" "$WICKET_SRCDIR/shellhooks/_wicket"
	grep -qF 'exec\:"run a command in a warm session"' "$WICKET_SRCDIR/shellhooks/_wicket"
	grep -q -- "--cwd\[" "$WICKET_SRCDIR/shellhooks/_wicket"
}

@test "zsh: the completion loads and is bound to wicket" {
	command -v zsh >/dev/null || { echo "zsh is not installed (apt-get install zsh)" >&2; return 1; }
	local d
	d=$(mk_outside)
	track "$d"
	cp "$WICKET_SRCDIR/shellhooks/_wicket" "$d/"
	run --separate-stderr bounded 60 env HOME="$d" zsh -fc '
		fpath=("$1" $fpath)
		autoload -Uz compinit && compinit -u -d "$1/.zcompdump"
		print -r -- "${_comps[wicket]}"' _ "$d"
	assert_equal "$status" 0
	assert_output _wicket
}
