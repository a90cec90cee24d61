# The user's .zshrc, then wicket's hooks (see .zshenv here). ZDOTDIR is
# restored first, so the rest of the session sees the user's own.
if (( __wicket_user_zdotdir_set )); then
	ZDOTDIR=$__wicket_user_zdotdir
else
	unset ZDOTDIR
fi
[[ -r ${ZDOTDIR:-$HOME}/.zshrc ]] && source "${ZDOTDIR:-$HOME}/.zshrc"
__wicket_scrub
source "${${(%):-%x}:A:h:h}/wicket.zsh"
if [[ -o login ]]; then
	# Back here once more for .zlogin, which a login shell reads last.
	__wicket_user_zdotdir=${ZDOTDIR-} __wicket_user_zdotdir_set=${+ZDOTDIR}
	ZDOTDIR=$__wicket_zdotdir
else
	unset __wicket_user_zdotdir __wicket_user_zdotdir_set __wicket_zdotdir
fi
