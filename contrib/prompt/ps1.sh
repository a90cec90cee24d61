# shellcheck shell=bash
# A prompt marker for wicket sessions, for bash or zsh: source it from
# ~/.bashrc or ~/.zshrc, and set WICKET_PROMPT=0 so that wicket's hooks do
# not add their own. Outside a sandbox it does nothing.
if [ -n "${WICKET-}" ]; then
	__wk_p=${WICKET_POLICY##*/}
	__wk_p=${__wk_p%.json}
	if [ -n "${ZSH_VERSION-}" ]; then
		PROMPT="[${__wk_p:-wicket}] $PROMPT"
	else
		PS1="[${__wk_p:-wicket}] $PS1"
	fi
	unset __wk_p
fi
