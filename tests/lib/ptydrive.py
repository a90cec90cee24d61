"""A terminal for the tests, as a terminal emulator would be one.

Term(argv) runs argv as the session leader of a fresh pty that the test
holds both ends of: the master to type into and read the screen from, the
slave to look at the terminal's modes and size from outside (what `stty -g`
on that terminal would say). Everything is bounded: each wait has a
timeout, and a Term that is not waited for is killed (by pid) at exit.

Used from bats as
    PYTHONPATH=$BATS_TEST_DIRNAME/../lib bounded 60 "$PY" - <<'EOF'
    from ptydrive import Term, check
    ...
    EOF
A failed check raises; the exception and the transcript go to stderr and
the exit status is 1.
"""
import atexit
import fcntl
import os
import re
import select
import signal
import struct
import sys
import termios
import time

_live = []


def _cleanup():
    for t in _live:
        if t.status is None:
            try:
                os.kill(t.pid, signal.SIGKILL)
                os.waitpid(t.pid, 0)
            except OSError:
                pass


atexit.register(_cleanup)


class Failed(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failed(what)


def wait_running(args, timeout=20):
    """Wait until a process whose command line is exactly ARGS (a string)
    exists, so that a keystroke meant for it does not reach the shell
    first; returns its pid."""
    end = time.time() + timeout
    want = args.encode()
    while time.time() < end:
        for p in os.listdir("/proc"):
            if not p.isdigit():
                continue
            try:
                with open("/proc/%s/cmdline" % p, "rb") as f:
                    if f.read().rstrip(b"\0").replace(b"\0", b" ") == want:
                        return int(p)
            except OSError:
                pass
        time.sleep(0.05)
    raise Failed("no process runs %r" % args)


class Term:
    def __init__(self, argv, env=None, cwd=None, rows=24, cols=80, stdout=None, stderr=None):
        self.m, self.s = os.openpty()
        self.resize(rows, cols)
        self.name = os.ttyname(self.s)
        # The modes the program starts with: read before it runs, which
        # may make the terminal raw at once.
        self.start_modes = termios.tcgetattr(self.s)
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                fcntl.ioctl(self.s, termios.TIOCSCTTY, 0)
                os.dup2(self.s, 0)
                for fd, path in ((1, stdout), (2, stderr)):
                    if path is None:
                        os.dup2(self.s, fd)
                    else:
                        f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                        os.dup2(f, fd)
                        os.close(f)
                os.closerange(3, 1024)
                if cwd:
                    os.chdir(cwd)
                os.execvpe(argv[0], argv, env if env is not None else os.environ)
            finally:
                os._exit(127)
        self.pid = pid
        self.status = None
        self.out = b""
        self.pos = 0
        _live.append(self)

    # -- the screen ---------------------------------------------------------
    def _read(self, timeout):
        r, _, _ = select.select([self.m], [], [], timeout)
        if not r:
            return False
        try:
            d = os.read(self.m, 65536)
        except OSError:
            return False
        self.out += d
        return bool(d)

    def text(self):
        return self.out.decode("utf-8", "replace")

    def expect(self, pattern, timeout=20):
        """Wait until PATTERN (a regex) appears after the last match;
        returns the match."""
        rx = re.compile(pattern.encode() if isinstance(pattern, str) else pattern)
        end = time.time() + timeout
        while True:
            mt = rx.search(self.out, self.pos)
            if mt:
                self.pos = mt.end()
                return mt
            left = end - time.time()
            if left <= 0:
                raise Failed("timed out waiting for %r" % pattern)
            self._read(min(left, 0.2))
            self.poll()

    def send(self, data):
        if isinstance(data, str):
            data = data.encode()
        os.write(self.m, data)

    def line(self, text):
        self.send(text + "\r")

    # -- the terminal itself --------------------------------------------------
    def modes(self):
        """The terminal's modes, as tcgetattr() on it says."""
        return termios.tcgetattr(self.s)

    def size(self):
        rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(self.s, termios.TIOCGWINSZ, b"\0" * 8))
        return rows, cols

    def resize(self, rows, cols):
        """What a terminal emulator does when its window changes: the kernel
        sends SIGWINCH to the terminal's foreground process group."""
        fcntl.ioctl(self.m, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def input_pending(self):
        """Bytes waiting in the terminal's input queue (typed or injected,
        not read by anyone yet)."""
        return struct.unpack("i", fcntl.ioctl(self.s, termios.FIONREAD, b"\0" * 4))[0]

    # -- the program ----------------------------------------------------------
    def poll(self):
        if self.status is None:
            p, st = os.waitpid(self.pid, os.WNOHANG)
            if p:
                self.status = st
        return self.status

    def kill(self, sig):
        os.kill(self.pid, sig)

    def wait(self, timeout=20):
        """Wait for the program to end, read what is left on the screen,
        return its exit code (128+N for a signal, as a shell says)."""
        end = time.time() + timeout
        while self.poll() is None:
            if time.time() > end:
                raise Failed("the program did not end within %ss" % timeout)
            self._read(0.1)
        while self._read(0.2):
            pass
        st = self.status
        return os.WEXITSTATUS(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st)


def bash(prefix=(), prompt="wk$ ", cwd=None, env=None):
    """A Term running an interactive bash without rc files or history,
    after PREFIX (e.g. [wicket, "run", "--"]), once its prompt PROMPT is
    up."""
    t = Term(list(prefix) + ["bash", "--norc", "--noprofile", "-i"], cwd=cwd,
             env=dict(env if env is not None else os.environ, PS1=prompt, HISTFILE=""))
    t.expect(re.escape(prompt))
    return t


def run(main):
    """Run MAIN(); on failure show why and the screen, exit 1."""
    try:
        main()
    except Exception as e:  # noqa: BLE001 - any failure fails the test
        sys.stderr.write("FAILED: %s: %s\n" % (type(e).__name__, e))
        for t in _live:
            sys.stderr.write("--- screen of %s (pid %d) ---\n%s\n---\n" % (t.name, t.pid, t.text()[-4000:]))
        sys.exit(1)
