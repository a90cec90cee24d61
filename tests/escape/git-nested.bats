#!/usr/bin/env bats
# A nested repository that git finds without any entry named .git
# (found by a red team). Git's discovery looks, in each directory from the current
# one upwards, for DIR/.git and then for DIR itself being a git directory
# (a bare repository: HEAD, objects, refs; safe.bareRepository defaults to
# "all"). autorun_check_nested (launcher/plan/autorun.c, nest_walk) moves aside
# only entries named .git made during the session, so a subdirectory of
# the workspace turned into a git directory stays, and `git status` run
# there on the host after the session (a shell prompt's, the person's)
# runs the core.fsmonitor the sandbox wrote. Judged on the host: a file
# the planted command creates outside.

load ../lib/common
load escape_helpers

setup() {
	command -v git >/dev/null || skip "git is not installed"
	esc_setup
	PWNED=$OUT/pwned
	git -C "$WS" init -q
	mkdir -p "$WS/src"
	echo 'int main(void) { return 0; }' >"$WS/src/main.c"
}

teardown() {
	escape_cleanup
	common_teardown
}

# The plant, for sh -c: $1 the directory to turn into a git directory,
# $2 the mark to make outside.
PLANT='cd "$1" && printf "ref: refs/heads/main\n" >HEAD && mkdir -p objects refs &&
	printf "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = \"touch %s; false\"\n" "$2" >config'

host_status() {
	(cd "$1" && env -i PATH=/usr/bin:/bin HOME="$OUT" GIT_CONFIG_GLOBAL=/dev/null \
		GIT_CONFIG_NOSYSTEM=1 git status --short) >/dev/null 2>&1 || true
}

@test "git nested: a subdirectory made a bare-style git directory (no .git entry): git status there outside runs nothing of it" {
	# Sanity: the same plant, made outside, is run by the host's git.
	local r
	mkout r
	mkdir "$r/src"
	sh -c "$PLANT" _ "$r/src" "$PWNED"
	host_status "$r/src"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	sbx sh -c "$PLANT" _ "$WS/src" "$PWNED"
	# What the person does after the session: git in a subdirectory.
	host_status "$WS/src"
	if [ -e "$PWNED" ]; then
		echo "ESCAPE: git on the host ran a command from a git directory planted in $WS/src"
		false
	fi
}

@test "git nested: the same plant as the workspace root itself (no .git) is moved aside" {
	rm -rf "$WS/.git"
	sbx sh -c "$PLANT" _ "$WS" "$PWNED"
	host_status "$WS"
	if [ -e "$PWNED" ]; then
		echo "ESCAPE: git on the host ran a command from a git directory planted as the workspace root"
		false
	fi
}

# A .git FILE made with open(O_CREAT) alone, in a directory that existed,
# naming a git directory made of files alone (HEAD, config, and objects
# and refs as executable files: git's is_git_directory asks only
# access(X_OK) of them). No mkdir, rename, link or symlink: the session
# never sets s->made_names (netnotify.c makes_names), so
# autorun_check_nested (autorun.c:499) skips its walk, and the nested
# .git stays.
PLANT_NOMKDIR='printf "ref: refs/heads/main\n" >evil/HEAD && : >evil/objects && : >evil/refs &&
	chmod +x evil/objects evil/refs &&
	printf "[core]\n\tbare = false\n\tfsmonitor = \"touch %s; false\"\n" "$1" >evil/config &&
	printf "gitdir: %s/evil\n" "$PWD" >a/.git'

@test "git nested: a .git file made by open() alone (no mkdir, rename, link, symlink): git status there outside runs nothing of it" {
	mkdir -p "$WS/a" "$WS/evil"
	local r
	mkout r
	mkdir -p "$r/a" "$r/evil"
	(cd "$r" && sh -c "$PLANT_NOMKDIR" _ "$PWNED")
	host_status "$r/a"
	[ -e "$PWNED" ]
	rm -f "$PWNED"
	# Older than the start by more than the file system's clock tick.
	sleep 0.1

	sbx sh -c "$PLANT_NOMKDIR" _ "$PWNED"
	host_status "$WS/a"
	if [ -e "$PWNED" ]; then
		echo "ESCAPE: git on the host ran a command from a .git file planted in $WS/a"
		false
	fi
}

@test "git nested: a git directory older than the session, whose config is a symlink to a file the session rewrites" {
	# The layout was there before (harmless: its config names nothing);
	# the session writes only the file the link points to. Git follows
	# the link.
	mkdir -p "$WS/x"
	printf '[core]\n\tbare = false\n\tworktree = .\n' >"$WS/x/conf"
	(cd "$WS/src" && printf "ref: refs/heads/main\n" >HEAD && mkdir -p objects refs && ln -s ../x/conf config)
	sleep 0.1
	sbx sh -c 'printf "[core]\n\tbare = false\n\tworktree = .\n\tfsmonitor = \"touch %s; false\"\n" "$2" >"$1/x/conf"' _ "$WS" "$PWNED"
	host_status "$WS/src"
	if [ -e "$PWNED" ]; then
		echo "ESCAPE: git on the host ran a command from a config linked into $WS/src"
		false
	fi
	# Protected from the start (the layout is there: the link's target
	# is its config), or moved aside, not removed: the person can look.
	if grep -q fsmonitor "$WS/x/conf"; then
		compgen -G "$WS/src/HEAD.quarantined-by-wicket-*" >/dev/null
	fi
	[ -e "$WS/src/main.c" ]
}

