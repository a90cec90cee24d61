#!/usr/bin/env bats
# The session's own terminal (wicket(1), THE TERMINAL): when stdin is a
# terminal the command gets a pty of its own, is its session leader, and
# wicket relays between the real terminal (raw) and that pty. Each test
# drives wicket from a pty of its own (tests/lib/ptydrive.py), which plays
# the user's terminal: it types, reads the screen, resizes, and looks at
# its own modes from outside.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	WS=$(mk_workspace)
	track "$WS"
	export WS WICKET
	export PYTHONPATH=$BATS_TEST_DIRNAME/../lib
}

teardown() { it_teardown; }

# drive: the python program on stdin, with ptydrive importable, bounded.
drive() { bounded 90 "$PY" - "$@"; }

@test "terminal: the command's terminal is a pty of its own; the shell is its session leader with job control" {
	drive <<'EOF'
import os
from ptydrive import Term, check, run

def main():
    t = Term([os.environ["WICKET"], "run", "--", "bash", "--norc", "--noprofile", "-i"],
             cwd=os.environ["WS"], env=dict(os.environ, PS1="wk$ ", HISTFILE=""))
    outer = os.fstat(t.s)
    t.expect(r"wk\$ ")
    t.line('echo "tty=$(tty)"; echo "fd0=$(readlink /proc/self/fd/0)"; '
           'stat -L -c "id=%d:%t:%T" /proc/self/fd/0')
    tty = t.expect(r"tty=(\S+)\r\n").group(1).decode()
    fd0 = t.expect(r"fd0=(\S+)\r\n").group(1).decode()
    ident = t.expect(r"id=(\d+):([0-9a-f]+):([0-9a-f]+)\r\n")
    check(tty.startswith("/dev/pts/"), "tty inside names a pty: %s" % tty)
    check(fd0 == tty, "/proc/self/fd/0 (%s) is the tty (%s)" % (fd0, tty))
    inner = (int(ident.group(1)), int(ident.group(2), 16), int(ident.group(3), 16))
    check(inner != (outer.st_dev, os.major(outer.st_rdev), os.minor(outer.st_rdev)),
          "the command's terminal %s is not the one wicket runs on (%s)" % (inner, t.name))
    # Session leader, controlling terminal, foreground group: the shell's
    # (read is a builtin: nothing else is in the foreground meanwhile).
    t.line('read -r st </proc/$$/stat; echo "st=${st#*) }"; echo "me=$$"; ps -o tty= -p $$ | sed "s/^/ps=/"')
    st = t.expect(r"st=\S+ \d+ (\d+) (\d+) \d+ (\d+) ").groups()
    me = t.expect(r"me=(\d+)\r\n").group(1)
    ctty = t.expect(r"ps=(\S+)\r\n").group(1).decode()
    pgid, sid, tpgid = st
    check(pgid == me and sid == me, "the shell leads its session and group: %s" % (st,))
    check(tpgid == me, "the shell's group is the terminal's foreground: %s" % tpgid)
    check("/dev/" + ctty == tty, "the controlling terminal is %s: %s" % (tty, ctty))
    t.line("exit 7")
    check(t.wait() == 7, "wicket exits with the shell's status")
    check(b"no job control" not in t.out and b"Inappropriate ioctl" not in t.out, "job control is on")

run(main)
EOF
}

