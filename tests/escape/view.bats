#!/usr/bin/env bats
# The supervisor looks at a path the sandbox gave only through the
# sandbox's eyes (lib/view.h): what it opens on a request's behalf is
# never a host file the sandbox cannot see (a FIFO or a device in a
# hidden store), and what it answers never tells whether a path exists
# where the sandbox cannot see. Judged outside: a host writer blocked on
# a FIFO, inotify on a device node, and the answers of `ask` and `why`
# compared for a present and an absent hidden file.

load ../lib/common
load escape_helpers
bats_require_minimum_version 1.5.0

setup() {
	esc_setup
	export XDG_STATE_HOME=$OUT/state
	mkdir -p "$HOME/.ssh"
	HIDDEN=$HOME/.ssh
	export WICKET PY HIDDEN
}

teardown() {
	rm -rf -- "$HIDDEN"
	escape_cleanup
	common_teardown
}

# race TARGET REQUESTS TOKENS: in a session (no terminal, so nothing is
# ever approved), a thread swaps ./x between a plain file (not
# executable) and a link to TARGET while REQUESTS `wicket ask` requests
# each name ./x TOKENS times among their arguments: each is a look the
# supervisor takes at a path whose meaning the sandbox changes under it.
race() {
	cat >"$WS/race.py" <<'EOF'
import os, subprocess, sys, threading
wicket, target, requests, tokens = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
stop = False
def swap():
    n = 0
    while not stop and n < 10**7:
        n += 1
        try:
            os.unlink("l.tmp")
        except FileNotFoundError:
            pass
        os.symlink(target, "l.tmp")
        os.rename("l.tmp", "x")
        with open("f.tmp", "w") as f:
            f.write("data\n")
        os.rename("f.tmp", "x")
t = threading.Thread(target=swap, daemon=True)
t.start()
codes = set()
for i in range(requests):
    r = subprocess.run([wicket, "ask", "--", "true"] + ["./x"] * tokens,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60)
    codes.add(r.returncode)
stop = True
t.join()
print("codes", sorted(codes))
EOF
	(cd "$WS" && bounded 300 "$WICKET" run -- "$PY" race.py "$WICKET" "$@") </dev/null
}

# forged_why DIR SUFFIX...: a session sends the supervisor a write
# denial of DIR+SUFFIX for each (packets of its own, on its control
# socket: whether such a call would be refused does not matter), then
# keeps `wicket why --json` in $WS/why.json.
forged_why() {
	(cd "$WS" && bounded 60 "$WICKET" run -- "$PY" -c '
import json, os, socket, subprocess, sys
wicket, o = sys.argv[1], sys.argv[2]
ctl = socket.socket(fileno=os.dup(int(os.environ["WICKET_FD"].split(":")[0])))
for p in sys.argv[3:]:
    ctl.send(json.dumps({"v": 1, "type": "denial", "kind": "write", "comm": "evil", "pid": 7,
                         "object": o + p}).encode())
open("why.json", "w").write(subprocess.run([wicket, "why", "--json"], capture_output=True, text=True).stdout)' "$WICKET" "$@") </dev/null
}

# ADVICE_PY: advice(E), what a denial E of why --json says of its object
# (its rule, the ways to allow it, its grant), but for its process's own
# words, which are the same for every denial of one process and name all
# the paths it tried.
ADVICE_PY='import json
def advice(e):
    fixes = [{k: v for k, v in f.items() if k != "command"} for f in e["fixes"]]
    allow = [a for a in e["allow"] if not a.startswith("wicket ask ")]
    return json.dumps({"rule": e["rule"], "fixes": fixes, "allow": allow,
                       "grant": e.get("grant"), "has_command": "command" in e})
'

# same_advice DIR A NAME_A B NAME_B: $WS/why.json explains DIR+A and DIR+B
# alike, but for their own words (the objects, NAME_A and NAME_B).
same_advice() {
	{ printf '%s\n' "$ADVICE_PY"; cat <<'EOF'; } | "$PY" - "$WS/why.json" "$@"
import json, sys
d, o, a, na, b, nb = json.load(open(sys.argv[1])), *sys.argv[2:]
def said(obj, name):
    e = [e for e in d["denials"] if e["object"] == obj]
    assert e, (obj, d)
    return advice(e[0]).replace(obj, "OBJ").replace("/" + name, "/NAME")
assert said(o + a, na) == said(o + b, nb), d
EOF
}

# watch_opens FILE: a watcher outside counts FILE's opens from now on
# (read as they come: inotify merges an event with an identical unread
# one) until watch_done; then it waits for the judge's own open.
watch_opens() {
	cat >"$OUT/watch.py" <<'EOF'
import ctypes, os, select, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_NONBLOCK)
IN_OPEN = 0x20
if fd < 0 or libc.inotify_add_watch(fd, sys.argv[1].encode(), IN_OPEN) < 0:
    sys.exit("inotify: %s" % os.strerror(ctypes.get_errno()))
out = sys.argv[2]
open(out + "/watching", "w").close()
def events(timeout):
    if not select.select([fd], [], [], timeout)[0]:
        return 0
    try:
        return len(os.read(fd, 65536)) // 16
    except BlockingIOError:
        return 0
opens = 0
for _ in range(3000):                    # 300 s at most
    opens += events(0.1)
    if os.path.exists(out + "/stop"):
        break
opens += events(0)
open(out + "/opens", "w").write("%d\n" % opens)
for _ in range(100):                     # the judge's open: 10 s at most
    if events(0.1):
        open(out + "/judged", "w").close()
        break
EOF
	rm -f "$OUT/watching" "$OUT/stop" "$OUT/opens" "$OUT/judged"
	"$PY" "$OUT/watch.py" "$1" "$OUT" &
	_ESC_PIDS+=("$!")
	WATCHED=$1
	wait_for_file "$OUT/watching"
}

