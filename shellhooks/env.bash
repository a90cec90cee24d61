# shellcheck shell=bash
# wicket's BASH_ENV in every session (see wicket(1), ENVIRONMENT). The
# policy's env.unset removes credentials from the environment the session
# starts with, but a login bash run with a command (bash -lc, the way
# several agent harnesses run their tool calls) has read /etc/profile and
# ~/.profile by the time it reads this file, and those may export them
# again. __wicket_scrub removes every variable whose name a pattern of
# WICKET_ENV_UNSET matches (as the policy does: case-insensitive globs)
# and that this shell was not started with: what a program in the sandbox
# passes on itself stays. wicket.bash calls it after ~/.bashrc.

__wicket_scrub() {
	[ -n "${WICKET_ENV_UNSET-}" ] || return 0
	local __wk_kv __wk_n __wk_p __wk_init=' ' __wk_nc=0
	local -a __wk_pats
	read -r -a __wk_pats <<<"$WICKET_ENV_UNSET"
	if [ -r "/proc/$$/environ" ]; then
		while IFS= read -r -d '' __wk_kv; do
			__wk_init+="${__wk_kv%%=*} "
		done <"/proc/$$/environ"
	fi
	if shopt -q nocasematch; then __wk_nc=1; fi
	shopt -s nocasematch
	for __wk_n in $(compgen -v); do
		case $__wk_init in *" $__wk_n "*) continue ;; esac
		for __wk_p in "${__wk_pats[@]}"; do
			# shellcheck disable=SC2053 # the pattern is a glob
			if [[ $__wk_n == $__wk_p ]]; then
				unset "$__wk_n" 2>/dev/null || :
				break
			fi
		done
	done
	if [ "$__wk_nc" = 0 ]; then shopt -u nocasematch; fi
	return 0
}

if [ -n "${WICKET_BASH_ENV-}" ] && [ -r "$WICKET_BASH_ENV" ]; then
	# shellcheck source=/dev/null
	. "$WICKET_BASH_ENV"
fi
if shopt -q login_shell; then
	__wicket_scrub
fi