@test "terminal: a denial line and the summary start lines of their own where the command's output stopped mid-line" {
	# red team 12, F4: "Downloading... sandbox: write blocked: ..." and
	# "result: 42wicket: the sandbox blocked ...", on the real terminal.
	drive <<'EOF'
import os, re
from ptydrive import Term, check, run

def main():
    t = Term([os.environ["WICKET"], "run", "--", "sh", "-c",
              'printf "\033[1mDownloading foo...\033[0m "; touch /var/tmp/wk-mid 2>/dev/null; '
              'sleep 0.5; echo ok'],
             cwd=os.environ["WS"], env=os.environ)
    check(t.wait() == 0, "wicket ends with the command's status")
    out = t.out.decode(errors="replace")
    check(re.search(r"Downloading foo\.\.\.\x1b\[0m \r\nsandbox: write blocked: /var/tmp/wk-mid \(", out),
          "the denial line starts a line of its own: %r" % out)
    check(re.search(r"\r\nok\r\n", out), "the command's line goes on after it: %r" % out)
    # The summary, after the terminal is given back, where the command's
    # last output ended mid-line.
    t = Term([os.environ["WICKET"], "run", "--", "sh", "-c",
              'touch /var/tmp/wk-end 2>/dev/null; sleep 0.3; printf "result: 42"'],
             cwd=os.environ["WS"], env=os.environ)
    check(t.wait() == 0, "wicket ends with the command's status")
    out = t.out.decode(errors="replace")
    check("42wicket" not in out and re.search(r"result: 42.*\nwicket: the sandbox blocked 1 write;", out, re.S),
          "the summary starts a line of its own: %r" % out)

run(main)
EOF
}

@test "terminal: Ctrl-C interrupts the job, not the shell; Ctrl-Z stops it (not wicket), jobs lists it, fg resumes it" {
	drive <<'EOF'
import os, time
from ptydrive import Term, check, run, wait_running

def state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]

def main():
    t = Term([os.environ["WICKET"], "run", "--", "bash", "--norc", "--noprofile", "-i"],
             cwd=os.environ["WS"], env=dict(os.environ, PS1="wk$ ", HISTFILE=""))
    s1, s2 = "sleep 1%d" % t.pid, "sleep 2%d" % t.pid
    t.expect(r"wk\$ ")
    t.line(s1)
    wait_running(s1)
    t.send("\x03")
    t.expect(r"wk\$ ")
    t.line("echo after-sleep=$?")
    t.expect("after-sleep=130")
    t.expect(r"wk\$ ")
    t.line(s2)
    wait_running(s2)
    t.send("\x1a")
    t.expect(r"Stopped +" + s2)
    t.expect(r"wk\$ ")
    check(state(t.pid) != "T", "wicket itself is not stopped")
    check(state(wait_running(s2)) == "T", "the job is stopped")
    t.line("jobs")
    t.expect(r"\[1\]\+ +Stopped +" + s2)
    t.line("fg")
    t.expect(s2 + r"\r\n")
    pid = wait_running(s2)
    for _ in range(100):
        if state(pid) != "T":
            break
        time.sleep(0.05)
    check(state(pid) != "T", "fg resumed the job")
    t.send("\x03")
    t.expect(r"wk\$ ")
    t.line("echo still-$((3*3)) rc=$?")
    t.expect("still-9 rc=130")
    t.line("exit")
    check(t.wait() == 0, "a clean exit")

run(main)
EOF
}

@test "terminal: the window size is copied at start and follows a resize (SIGWINCH reaches the shell)" {
	drive <<'EOF'
import os
from ptydrive import Term, check, run

def main():
    t = Term([os.environ["WICKET"], "run", "--", "bash", "--norc", "--noprofile", "-i"],
             cwd=os.environ["WS"], env=dict(os.environ, PS1="wk$ ", HISTFILE=""), rows=33, cols=101)
    t.expect(r"wk\$ ")
    t.line("trap 'echo got-winch' WINCH; echo size=$(stty size)")
    t.expect(r"size=33 101\r\n")
    # At the prompt: bash runs a WINCH trap from readline's wait.
    t.expect(r"wk\$ ")
    t.resize(41, 123)
    t.expect("got-winch")
    t.line("echo size=$(stty size)")
    t.expect(r"size=41 123\r\n")
    t.line("exit")
    check(t.wait() == 0, "a clean exit")

run(main)
EOF
}

