# A login zsh's last startup file: the user's .zlogin, then the names
# the policy removes removed again (what .zprofile or .zlogin exported),
# with the user's ZDOTDIR back for the rest of the session.
if (( __wicket_user_zdotdir_set )); then
	ZDOTDIR=$__wicket_user_zdotdir
else
	unset ZDOTDIR
fi
unset __wicket_user_zdotdir __wicket_user_zdotdir_set __wicket_zdotdir
[[ -r ${ZDOTDIR:-$HOME}/.zlogin ]] && source "${ZDOTDIR:-$HOME}/.zlogin"
__wicket_scrub
