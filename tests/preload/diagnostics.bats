#!/usr/bin/env bats
# libwicket-preload, function by function (tests/preload/shimprobe.c):
# every interposed entry point names a sandbox denial in exactly one line
# of DESIGN §5, and says nothing about anything else.

load ../lib/common
load preload_helpers

setup() { shim_setup; }
teardown() { shim_teardown; }

# check_ops KIND WICKETOPTS TABLE: TABLE lines "OP|ARGS|OBJECT|WHAT"; each
# OP ARGS runs in its own sandbox and must fail (the probe prints
# "OP: ERRNAME") with exactly the line "sandbox: KIND blocked: OBJECT (WHAT
# by shimprobe[N])". All rows run; the failures are listed together.
check_ops() {
	local kind=$1 wopts=$2 table=$3 op args obj what bad=0 a
	while IFS='|' read -r op args obj what; do
		[ -n "$op" ] || continue
		read -ra a <<<"$args"
		# shellcheck disable=SC2086
		shim_run $wopts -- "$PROBE" "$op" "${a[@]}" || { bad=1; continue; }
		if [ "$status" = 0 ] || [[ $out != "$op: E"* ]]; then
			echo "FAIL $op $args: the call did not fail (exit $status, $out)"
			bad=1
			continue
		fi
		if ! expect_diag "sandbox: $kind blocked: $obj ($what by shimprobe[N])" 2>&1; then
			echo "FAIL $op $args ($out)"
			bad=1
		fi
	done <<<"$table"
	return "$bad"
}

@test "the open family names a write outside the workspace" {
	check_ops write "" "\
open-w|$OUT/new|$OUT/new|create
open-w|$OUT/f|$OUT/f|open for writing
open-a|$OUT/f|$OUT/f|open for writing
open-tmpfile|$OUT|$OUT|create
open64-w|$OUT/f|$OUT/f|open for writing
openat-w|$OUT new|$OUT/new|create
openat64-w|$OUT f|$OUT/f|open for writing
__open_2|$OUT/f|$OUT/f|open for writing
__open64_2|$OUT/f|$OUT/f|open for writing
__openat_2|$OUT f|$OUT/f|open for writing
creat|$OUT/new|$OUT/new|create
creat64|$OUT/f|$OUT/f|open for writing
fopen-w|$OUT/new|$OUT/new|create
fopen-a|$OUT/f|$OUT/f|open for writing
fopen64-w|$OUT/f|$OUT/f|open for writing
freopen-w|$OUT/new|$OUT/new|create
freopen64-w|$OUT/f|$OUT/f|open for writing
open-w|$WS/.git/config|$WS/.git/config|open for writing"
}

@test "creating, removing and renaming entries outside the workspace are named" {
	check_ops write "" "\
mkdir|$OUT/d|$OUT/d|mkdir
mkdirat|$OUT d|$OUT/d|mkdir
mknod|$OUT/n|$OUT/n|mknod
mknodat|$OUT n|$OUT/n|mknod
__xmknod|$OUT/n|$OUT/n|mknod
__xmknodat|$OUT n|$OUT/n|mknod
mkfifo|$OUT/p|$OUT/p|mkfifo
mkfifoat|$OUT p|$OUT/p|mkfifo
rmdir|$OUT/sub|$OUT/sub|rmdir
unlink|$OUT/f|$OUT/f|unlink
unlinkat|$OUT f|$OUT/f|unlink
unlinkat-dir|$OUT sub|$OUT/sub|rmdir
remove|$OUT/f|$OUT/f|remove
rename|$OUT/f $WS/g|$OUT/f|rename
rename|$WS/w $OUT/g|$OUT/g|rename
renameat|$WS/w $OUT/g|$OUT/g|rename
renameat2|$WS/w $OUT/g|$OUT/g|rename
link|$OUT/f $OUT/l|$OUT/l|link
linkat|$WS/w $OUT/l|$OUT/l|link
symlink|x $OUT/s|$OUT/s|symlink
symlinkat|x $OUT s|$OUT/s|symlink
unlink|$WS/.git/config|$WS/.git/config|unlink
rename|$WS/w $WS/.git/config|$WS/.git/config|rename"
}

