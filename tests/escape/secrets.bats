#!/usr/bin/env bats
# Secrets reaching the sandbox: credential environment variables and the
# secret stores under $HOME (a fake HOME the test sets up). Judged on the
# host: nothing the sandbox can print or write into the workspace may
# contain the secret, and the stores are not written.

load ../lib/common
load escape_helpers

setup() {
	esc_setup
	FH=$OUT/home
	mkdir -p "$FH/.ssh" "$FH/.aws" "$FH/.docker" "$FH/.config/gh" "$FH/.kube" "$FH/.gnupg/private-keys-v1.d"
	KEY="PRIVATE-KEY-$RND"
	printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$KEY" >"$FH/.ssh/id_ed25519"
	printf 'ssh-ed25519 AAAA user@host\n' >"$FH/.ssh/authorized_keys"
	printf '[default]\naws_secret_access_key = AWS-%s\n' "$RND" >"$FH/.aws/credentials"
	printf 'machine example.com login me password NETRC-%s\n' "$RND" >"$FH/.netrc"
	printf 'https://me:GITCRED-%s@example.com\n' "$RND" >"$FH/.git-credentials"
	printf '{"auths":{"x":{"auth":"DOCKER-%s"}}}\n' "$RND" >"$FH/.docker/config.json"
	printf 'github.com:\n  oauth_token: GH-%s\n' "$RND" >"$FH/.config/gh/hosts.yml"
	printf 'users:\n- user:\n    token: KUBE-%s\n' "$RND" >"$FH/.kube/config"
	printf 'GPG-%s\n' "$RND" >"$FH/.gnupg/private-keys-v1.d/x.key"
	chmod 600 "$FH/.ssh/id_ed25519"
}

teardown() {
	escape_cleanup
	common_teardown
}

# every_secret_read: a command that tries every path to the stores and
# copies what it gets into the workspace as well.
ATTACK='
	echo "home=$HOME"
	for f in .ssh/id_ed25519 .aws/credentials .netrc .git-credentials .docker/config.json \
		.config/gh/hosts.yml .kube/config .gnupg/private-keys-v1.d/x.key; do
		cat "$HOME/$f" "/proc/self/root$HOME/$f" "$HOME/./$f" 2>/dev/null
		cat "$HOME/$f" >>"$PWD/leak" 2>/dev/null
	done
	grep -r -a -h -s -e PRIVATE-KEY -e NETRC- -e GITCRED- "$HOME" 2>/dev/null
	find "$HOME" -name "*.key" -exec cat {} + 2>/dev/null
	tar -cf - -C "$HOME" . 2>/dev/null | grep -a -o -e "PRIVATE-KEY-[a-z0-9x]*" -e "AWS-[a-z0-9x]*"
	cp -r "$HOME" "$PWD/homecopy" 2>/dev/null; true'

assert_no_secret() { # TEXT...: none of the fake secrets in TEXT
	local s
	for s in "$KEY" "AWS-$RND" "NETRC-$RND" "GITCRED-$RND" "DOCKER-$RND" "GH-$RND" "KUBE-$RND" "GPG-$RND"; do
		case $* in *"$s"*)
			echo "ESCAPE: secret $s reached the sandbox"
			return 1
			;;
		esac
	done
}

assert_workspace_clean() {
	local all
	all=$(cat -- "$WS"/leak 2>/dev/null; grep -r -a -h -s . "$WS" 2>/dev/null || true)
	assert_no_secret "$all"
}

