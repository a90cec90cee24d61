# wicket's hooks for an interactive zsh in the sandbox, loaded after the
# user's own .zshrc (see zdotdir/.zshrc and wicket(1)). Adds, once:
#   - a prompt marker, "(wicket)" or "(POLICY)" when the policy is not the
#     default, unless WICKET_PROMPT=0;
#   - after a command the sandbox blocked something for, a short block: up
#     to three of the lines, a count, and what to do about it.
# Through add-zsh-hook; $? is kept; works with setopt nounset/errexit.

if (( ! ${+__wicket_hooked} )); then
	typeset -g __wicket_hooked=1 __wicket_seen=0 __wicket_mark

	() {
		local p=${WICKET_POLICY-}
		p=${p:t}
		p=${p%.json}
		[[ -z $p || $p == workspace-write ]] && p=wicket
		__wicket_mark="($p) "
	}

	__wicket_precmd() {
		local __wk_st=$? __wk_n=0 __wk_l __wk_new __wk_cmd __wk_i
		local -a __wk_lines
		if [[ ${WICKET_PROMPT-1} != 0 && ${PROMPT-} != "$__wicket_mark"* ]]; then
			PROMPT="$__wicket_mark${PROMPT-}"
		fi
		if [[ -n ${WICKET_STATUS_FD-} ]] &&
			{ IFS= read -r __wk_n && while IFS= read -r __wk_l; do __wk_lines+=("$__wk_l"); done } \
				<"/dev/fd/${WICKET_STATUS_FD%%:*}" 2>/dev/null; then
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
				for __wk_l in "${(@)__wk_lines[__wk_i,__wk_i+2]}"; do
					print -u2 -r -- "  $__wk_l"
				done
				(( __wk_new > 3 )) && print -u2 -r -- "  ... and $(( __wk_new - 3 )) more"
				print -u2 -r -- "  why, and how to allow it: wicket why"
				# One argument for zsh -c, single-quoted for any shell.
				if [[ -n $__wk_cmd ]]; then
					__wicket_last_blocked=$__wk_cmd
				fi
				if [[ -n $__wk_cmd && $__wicket_own_ask == 1 ]]; then
					print -u2 -r -- "  to run it outside the sandbox once, if approved: ask"
				elif [[ -n $__wk_cmd ]]; then
					__wk_cmd=${__wk_cmd//\'/\'\\\'\'}
					print -u2 -r -- "  to run it outside the sandbox once: wicket ask -- zsh -c '$__wk_cmd'"
				fi
			fi
			__wicket_seen=$__wk_n
		fi
		return $__wk_st
	}

	# `ask`: the command line the sandbox last blocked, run once outside
	# through `wicket ask`; only where the name is free.
	typeset -g __wicket_own_ask=0 __wicket_last_blocked=
	if ! whence ask >/dev/null 2>&1; then
		__wicket_own_ask=1
		ask() {
			if [[ -z $__wicket_last_blocked ]]; then
				print -u2 -r -- "ask: nothing was blocked in this shell yet"
				return 2
			fi
			command "${WICKET_EXE:-wicket}" ask --reason "blocked in the sandbox" -- zsh -c "$__wicket_last_blocked"
		}
	fi

	autoload -Uz add-zsh-hook
	add-zsh-hook precmd __wicket_precmd
fi
