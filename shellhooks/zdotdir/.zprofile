# A login zsh (zsh -l, zsh -lc): the user's .zprofile, then back here
# for .zshrc and .zlogin (see .zshenv here), which remove again what it
# exported.
if (( __wicket_user_zdotdir_set )); then
	ZDOTDIR=$__wicket_user_zdotdir
else
	unset ZDOTDIR
fi
[[ -r ${ZDOTDIR:-$HOME}/.zprofile ]] && source "${ZDOTDIR:-$HOME}/.zprofile"
__wicket_user_zdotdir=${ZDOTDIR-} __wicket_user_zdotdir_set=${+ZDOTDIR}
ZDOTDIR=$__wicket_zdotdir