# core.hooksPath naming a directory of the work tree, as husky sets it up
# (core.hooksPath = .husky/_ since husky 9, .husky before): the hooks git
# runs on commit are work-tree files, protected like $GIT_DIR/hooks
# (found by a red team).
@test "git hooksPath: hooks under a core.hooksPath in the work tree (husky) are protected; git commit outside runs nothing of the sandbox's" {
	mkdir -p "$WS/.husky/_"
	printf '#!/bin/sh\nexit 0\n' >"$WS/.husky/_/pre-commit"
	chmod 755 "$WS/.husky/_/pre-commit"
	git -C "$WS" config --local core.hooksPath .husky/_
	sbx sh -c 'printf "#!/bin/sh\ntouch %s\n" "$1" >.husky/_/pre-commit' _ "$PWNED"
	(cd "$WS" && env -i PATH=/usr/bin:/bin HOME="$OUT" GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		git -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m x) >/dev/null 2>&1 || true
	if [ -e "$PWNED" ]; then
		echo "ESCAPE: git commit on the host ran a hook written in the sandbox under core.hooksPath"
		false
	fi
}

@test "git hooksPath: a hooks directory core.hooksPath names, made during the session, is moved aside" {
	git -C "$WS" config --local core.hooksPath .githooks
	sbx sh -c 'mkdir .githooks && printf "#!/bin/sh\ntouch %s\n" "$1" >.githooks/pre-commit && chmod 755 .githooks/pre-commit' _ "$PWNED"
	(cd "$WS" && env -i PATH=/usr/bin:/bin HOME="$OUT" GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		git -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m x) >/dev/null 2>&1 || true
	if [ -e "$PWNED" ]; then
		echo "ESCAPE: git commit on the host ran a hook made in the sandbox under core.hooksPath"
		false
	fi
	compgen -G "$WS/.githooks.quarantined-by-wicket-*" >/dev/null
}

@test "git nested: a chain of directories deeper than the walk goes does not switch the walk off for the rest" {
	# 260 levels made first, then ten repositories beside them, each with
	# a core.fsmonitor that leaves a mark outside.
	run bash -c 'cd "$1" && timeout 120 "$2" run -- sh -c '"'"'
		d=deep; i=0; while [ $i -lt 260 ]; do d=$d/d; i=$((i+1)); done; mkdir -p "$d"
		i=0; while [ $i -lt 10 ]; do
			git init -q "r$i" && git -C "r$i" config core.fsmonitor "touch $1-$i; false"
			i=$((i+1))
		done'"'"' _ "$3"' _ "$WS" "$WICKET" "$PWNED"
	assert_output --partial "deeper than 256 levels"
	local i
	for i in 0 1 2 3 4 5 6 7 8 9; do
		host_status "$WS/r$i"
	done
	if ls "$OUT" | grep -q pwned; then
		echo "ESCAPE: git outside ran a core.fsmonitor of a repository the session made"
		false
	fi
}

# A root that is a bare repository: git push into it from the session.
# PLANT_BARE (sh -c, $1 the repository, $2 the mark outside) plants what
# git run there outside would take: a hook, config, and a commondir
# naming a directory with hooks of its own.
PLANT_BARE='printf "#!/bin/sh\ntouch %s\n" "$2" >"$1/hooks/post-update"; chmod +x "$1/hooks/post-update"
	printf "[core]\n\tfsmonitor = \"touch %s; false\"\n" "$2" >>"$1/config"
	mkdir -p "$1/evil/hooks" && cp -a "$1/HEAD" "$1/objects" "$1/refs" "$1/config" "$1/evil/" &&
	printf "#!/bin/sh\ntouch %s\n" "$2" >"$1/evil/hooks/post-update" && chmod +x "$1/evil/hooks/post-update"
	echo "$1/evil" >"$1/commondir"'

# host_push REPO: a commit made outside, pushed from the workspace into
# REPO by the host's git (which runs REPO's hooks).
host_push() {
	(cd "$WS" && export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 &&
		git -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty -m "probe $RANDOM" &&
		git push -q "$1" HEAD:refs/heads/main) >/dev/null 2>&1 || true
}

@test "git nested: a writable root that is a bare repository keeps its HEAD through a push; its hooks, config and commondir stay the host's" {
	local r bare
	# Sanity: the plant, made outside, runs when the host pushes there.
	mkout r
	git init -q --bare "$r"
	sh -c "$PLANT_BARE" _ "$r" "$PWNED"
	host_push "$r"
	[ -e "$PWNED" ]
	rm -f "$PWNED"

	mkout bare
	git init -q --bare "$bare"
	(cd "$WS" && GIT_CONFIG_GLOBAL=/dev/null git -c user.name=t -c user.email=t@example.invalid \
		commit -q --allow-empty -m one)
	# The repository was one when the session started: its hooks, config
	# and commondir were kept from it, and a push changes only its refs
	# and objects; nothing of it is moved aside.
	sbx_opts --write "$bare" -- sh -c 'git push -q "$1" HEAD:refs/heads/main; echo "rc=$?"
		'"$PLANT_BARE" _ "$bare" "$PWNED"
	assert_line rc=0
	[ -f "$bare/HEAD" ]
	[ "$(git -C "$bare" rev-parse refs/heads/main)" = "$(git -C "$WS" rev-parse HEAD)" ]
	[ ! -e "$bare/commondir" ]
	host_push "$bare"
	[ "$(git -C "$bare" rev-parse refs/heads/main)" = "$(git -C "$WS" rev-parse HEAD)" ]
	if [ -e "$PWNED" ]; then
		echo "ESCAPE: git on the host ran a hook planted in a bare repository the session could write"
		false
	fi
}
