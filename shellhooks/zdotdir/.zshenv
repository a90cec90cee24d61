# wicket starts zsh with ZDOTDIR pointing here, so that its hooks load
# after the user's own files. The user's ZDOTDIR (or its absence) is in
# WICKET_ZDOTDIR; it is put back before their .zshenv runs.
typeset -g __wicket_zdotdir=${ZDOTDIR}
if [[ -n ${WICKET_ZDOTDIR+x} ]]; then
	ZDOTDIR=$WICKET_ZDOTDIR
else
	unset ZDOTDIR
fi
unset WICKET_ZDOTDIR

# As env.bash's for bash: every variable whose name a pattern of
# WICKET_ENV_UNSET matches (case-insensitive globs, as the policy's
# env.unset) and that this shell was not started with is removed: what
# the user's startup files exported again; what a program in the sandbox
# passes on itself stays.
__wicket_scrub() {
	emulate -L zsh
	setopt extendedglob
	[[ -n ${WICKET_ENV_UNSET-} ]] || return 0
	local -a pats init
	local n p
	pats=(${(s: :)WICKET_ENV_UNSET})
	[[ -r /proc/$$/environ ]] && init=(${${(0)"$(</proc/$$/environ)"}%%=*})
	for n in ${(k)parameters}; do
		(( ${init[(Ie)$n]} )) && continue
		for p in $pats; do
			if [[ $n == (#i)${~p} ]]; then
				unset $n 2>/dev/null
				break
			fi
		done
	done
	return 0
}
[[ -r ${ZDOTDIR:-$HOME}/.zshenv ]] && source "${ZDOTDIR:-$HOME}/.zshenv"
# zsh -c reads no other startup file, nor any shell whose .zshenv unset
# RCS: done here for those.
__wicket_scrub
if [[ -o rcs ]] && [[ -o interactive || -o login ]]; then
	# Back here for .zprofile, .zshrc and .zlogin (whichever this shell
	# reads), remembering where the user's files are (their .zshenv may
	# have set ZDOTDIR itself). The last of them removes the names again.
	typeset -g __wicket_user_zdotdir=${ZDOTDIR-} __wicket_user_zdotdir_set=${+ZDOTDIR}
	ZDOTDIR=$__wicket_zdotdir
else
	unset __wicket_zdotdir
fi