@test "secrets: credential environment variables are removed" {
	vars=(GITHUB_TOKEN AWS_SECRET_ACCESS_KEY AWS_ACCESS_KEY_ID OPENAI_API_KEY ANTHROPIC_API_KEY
		DB_PASSWORD NPM_TOKEN GH_TOKEN SSH_AUTH_SOCK VAULT_TOKEN MY_SERVICE_SECRET GOOGLE_APPLICATION_CREDENTIALS
		DATABASE_URL PGPASSWORD MYSQL_PWD GITHUB_PAT PASSWORD PRIVATE_KEY SECRET_KEY_BASE OPENAI_KEY
		SLACK_WEBHOOK_URL OP_SESSION_my OP_SESSION_team42 REPLICA_DATABASE_URL)
	envs=()
	for v in "${vars[@]}"; do envs+=("$v=VAL-$v-$RND"); done
	run env "${envs[@]}" sh -c 'env'
	for v in "${vars[@]}"; do assert_output --partial "VAL-$v-$RND"; done

	output=$(cd "$WS" && export "${envs[@]}" && bounded 30 "$WICKET" run -- sh -c '
		echo "wicket-escape: started as pid $$"; env; env >env.txt; tr "\0" "\n" </proc/self/environ' 2>&1) || true
	echo "$output"
	sandbox_started "$output"
	refute_output --partial "-$RND"
	run cat "$WS/env.txt"
	refute_output --partial "-$RND"
}

@test "secrets: the unscrubbed environment of the supervisor and init (pid 1) through /proc" {
	# init is a fork of the supervisor: its /proc/1/environ is the
	# caller's environment, secrets included, unless access is refused.
	output=$(cd "$WS" && export "GITHUB_TOKEN=TOK-$RND" "AWS_SECRET_ACCESS_KEY=AWS-$RND" && bounded 30 "$WICKET" run -- sh -c '
		echo "wicket-escape: started as pid $$"
		for p in /proc/[0-9]*; do cat "$p/environ" "$p/cmdline" 2>/dev/null | tr "\0" "\n"; done
		tr "\0" "\n" </proc/1/environ >leak1 2>/dev/null; cat /proc/self/task/*/environ 2>/dev/null' 2>&1) || true
	echo "$output"
	sandbox_started "$output"
	refute_output --partial "TOK-$RND"
	refute_output --partial "AWS-$RND"
	run cat "$WS/leak1"
	refute_output --partial "TOK-$RND"
}

@test "secrets: ~/.ssh/id_ed25519 and the other stores of a fake HOME are unreadable" {
	mkout scratch
	run env HOME="$FH" sh -c "cd '$scratch' && $ATTACK"
	assert_output --partial "$KEY"

	HOME=$FH sbx sh -c "$ATTACK"
	assert_line "home=$FH"
	assert_no_secret "$output"
	assert_workspace_clean
}

@test "secrets: symlinks to the secret stores planted in the workspace" {
	ln -s "$FH/.ssh/id_ed25519" "$WS/key-link"
	ln -s "$FH/.ssh" "$WS/ssh-dir"
	ln -s "$FH/.netrc" "$WS/netrc-link"
	HOME=$FH sbx sh -c 'cat key-link ssh-dir/id_ed25519 netrc-link; cp -L key-link copy; tar -chf - . | strings'
	assert_no_secret "$output"
	rm -f "$WS/key-link" "$WS/ssh-dir" "$WS/netrc-link"
	assert_workspace_clean
}

@test "secrets: writing into the secret stores (authorized_keys, .netrc)" {
	before_ak=$(sha256sum <"$FH/.ssh/authorized_keys")
	before_netrc=$(sha256sum <"$FH/.netrc")
	HOME=$FH sbx sh -c '
		echo "ssh-ed25519 EVIL attacker" >>"$HOME/.ssh/authorized_keys"
		echo "ssh-ed25519 EVIL attacker" >"$HOME/.ssh/authorized_keys2"
		echo "machine evil login x password y" >"$HOME/.netrc"
		mv "$HOME/.ssh" "$HOME/.ssh.old"; mkdir -p "$HOME/.ssh"; rm -f "$HOME/.aws/credentials"'
	[ "$(sha256sum <"$FH/.ssh/authorized_keys")" = "$before_ak" ]
	[ "$(sha256sum <"$FH/.netrc")" = "$before_netrc" ]
	[ ! -e "$FH/.ssh/authorized_keys2" ]
	[ ! -e "$FH/.ssh.old" ]
	[ -f "$FH/.aws/credentials" ]
}

@test "secrets: open_by_handle_at of the key behind its cover" {
	need_probe fsprobe
	fp=$(probe fsprobe)
	# The handle is made outside (name_to_handle_at needs no privilege)
	# and handed in: decoding it would skip the path, and the cover.
	"$fp" handle-save "$FH/.ssh/id_ed25519" "$WS/handle"
	if is_root; then
		run "$fp" handle-open / "$WS/handle"
		assert_output --partial "$KEY"
	fi
	HOME=$FH sbx sh -c '"$1" handle-open / handle; "$1" handle-open "$2" handle; "$1" handle-open . handle' _ "$fp" "$OUT"
	assert_line "handle-open: EPERM"
	assert_no_secret "$output"
}

@test "secrets: a descriptor of HOME inherited from the caller does not uncover the stores" {
	# The caller leaks a descriptor of its home directory; the covers are
	# mounts on the sandbox's paths, and a descriptor opened before them
	# does not go through them.
	run sh -c 'cat /proc/self/fd/7/.ssh/id_ed25519' 7<"$FH"
	assert_output --partial "$KEY"

	HOME=$FH sbx sh -c 'cat /proc/self/fd/7/.ssh/id_ed25519 /proc/self/fd/7/.netrc; cat /dev/fd/7/.aws/credentials' 7<"$FH"
	assert_no_secret "$output"
}

# hidden_store REL: $FH/REL holds a secret (REL ending in / is a
# directory: a browser profile, a store, with a file inside); the same
# attack reads, copies and overwrites it inside. Judged outside: the
# secret is in nothing the sandbox printed or wrote, and the store is
# intact. Shown readable outside first.
hidden_store() {
	local rel=${1%/} path f before
	path=$FH/$rel
	f=$path
	mkdir -p "$(dirname "$path")"
	if [ "$1" != "$rel" ]; then
		mkdir -p "$path/profile"
		f=$path/profile/logins.json
	fi
	printf 'STORE-%s\n' "$RND" >"$f"
	chmod 600 "$f"
	run cat "$f"
	assert_output "STORE-$RND"
	before=$(sha256sum <"$f")
	HOME=$FH sbx sh -c '
		cat "$1" "/proc/self/root$1" "$HOME/./${1#"$HOME"/}" 2>&1
		cat "$1" >"$PWD/leak" 2>/dev/null
		cp -r "$2" "$PWD/copy" 2>/dev/null
		grep -r -a -h -s STORE- "$HOME" 2>/dev/null
		echo overwritten >"$1" 2>/dev/null; rm -rf "$2" 2>/dev/null; true' _ "$f" "$path"
	refute_output --partial "STORE-$RND"
	run grep -r -a -s "STORE-$RND" "$WS"
	assert_failure
	[ "$(sha256sum <"$f")" = "$before" ]
}

@test "secrets: ~/.config/git/credentials is hidden" { hidden_store .config/git/credentials; }
@test "secrets: ~/.git-credentials is hidden" { hidden_store .git-credentials; }
@test "secrets: ~/.config/containers/auth.json is hidden" { hidden_store .config/containers/auth.json; }
@test "secrets: ~/.docker/config.json is hidden" { hidden_store .docker/config.json; }
@test "secrets: ~/.codex/auth.json is hidden" { hidden_store .codex/auth.json; }
@test "secrets: ~/.claude/.credentials.json is hidden" { hidden_store .claude/.credentials.json; }
@test "secrets: ~/.cache/huggingface/token is hidden" { hidden_store .cache/huggingface/token; }
@test "secrets: ~/.huggingface/token is hidden" { hidden_store .huggingface/token; }
@test "secrets: ~/.config/rclone/rclone.conf is hidden" { hidden_store .config/rclone/rclone.conf; }
@test "secrets: ~/.my.cnf is hidden" { hidden_store .my.cnf; }
@test "secrets: ~/.m2/settings.xml is hidden" { hidden_store .m2/settings.xml; }
@test "secrets: ~/.gradle/gradle.properties is hidden" { hidden_store .gradle/gradle.properties; }
@test "secrets: ~/.gem/credentials is hidden" { hidden_store .gem/credentials; }
@test "secrets: the Firefox profiles (~/.mozilla) are hidden" { hidden_store .mozilla/; }
@test "secrets: the Thunderbird profiles (~/.thunderbird) are hidden" { hidden_store .thunderbird/; }
@test "secrets: the Chrome profiles (~/.config/google-chrome) are hidden" { hidden_store .config/google-chrome/; }
@test "secrets: the Chromium profiles (~/.config/chromium) are hidden" { hidden_store .config/chromium/; }
@test "secrets: the Brave profiles (~/.config/BraveSoftware) are hidden" { hidden_store .config/BraveSoftware/; }
@test "secrets: the Edge profiles (~/.config/microsoft-edge) are hidden" { hidden_store .config/microsoft-edge/; }
@test "secrets: the Vivaldi profiles (~/.config/vivaldi) are hidden" { hidden_store .config/vivaldi/; }
@test "secrets: the Opera profiles (~/.config/opera) are hidden" { hidden_store .config/opera/; }
@test "secrets: the password store (~/.password-store) is hidden" { hidden_store .password-store/; }
@test "secrets: the keyrings (~/.local/share/keyrings) are hidden" { hidden_store .local/share/keyrings/; }

# hidden_system FILE: as root FILE (shadow, gshadow and their backups) is
# readable outside; inside it is not, and it stays intact.
hidden_system() {
	is_root || skip "only root reads $1 outside: nothing to hide from $(id -un)"
	[ -e "$1" ] || skip "$1 does not exist on this host"
	local marker before
	marker=$(head -n 1 "$1")
	[ -n "$marker" ]
	before=$(sha256sum <"$1")
	sbx sh -c 'cat "$1" "/proc/self/root$1" 2>&1; cat "$1" >leak 2>/dev/null; true' _ "$1"
	refute_output --partial "$marker"
	run grep -F -s -- "$marker" "$WS/leak"
	assert_failure
	[ "$(sha256sum <"$1")" = "$before" ]
}

@test "secrets: /etc/shadow is hidden as root" { hidden_system /etc/shadow; }
@test "secrets: /etc/gshadow is hidden as root" { hidden_system /etc/gshadow; }
@test "secrets: /etc/shadow- (the backup) is hidden as root" { hidden_system /etc/shadow-; }
@test "secrets: /etc/gshadow- (the backup) is hidden as root" { hidden_system /etc/gshadow-; }

@test "secrets: ordinary variables pass (PWD, OLDPWD, MANPATH, a *_URL, a *_PATH)" {
	output=$(cd "$WS" && export OLDPWD="/old-$RND" MANPATH="/man-$RND" HOMEPAGE_URL="http://h-$RND" \
		PKG_CONFIG_PATH="/pc-$RND" && bounded 30 "$WICKET" run -- sh -c '
		echo "wicket-escape: started as pid $$"
		env | grep -E "^(OLDPWD|MANPATH|HOMEPAGE_URL|PKG_CONFIG_PATH|PWD)="' 2>&1) || true
	echo "$output"
	mapfile -t lines <<<"$output"
	sandbox_started "$output"
	assert_line "OLDPWD=/old-$RND"
	assert_line "MANPATH=/man-$RND"
	assert_line "HOMEPAGE_URL=http://h-$RND"
	assert_line "PKG_CONFIG_PATH=/pc-$RND"
	assert_line "PWD=$WS"
}
