#!/usr/bin/env bats
# Denial lines that help and do not get in the way (wicket(1),
# DIAGNOSTICS and THE INTERACTIVE SHELL), each driven through a terminal
# of the test's own (tests/lib/ptydrive.py): a denial's line and the
# hooks' block come before the next prompt, every time; a full-screen
# program (alternate screen) is never drawn over, the lines wait until it
# leaves; writes to the usual history and state files in the home are
# refused without a line or a block; the shell's history survives the
# session, and what the sandbox writes into it is only ever data.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

setup() {
	WS=$(mk_workspace) && H=$(mk_outside) || return 1
	track "$WS" "$H"
	mkdir -p "$H/state" "$H/config" "$H/cache"
	export WS H WICKET
	export PYTHONPATH=$BATS_TEST_DIRNAME/../lib
}

teardown() { it_teardown; }

# drive: the python program on stdin, with ptydrive importable, bounded.
drive() { bounded 150 "$PY" - "$@"; }

@test "denials: the line and the block come before the next prompt, every time (40 commands in a row)" {
	local token
	token=$(new_token)
	guard_path "/usr/$token"-*
	printf 'PS1=%s\n' "'P\\#> '" >"$H/.bashrc"
	TOKEN=$token drive <<'EOF'
import os, re
from ptydrive import Term, check, run

def main():
    h, tok = os.environ["H"], os.environ["TOKEN"]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": h, "TERM": "xterm", "LANG": "C.UTF-8",
           "SHELL": "/bin/bash", "XDG_STATE_HOME": h + "/state", "XDG_CONFIG_HOME": h + "/config",
           "XDG_CACHE_HOME": h + "/cache"}
    t = Term([os.environ["WICKET"]], env=env, cwd=os.environ["WS"], rows=50, cols=200)
    m = t.expect(r"P(\d+)> ")
    n = int(m.group(1))
    for i in range(40):
        t.line("touch /usr/%s-%d" % (tok, i))
        start = t.pos
        n += 1
        t.expect(r"P%d> " % n)
        seen = t.out[start:t.pos].decode("utf-8", "replace")
        check(re.search(r"sandbox: write blocked: /usr/%s-%d \(create by touch\[\d+\]\)" % (tok, i), seen),
              "command %d: its denial line came after the prompt:\n%r" % (i, seen))
        check("wicket: the sandbox blocked 1 thing in that command:" in seen,
              "command %d: its block came after the prompt:\n%r" % (i, seen))
        check(seen.count("sandbox blocked") == 1, "command %d: one block:\n%r" % (i, seen))
    t.line("exit 0")
    check(t.wait() == 0, "the shell's status")

run(main)
EOF
	for i in $(seq 0 39); do [ ! -e "/usr/$token-$i" ]; done
}

# alt_screen ENTER LEAVE: a program that takes the alternate screen, is
# refused a write while it has it, and leaves it.
alt_screen() {
	local token
	token=$(new_token)
	guard_path "/usr/$token"
	TOKEN=$token ENTER=$1 LEAVE=$2 drive <<'EOF'
import os
from ptydrive import Term, check, run

def main():
    tok, enter, leave = os.environ["TOKEN"], os.environ["ENTER"], os.environ["LEAVE"]
    prog = ("import os, sys, time\n"
            "sys.stdout.write('before\\n\\033[?%sh'); sys.stdout.flush()\n"
            "try: open('/usr/%s', 'w')\n"
            "except OSError: pass\n"
            "sys.stdout.write('FULL-SCREEN'); sys.stdout.flush()\n"
            "time.sleep(1)\n"
            "sys.stdout.write('\\033[?%sl'); sys.stdout.flush()\n"
            "time.sleep(0.3)\n"
            "print('after')\n") % (enter, tok, leave)
    t = Term([os.environ["WICKET"], "run", "--", "/usr/bin/python3", "-c", prog], cwd=os.environ["WS"])
    t.expect("FULL-SCREEN")
    t.expect("after")
    t.wait()
    out = t.out
    i_in = out.index(b"\x1b[?%sh" % enter.encode())
    i_out = out.index(b"\x1b[?%sl" % leave.encode())
    line = b"sandbox: write blocked: /usr/" + tok.encode()
    check(line in out, "the denial line is shown at all")
    i_line = out.index(line)
    check(not (i_in < i_line < i_out), "the line was drawn on the alternate screen:\n%r" % out)
    check(i_line > i_out, "the line comes after the program left the alternate screen:\n%r" % out)

run(main)
EOF
	[ ! -e "/usr/$token" ]
}

@test "denials: lines wait until a full-screen program leaves the alternate screen (1049, 1047, 47)" {
	alt_screen 1049 1049
	alt_screen 1047 1047
	alt_screen 47 47
	# Entered with one, left with the other: still left.
	alt_screen 1049 47
}

@test "denials: writes to history and state files in the home: refused, no line, no block; a real one still has both" {
	local token
	token=$(new_token)
	guard_path "/usr/$token"
	mkdir -p "$H/.npm" "$H/.cache"
	printf 'PS1=%s\n' "'P\\#> '" >"$H/.bashrc"
	TOKEN=$token drive <<'EOF'
import os, re
from ptydrive import Term, check, run

def main():
    h, tok = os.environ["H"], os.environ["TOKEN"]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": h, "TERM": "xterm", "LANG": "C.UTF-8",
           "SHELL": "/bin/bash", "XDG_STATE_HOME": h + "/state", "XDG_CONFIG_HOME": h + "/config"}
    t = Term([os.environ["WICKET"]], env=env, cwd=os.environ["WS"], rows=50, cols=200)
    m = t.expect(r"P(\d+)> ")
    n = int(m.group(1))
    for f in (".bash_history", ".zsh_history", ".viminfo", ".lesshst", ".python_history",
              ".npm/_logs", ".cache/pip", ".bash_history-99.tmp"):
        t.line("touch ~/%s" % f)
        start = t.pos
        n += 1
        t.expect(r"P%d> " % n)
        seen = t.out[start:t.pos].decode("utf-8", "replace")
        check("Permission denied" in seen or "Read-only" in seen, "%s: refused:\n%r" % (f, seen))
        check("sandbox:" not in seen and "wicket:" not in seen, "%s: no line, no block:\n%r" % (f, seen))
    t.line("touch /usr/%s" % tok)
    start = t.pos
    n += 1
    t.expect(r"P%d> " % n)
    seen = t.out[start:t.pos].decode("utf-8", "replace")
    check("sandbox: write blocked: /usr/" + tok in seen, "a real denial keeps its line:\n%r" % seen)
    check("the sandbox blocked 1 thing in that command" in seen, "and its block counts it alone:\n%r" % seen)
    t.line("exit")
    t.wait()

run(main)
EOF
	for f in .bash_history .zsh_history .viminfo .lesshst .python_history .npm/_logs .cache/pip; do
		[ ! -e "$H/$f" ]
	done
	[ ! -e "/usr/$token" ]
}
