#!/usr/bin/env python3
"""Prompt-to-prompt time of an empty command in the sandboxed shell, with
wicket's hooks (`wicket shell --shell bash`) and without them (`wicket run
-- bash --rcfile RC -i`: the same bash, rc file and sandbox, on the same
kind of pty), interleaved in rounds. Reports; asserts nothing.

Usage: hookbench.py WICKET WORKSPACE ROUNDS PROMPTS
Prints one line per variant: median, p25, p75 (ms per prompt), then the
difference of the medians."""
import os, pty, select, shutil, statistics, subprocess, sys, tempfile, time

wicket, ws, rounds, prompts = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
PS = b"HB> "


def session(argv, env):
    m, s = pty.openpty()
    p = subprocess.Popen(argv, stdin=s, stdout=s, stderr=s, cwd=ws, env=env,
                         start_new_session=True, close_fds=True)
    os.close(s)
    return p, m


def read_until_prompt(m, deadline):
    buf = b""
    while time.monotonic() < deadline:
        r, _, _ = select.select([m], [], [], max(0, deadline - time.monotonic()))
        if not r:
            continue
        try:
            d = os.read(m, 65536)
        except OSError:
            raise SystemExit("hookbench: the shell went away")
        buf += d
        if buf.rstrip(b"\x1b[?2004h").endswith(PS) or buf.endswith(PS):
            return
    raise SystemExit("hookbench: no prompt within the time limit")


def measure(argv, env):
    p, m = session(argv, env)
    times = []
    try:
        read_until_prompt(m, time.monotonic() + 20)
        for i in range(prompts + 5):
            t = time.perf_counter()
            os.write(m, b"\r")
            read_until_prompt(m, time.monotonic() + 10)
            if i >= 5:  # warm-up
                times.append((time.perf_counter() - t) * 1000)
        os.write(m, b"exit\r")
        p.wait(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(m)
    return times


# HOME outside the workspace: wicket refuses to make writable a directory
# that holds a HOME (its startup files run code).
home = tempfile.mkdtemp(prefix="wicket-hookbench.", dir=os.path.dirname(os.path.abspath(ws)))
rc = os.path.join(home, ".bashrc")
with open(rc, "w") as f:
    f.write("PS1='HB> '\nunset PROMPT_COMMAND\n")
env = {k: v for k, v in os.environ.items() if not k.startswith("WICKET")}
env.update(HOME=home, SHELL="/bin/bash", TERM="xterm", HISTFILE="")
variants = {
    "hooks": [wicket, "shell", "--shell", "bash"],
    "no-hooks": [wicket, "run", "--", "bash", "--rcfile", rc, "-i"],
}
res = {k: [] for k in variants}
for r in range(rounds):
    for name, argv in variants.items():
        res[name] += measure(argv, env)
for name, t in res.items():
    q = statistics.quantiles(t, n=4)
    print("%-9s %5d prompts  median %.3f ms  [%.3f..%.3f]" % (name, len(t), statistics.median(t), q[0], q[2]))
d = statistics.median(res["hooks"]) - statistics.median(res["no-hooks"])
print("hooks add %.3f ms per prompt (median against median)   target < 2 ms: %s" %
      (d, "meets" if d < 2 else "misses"))
shutil.rmtree(home)