@test "truncate and metadata changes outside the workspace are named" {
	check_ops write "" "\
truncate|$OUT/f|$OUT/f|truncate
truncate64|$OUT/f|$OUT/f|truncate
chmod|$OUT/f|$OUT/f|chmod
lchmod|$OUT/f|$OUT/f|chmod
fchmod|$OUT/f|$OUT/f|chmod
fchmodat|$OUT f|$OUT/f|chmod
chown|$OUT/f|$OUT/f|chown
lchown|$OUT/f|$OUT/f|chown
fchown|$OUT/f|$OUT/f|chown
fchownat|$OUT f|$OUT/f|chown
utime|$OUT/f|$OUT/f|set times
utimes|$OUT/f|$OUT/f|set times
lutimes|$OUT/f|$OUT/f|set times
futimes|$OUT/f|$OUT/f|set times
futimesat|$OUT f|$OUT/f|set times
utimensat|$OUT/f|$OUT/f|set times
futimens|$OUT/f|$OUT/f|set times
setxattr|$OUT/f|$OUT/f|set xattr
lsetxattr|$OUT/f|$OUT/f|set xattr
fsetxattr|$OUT/f|$OUT/f|set xattr
removexattr|$OUT/f|$OUT/f|remove xattr
lremovexattr|$OUT/f|$OUT/f|remove xattr
fremovexattr|$OUT/f|$OUT/f|remove xattr
chmod|$WS/.git/config|$WS/.git/config|chmod"
}

@test "temporary files outside the workspace are named by their template" {
	check_ops write "" "\
mkstemp|$OUT|$OUT/tmpXXXXXX|create
mkstemp64|$OUT|$OUT/tmpXXXXXX|create
mkstemps|$OUT|$OUT/tmpXXXXXX.c|create
mkstemps64|$OUT|$OUT/tmpXXXXXX.c|create
mkostemp|$OUT|$OUT/tmpXXXXXX|create
mkostemp64|$OUT|$OUT/tmpXXXXXX|create
mkostemps|$OUT|$OUT/tmpXXXXXX.c|create
mkostemps64|$OUT|$OUT/tmpXXXXXX.c|create
mkdtemp|$OUT|$OUT/tmpXXXXXX|mkdir"
}

@test "reading, listing and running a hidden path is named" {
	check_ops read "-P $HPOL" "\
open-r|$OUT/secret/key|$OUT/secret/key|open
openat-r|$OUT/secret key|$OUT/secret/key|open
__openat64_2|$OUT/secret key|$OUT/secret/key|open
fopen-r|$OUT/secret/key|$OUT/secret/key|open
opendir|$OUT/secret|$OUT/secret|open directory
execve|$OUT/secret/tool|$OUT/secret/tool|exec
execv|$OUT/secret/tool|$OUT/secret/tool|exec
execvpe|$OUT/secret/tool|$OUT/secret/tool|exec
execl|$OUT/secret/tool|$OUT/secret/tool|exec
execle|$OUT/secret/tool|$OUT/secret/tool|exec
execveat|$OUT/secret/tool|$OUT/secret/tool|exec
posix_spawn|$OUT/secret/tool|$OUT/secret/tool|exec"
	# A write there is a write.
	check_ops write "-P $HPOL" "open-w|$OUT/secret/key|$OUT/secret/key|open for writing"
}

@test "execvp, execlp and posix_spawnp name the candidate of PATH that was refused" {
	local a
	for a in execvp execlp posix_spawnp; do
		shim_run -P "$HPOL" -- env PATH="$OUT/secret:/usr/bin:/bin" "$PROBE" "$a" tool
		[ "$out" = "$a: EACCES" ] || { echo "$a: $out"; return 1; }
		expect_diag "sandbox: read blocked: $OUT/secret/tool (exec by shimprobe[N])"
	done
}

@test "outside a narrowed read list, reads and execs are named (fexecve too)" {
	local b pol
	b=$(realpath "$WICKET_TEST_BINDIR/..")
	pol=$OUT/read.json
	printf '{"extends": "workspace-write", "filesystem": {"read": ["/usr", "/etc", "/proc", "/dev", "%s"]}}\n' \
		"$b" >"$pol"
	chmod 644 "$pol"
	RULES=$(printf 'r /usr\nr /etc\nr /proc\nr /dev\nr %s\nw %s\nw /tmp\nn none' "$b" "$WS")
	check_ops read "-P $pol" "\
open-r|$OUT/f|$OUT/f|open
opendir|$OUT|$OUT|open directory
execve|$OUT/tool|$OUT/tool|exec
fexecve|$OUT/tool|$OUT/tool|exec"
}