# watch_done: the opens seen must be none; the judge's own is seen.
watch_done() {
	: >"$OUT/stop"
	wait_for_file "$OUT/opens"
	[ "$(cat "$OUT/opens")" = 0 ] || { echo "ESCAPE: $WATCHED was opened $(cat "$OUT/opens") times"; return 1; }
	: <"$WATCHED"
	wait_for_file "$OUT/judged"
}

@test "view: 10,000 racing looks never open a FIFO in a hidden store (its host writer stays blocked)" {
	mkfifo "$HIDDEN/pipe"
	# The writer, outside: its open of the FIFO returns only once a
	# reader opens it, and then it leaves a mark.
	(exec 3>"$HIDDEN/pipe" && : >"$OUT/released") &
	local writer=$!
	_ESC_PIDS+=("$writer")
	run race "$HIDDEN/pipe" 40 250
	echo "$output"
	assert_success
	assert_line 'codes [123]'
	if [ -e "$OUT/released" ]; then
		echo "ESCAPE: the supervisor opened the FIFO in the hidden store"
		return 1
	fi
	kill -0 "$writer"
	# The judge can tell: a reader's open (as the supervisor's would be)
	# releases the writer.
	"$PY" -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK))' "$HIDDEN/pipe"
	wait_for_file "$OUT/released"
	wait "$writer" || true
}

@test "view: racing looks never open a device node in a hidden store (inotify outside sees no open)" {
	[ "$(id -u)" = 0 ] || skip "making a device node needs root outside; the FIFO test covers an unprivileged user"
	mknod "$HIDDEN/null" c 1 3
	watch_opens "$HIDDEN/null"
	run race "$HIDDEN/null" 40 250
	echo "$output"
	assert_success
	watch_done
}