@test "terminal: the real terminal's modes are restored: after exit, SIGKILL of the command, SIGTERM, SIGINT and SIGHUP to wicket" {
	drive <<'EOF'
import os, signal, subprocess, termios, time
from ptydrive import Term, check, run

W = os.environ["WICKET"]
ENV = dict(os.environ, PS1="wk$ ", HISTFILE="")

def session(argv, end, want_rc, ready):
    t = Term([W, "run", "--"] + argv, cwd=os.environ["WS"], env=ENV)
    before = t.start_modes
    t.expect(ready)
    during = t.modes()
    check(not (during[3] & termios.ICANON) and not (during[3] & termios.ECHO),
          "the real terminal is raw during the session")
    end(t)
    rc = t.wait()
    check(rc == want_rc, "%s: exit %d, want %d" % (argv, rc, want_rc))
    check(t.modes() == before, "%s: the modes are back: %s != %s" % (argv, t.modes(), before))

def typed_exit(t):
    t.line("exit 3")

def kill_command(t):
    mark = "1%d" % t.pid
    t.line("exec sleep %s" % mark)
    for _ in range(100):
        r = subprocess.run(["pgrep", "-f", "^sleep %s$" % mark], capture_output=True, text=True)
        if r.stdout.split():
            os.kill(int(r.stdout.split()[0]), signal.SIGKILL)
            return
        time.sleep(0.1)
    check(False, "the sleep never started")

def to_wicket(sig):
    def end(t):
        time.sleep(0.3)
        t.kill(sig)
    return end

def main():
    bash = ["bash", "--norc", "--noprofile", "-i"]
    session(bash, typed_exit, 3, r"wk\$ ")
    session(bash, kill_command, 137, r"wk\$ ")
    sh_sleep = ["sh", "-c", "echo ready; exec sleep 100"]
    session(sh_sleep, to_wicket(signal.SIGTERM), 143, "ready")
    session(sh_sleep, to_wicket(signal.SIGINT), 130, "ready")
    # An interactive bash ignores SIGTERM; SIGHUP (the terminal went away)
    # ends it.
    session(bash, to_wicket(signal.SIGHUP), 129, r"wk\$ ")

run(main)
EOF
}

@test "terminal: kill -TSTP wicket gives the terminal back while it is stopped; SIGCONT makes it raw again" {
	drive <<'EOF'
import os, signal, termios, time
from ptydrive import Term, check, run

def state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]

def main():
    t = Term([os.environ["WICKET"], "run", "--", "sh", "-c", "echo ready; read x; echo got=$x"],
             cwd=os.environ["WS"])
    before = t.start_modes
    t.expect("ready")
    t.kill(signal.SIGTSTP)
    for _ in range(50):
        if state(t.pid) == "T":
            break
        time.sleep(0.1)
    check(state(t.pid) == "T", "wicket stopped")
    check(t.modes() == before, "the modes are back while wicket is stopped")
    t.kill(signal.SIGCONT)
    for _ in range(50):
        if not (t.modes()[3] & termios.ICANON):
            break
        time.sleep(0.1)
    check(not (t.modes()[3] & termios.ICANON), "raw again after SIGCONT")
    t.line("hello")
    t.expect("got=hello")
    check(t.wait() == 0, "a clean exit")
    check(t.modes() == before, "the modes are back at the end")

run(main)
EOF
}

@test "terminal: output written right before the command exits arrives complete" {
	drive <<'EOF'
import os, re, time
from ptydrive import Term, check, run

def lines_ok(t, what, n=20000):
    screen = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", t.out)
    nums = [int(x) for x in re.findall(rb"(?m)^\r?(\d+)\r$", screen)]
    check(nums[-n:] == list(range(1, n + 1)), "%s: %d numbers, last %s" % (what, len(nums), nums[-1:]))

def main():
    # A terminal that does not read for a moment: every buffer on the way
    # fills, and much of the output is still inside the pty when seq ends.
    t = Term([os.environ["WICKET"], "run", "--", "seq", "1", "50000"], cwd=os.environ["WS"])
    time.sleep(1.5)
    check(t.wait() == 0, "seq exits 0")
    lines_ok(t, "seq as the command", 50000)
    t = Term([os.environ["WICKET"], "run", "--", "bash", "--norc", "--noprofile", "-i"],
             cwd=os.environ["WS"], env=dict(os.environ, PS1="wk$ ", HISTFILE=""))
    t.expect(r"wk\$ ")
    t.line("seq 1 20000; exit")
    check(t.wait() == 0, "the shell exits 0")
    lines_ok(t, "seq; exit in the shell")

run(main)
EOF
}

