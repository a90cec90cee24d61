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
	# What a test made unreadable, readable again to be removed.
	local d list="${BATS_TEST_TMPDIR:-${TMPDIR:-/tmp}}/.wicket-cleanup"
	if [ -f "$list" ]; then
		while IFS= read -r d; do chmod -R u+rwX -- "$d" 2>/dev/null || true; done <"$list"
	fi
	escape_cleanup
	common_teardown
}

# hooks_state DIR: names, modes and contents of DIR/.git/hooks.
hooks_state() {
	(cd "$1/.git/hooks" && find . -printf '%p %m %s\n' | sort && cat ./* 2>/dev/null | sha256sum)
}

# host_git DIR [MORE...]: what the user does after the session; runs
# every hook and config-driven command a planted file could name. In
# each further directory (a submodule, a worktree) a plain `git status`,
# as a prompt that shows git status runs on `cd`.
host_git() {
	(
		cd "$1" || exit 1
		export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
		git -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m probe
		git status --short
		git checkout -q -b "probe-$RANDOM"
		shift
		for d in "$@"; do
			(cd "$d" && git status --short)
		done
	) >/dev/null 2>&1 || true
}

# host_status DIR: only a `git status` in DIR, with the test's config alone.
host_status() {
	(cd "$1" && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git status --short) \
		>/dev/null 2>&1 || true
}

# git_commit DIR MSG: a commit made outside, with no config of the host's.
git_commit() {
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		git -C "$1" -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m "$2"
}

# add_submodule REPO NAME: a submodule NAME (absorbed: its git directory in
# REPO/.git/modules/NAME, a .git file in REPO/NAME), made outside.
add_submodule() {
	local src
	mkout src
	git -C "$src" init -q
	git_commit "$src" sub
	(cd "$1" && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		git -c protocol.file.allow=always submodule add -q "$src" "$2" >/dev/null 2>&1)
	git_commit "$1" "add $2"
	[ -f "$1/$2/.git" ] && [ -f "$1/.git/modules/$2/config" ]
}

# PLANT_FSMONITOR: a shell snippet for `sh -c "$PLANT_FSMONITOR" _ CONFIG
# MARK` that sets core.fsmonitor in the git config file CONFIG to a command
# leaving MARK outside.
PLANT_FSMONITOR='git config -f "$1" core.fsmonitor "touch $2; false" ||
	printf "[core]\n\tfsmonitor = \"touch %s; false\"\n" "$2" >>"$1"'

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

@test "git: a planted .git/commondir whose quarantine name is taken in advance" {
	# The session knows its id ($WICKET_SESSION): it fills the name its
	# planted file would be moved to with a non-empty directory, so that a
	# plain rename fails and the file stays where git reads it.
	attack='mkdir -p evil/hooks && cp -a .git/HEAD .git/refs .git/objects evil/ 2>/dev/null
		printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch %s; false\"\n" "$1" >evil/config
		for p in .git/commondir evil/config evil/hooks; do
			mkdir -p "$p.quarantined-by-wicket-$WICKET_SESSION/x"
		done
		echo ../evil >.git/commondir'
	sbx sh -c "$attack" _ "$PWNED"
	assert_not_planted
	[ ! -e "$WS/.git/commondir" ]
}

@test "git: core.fsmonitor planted in a submodule's git directory (.git/modules/X/config)" {
	add_submodule "$WS" sub
	r=$(sanity_repo)
	git_commit "$r" init
	add_submodule "$r" sub
	(cd "$r" && sh -c "$PLANT_FSMONITOR" _ .git/modules/sub/config "$PWNED") || true
	host_git "$r" "$r/sub"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	CONFIG_SUM=$(sha256sum <"$WS/.git/config")
	sbx sh -c "$PLANT_FSMONITOR" _ .git/modules/sub/config "$PWNED"
	assert_not_planted
	host_git "$WS" "$WS/sub"
	[ ! -e "$PWNED" ]
}

@test "git: a submodule's .git file repointed at a planted git directory" {
	add_submodule "$WS" sub
	attack='cp -a .git/modules/sub evilgit && sh -c "$2" _ evilgit/config "$1"
		git config -f evilgit/config --unset core.worktree
		printf "gitdir: ../evilgit\n" >sub/.git.new && mv -f sub/.git.new sub/.git ||
		printf "gitdir: ../evilgit\n" >sub/.git'
	r=$(sanity_repo)
	git_commit "$r" init
	add_submodule "$r" sub
	(cd "$r" && sh -c "$attack" _ "$PWNED" "$PLANT_FSMONITOR") || true
	host_git "$r" "$r/sub"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	CONFIG_SUM=$(sha256sum <"$WS/.git/config")
	sbx sh -c "$attack" _ "$PWNED" "$PLANT_FSMONITOR"
	assert_not_planted
	host_git "$WS" "$WS/sub"
	[ ! -e "$PWNED" ]
}

@test "git: a submodule's git directory created during the session (git submodule add inside)" {
	local src
	mkout src
	git -C "$src" init -q
	git_commit "$src" sub
	sbx sh -c 'git -c protocol.file.allow=always submodule add -q "$1" sub >/dev/null 2>&1
		sh -c "$3" _ .git/modules/sub/config "$2"' _ "$src" "$PWNED" "$PLANT_FSMONITOR"
	# It worked inside; what it left must not run outside.
	[ -d "$WS/sub" ]
	host_git "$WS" "$WS/sub"
	[ ! -e "$PWNED" ]
}

@test "git: a linked worktree's commondir repointed at a planted repository" {
	git_commit "$WS" init
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$WS" worktree add -q "$WS/wt" 2>/dev/null
	[ -f "$WS/.git/worktrees/wt/commondir" ]
	attack='mkdir -p evil && cp -a .git/HEAD .git/refs .git/objects evil/ && cp .git/config evil/config
		sh -c "$2" _ evil/config "$1"
		d=$PWD; cd .git/worktrees/wt && { printf "%s/evil\n" "$d" >commondir.new && mv -f commondir.new commondir ||
			printf "%s/evil\n" "$d" >commondir; }
		printf "[core]\n\tfsmonitor = \"touch %s; false\"\n" "$1" >>config.worktree'
	r=$(sanity_repo)
	git_commit "$r" init
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$r" worktree add -q "$r/wt" 2>/dev/null
	(cd "$r" && sh -c "$attack" _ "$PWNED" "$PLANT_FSMONITOR") || true
	host_status "$r/wt"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	CONFIG_SUM=$(sha256sum <"$WS/.git/config")
	sbx sh -c "$attack" _ "$PWNED" "$PLANT_FSMONITOR"
	assert_not_planted
	host_status "$WS/wt"
	[ ! -e "$PWNED" ]
}

@test "git: a .git file created in a workspace that had none names a planted git directory" {
	rm -rf "$WS/.git"
	attack='git init -q --bare evil.git >/dev/null 2>&1 || mkdir -p evil.git
		sh -c "$2" _ evil.git/config "$1"
		git config -f evil.git/config core.bare false
		printf "gitdir: evil.git\n" >.git'
	r=$(sanity_repo)
	rm -rf "$r/.git"
	(cd "$r" && sh -c "$attack" _ "$PWNED" "$PLANT_FSMONITOR") || true
	host_status "$r"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	sbx sh -c "$attack" _ "$PWNED" "$PLANT_FSMONITOR"
	host_status "$WS"
	[ ! -e "$PWNED" ]
}

@test "git: a writable root given with --write gets the same protection" {
	local other
	mkout other
	git -C "$other" init -q
	CONF2=$(sha256sum <"$other/.git/config")
	sbx_opts --write "$other" -- sh -c 'sh -c "$3" _ "$1/.git/config" "$2"
		mkdir -p "$1/.git/hooks"; printf "#!/bin/sh\ntouch %s\n" "$2" >"$1/.git/hooks/pre-commit"
		chmod +x "$1/.git/hooks/pre-commit"; echo ok >"$1/file"' _ "$other" "$PWNED" "$PLANT_FSMONITOR"
	# The root was writable...
	[ "$(cat "$other/file")" = ok ]
	# ...but not its git metadata.
	[ "$(sha256sum <"$other/.git/config")" = "$CONF2" ]
	host_git "$other"
	[ ! -e "$PWNED" ]
}

@test "git: init, commit, submodule add and worktree add still work inside" {
	local src
	mkout src
	git -C "$src" init -q
	git_commit "$src" sub
	rm -rf "$WS/.git"
	sbx sh -c 'set -e; export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
		git init -q; echo a >a; git add a
		git -c user.name=t -c user.email=t@example.invalid commit -q -m one
		git -c protocol.file.allow=always submodule add -q "$1" sub >/dev/null 2>&1
		git -c user.name=t -c user.email=t@example.invalid commit -q -m two
		git worktree add -q wt 2>/dev/null
		git -C wt status --short >/dev/null
		git log --oneline | wc -l; echo done' _ "$src"
	[ "$status" -eq 0 ]
	assert_line 2
	assert_line done
	[ -f "$WS/wt/a" ] && [ -d "$WS/sub" ]
}

@test "git: wicket why in a repository's subdirectory advises nothing that lifts a protection" {
	export XDG_STATE_HOME=$OUT/state
	mkdir -p "$WS/sub"
	attack='printf "%s\n" "$1" >"$2/.git/hooks/pre-commit"; chmod +x "$2/.git/hooks/pre-commit"
		sh -c "$3" _ "$2/.git/config" "$4"'
	(cd "$WS/sub" && bounded 30 "$WICKET" run -- sh -c "$attack" _ "$EVIL_HOOK" "$WS" \
		"$PLANT_FSMONITOR" "$PWNED") || true
	run "$WICKET" why
	echo "$output"
	assert_output --partial "write blocked: $WS/.git/hooks/pre-commit"
	# No grant lifts it: asking is for the person, outside.
	assert_output --partial "wicket ask --outside -- "
	refute_output --partial "--write $WS/.git"
	# Whatever --write it does give, followed, must not let the attack through.
	for w in $(printf '%s\n' "$output" | sed -n 's/^ *wicket run --write \([^ ]*\) .*/\1/p' | sort -u); do
		(cd "$WS/sub" && bounded 30 "$WICKET" run --write "$w" -- sh -c "$attack" _ "$EVIL_HOOK" \
			"$WS" "$PLANT_FSMONITOR" "$PWNED") || true
	done
	assert_not_planted
}

@test "git: worktree pointers that form cycles do not hang the check at exit" {
	# 200 linked worktree git directories whose commondir names the main
	# one, which lists them all again: each git directory is looked at once.
	sbx sh -c 'i=0; while [ $i -lt 200 ]; do
			mkdir -p .git/worktrees/w$i && echo ../.. >.git/worktrees/w$i/commondir
			echo "$PWD/.git/worktrees/w$((i + 1))" >.git/worktrees/w$i/gitdir
			i=$((i + 1))
		done; echo planted'
	assert_line planted
	assert_equal "$status" 0
	refute_output --partial WARNING
	# What the session created there was moved aside, nothing left to follow.
	[ ! -e "$WS/.git/worktrees/w7/commondir" ] && [ ! -e "$WS/.git/worktrees/w199/commondir" ]
	assert_not_planted
}

@test "git: more git directories than the check looks at are said out loud at the end" {
	sbx sh -c 'i=0; while [ $i -lt 300 ]; do mkdir -p .git/worktrees/w$i; i=$((i + 1)); done
		printf "[core]\n\tfsmonitor = \"touch %s; false\"\n" "$1" >.git/worktrees/w299/config.worktree' _ "$PWNED"
	assert_equal "$status" 0
	assert_output --partial "WARNING: a writable root holds too many git directories"
	assert_not_planted
}

# Nested repositories made during the session, in a subdirectory of the
# workspace: a plain `git status` run there afterwards, outside, is what a
# prompt does on `cd`.

# nested_attack ATTACK [OPTS...]: ATTACK (sh code run in the workspace with
# "$1" = the marker, "$2" = PLANT_FSMONITOR) leaves a repository whose
# config runs "touch marker" in a/b. Shown to work without the sandbox
# first; then, inside, its .git must be moved aside and said so.
nested_attack() {
	local attack=$1 r
	shift
	r=$(sanity_repo)
	(cd "$r" && sh -c "$attack" _ "$PWNED" "$PLANT_FSMONITOR") >/dev/null 2>&1 || true
	host_status "$r/a/b"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	sbx_opts "$@" -- sh -c "$attack" _ "$PWNED" "$PLANT_FSMONITOR"
	host_status "$WS/a/b"
	if [ -e "$PWNED" ]; then
		echo "ESCAPE: git on the host ran a command from a nested repository planted inside"
		false
	fi
	assert_output --partial "the session created $WS/a/b/.git"
	assert_output --partial "moved it to $WS/a/b/.git.quarantined-by-wicket-"
	assert_not_planted
}

NESTED_INIT='mkdir -p a/b && cd a/b && git init -q && sh -c "$2" _ .git/config "$1"'

@test "git: a nested repository made by git init in a subdirectory" {
	nested_attack "$NESTED_INIT"
}

@test "git: a nested repository made by git init, with --no-diagnostics" {
	nested_attack "$NESTED_INIT" --no-diagnostics
}

@test "git: a nested repository written by hand (mkdir .git and its files)" {
	nested_attack 'mkdir -p a/b/.git/objects a/b/.git/refs/heads && cd a/b/.git &&
		echo "ref: refs/heads/main" >HEAD && printf "[core]\n\trepositoryformatversion = 0\n" >config &&
		sh -c "$2" _ config "$1"'
}

@test "git: a nested repository made elsewhere and renamed to .git" {
	nested_attack 'mkdir -p a/b/x && git init -q --bare a/b/x/r && sh -c "$2" _ a/b/x/r/config "$1" &&
		git config -f a/b/x/r/config core.bare false && mv a/b/x/r a/b/.git'
}

@test "git: a nested .git symlink, and a .git file hard-linked in" {
	nested_attack 'git init -q --bare evil.git && sh -c "$2" _ evil.git/config "$1" &&
		git config -f evil.git/config core.bare false && mkdir -p a/b && ln -s ../../evil.git a/b/.git'
	rm -rf "$WS/a" "$WS/evil.git" "$WS"/*.quarantined-by-wicket-*
	nested_attack 'git init -q --bare evil.git && sh -c "$2" _ evil.git/config "$1" &&
		git config -f evil.git/config core.bare false && mkdir -p a/b &&
		printf "gitdir: %s/evil.git\n" "$PWD" >gitfile && ln gitfile a/b/.git'
}

@test "git: a nested repository in a directory made unreadable (search permission only)" {
	# git needs only to search a/b to find a/b/.git; a walk that lists
	# directories cannot read it (as a user without CAP_DAC_OVERRIDE).
	nested_attack "$NESTED_INIT"' && chmod 311 . && cd .. && mkdir c && chmod 0 c'
	chmod -R u+rwx "$WS"
	# What lies in them cannot be checked: they are moved aside.
	[ "$(id -u)" = 0 ] || {
		assert_output --partial "WARNING: 2 directories in the writable roots could not be read"
		assert_output --partial "so they were moved aside"
		[ ! -e "$WS/a/b" ] && [ ! -e "$WS/a/c" ]
	}
}

@test "git: a session that makes directories but no .git moves nothing aside" {
	mkdir -p "$WS/old/sub"
	git -C "$WS/old/sub" init -q
	# Older than the start by more than the file system's clock tick.
	sleep 0.1
	sbx sh -c 'mkdir -p x/y && echo a >x/y/f && mv x z && ln -s z l && ln z/y/f h && echo done'
	assert_line done
	refute_output --partial quarantined
	[ -z "$(find "$WS" -name '*quarantined-by-wicket*')" ]
	[ -d "$WS/old/sub/.git" ]
}

# Config files that the protected .git/config includes ([include] path,
# [includeIf "..."] path; a relative path is relative to the including
# file): as projects that share settings ask their users to set up. Git
# reads them like .git/config itself.
FSMON='printf "[core]\n\tfsmonitor = \"touch %s; false\"\n" "$1"'

@test "git: a file that .git/config includes from the work tree (include.path ../.gitconfig)" {
	printf '[alias]\n\tst = status\n' >"$WS/.gitconfig"
	git -C "$WS" config --local include.path ../.gitconfig
	sbx sh -c "$FSMON"' >>.gitconfig' _ "$PWNED"
	host_status "$WS"
	[ ! -e "$PWNED" ] || { echo "ESCAPE: git on the host ran a command from the included $WS/.gitconfig"; false; }
	if grep -q fsmonitor "$WS/.gitconfig"; then echo "the included file was changed"; false; fi
}

@test "git: an includeIf file that did not exist, and an include of an include" {
	# [includeIf "gitdir:..."] with a quoted, mixed-case section and a
	# comment; the file it names does not exist at the start.
	printf '[IncludeIf "gitdir:%s/"]  # shared\n\tPath = "../cfg/first.inc" ; here\n' "$WS" \
		>>"$WS/.git/config"
	mkdir -p "$WS/cfg"
	sbx sh -c "$FSMON"' >cfg/first.inc' _ "$PWNED"
	assert_output --partial "quarantined-by-wicket"
	host_status "$WS"
	[ ! -e "$PWNED" ] || { echo "ESCAPE: git on the host ran a command from a new included file"; false; }
	# An include of an include (relative to the including file), which
	# exists at the start: read-only like the first.
	rm -f "$WS"/cfg/first.inc*
	# With a UTF-8 byte order mark, which git skips.
	printf '\357\273\277[include]\n\tpath = second.inc\n' >"$WS/cfg/first.inc"
	: >"$WS/cfg/second.inc"
	sbx sh -c "$FSMON"' >cfg/second.inc' _ "$PWNED"
	host_status "$WS"
	[ ! -e "$PWNED" ] || { echo "ESCAPE: git on the host ran a command from an include of an include"; false; }
	[ ! -s "$WS/cfg/second.inc" ]
}

@test "git: includes that loop, name a FIFO, or a huge file do not hang or crash the start" {
	mkfifo "$WS/fifo"
	head -c 3000000 /dev/zero | tr '\0' 'x' >"$WS/huge.inc"
	printf '[include]\n\tpath = ../loop.inc\n\tpath = ../fifo\n\tpath = ../huge.inc\n' >>"$WS/.git/config"
	printf '[include]\n\tpath = loop.inc\n\tpath = "unterminated\n[include\n\tpath\n' >"$WS/loop.inc"
	sbx echo started-fine
	assert_line started-fine
	# The files that exist are protected all the same.
	sbx sh -c 'echo x >>loop.inc; echo x >>huge.inc; echo tried'
	assert_line tried
	if grep -qx x "$WS/loop.inc"; then echo "the included loop.inc was changed"; false; fi
}

@test "git attack: the repository the workspace lies in (a monorepo package): its core.hooksPath and included config in the workspace are protected" {
	# husky in a package of a monorepo: the repository's own config, outside
	# the workspace, names a hooks directory and an included file inside it.
	local mono=$OUT/mono
	git init -q -b main "$mono"
	mkdir -p "$mono/frontend/.husky/_"
	printf '#!/bin/sh\nexit 0\n' >"$mono/frontend/.husky/_/pre-commit"
	chmod 755 "$mono/frontend/.husky/_/pre-commit"
	printf '[core]\n\tautocrlf = false\n' >"$mono/frontend/git.inc"
	git -C "$mono" config core.hooksPath frontend/.husky/_
	git -C "$mono" config include.path ../frontend/git.inc
	git_commit "$mono" one
	chmod -R a+rX "$mono"
	(cd "$mono/frontend" && bounded 60 "$WICKET" run -- sh -c '
		printf "%s\n" "$1" >.husky/_/pre-commit
		printf "[core]\n\tfsmonitor = \"touch $2\"\n" >>git.inc
		mkdir -p .husky/_/new && printf "%s\n" "$1" >.husky/_/post-commit' _ "$EVIL_HOOK" "$PWNED") >/dev/null 2>&1 || true
	host_git "$mono"
	if [ -e "$PWNED" ]; then
		echo "ESCAPE: git outside ran what the sandbox wrote in the hooks or config of the enclosing repository"
		false
	fi
	grep -qx 'exit 0' "$mono/frontend/.husky/_/pre-commit"
	run ! grep -q fsmonitor "$mono/frontend/git.inc"
}

@test "git: a planted .git/commondir kept in place by taking write permission from .git (chmod 555)" {
	# The session can chmod its own directories: without write permission
	# on .git, the rename that moves the planted file aside fails, for a
	# user who is not root. wicket gives it back for the move, then puts
	# the mode the session left.
	attack='mkdir -p evil/hooks && cp -a .git/HEAD .git/refs .git/objects evil/ 2>/dev/null
		printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch %s; false\"\n" "$1" >evil/config
		echo ../evil >.git/commondir
		chmod 555 .git'
	sbx sh -c "$attack" _ "$PWNED"
	[ ! -e "$WS/.git/commondir" ]
	chmod 755 "$WS/.git"
	assert_not_planted
}
