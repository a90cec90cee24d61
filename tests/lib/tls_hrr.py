"""TLS 1.3 HelloRetryRequest, raw: enough of it to test the proxy's check
of a tunnel's TLS server name across a retried ClientHello.

  hello(name)       a ClientHello record naming NAME (SNI)
  hrr()             a ServerHello record that is a HelloRetryRequest
  sni(record)       the server name of a ClientHello record ("" if none)
  records(sock)     the records a socket reads, one at a time

As a program, the client inside the sandbox:
  tls_hrr.py PROXY_PORT HOST PORT FIRST SECOND [together|alert]
CONNECTs through the HTTP proxy, sends a ClientHello naming FIRST, and
after the server's HelloRetryRequest (or at once, "together") a
ChangeCipherSpec and a second ClientHello naming SECOND; prints what
happened ("retried", "closed", "refused: <status line>"). "alert": a TLS
alert record, then a ClientHello naming SECOND, and nothing else."""
import os
import socket
import struct
import sys

# RFC 8446 4.1.3: SHA-256 of "HelloRetryRequest".
HRR_RANDOM = bytes.fromhex(
    "cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c")


def _record(kind, body):
    return struct.pack("!BHH", kind, 0x0303 if kind != 0x16 else 0x0301, len(body)) + body


def _handshake(kind, body):
    return struct.pack("!B", kind) + len(body).to_bytes(3, "big") + body


def hello(name):
    n = name.encode()
    sni = struct.pack("!HHHBH", 0, len(n) + 5, len(n) + 3, 0, len(n)) + n
    versions = struct.pack("!HHB", 0x2B, 3, 2) + b"\x03\x04"
    groups = struct.pack("!HHH", 0x0A, 4, 2) + b"\x00\x17"
    exts = sni + versions + groups
    body = (b"\x03\x03" + os.urandom(32) + b"\x00" + struct.pack("!H", 2) + b"\x13\x01"
            + b"\x01\x00" + struct.pack("!H", len(exts)) + exts)
    return _record(0x16, _handshake(1, body))


def hrr():
    exts = struct.pack("!HHH", 0x2B, 2, 0x0304) + struct.pack("!HHH", 0x33, 2, 0x17)
    body = (b"\x03\x03" + HRR_RANDOM + b"\x00" + b"\x13\x01" + b"\x00"
            + struct.pack("!H", len(exts)) + exts)
    return _record(0x16, _handshake(2, body))


CCS = _record(0x14, b"\x01")


def sni(rec):
    try:
        p = 5 + 4 + 2 + 32
        p += 1 + rec[p]
        p += 2 + struct.unpack("!H", rec[p:p + 2])[0]
        p += 1 + rec[p]
        end = p + 2 + struct.unpack("!H", rec[p:p + 2])[0]
        p += 2
        while p + 4 <= end:
            t, n = struct.unpack("!HH", rec[p:p + 4])
            if t == 0:
                ln = struct.unpack("!H", rec[p + 7:p + 9])[0]
                return rec[p + 9:p + 9 + ln].decode("latin-1")
            p += 4 + n
    except (IndexError, struct.error):
        pass
    return ""


def records(sock):
    buf = b""
    while True:
        while len(buf) < 5 or len(buf) < 5 + struct.unpack("!H", buf[3:5])[0]:
            d = sock.recv(65536)
            if not d:
                return
            buf += d
        n = 5 + struct.unpack("!H", buf[3:5])[0]
        yield buf[:n]
        buf = buf[n:]


def main():
    port, host, hport, first, second = sys.argv[1:6]
    together = len(sys.argv) > 6
    s = socket.create_connection(("127.0.0.1", int(port)), timeout=5)
    s.sendall(("CONNECT %s:%s HTTP/1.1\r\n\r\n" % (host, hport)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        d = s.recv(1)
        if not d:
            print("closed")
            return
        head += d
    if b" 200 " not in head.split(b"\r\n")[0]:
        print("refused: " + head.split(b"\r\n")[0].decode())
        return
    try:
        if sys.argv[6:] == ["alert"]:
            # A warning alert first, then a hello naming SECOND only.
            s.sendall(_record(0x15, b"\x01\x00") + hello(second))
            print("sent" if s.recv(1) else "closed")
            return
        if together:
            s.sendall(hello(first) + CCS + hello(second))
        else:
            s.sendall(hello(first))
            rec = next(records(s), None)
            if rec is None or rec[5] != 2 or rec[11:43] != HRR_RANDOM:
                print("closed")
                return
            s.sendall(CCS + hello(second))
        print("retried" if s.recv(1) else "closed")
    except OSError:
        print("closed")


if __name__ == "__main__":
    main()
