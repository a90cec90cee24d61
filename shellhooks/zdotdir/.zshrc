# The user's .zshrc, then wicket's hooks (see .zshenv here). ZDOTDIR is
# restored first, so the rest of the session sees the user's own.
if (( __wicket_user_zdotdir_set )); then
	ZDOTDIR=$__wicket_user_zdotdir
else
	unset ZDOTDIR
fi
unset __wicket_user_zdotdir __wicket_user_zdotdir_set
[[ -r ${ZDOTDIR:-$HOME}/.zshrc ]] && source "${ZDOTDIR:-$HOME}/.zshrc"
__wicket_scrub
source "${${(%):-%x}:A:h:h}/wicket.zsh"
