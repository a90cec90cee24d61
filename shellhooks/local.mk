# The interactive shell's hooks (DESIGN §7, shell.c): installed under
# $(pkgdatadir)/shellhooks; the launcher finds them there, or in the build
# tree at shellhooks/ (copied from the source tree in a separate build
# directory, as for make distcheck).
shellhooksdir = $(pkgdatadir)/shellhooks
dist_shellhooks_DATA = shellhooks/wicket.bash shellhooks/wicket.zsh shellhooks/env.bash
shellhooks_zdotdirdir = $(pkgdatadir)/shellhooks/zdotdir
dist_shellhooks_zdotdir_DATA = shellhooks/zdotdir/.zshenv shellhooks/zdotdir/.zprofile \
	shellhooks/zdotdir/.zshrc shellhooks/zdotdir/.zlogin

SHELLHOOKS_BUILD_COPY = $(dist_shellhooks_DATA) $(dist_shellhooks_zdotdir_DATA)
noinst_DATA += shellhooks/.build-copy
shellhooks/.build-copy: $(SHELLHOOKS_BUILD_COPY)
	$(AM_V_GEN)$(MKDIR_P) shellhooks/zdotdir && \
	if test "$(srcdir)" != "."; then \
		for f in $(SHELLHOOKS_BUILD_COPY); do cp -f "$(srcdir)/$$f" "$$f" || exit 1; done; \
	fi && touch $@
CLEANFILES += shellhooks/.build-copy
clean-local: clean-shellhooks-copy
clean-shellhooks-copy:
	if test "$(srcdir)" != "."; then rm -f $(SHELLHOOKS_BUILD_COPY); fi

# Completions: bash (installed as "wicket", the name bash-completion loads
# on demand) and zsh (_wicket, found through fpath).
bashcompletiondir = $(BASH_COMPLETION_DIR)
zshcompletiondir = $(ZSH_COMPLETION_DIR)
dist_zshcompletion_DATA = shellhooks/_wicket
EXTRA_DIST += shellhooks/wicket.bash-completion
install-data-local: install-bash-completion
install-bash-completion:
	$(MKDIR_P) "$(DESTDIR)$(bashcompletiondir)"
	$(INSTALL_DATA) $(srcdir)/shellhooks/wicket.bash-completion "$(DESTDIR)$(bashcompletiondir)/wicket"
uninstall-local: uninstall-bash-completion
uninstall-bash-completion:
	rm -f "$(DESTDIR)$(bashcompletiondir)/wicket"