@test "terminal: keystrokes reach the command, also typed before the sandbox is up; a full-screen program (less) opens and quits" {
	command -v less >/dev/null || skip "less is not installed"
	printf 'line %s\n' $(seq 1 200) >"$WS/long.txt"
	drive <<'EOF'
import os
from ptydrive import Term, check, run

def main():
    t = Term([os.environ["WICKET"], "run", "--", "sh", "-c", "read x; echo got=$x"], cwd=os.environ["WS"])
    t.line("early")
    t.expect("got=early")
    check(t.wait() == 0, "read and exit")
    t = Term([os.environ["WICKET"], "run", "--", "less", "long.txt"], cwd=os.environ["WS"],
             env=dict(os.environ, TERM="xterm", LESS=""), rows=20, cols=80)
    t.expect("line 19")
    check(b"line 40" not in t.out, "one screenful")
    t.send(" ")
    t.expect("line 38")
    t.send("q")
    check(t.wait() == 0, "less quits")

run(main)
EOF
}

@test "terminal: stdin a terminal, stdout a file: stdout is written to the file directly, the rest goes through the pty" {
	drive <<'EOF'
import os
from ptydrive import Term, check, run

def main():
    out = os.path.join(os.environ["WS"], "out.txt")
    t = Term([os.environ["WICKET"], "run", "--", "sh", "-c",
              'tty; [ -t 1 ] || echo stdout-not-tty; echo to-err >&2; read x; echo "got=$x" >&2'],
             cwd=os.environ["WS"], stdout=out)
    t.expect("to-err")
    t.line("typed")
    t.expect("got=typed")
    check(t.wait() == 0, "exit 0")
    with open(out, "rb") as f:
        data = f.read()
    check(data.startswith(b"/dev/pts/") and b"\nstdout-not-tty\n" in data and b"\r" not in data,
          "the file holds the command's stdout as written: %r" % data)

run(main)
EOF
}

@test "terminal: the supervisor's own lines (a denial) end with CR LF on the raw terminal" {
	local token
	token=$(new_token)
	guard_path "/var/tmp/$token"
	TOKEN=$token drive <<'EOF'
import os
from ptydrive import Term, check, run

def main():
    tok = os.environ["TOKEN"]
    t = Term([os.environ["WICKET"], "run", "--", "sh", "-c", "touch /var/tmp/%s 2>/dev/null; sleep 0.5; echo done" % tok],
             cwd=os.environ["WS"])
    t.expect("sandbox: write blocked: /var/tmp/%s[^\r\n]*\r\n" % tok)
    t.expect("done")
    t.wait()

run(main)
EOF
}

@test "terminal: without a terminal on stdin nothing changes: pipes and files pass through, no pty" {
	run --separate-stderr bounded 30 bash -c 'cd "$WS" && printf "tty\necho piped\n" | "$WICKET" run -- sh'
	assert_equal "$status" 0
	assert_equal "$output" "not a tty
piped"
	printf 'from-file\n' >"$WS/in.txt"
	run --separate-stderr bounded 30 bash -c 'cd "$WS" && "$WICKET" run -- sh -c "cat; tty" <in.txt'
	assert_equal "$output" "from-file
not a tty"
}