@test "network mode none: an inet socket refused is named, a TCP one of the private loopback's is not" {
	# No WHAT for the network: the line is "OP OBJECT (COMM[PID])".
	shim_run -- "$PROBE" socket4raw
	[ "$out" = "socket4raw: EPERM" ]
	expect_diag "sandbox: network blocked: socket ipv4/raw (shimprobe[N])"
	shim_run -- "$PROBE" socket6raw
	expect_diag "sandbox: network blocked: socket ipv6/raw (shimprobe[N])"
	# UDP stays refused (the resolver's lookups must be explained).
	shim_run -- "$PROBE" socket6
	[ "$out" = "socket6: EPERM" ]
	expect_diag "sandbox: network blocked: socket ipv6/udp (shimprobe[N])"
	shim_run -- "$PROBE" socket4
	[ "$out" = "socket4: OK" ]
	expect_diag
	shim_run -- "$PROBE" socket-unix
	[ "$out" = "socket-unix: OK" ]
	expect_diag
}

@test "network mode ports: connect, bind and Fast Open to unlisted ports are named; listed ports are not" {
	local pol p closed
	listener "$BATS_TEST_TMPDIR/port"
	p=$(cat "$BATS_TEST_TMPDIR/port")
	closed=$(free_port)
	pol=$OUT/ports.json
	printf '{"extends": "workspace-write", "network": {"mode": "ports", "connect": [%s], "bind": []}}\n' \
		"$p" >"$pol"
	chmod 644 "$pol"
	RULES=$(printf 'r /\nw %s\nw /tmp\nn ports\nc %s' "$WS" "$p")
	shim_run -P "$pol" -- "$PROBE" connect 127.0.0.1 "$p"
	[ "$out" = "connect: OK" ] || { echo "$out $err"; return 1; }
	expect_diag
	shim_run -P "$pol" -- "$PROBE" connect 127.0.0.1 "$closed"
	[[ $out = "connect: E"* ]]
	expect_diag "sandbox: network blocked: connect 127.0.0.1:$closed/tcp (shimprobe[N])"
	shim_run -P "$pol" -- "$PROBE" connect ::1 "$closed"
	[[ $out = "connect: E"* ]]
	expect_diag "sandbox: network blocked: connect [::1]:$closed/tcp (shimprobe[N])"
	shim_run -P "$pol" -- "$PROBE" bind 127.0.0.1 "$closed"
	[ "$out" = "bind: EACCES" ]
	expect_diag "sandbox: network blocked: bind 127.0.0.1:$closed/tcp (shimprobe[N])"
	shim_run -P "$pol" -- "$PROBE" sendto 127.0.0.1 "$p"
	[ "$out" = "sendto: EPERM" ]
	expect_diag "sandbox: network blocked: sendto 127.0.0.1:$p/tcp (shimprobe[N])"
	shim_run -P "$pol" -- "$PROBE" sendmsg 127.0.0.1 "$p"
	[ "$out" = "sendmsg: EPERM" ]
	expect_diag "sandbox: network blocked: sendmsg 127.0.0.1:$p/tcp (shimprobe[N])"
	shim_run -P "$pol" -- "$PROBE" socket6
	[ "$out" = "socket6: EPERM" ]
	expect_diag "sandbox: network blocked: socket ipv6/udp (shimprobe[N])"
}

@test "network mode full: a refused connection stays silent" {
	local closed
	closed=$(free_port)
	RULES=$(printf 'r /\nw %s\nw /tmp\nn full' "$WS")
	shim_run --net full -- "$PROBE" connect 127.0.0.1 "$closed"
	[ "$out" = "connect: ECONNREFUSED" ]
	expect_diag
}

@test "Landlock's unix rules (l 1): a socket out of reach by the rules is named, one in reach stays silent" {
	# The socket refuses everyone (mode 000), so connect() fails with
	# EACCES wherever it is, the way Landlock's refusal (ABI 9) would:
	# whether the shim names it is the rules' decision (lib/classify.c).
	"$PY" -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0)' "$WS/s.sock"
	mkdir "$WS/kept"
	local conn='import errno, socket, sys
try:
    socket.socket(socket.AF_UNIX).connect(sys.argv[1])
    print("connect: OK")
