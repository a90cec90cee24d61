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
[[ -r ${ZDOTDIR:-$HOME}/.zshenv ]] && source "${ZDOTDIR:-$HOME}/.zshenv"
if [[ -o interactive ]]; then
	# Back here for .zshrc, remembering where the user's files are (their
	# .zshenv may have set ZDOTDIR itself).
	typeset -g __wicket_user_zdotdir=${ZDOTDIR-} __wicket_user_zdotdir_set=${+ZDOTDIR}
	ZDOTDIR=$__wicket_zdotdir
fi
unset __wicket_zdotdir