@test "terminal: bare 'wicket' (the shell) gets the pty too" {
	local home
	home=$(mk_outside)
	track "$home"
	printf 'PS1="wk\\$ "\nunset HISTFILE\n' >"$home/.bashrc"
	HOME_DIR=$home drive <<'EOF'
import os
from ptydrive import Term, check, run

def main():
    t = Term([os.environ["WICKET"]], cwd=os.environ["WS"],
             env=dict(os.environ, HOME=os.environ["HOME_DIR"], SHELL="/bin/bash"))
    outer = os.fstat(t.s)
    t.expect(r"wk\$ ")
    t.line('stat -L -c "id=%d:%t:%T" /proc/self/fd/0; read -r st </proc/$$/stat; echo "st=${st#*) }"; echo "me=$$"')
    ident = t.expect(r"id=(\d+):([0-9a-f]+):([0-9a-f]+)\r\n")
    st = t.expect(r"st=\S+ \d+ (\d+) (\d+) \d+ (\d+) ").groups()
    me = t.expect(r"me=(\d+)\r\n").group(1)
    inner = (int(ident.group(1)), int(ident.group(2), 16), int(ident.group(3), 16))
    check(inner != (outer.st_dev, os.major(outer.st_rdev), os.minor(outer.st_rdev)), "a pty of its own")
    check(st == (me, me, me), "session leader, foreground: %s" % (st,))
    t.line("exit 4")
    check(t.wait() == 4, "the shell's status")

run(main)
EOF
}

@test "terminal: without a mount namespace (--best-effort) the pty is one of the host's, still the command's own" {
	WICKET_PRETEND_MISSING=namespaces bounded 30 "$WICKET" run --best-effort -- true </dev/null 2>/dev/null ||
		skip "this user cannot run a session without namespaces here"
	drive <<'EOF'
import os
from ptydrive import Term, check, run

def main():
    t = Term([os.environ["WICKET"], "run", "--best-effort", "--", "bash", "--norc", "--noprofile", "-i"],
             cwd=os.environ["WS"], env=dict(os.environ, PS1="wk$ ", HISTFILE="", WICKET_PRETEND_MISSING="namespaces"))
    t.expect(r"wk\$ ")
    t.line('echo "tty=$(tty)"; read -r st </proc/$$/stat; echo "st=${st#*) }"; echo "me=$$"')
    tty = t.expect(r"tty=(\S+)\r\n").group(1).decode()
    st = t.expect(r"st=\S+ \d+ (\d+) (\d+) \d+ (\d+) ").groups()
    me = t.expect(r"me=(\d+)\r\n").group(1)
    check(tty.startswith("/dev/pts/") and tty != t.name, "a pty of its own: %s (wicket's: %s)" % (tty, t.name))
    check(st == (me, me, me), "session leader, foreground: %s" % (st,))
    t.line("exit")
    check(t.wait() == 0, "exit 0")

run(main)
EOF
}

@test "terminal: vim edits a file; a large paste reaches the command complete" {
	command -v vim >/dev/null || skip "vim is not installed"
	drive <<'EOF'
import os, time
from ptydrive import Term, check, run

def main():
    ws = os.environ["WS"]
    t = Term([os.environ["WICKET"], "run", "--", "vim", "-u", "NONE", "-i", "NONE", "-N", "note.txt"],
             cwd=ws, env=dict(os.environ, TERM="xterm"), rows=24, cols=80)
    t.expect(r"note\.txt")
    time.sleep(0.3)
    t.send("ihello from vim\x1b")
    time.sleep(0.3)
    t.send(":wq\r")
    check(t.wait() == 0, "vim exits 0")
    with open(os.path.join(ws, "note.txt")) as f:
        check(f.read() == "hello from vim\n", "the file vim wrote")
    # 300 kB typed at once, through every buffer on the way; raw on the
    # pty so no line limit applies.
    t = Term([os.environ["WICKET"], "run", "--", "sh", "-c",
              "stty raw -echo; echo ready; head -c 300000 >paste; stty sane; echo got=$(wc -c <paste)"], cwd=ws)
    t.expect("ready")
    data = bytes((i * 7 + 13) % 26 + 97 for i in range(300000))
    for i in range(0, len(data), 4096):
        t.send(data[i:i + 4096])
        t._read(0)
    t.expect(r"got=300000")
    check(t.wait() == 0, "exit 0")
    with open(os.path.join(ws, "paste"), "rb") as f:
        check(f.read() == data, "the paste arrived byte for byte")

run(main)
EOF
}