except OSError as e:
    print("connect: " + errno.errorcode[e.errno])'
	RULES=$(printf 'r /\nw %s\nw /tmp\nn none\nl 1' "$WS")
	shim_run -- "$PY" -c "$conn" "$WS/s.sock"
	[ "$out" = "connect: EACCES" ]
	expect_diag
	# Not beneath a writable root: out of reach.
	RULES=$(printf 'r /\nw /tmp\nn none\nl 1')
	shim_run -- "$PY" -c "$conn" "$WS/s.sock"
	[ "$out" = "connect: EACCES" ]
	expect_diag "sandbox: network blocked: connect unix:$WS/s.sock (python3[N])"
	# A root that holds a kept host directory: Landlock grants it no
	# socket at all, the kept directory's nor its own.
	RULES=$(printf 'r /\nw %s\nk %s/kept\nn none\nl 1' "$WS" "$WS")
	shim_run -- "$PY" -c "$conn" "$WS/s.sock"
	[ "$out" = "connect: EACCES" ]
	expect_diag "sandbox: network blocked: connect unix:$WS/s.sock (python3[N])"
	# Without "l 1" the supervisor decides (and reports) unix sockets.
	RULES=$(printf 'r /\nw /tmp\nn none')
	shim_run -- "$PY" -c "$conn" "$WS/s.sock"
	[ "$out" = "connect: EACCES" ]
	expect_diag
}

@test "ordinary errors stay silent: ENOENT, EEXIST, EISDIR, ENOTDIR, EINVAL" {
	local t
	for t in "open-r $WS/nope" "open-w $WS/nodir/x" "open-r /nonexistent" "mkdir $WS" \
		"mkdir /etc" "open-w $WS" "open-w $WS/w/x" "ftruncate $WS/w" "rmdir $WS/w" \
		"unlink $WS/nope" "rename $WS/nope $WS/x" "execve $WS/nope" "execvp no-such-cmd-wk" \
		"open-r $OUT/secret-not-hidden"; do
		# shellcheck disable=SC2086
		shim_run -- "$PROBE" $t
		[[ $out == *": E"* ]] || { echo "$t did not fail: $out"; return 1; }
		expect_diag || { echo "for: $t"; return 1; }
	done
}

@test "ordinary permission errors in the workspace stay silent (mode 000, read-only directory)" {
	printf 'x\n' >"$WS/locked"
	chmod 000 "$WS/locked"
	mkdir "$WS/ro"
	printf 'x\n' >"$WS/ro/f"
	chmod 555 "$WS/ro"
	local t
	for t in "open-r $WS/locked" "open-w $WS/locked" "open-w $WS/ro/new" "mkdir $WS/ro/d" \
		"unlink $WS/ro/f" "rename $WS/ro/f $WS/x" "mkstemp $WS/ro" "execve $WS/locked"; do
		# shellcheck disable=SC2086
		shim_run -- "$PROBE" $t
		[ "$out" = "${t%% *}: EACCES" ] || { echo "$t: $out (expected EACCES)"; return 1; }
		expect_diag || { echo "for: $t"; return 1; }
	done
	chmod 755 "$WS/ro"
}

@test "writing a file of root's: the sandbox's refusal for root, silent for a user whose permissions refuse it outside too" {
	local t
	for t in "open-w /etc/hosts" "mkdir /usr/wk-dac" "chmod /etc/hosts"; do
		# shellcheck disable=SC2086
		shim_run -- "$PROBE" $t
		if is_root; then
			[[ $diag == "sandbox: write blocked: "* ]] || { echo "for: $t ($out): $diag"; return 1; }
		else
			expect_diag || { echo "for: $t ($out)"; return 1; }
		fi
	done
}

@test "reading /root and /etc/shadow stays silent (refused by their modes, if at all)" {
	local t
	for t in "opendir /root" "open-r /etc/shadow" "open-r /root/.bashrc"; do
		# shellcheck disable=SC2086
		shim_run -- "$PROBE" $t
		expect_diag || { echo "for: $t ($out)"; return 1; }
	done
	if ! is_root; then
		shim_run -- "$PROBE" open-r /etc/shadow
		[ "$out" = "open-r: EACCES" ]
	fi
}

@test "test -w, test -r and access probes stay silent" {
	shim_run -P "$HPOL" -- sh -c "test -w /etc/hosts; test -w '$OUT/f'; test -r '$OUT/secret/key'; test -x '$OUT/secret/tool'; test -w '$WS/.git/config'; echo done"
	[ "$out" = done ]
	expect_diag
	shim_run -P "$HPOL" -- bash -c "[[ -w /etc/hosts ]] || [[ -r '$OUT/secret/key' ]] || echo done"
	[ "$out" = done ]
	expect_diag
}