# answers PATH...: in one session, `wicket ask -- PATH` for each PATH
# (mode deny: no one is asked), each answer as "rc=N message", the path
# written as P.
answers() {
	cat >"$OUT/deny.json" <<'EOF'
{"extends": "workspace-write", "escalation": {"mode": "deny"}}
EOF
	(cd "$WS" && bounded 60 "$WICKET" run --policy "$OUT/deny.json" -- sh -c '
		wicket=$1
		shift
		for p; do
			msg=$("$wicket" ask -- "$p" 2>&1 </dev/null)
			echo "rc=$? $msg" | sed "s|$p|P|g"
		done' _ "$WICKET" "$@") </dev/null
}

@test "view: ask answers a present hidden program and an absent one the same way" {
	printf '#!/bin/sh\ntouch %s/made\n' "$OUT" >"$HIDDEN/tool"
	chmod 755 "$HIDDEN/tool"
	run answers "$HIDDEN/tool" "$HIDDEN/none" "/proc/self/root$HIDDEN/tool" \
		"/proc/self/root$HIDDEN/none" "/proc/1/root$HIDDEN/tool" "/proc/1/root$HIDDEN/none"
	echo "$output"
	assert_success
	assert_equal "${#lines[@]}" 6
	assert_equal "${lines[0]}" "${lines[1]}"
	assert_equal "${lines[2]}" "${lines[3]}"
	assert_equal "${lines[4]}" "${lines[5]}"
	[ ! -e "$OUT/made" ]
}

@test "view: why explains a denial in a hidden store the same for a present and an absent path" {
	mkdir "$HIDDEN/keys"
	: >"$HIDDEN/file"
	# Every way the sandbox can name the hidden store: refused writes
	# there, and denial packets of its own (the control socket is the
	# sandbox's) naming it through /proc/self/root, which a check of the
	# path's text misses.
	(cd "$WS" && bounded 60 "$WICKET" run -- "$PY" -c '
import json, os, socket, subprocess, sys
h, wicket = sys.argv[1], sys.argv[2]
for p in (h + "/keys/x", h + "/none/x"):
    try:
        open(p, "w")
    except OSError:
        pass
ctl = socket.socket(fileno=os.dup(int(os.environ["WICKET_FD"].split(":")[0])))
for kind in ("write", "read"):
    for p in ("/keys/x", "/none/x", "/file", "/nofile", "/keys", "/none"):
        ctl.send(json.dumps({"v": 1, "type": "denial", "kind": kind, "object": "/proc/self/root" + h + p,
                             "comm": "evil", "pid": 7}).encode())
out = subprocess.run([wicket, "why", "--json"], capture_output=True, text=True).stdout
open("why.json", "w").write(out)' "$HIDDEN" "$WICKET") </dev/null
	{ printf '%s\n' "$ADVICE_PY"; cat <<'EOF'; } | "$PY" - "$WS/why.json" "$HIDDEN"
import json, sys
d = json.load(open(sys.argv[1]))
h = sys.argv[2]
def said(obj, kind, name):
    e = [e for e in d["denials"] if e["object"] == obj and e["kind"] == kind]
    assert e, (obj, [x["object"] for x in d["denials"]])
    return advice(e[0]).replace(obj, "OBJ").replace("/" + name, "/NAME")
r = "/proc/self/root" + h
pairs = [("write", h + "/keys/x", "keys", h + "/none/x", "none")]
for kind in ("write", "read"):
    pairs += [(kind, r + "/keys/x", "keys", r + "/none/x", "none"),
              (kind, r + "/file", "file", r + "/nofile", "nofile"),
              (kind, r + "/keys", "keys", r + "/none", "none")]
for kind, a, an, b, bn in pairs:
    sa, sb = said(a, kind, an), said(b, kind, bn)
    assert sa == sb, (kind, sa, sb)
print("same")
EOF
}

@test "view: explaining a denial reads nothing a workspace's git file links to (a key in a hidden store)" {
	command -v git >/dev/null || skip "git is not installed"
	echo secret >"$HIDDEN/key"
	(cd "$WS" && git init -q)
	watch_opens "$HIDDEN/key"
	# A protected path no rule names, so its rule's origin is looked
	# for: in the workspace's git directory, whose config.worktree (an
	# absent protected path, which the session may create) is a link.
	(cd "$WS" && bounded 60 "$WICKET" run -- "$PY" -c '
import json, os, socket, subprocess, sys
h, wicket = sys.argv[1], sys.argv[2]
os.symlink(h + "/key", ".git/config.worktree")
ctl = socket.socket(fileno=os.dup(int(os.environ["WICKET_FD"].split(":")[0])))
for i in range(50):
    ctl.send(json.dumps({"v": 1, "type": "denial", "kind": "write", "comm": "evil", "pid": 7,
                         "object": os.getcwd() + "/.git/gitdir/%d" % i}).encode())
subprocess.run([wicket, "why", "--json"], stdout=subprocess.DEVNULL)
os.unlink(".git/config.worktree")' "$HIDDEN" "$WICKET") </dev/null
	watch_done
}

@test "view: a root session's ask and why tell nothing of another user's 0700 directory" {
	is_root || skip "only root is let into another user's 0700 directory outside"
	local other
	other=$(mktemp -d /var/tmp/wicket-other.XXXXXX) && _ESC_DIRS+=("$other")
	printf '#!/bin/sh\ntouch %s/made\n' "$OUT" >"$other/tool"
	chmod 755 "$other/tool"
	mkdir "$other/dir"
	chown -R nobody "$other"
	chmod 700 "$other"
	run answers "$other/tool" "$other/none"
	echo "$output"
	assert_success
	assert_equal "${lines[0]}" "${lines[1]}"
	forged_why "$other" /dir/x /nodir/x /tool /nofile
	same_advice "$other" /dir/x dir /nodir/x nodir
	same_advice "$other" /tool tool /nofile nofile
	[ ! -e "$OUT/made" ]
}

@test "view: a file beneath no read root of the policy is not opened for the sandbox (its first bytes, through a link)" {
	local priv
	priv=$(mktemp -d /var/tmp/wicket-priv.XXXXXX) && _ESC_DIRS+=("$priv")
	chmod 755 "$priv"
	printf '#!/bin/sh\necho secret\n' >"$priv/script"
	chmod 644 "$priv/script"
	# Every read root a session's tools need, and the workspace: not $priv.
	printf '{"extends": "workspace-write", "filesystem": {"read": ["/usr", "/bin", "/lib", "/lib64", "/etc", "/dev", "/proc", "%s"]}}\n' "$WS" >"$OUT/narrow.json"
	watch_opens "$priv/script"
	(cd "$WS" && bounded 60 "$WICKET" run --policy "$OUT/narrow.json" -- /bin/sh -c '
		ln -s "$1/script" l
		for i in 1 2 3; do "$2" ask -- true ./l </dev/null >/dev/null 2>&1; done
		true' _ "$priv" "$WICKET") </dev/null
	watch_done
}

@test "view: a hidden path of the user's own, closed (mode 000) at the start, stays covered: the sandbox cannot open it up" {
	mkdir "$WS/secret"
	echo "KEY-$RND" >"$WS/secret/key"
	chmod 000 "$WS/secret"
	(cd "$WS" && bounded 60 "$WICKET" run --hide "$WS/secret" -- sh -c '
		chmod 700 secret 2>/dev/null
		cat secret/key >out 2>/dev/null
		true') </dev/null
	local mode
	mode=$(stat -c %a "$WS/secret")
	chmod 700 "$WS/secret"
	[ "$mode" = 0 ] || { echo "ESCAPE: the sandbox changed the hidden directory's mode to $mode"; return 1; }
	if grep -q "KEY-$RND" "$WS/out" 2>/dev/null; then
		echo "ESCAPE: the sandbox read the hidden key"
		return 1
	fi
}

@test "view: why's advice tells nothing of a config the sandbox cannot read (a root session, another user's repository)" {
	is_root || skip "only root reads another user's mode-600 file outside"
	local other
	other=$(mktemp -d /var/tmp/wicket-other.XXXXXX) && _ESC_DIRS+=("$other")
	mkdir -p "$other/proj/.git/hooks"
	printf '[core]\n\thooksPath = %s/proj/tools/s3cret\n' "$other" >"$other/proj/.git/config"
	chown -R nobody "$other"
	chmod 755 "$other" "$other/proj" "$other/proj/.git"
	chmod 600 "$other/proj/.git/config"
	# The sandbox's root cannot read the config: a right guess of its
	# hooksPath and a wrong one must get the same advice.
	# (denial packets of the sandbox's own, on its control socket: the
	# directories named do not exist, so no call of its is refused)
	forged_why "$other" /proj/tools/s3cret/x /proj/tools/wrong/x
	same_advice "$other" /proj/tools/s3cret/x s3cret /proj/tools/wrong/x wrong
}
