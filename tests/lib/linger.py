"""A TCP socket whose last close blocks for a day: unsent data, a peer
that never reads (its own, held by the caller), SO_LINGER on. For the
attack tests that hand one to the supervisor (red teams 12 and 13):
its close must never run on the supervisor's relay loop."""
import socket
import struct
import time


def lingering_socket(seconds=86400):
    """(the lingering socket, its peer, the listener): all the caller's."""
    cs, (peers, lst) = lingering_sockets(1, seconds)
    return cs[0], peers[0], lst


def lingering_sockets(n, seconds=86400):
    """N lingering sockets at once, as lingering_socket makes one: (the
    lingering sockets, what else the caller must hold)."""
    lst = socket.socket()
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    lst.bind(("127.0.0.1", 0))
    lst.listen(n)
    cs, peers = [], []
    for _ in range(n):
        c = socket.socket()
        c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        c.connect(lst.getsockname())
        peer, _ = lst.accept()
        c.setblocking(False)
        cs.append(c)
        peers.append(peer)
    for _ in range(3):
        for c in cs:
            try:
                while True:
                    c.send(b"x" * 65536)
            except BlockingIOError:
                pass
        time.sleep(0.2)
    for c in cs:
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, seconds))
    return cs, (peers, lst)


def deny_and_hold(seconds=12):
    """After the attack: a write the sandbox refuses (its line must reach
    wicket's stderr while this still runs), then the command holds on."""
    time.sleep(0.5)
    try:
        open("/var/tmp/wk-after", "w")
    except OSError:
        pass
    time.sleep(seconds)