@test "terminal: stdout on the terminal, stdin not: output-only pty; the terminal stays cooked, Ctrl-C and Ctrl-\\ reach the command, the size follows" {
	drive <<'EOF'
import os, termios
from ptydrive import Term, check, run, wait_running

def main():
    inner = ('trap "echo got-int" INT; trap "echo got-quit; exit 7" QUIT; '
             't1=n; [ -t 1 ] && t1=y; echo "size=$(stty -F /dev/tty size) isatty=$t1"; '
             'trap "echo size2=\\$(stty -F /dev/tty size)" WINCH; echo ready; '
             'i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done')
    t = Term(["sh", "-c", 'exec "$0" run -- sh -c "$1" </dev/null', os.environ["WICKET"], inner],
             cwd=os.environ["WS"], rows=33, cols=101)
    before = t.start_modes
    t.expect(r"size=33 101 isatty=y\r\n")
    t.expect("ready")
    during = t.modes()
    check(during == before, "the real terminal's modes are untouched during the session (not raw)")
    check(during[3] & termios.ICANON and during[3] & termios.ISIG, "the real terminal is cooked")
    t.resize(41, 123)
    t.expect(r"size2=41 123\r\n")
    t.send("\x03")
    t.expect(r"got-int\r\n")
    t.send("\x1c")
    t.expect(r"got-quit\r\n")
    check(t.wait() == 7, "the command's status: it handled SIGINT, then exited on SIGQUIT")
    check(b"\r\r\n" not in t.out, "each line ends with one CR LF (the pty passes bytes unchanged)")

run(main)
EOF
}

@test "terminal: no stream on the terminal: Ctrl-C typed there still reaches the command (which has no controlling terminal)" {
	drive <<'EOF'
import os
from ptydrive import Term, check, run, wait_running

def main():
    ws = os.environ["WS"]
    inner = ('trap "echo got-int >int.log; exit 9" INT; '
             '( exec 3<>/dev/tty ) 2>/dev/null && echo has-tty >tty.log; '
             'echo ready >ready.log; i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done')
    t = Term(["sh", "-c", 'exec "$0" run -- sh -c "$1" </dev/null >/dev/null 2>&1', os.environ["WICKET"], inner],
             cwd=ws)
    for _ in range(200):
        if os.path.exists(os.path.join(ws, "ready.log")):
            break
        t._read(0.05)
    check(os.path.exists(os.path.join(ws, "ready.log")), "the command runs")
    t.send("\x03")
    check(t.wait() == 9, "the command's status after its INT trap")
    with open(os.path.join(ws, "int.log")) as f:
        log = f.read()
    check(log == "got-int\n", "the command got SIGINT: %r" % log)
    check(not os.path.exists(os.path.join(ws, "tty.log")), "the command had no controlling terminal")

run(main)
EOF
}

@test "terminal: the reset after a session that drew sends no NUL byte to the terminal" {
	# Red team 14: the tab stops' reset copied the string's terminating
	# NUL onto the real terminal, at every session end that drew and
	# every question.
	drive <<'EOF'
import os
from ptydrive import Term, check, run

def main():
    t = Term([os.environ["WICKET"], "run", "--", "printf", "\033[3gdrawn\n"],
             cwd=os.environ["WS"], env=os.environ)
    check(t.wait() == 0, "wicket ends with the command's status")
    t.expect(r"drawn")
    check(b"\0337\r\033[3g" in t.out, "the reset was sent: %r" % t.out[-200:])
    check(b"\0" not in t.out, "no NUL byte reached the terminal: %r" % t.out[-200:])

run(main)
EOF
}