@test "a storm of 1000 denied writes of one path gives one line; 16 threads at once give one" {
	shim_run -- "$PROBE" loop 1000 open-w "$OUT/f"
	[ "$out" = "open-w: EROFS" ] || [ "$out" = "open-w: EACCES" ]
	expect_diag "sandbox: write blocked: $OUT/f (open for writing by shimprobe[N])"
	shim_run -- "$PROBE" threads 16 open-w "$OUT/f"
	expect_diag "sandbox: write blocked: $OUT/f (open for writing by shimprobe[N])"
	# Distinct objects are each named.
	shim_run -- sh -c "'$PROBE' mkdir '$OUT/a'; '$PROBE' mkdir '$OUT/b'"
	expect_diag "sandbox: write blocked: $OUT/a (mkdir by shimprobe[N])" \
		"sandbox: write blocked: $OUT/b (mkdir by shimprobe[N])"
}

@test "a forked child is another process: it names the denial again, with its own pid" {
	shim_run -- "$PROBE" fork unlink "$OUT/f"
	expect_diag "sandbox: write blocked: $OUT/f (unlink by shimprobe[N])" \
		"sandbox: write blocked: $OUT/f (unlink by shimprobe[N])"
	local pids
	pids=$(grep '^sandbox: ' <<<"$err" | sed -E 's/.*\[([0-9]+)\]\)$/\1/' | sort -u | wc -l)
	[ "$pids" = 2 ]
}

@test "the pid and the command name are the caller's" {
	shim_run -- bash -c "echo \$BASHPID; exec touch '$OUT/x'"
	grep -qxF "sandbox: write blocked: $OUT/x (create by touch[$out])" <<<"$err"
	shim_run -- bash -c "echo \$BASHPID; echo > '$OUT/y'"
	grep -qxF "sandbox: write blocked: $OUT/y (create by bash[$out])" <<<"$err"
}

@test "WICKET_FD: the report goes to the supervisor, which prints the line; the command's stderr stays clean" {
	SHIM_DIAG= shim_run -- bash -c "'$PROBE' mkdir '$OUT/d' 2>'$WS/cmd-err'"
	[ "$out" = "mkdir: EROFS" ] || [ "$out" = "mkdir: EACCES" ]
	expect_diag "sandbox: write blocked: $OUT/d (mkdir by shimprobe[N])"
	[ ! -s "$WS/cmd-err" ]
}

@test "WICKET_FD: one JSON packet per denial, fields escaped, the object cut, marked shown with WICKET_DIAG=stderr" {
	# The probe reports to a socket pair of the test's own at fd 9.
	local script
	script='
import os, socket, subprocess, sys
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
os.dup2(a.fileno(), 9); os.set_inheritable(9, True)
st = os.fstat(9)
env = dict(os.environ, WICKET_FD="9:%d:%d" % (st.st_dev, st.st_ino))
# The acknowledgement page of the session answers its socket, not this
# one: no report here waits for it.
env.pop("WICKET_ACK_FD", None)
for mode, path in (("", sys.argv[2] + "/q\"uo\\te\x01\udcff\u00e9"), ("stderr", sys.argv[3] + "/d")):
    env["WICKET_DIAG"] = mode
    subprocess.run([sys.argv[1], "mkdir", path], env=env, pass_fds=(9,), stdout=subprocess.DEVNULL)
b.setblocking(False)
while True:
    try:
        m = b.recv(65536)
    except BlockingIOError:
        break
    print(m.decode("utf-8"))'
	# A path longer than the shim's limit of 3600 bytes, which exists.
	local deep=$OUT i long
	for i in $(seq 18); do deep=$deep/$(printf 'L%.0s' $(seq 200)); done
	mkdir -p "$deep"
	SHIM_DIAG= shim_run -- "$PY" -c "$script" "$PROBE" "$OUT" "$deep"
	[ "$status" = 0 ]
	long=$deep/d
	long=${long:0:3600}
	[ "$(sed -n 1p <<<"$out" | sed -E 's/"pid":[0-9]+/"pid":N/')" = \
		"{\"v\":1,\"type\":\"denial\",\"kind\":\"write\",\"object\":\"$OUT/q\\\"uo\\\\te??é\",\"what\":\"mkdir\",\"comm\":\"shimprobe\",\"pid\":N}" ]
	[ "$(sed -n 2p <<<"$out" | sed -E 's/"pid":[0-9]+/"pid":N/')" = \
		"{\"v\":1,\"type\":\"denial\",\"kind\":\"write\",\"object\":\"$long...\",\"what\":\"mkdir\",\"comm\":\"shimprobe\",\"pid\":N,\"shown\":true}" ]
	[ "$(wc -l <<<"$out")" = 2 ]
	# Each packet is valid JSON.
	"$PY" -c 'import json, sys; [json.loads(l) for l in sys.stdin]' <<<"$out"
}

