# wicket's hooks for an interactive zsh in the sandbox, loaded after the
# user's own .zshrc (see zdotdir/.zshrc and wicket(1)). Adds, once:
#   - a prompt marker, "(wicket)" or "(POLICY)" when the policy is not the
#     default, unless WICKET_PROMPT=0;
#   - after a command the sandbox blocked something for, a short block: up
#     to three of the lines, a count, and what to do about it;
#   - `ask`, which asks through `wicket ask` for the command that was
#     refused to run once more in a sandbox with the grant that allows
#     what was refused (`wicket why --grant`, derived by the supervisor),
#     only when that line was one plain command and the refusals came
#     from it (else the block shows a line to copy).
# Through add-zsh-hook; $? is kept; works with setopt nounset/errexit.

# As in wicket.bash: the session's own wicket first in PATH, whatever the
# user's start-up files did to it.
if [[ -n ${WICKET_EXE-} && ":$PATH:" != *":${WICKET_EXE:h}:"* ]]; then
	PATH=${WICKET_EXE:h}:$PATH
fi

if (( ! ${+__wicket_hooked} )); then
	typeset -g __wicket_hooked=1 __wicket_seen=0 __wicket_mark __wicket_ask_line= __wicket_pids=' '
	typeset -g __wicket_ask_pid=
	typeset -ga __wicket_ask_argv __wicket_ask_grant

	# As in wicket.bash: __wicket_ask_argv set to the words of LINE when it
	# is one plain command (nothing expanded, redirected or added; no word
	# starting with '=', which zsh expands) and every REFUSAL came from one
	# process of that program not refused during an earlier command.
	__wicket_one_command() {
		local __wk_c=$1 __wk_l __wk_pid= __wk_name
		local __wk_plain='^[A-Za-z0-9_./:=@%+,~ '"'"'"-]+$' __wk_by='[( ]([^][ ()]+)\[([0-9]+)\]\)$'
		shift
		__wicket_ask_argv=()
		[[ $__wk_c =~ $__wk_plain && $__wk_c != (|*' ')=* ]] || return 1
		eval "__wicket_ask_argv=( $__wk_c )" 2>/dev/null || { __wicket_ask_argv=(); return 1 }
		[[ ${#__wicket_ask_argv} -gt 0 && $__wicket_ask_argv[1] != *=* ]] || { __wicket_ask_argv=(); return 1 }
		__wk_name=${__wicket_ask_argv[1]:t}
		__wk_name=${__wk_name[1,15]}
		for __wk_l in "$@"; do
			if ! [[ $__wk_l =~ $__wk_by ]] || [[ $match[1] != "$__wk_name" ]] ||
				[[ -n $__wk_pid && $__wk_pid != $match[2] ]] || [[ $__wicket_pids == *" $match[2] "* ]]; then
				__wicket_ask_argv=()
				return 1
			fi
			__wk_pid=$match[2]
		done
		[[ -n $__wk_pid ]] || { __wicket_ask_argv=(); return 1 }
		__wicket_ask_pid=$__wk_pid
	}

	# As in wicket.bash: __wicket_ask_grant set to the options of the
	# grant the supervisor derived for process __wicket_ask_pid's
	# refusals; 1 when none allows them all.
	__wicket_grant() {
		local __wk_g
		__wicket_ask_grant=()
		__wk_g=$(command "${WICKET_EXE:-wicket}" why --grant "$__wicket_ask_pid" 2>/dev/null) &&
			[[ -n $__wk_g ]] || return 1
		__wicket_ask_grant=("${(@f)__wk_g}")
	}

	() {
		local p=${WICKET_POLICY-}
		p=${p:t}
		p=${p%.json}
		[[ -z $p || $p == workspace-write ]] && p=wicket
		__wicket_mark="($p) "
	}

	__wicket_precmd() {
		local __wk_st=$? __wk_n=0 __wk_l __wk_new __wk_cmd __wk_i __wk_k
		local -a __wk_lines __wk_said
		if [[ ${WICKET_PROMPT-1} != 0 && ${PROMPT-} != "$__wicket_mark"* ]]; then
			PROMPT="$__wicket_mark${PROMPT-}"
		fi
		if [[ -n ${WICKET_STATUS_FD-} ]] &&
			{ IFS= read -r __wk_n && while IFS= read -r __wk_l; do
				# a line already said on this terminal starts with "+"
				if [[ $__wk_l == +* ]]; then __wk_said+=(1); else __wk_said+=(0); fi
				__wk_lines+=("${__wk_l#+}")
			done } <"/dev/fd/${WICKET_STATUS_FD%%:*}" 2>/dev/null; then
			[[ $__wk_n == <-> ]] || __wk_n=$__wicket_seen
			if (( __wk_n > __wicket_seen )); then
				__wk_new=$(( __wk_n - __wicket_seen ))
				__wk_cmd=${history[$((HISTCMD - 1))]-}
				if (( __wk_new == 1 )); then
					print -u2 -r -- $'\nwicket: the sandbox blocked 1 thing in that command:'
				else
					print -u2 -r -- $'\n'"wicket: the sandbox blocked $__wk_new things in that command:"
				fi
				__wk_i=$(( ${#__wk_lines} - __wk_new + 1 ))
				(( __wk_i >= 1 )) || __wk_i=1
				# once is enough: not the lines already said on this terminal
				for (( __wk_k = __wk_i; __wk_k <= __wk_i + 2 && __wk_k <= ${#__wk_lines}; __wk_k++ )); do
					[[ ${__wk_said[__wk_k]} == 1 ]] || print -u2 -r -- "  ${__wk_lines[__wk_k]}"
				done
				(( __wk_new > 3 )) && print -u2 -r -- "  ... and $(( __wk_new - 3 )) more"
				print -u2 -r -- "  why, and how to allow it: wicket why"
				__wicket_ask_argv=()
				__wicket_ask_grant=()
				__wicket_ask_line=
				if [[ -n $__wk_cmd ]] && (( __wk_new <= ${#__wk_lines} )) &&
					__wicket_one_command "$__wk_cmd" "${(@)__wk_lines[__wk_i,-1]}"; then
					if __wicket_grant; then
						__wicket_ask_line="wicket ask ${(j: :)${(@q)__wicket_ask_grant}} -- ${(j: :)${(@q)__wicket_ask_argv}}"
					else
						__wicket_ask_line="wicket ask --outside -- ${(j: :)${(@q)__wicket_ask_argv}}"
					fi
				elif [[ -n $__wk_cmd ]]; then
					# One argument for zsh -c, single-quoted for any shell:
					# the whole line, to copy knowingly.
					__wk_cmd=${__wk_cmd//\'/\'\\\'\'}
					__wicket_ask_line="wicket ask --outside -- zsh -c '$__wk_cmd'"
				fi
				if (( ${#__wicket_ask_grant} )) && [[ $__wicket_own_ask == 1 ]]; then
					print -u2 -r -- "  to run it again with ${(j: :)${(@q)__wicket_ask_grant}} added, if approved: ask"
				elif (( ${#__wicket_ask_grant} )); then
					print -u2 -r -- "  to run it again with what it lacked, if approved: $__wicket_ask_line"
				elif [[ -n $__wicket_ask_line ]]; then
					print -u2 -r -- "  no grant allows it; to run it outside the sandbox once (only you can approve that): $__wicket_ask_line"
				fi
				for __wk_l in "${(@)__wk_lines[__wk_i,-1]}"; do
					[[ $__wk_l =~ '\[([0-9]+)\]\)$' ]] && __wicket_pids="${__wicket_pids[-2000,-1]} $match[1] "
				done
			fi
			__wicket_seen=$__wk_n
		fi
		return $__wk_st
	}

	# `ask`: the command the sandbox last refused, exactly its words, asked
	# through `wicket ask` to run once more in a sandbox with the grant
	# derived from the refusals; only where the name is free.
	typeset -g __wicket_own_ask=0
	if ! whence ask >/dev/null 2>&1; then
		__wicket_own_ask=1
		ask() {
			if (( ${#__wicket_ask_grant} )); then
				command "${WICKET_EXE:-wicket}" ask "${(@)__wicket_ask_grant}" \
					--reason "blocked in the sandbox" -- "${(@)__wicket_ask_argv}"
				return
			fi
			if (( ${#__wicket_ask_argv} )); then
				print -u2 -r -- "ask: no grant allows what the sandbox refused (see wicket why); only you, at the terminal, can run it outside:"
				print -u2 -r -- "  $__wicket_ask_line"
			elif [[ -n $__wicket_ask_line ]]; then
				print -u2 -r -- "ask: what the sandbox refused was not one plain command of that line; to ask for the line anyway:"
				print -u2 -r -- "  $__wicket_ask_line"
			else
				print -u2 -r -- "ask: nothing was blocked in this shell yet"
			fi
			return 2
		}
	fi

	# The session's history, as in wicket.bash: the user's file read for
	# recall, this session's commands appended to the session's file
	# (zsh appends by default), which the supervisor appends to the
	# user's at the end. Only when the rc files keep a history at all.
	if [[ -n ${WICKET_HISTFILE-} && -n ${HISTFILE-} ]]; then
		[[ -f $HISTFILE && -r $HISTFILE ]] && fc -R "$HISTFILE"
		HISTFILE=$WICKET_HISTFILE
	fi

	autoload -Uz add-zsh-hook
	add-zsh-hook precmd __wicket_precmd
fi
