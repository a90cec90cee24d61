# shellcheck shell=bash
# wicket's hooks for an interactive bash in the sandbox, loaded by
# `bash --rcfile .../wicket.bash -i` (see wicket(1)). Bash itself has read
# /etc/bash.bashrc (where it is built to); this file reads ~/.bashrc as
# bash would have, then adds, once:
#   - a prompt marker, "(wicket)" or "(POLICY)" when the policy is not the
#     default, unless WICKET_PROMPT=0;
#   - after a command the sandbox blocked something for, a short block: up
#     to three of the lines, a count, and what to do about it;
#   - `ask`, which asks through `wicket ask` for the command that was
#     refused to run once more in a sandbox with the grant that allows
#     what was refused (`wicket why --grant`: derived by the supervisor
#     from the refusals, never guessed), only when that line was one plain
#     command and the refusals came from it (else the block shows a line
#     to copy).
# Nothing here changes $?, PIPESTATUS, an existing PROMPT_COMMAND (string
# or array), a DEBUG trap or bash-preexec; it works under set -u and -e.

if [ -r "$HOME/.bashrc" ]; then
	# shellcheck source=/dev/null
	. "$HOME/.bashrc"
fi
# What ~/.bashrc exported again of the names the policy removes goes
# (env.bash, which is also bash's BASH_ENV in the session).
# shellcheck source=shellhooks/env.bash
. "${BASH_SOURCE[0]%/*}/env.bash"
__wicket_scrub
# The session's own wicket (see wicket(1), ENVIRONMENT) stays first in
# PATH even when the user's start-up files set PATH: the hints below name
# `wicket why` and `wicket ask`.
if [ -n "${WICKET_EXE-}" ]; then
	case ":$PATH:" in
	*":${WICKET_EXE%/*}:"*) ;;
	*) PATH=${WICKET_EXE%/*}:$PATH ;;
	esac
fi

if [ -z "${__wicket_hooked-}" ]; then
	__wicket_hooked=1
	# The user's aliases (an alias named like a builtin) must not reach
	# into the functions below: they are expanded as a definition is read.
	__wicket_ea=0
	if shopt -q expand_aliases; then __wicket_ea=1; fi
	shopt -u expand_aliases
	__wicket_seen=0
	__wicket_ask_argv=()
	__wicket_ask_grant=()
	__wicket_ask_pid=
	__wicket_ask_line=
	__wicket_pids=' '

	# __wicket_one_command LINE REFUSAL...: sets __wicket_ask_argv to the
	# words of LINE (the command line just run) when it is one plain
	# command -- words of safe characters and quotes, so nothing in it is
	# expanded, redirected or a second command -- and every REFUSAL (a
	# status line, "... (what by COMM[PID])") came from one process of
	# that program (its number in __wicket_ask_pid) that had not been
	# refused during an earlier command.
	# Else returns 1. So `ask` runs exactly what was refused: never again
	# the command before it on the line (a commit pushed twice), never a
	# later command that a background process was refused during.
	__wicket_one_command() {
		local __wk_c=$1 __wk_l __wk_pid= __wk_name
		local __wk_plain='^[A-Za-z0-9_./:=@%+,~ '"'"'"-]+$' __wk_by='[( ]([^][ ()]+)\[([0-9]+)\]\)$'
		shift
		__wicket_ask_argv=()
		[[ $__wk_c =~ $__wk_plain ]] || return 1
		eval "__wicket_ask_argv=( $__wk_c )" 2>/dev/null || { __wicket_ask_argv=(); return 1; }
		case ${__wicket_ask_argv[0]-=} in *=*) __wicket_ask_argv=(); return 1 ;; esac
		__wk_name=${__wicket_ask_argv[0]##*/}
		__wk_name=${__wk_name:0:15}
		for __wk_l in "$@"; do
			if ! [[ $__wk_l =~ $__wk_by ]] || [ "${BASH_REMATCH[1]}" != "$__wk_name" ] ||
				{ [ -n "$__wk_pid" ] && [ "$__wk_pid" != "${BASH_REMATCH[2]}" ]; } ||
				[[ $__wicket_pids == *" ${BASH_REMATCH[2]} "* ]]; then
				__wicket_ask_argv=()
				return 1
			fi
			__wk_pid=${BASH_REMATCH[2]}
		done
		[ -n "$__wk_pid" ] || { __wicket_ask_argv=(); return 1; }
		__wicket_ask_pid=$__wk_pid
	}

	# __wicket_grant: __wicket_ask_grant set to the options of the grant
	# that allows every refusal of process __wicket_ask_pid, as the
	# supervisor derived it (one word a line); 1 when none does.
	__wicket_grant() {
		local __wk_g __wk_w
		__wicket_ask_grant=()
		__wk_g=$(command "${WICKET_EXE:-wicket}" why --grant "$__wicket_ask_pid" 2>/dev/null) &&
			[ -n "$__wk_g" ] || return 1
		while IFS= read -r __wk_w; do
			__wicket_ask_grant+=("$__wk_w")
		done <<<"$__wk_g"
	}

	# The marker: the policy's name (a file's without directory and
	# .json) unless it is the default.
	__wicket_marker() {
		local p=${WICKET_POLICY-}
		p=${p##*/}
		p=${p%.json}
		if [ -z "$p" ] || [ "$p" = workspace-write ]; then
			p=wicket
		fi
		__wicket_mark="($p) "
	}
	__wicket_marker

	# Runs last in PROMPT_COMMAND: $? and PIPESTATUS as the user's prompt
	# sees them are bash's own (it restores them around PROMPT_COMMAND);
	# the status is kept for anything after us all the same.
	__wicket_precmd() {
		local __wk_st=$? __wk_n=0 __wk_l __wk_new __wk_cmd __wk_i=0 __wk_k
		local -a __wk_lines=() __wk_said=()
		if [ "${WICKET_PROMPT-1}" != 0 ] && [ "${PS1#"$__wicket_mark"}" = "${PS1-}" ]; then
			PS1=$__wicket_mark${PS1-}
		fi
		# The supervisor's count of denials and its latest lines (a
		# memory file it rewrites; see WICKET_STATUS_FD in wicket(1)); a
		# line it already said on this terminal starts with "+".
		if [ -n "${WICKET_STATUS_FD-}" ] &&
			{ IFS= read -r __wk_n && while IFS= read -r __wk_l; do
				if [ "${__wk_l#+}" != "$__wk_l" ]; then __wk_said+=(1); else __wk_said+=(""); fi
				__wk_lines+=("${__wk_l#+}")
			done; } <"/dev/fd/${WICKET_STATUS_FD%%:*}" 2>/dev/null; then
			case $__wk_n in '' | *[!0-9]*) __wk_n=$__wicket_seen ;; esac
			if [ "$__wk_n" -gt "$__wicket_seen" ]; then
				__wk_new=$((__wk_n - __wicket_seen))
				__wk_cmd=$(HISTTIMEFORMAT='' builtin history 1 2>/dev/null)
				__wk_cmd=${__wk_cmd#"${__wk_cmd%%[![:space:]]*}"}
				__wk_cmd=${__wk_cmd#*[[:space:]]}
				__wk_cmd=${__wk_cmd#"${__wk_cmd%%[![:space:]]*}"}
				if [ "$__wk_new" -eq 1 ]; then
					builtin printf '\nwicket: the sandbox blocked 1 thing in that command:\n' >&2
				else
					builtin printf '\nwicket: the sandbox blocked %d things in that command:\n' "$__wk_new" >&2
				fi
				# The newest lines, at most three, oldest first; once is
				# enough: not those already said on this terminal.
				__wk_i=$((${#__wk_lines[@]} - __wk_new))
				[ "$__wk_i" -ge 0 ] || __wk_i=0
				for ((__wk_k = __wk_i; __wk_k < __wk_i + 3 && __wk_k < ${#__wk_lines[@]}; __wk_k++)); do
					[ -n "${__wk_said[__wk_k]}" ] ||
						builtin printf '  %s\n' "${__wk_lines[__wk_k]}" >&2
				done
				if [ "$__wk_new" -gt 3 ]; then
					builtin printf '  ... and %d more\n' "$((__wk_new - 3))" >&2
				fi
				builtin printf '  why, and how to allow it: wicket why\n' >&2
				__wicket_ask_argv=()
				__wicket_ask_grant=()
				__wicket_ask_line=
				if [ -n "$__wk_cmd" ] && [ "$__wk_new" -le "${#__wk_lines[@]}" ] &&
					__wicket_one_command "$__wk_cmd" "${__wk_lines[@]:$__wk_i}"; then
					if __wicket_grant; then
						__wicket_ask_line="wicket ask$(builtin printf ' %q' "${__wicket_ask_grant[@]}") --$(builtin printf ' %q' "${__wicket_ask_argv[@]}")"
					else
						__wicket_ask_line="wicket ask --outside --$(builtin printf ' %q' "${__wicket_ask_argv[@]}")"
					fi
				elif [ -n "$__wk_cmd" ]; then
					# One argument for bash -c, single-quoted for any shell:
					# the whole line, to copy knowingly.
					__wk_cmd=${__wk_cmd//\'/\'\\\'\'}
					__wicket_ask_line="wicket ask --outside -- bash -c '$__wk_cmd'"
				fi
				if [ "${#__wicket_ask_grant[@]}" -gt 0 ] && [ "$__wicket_own_ask" = 1 ]; then
					builtin printf '  to run it again with%s added, if approved: ask\n' \
						"$(builtin printf ' %q' "${__wicket_ask_grant[@]}")" >&2
				elif [ "${#__wicket_ask_grant[@]}" -gt 0 ]; then
					builtin printf '  to run it again with what it lacked, if approved: %s\n' "$__wicket_ask_line" >&2
				elif [ -n "$__wicket_ask_line" ]; then
					builtin printf '  no grant allows it; to run it outside the sandbox once (only you can approve that): %s\n' "$__wicket_ask_line" >&2
				fi
				# The processes refused so far: a later refusal of one of
				# them is not the next command's.
				for __wk_l in "${__wk_lines[@]:$__wk_i}"; do
					if [[ $__wk_l =~ \[([0-9]+)\]\)$ ]]; then
						__wicket_pids="${__wicket_pids: -2000} ${BASH_REMATCH[1]} "
					fi
				done
			fi
			__wicket_seen=$__wk_n
		fi
		return "$__wk_st"
	}

	# `ask`: the command the sandbox last refused, exactly its words (see
	# __wicket_one_command), asked through `wicket ask` to run once more
	# in a sandbox with the grant the supervisor derived from the
	# refusals (the policy's rules, an approver or the person decide;
	# nothing is run without approval). Only where the name is free.
	__wicket_own_ask=0
	if ! builtin type -t ask >/dev/null 2>&1; then
		__wicket_own_ask=1
		ask() {
			if [ "${#__wicket_ask_grant[@]}" -gt 0 ]; then
				command "${WICKET_EXE:-wicket}" ask "${__wicket_ask_grant[@]}" \
					--reason "blocked in the sandbox" -- "${__wicket_ask_argv[@]}"
				return
			fi
			if [ "${#__wicket_ask_argv[@]}" -gt 0 ]; then
				builtin printf 'ask: no grant allows what the sandbox refused (see wicket why); only you, at the terminal, can run it outside:\n  %s\n' "$__wicket_ask_line" >&2
			elif [ -n "$__wicket_ask_line" ]; then
				builtin printf 'ask: what the sandbox refused was not one plain command of that line; to ask for the line anyway:\n  %s\n' "$__wicket_ask_line" >&2
			else
				builtin printf 'ask: nothing was blocked in this shell yet\n' >&2
			fi
			return 2
		}
	fi

	# Our hook goes last, whichever form PROMPT_COMMAND has.
	if [[ "$(builtin declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then
		PROMPT_COMMAND+=(__wicket_precmd)
	elif [ -n "${PROMPT_COMMAND-}" ]; then
		PROMPT_COMMAND=$PROMPT_COMMAND$'\n'__wicket_precmd
	else
		PROMPT_COMMAND=__wicket_precmd
	fi
	# The session's history (wicket(1), THE INTERACTIVE SHELL): where the
	# user's file is not writable here, the supervisor gives the session
	# a file of its own (WICKET_HISTFILE). The user's file is read for
	# recall; this session's commands are appended to the session's file
	# (histappend), and the supervisor appends them to the user's when
	# the session ends. Not when the rc files turned history off.
	if [ -n "${WICKET_HISTFILE-}" ] && [ -n "${HISTFILE-}" ]; then
		if [ -r "$HISTFILE" ] && [ -f "$HISTFILE" ]; then
			builtin history -r "$HISTFILE"
		fi
		HISTFILE=$WICKET_HISTFILE
		shopt -s histappend
	fi
	# A history file the sandbox may not write (outside the workspace) is
	# read as usual but not written at exit, rather than refused with a
	# denial line every time the shell ends. An EXIT trap already set is
	# kept and still runs.
	__wicket_hf=${HISTFILE-$HOME/.bash_history}
	if [ -n "$__wicket_hf" ] && { { [ -e "$__wicket_hf" ] && [ ! -w "$__wicket_hf" ]; } ||
		{ [ ! -e "$__wicket_hf" ] && [ ! -w "${__wicket_hf%/*}" ]; }; }; then
		__wicket_exit_prev=
		__wicket_exit_trap=()
		eval "__wicket_exit_trap=($(trap -p EXIT))"
		if [ "${#__wicket_exit_trap[@]}" -ge 3 ]; then
			__wicket_exit_prev=${__wicket_exit_trap[2]}
		fi
		unset __wicket_exit_trap
		__wicket_exit() {
			unset HISTFILE
			eval "$__wicket_exit_prev"
		}
		trap __wicket_exit EXIT
	fi
	unset __wicket_hf
	if [ "$__wicket_ea" = 1 ]; then shopt -s expand_aliases; fi
	unset __wicket_ea
fi
