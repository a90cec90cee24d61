#!/usr/bin/env bats
# Planting code that git on the host would run later: .git/hooks and
# .git/config are read-only inside the sandbox, and their ancestors inside
# the workspace are pinned so that renaming a parent cannot swap them.
#
# Judged by the host: after every attack the host runs git in the
# workspace (commit, status, checkout), as the user would after the
# session; no planted hook or config command may run, and the real
# hooks and config must be unchanged.

load ../lib/common
load escape_helpers

setup() {
	command -v git >/dev/null || skip "git is not installed"
	esc_setup
	PWNED=$OUT/pwned
	git -C "$WS" init -q
	mkdir -p "$WS/.git/hooks"
	printf '#!/bin/sh\nexit 0\n' >"$WS/.git/hooks/pre-commit"
	chmod 755 "$WS/.git/hooks/pre-commit"
	# What a planted hook or config command does: leave a mark outside.
	EVIL_HOOK=$(printf '#!/bin/sh\ntouch %s\n' "$PWNED")
	HOOKS_SUM=$(hooks_state "$WS")
	CONFIG_SUM=$(sha256sum <"$WS/.git/config")
}

teardown() {
	escape_cleanup
	common_teardown
}

# hooks_state DIR: names, modes and contents of DIR/.git/hooks.
hooks_state() {
	(cd "$1/.git/hooks" && find . -printf '%p %m %s\n' | sort && cat ./* 2>/dev/null | sha256sum)
}

# host_git DIR: what the user does after the session; runs every hook
# and config-driven command a planted file could name.
host_git() {
	(
		cd "$1" || exit 1
		export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
		git -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m probe
		git status --short
		git checkout -q -b "probe-$RANDOM"
	) >/dev/null 2>&1 || true
}

# assert_not_planted: the host's git ran nothing and the protected files
# are what they were.
assert_not_planted() {
	host_git "$WS"
	if [ -e "$PWNED" ]; then
		echo "ESCAPE: git on the host ran a command planted from inside the sandbox"
		false
	fi
	[ "$(hooks_state "$WS")" = "$HOOKS_SUM" ]
	[ "$(sha256sum <"$WS/.git/config")" = "$CONFIG_SUM" ]
	[ -d "$WS/.git/hooks" ]
}

# sanity_repo: a throwaway repository where the same plant works without
# the sandbox, so the host-side judge is known to catch it.
sanity_repo() {
	local r
	mkout r
	git -C "$r" init -q
	mkdir -p "$r/.git/hooks"
	printf '%s\n' "$r"
}

@test "git: writing .git/hooks/pre-commit and creating new hooks" {
	attack='printf "%s\n" "$1" >.git/hooks/pre-commit; printf "%s\n" "$1" >>.git/hooks/pre-commit
		for h in post-checkout post-commit pre-push; do printf "%s\n" "$1" >.git/hooks/$h; chmod +x .git/hooks/$h; done'
	r=$(sanity_repo)
	(cd "$r" && sh -c "$attack" _ "$EVIL_HOOK") || true
	host_git "$r"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	sbx sh -c "$attack" _ "$EVIL_HOOK"
	assert_not_planted
}

@test "git: writing .git/config (git config, append, core.hooksPath)" {
	mkdir -p "$WS/evilhooks"
	printf '%s\n' "$EVIL_HOOK" >"$WS/evilhooks/pre-commit"
	chmod 755 "$WS/evilhooks/pre-commit"
	attack='git config core.hooksPath "$PWD/evilhooks"; printf "[core]\n\thooksPath = %s/evilhooks\n" "$PWD" >>.git/config
		git config core.fsmonitor "$1"'
	r=$(sanity_repo)
	cp -r "$WS/evilhooks" "$r/"
	(cd "$r" && sh -c "$attack" _ "touch $PWNED; false") || true
	host_git "$r"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	sbx sh -c "$attack" _ "touch $PWNED; false"
	assert_not_planted
}

@test "git: replacing .git/config or a hook by rename, link or removal" {
	attack='printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch %s; false\"\n" "$2" >cfg.new
		printf "%s\n" "$1" >hook.new; chmod +x hook.new; cp cfg.new cfg.copy; cp hook.new hook.copy
		rm -f .git/hooks/pre-commit; ln -sf "$PWD/hook.copy" .git/hooks/pre-commit
		mv -f hook.new .git/hooks/pre-commit || cp hook.copy .git/hooks/pre-commit
		mv -f cfg.new .git/config || cp cfg.copy .git/config'
	r=$(sanity_repo)
	(cd "$r" && sh -c "$attack" _ "$EVIL_HOOK" "$PWNED") || true
	host_git "$r"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	sbx sh -c "$attack" _ "$EVIL_HOOK" "$PWNED"
	assert_not_planted
}

@test "git: renaming .git away and rebuilding it with planted hooks" {
	attack='mv .git .git2 || cp -a .git .git2
		mkdir -p .git/hooks; cp -a .git2/. .git/ 2>/dev/null
		printf "%s\n" "$1" >.git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
		printf "[core]\n\tbare = false\n" >.git/config'
	r=$(sanity_repo)
	(cd "$r" && sh -c "$attack" _ "$EVIL_HOOK") || true
	host_git "$r"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	sbx sh -c "$attack" _ "$EVIL_HOOK"
	assert_not_planted
}

@test "git: renaming .git/hooks away and putting a new hooks directory in its place" {
	attack='mv .git/hooks .git/hooks.old; mkdir -p .git/hooks
		printf "%s\n" "$1" >.git/hooks/pre-commit; chmod +x .git/hooks/pre-commit'
	r=$(sanity_repo)
	(cd "$r" && sh -c "$attack" _ "$EVIL_HOOK") || true
	host_git "$r"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	sbx sh -c "$attack" _ "$EVIL_HOOK"
	[ ! -e "$WS/.git/hooks.old" ]
	assert_not_planted
}

@test "git: deleting the whole .git and re-creating it" {
	attack='rm -rf .git; git init -q . 2>/dev/null; mkdir -p .git/hooks
		printf "%s\n" "$1" >.git/hooks/pre-commit; chmod +x .git/hooks/pre-commit'
	r=$(sanity_repo)
	(cd "$r" && sh -c "$attack" _ "$EVIL_HOOK") || true
	host_git "$r"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	sbx sh -c "$attack" _ "$EVIL_HOOK"
	assert_not_planted
}

@test "git: metadata of the protected hooks (chmod, touch, setxattr)" {
	meta=$(meta_of "$WS/.git/hooks/pre-commit")
	dmeta=$(meta_of "$WS/.git/hooks")
	sbx sh -c 'chmod 777 .git/hooks/pre-commit .git/hooks; chmod 644 .git/hooks/pre-commit
		touch -d 2001-01-01 .git/hooks/pre-commit .git/config
		"$1" -c "import os; os.setxattr(\".git/hooks/pre-commit\", \"user.x\", b\"1\")"' _ "$PY"
	[ "$(meta_of "$WS/.git/hooks/pre-commit")" = "$meta" ]
	[ "$(meta_of "$WS/.git/hooks")" = "$dmeta" ]
	assert_not_planted
}

@test "git: redirecting the repository's config and hooks through .git/commondir" {
	# git reads "$GIT_DIR/commondir" in any repository, and then takes the
	# config (and the hooks) from the directory it names: a config the
	# sandbox writes anywhere in the workspace becomes the repository's.
	attack='mkdir -p evil/hooks && cp -a .git/HEAD .git/refs .git/objects evil/ 2>/dev/null
		printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch %s; false\"\n" "$1" >evil/config
		printf "%s\n" "$2" >evil/hooks/pre-commit; chmod +x evil/hooks/pre-commit
		echo ../evil >.git/commondir'
	r=$(sanity_repo)
	(cd "$r" && sh -c "$attack" _ "$PWNED" "$EVIL_HOOK") || true
	host_git "$r"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	sbx sh -c "$attack" _ "$PWNED" "$EVIL_HOOK"
	assert_not_planted
}