@test "WICKET_FD not a socket, closed, or not the launcher's: fd 2; WICKET_DIAG=off, or no socket and no fd 2: quiet" {
	SHIM_DIAG= shim_run -- bash -c "exec 9>'$WS/file'; WICKET_FD=9 '$PROBE' mkdir '$OUT/d'"
	expect_diag "sandbox: write blocked: $OUT/d (mkdir by shimprobe[N])"
	[ ! -s "$WS/file" ]
	SHIM_DIAG= shim_run -- env WICKET_FD=77 "$PROBE" mkdir "$OUT/d"
	expect_diag "sandbox: write blocked: $OUT/d (mkdir by shimprobe[N])"
	# A socket at the number, but another one than the launcher's.
	SHIM_DIAG= shim_run -- "$PY" -c '
import os, socket, subprocess, sys
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
n = int(os.environ["WICKET_FD"].split(":")[0])
os.dup2(a.fileno(), n)
subprocess.run(sys.argv[1:], pass_fds=(n,))
b.setblocking(False)
try:
    print("got", b.recv(65536))
except BlockingIOError:
    print("nothing")' "$PROBE" mkdir "$OUT/d"
	[[ $out = *nothing ]]
	expect_diag "sandbox: write blocked: $OUT/d (mkdir by shimprobe[N])"
	SHIM_DIAG=off shim_run -- "$PROBE" mkdir "$OUT/d"
	[[ $out = "mkdir: E"* ]]
	expect_diag
	[ -z "$err" ]
	shim_run -- env -u WICKET_FD sh -c "'$PROBE' mkdir '$OUT/d' 2>&-; echo status \$?"
	[[ $out = "mkdir: E"*$'\n'"status 1" ]]
	[ -z "$err" ]
}

@test "without WICKET_RULES, or with rules too large for the arena, the shim says nothing" {
	shim_run -- env -u WICKET_RULES "$PROBE" mkdir "$OUT/d"
	[[ $out = "mkdir: E"* ]]
	expect_diag
	RULES=$(printf 'r /\nw %s\n' "$WS"; head -c 70000 /dev/zero | tr '\0' x)
	shim_run -- "$PROBE" mkdir "$OUT/d"
	[[ $out = "mkdir: E"* ]]
	expect_diag
}

@test "results, errno, stdout, stderr and exit status are the same with and without the shim" {
	local script i
	script="for op in open-w:$OUT/f mkdir:$OUT/d unlink:$OUT/f chmod:$OUT/f open-r:$OUT/secret/key \
		socket4raw: rename:$WS/w:$OUT/w open-r:$WS/w mkdir:$WS/newdir utimes:$WS/w; do
		IFS=: read -r o a b <<<\"\$op\"; '$PROBE' \$o \$a \$b; echo \"rc=\$?\"; done
		echo to-stderr >&2; cat /etc/hostname; exit 7"
	plain_run -P "$HPOL" -- bash -c "$script"
	local p_out=$out p_err=$err p_status=$status
	rm -rf "$WS/newdir"
	shim_run -P "$HPOL" -- bash -c "$script"
	[ "$status" = 7 ] && [ "$status" = "$p_status" ]
	[ "$out" = "$p_out" ] || { diff <(echo "$p_out") <(echo "$out"); return 1; }
	[ "$rest" = "$p_err" ] || { diff <(echo "$p_err") <(echo "$rest"); return 1; }
	[ -n "$diag" ]
	[ "$(grep -c 'rc=1' <<<"$out")" = 7 ]
	# The shim exports only the interposed functions.
	i=$(nm -D --defined-only "$SHIM" | awk '{print $3}' | grep -vcE '^(_?_?open|__xmknod|open|creat|fopen|freopen|opendir|mk|rmdir|unlink|remove|rename|link|symlink|truncate|ftruncate|l?chmod|fchmod|l?chown|fchown|utime|lutimes|futime|setxattr|lsetxattr|fsetxattr|removexattr|lremovexattr|fremovexattr|exec|fexecve|posix_spawn|socket|connect|bind|sendto|sendmsg|_?_?close|closefrom|_?_?dup|_?_?fcntl)' || true)
	[ "$i" = 0 ]
}
