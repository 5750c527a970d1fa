# SPDX-License-Identifier: MIT
# rsp_wire.py - the GDB remote protocol's framing, for the test clients
# gdbsrv_rsp.py and gdbsrv_close.py: a packet is $DATA#CS, CS the sum of
# DATA's bytes modulo 256 in two hex digits.


def send(p, d):
    """Send packet d (a str) to the process p's stdin."""
    p.stdin.write(b"$" + d.encode() + b"#%02x" % (sum(d.encode()) & 0xff))
    p.stdin.flush()


def recv(p):
    """The next packet's data from p's stdout ('' at its end)."""
    buf = b""
    while p.stdout.read(1) not in (b"$", b""):
        pass
    while True:
        c = p.stdout.read(1)
        if c in (b"#", b""):
            break
        buf += c
    p.stdout.read(2)
    return buf.decode(errors="replace")
