# SPDX-License-Identifier: MIT
# gdbsrv_rsp.py - a minimal GDB remote-protocol client for
# tests/integ/155-gdbsrv-edges.t: what gdb in batch mode cannot do on cue
# (^C while the program runs, a SIGINT at spool). Prints one line a reply.
#
# usage: python3 gdbsrv_rsp.py SPOOL TRACE SECONDS
import signal
import subprocess
import sys
import time

import rsp_wire

p = subprocess.Popen([sys.argv[1], "replay", "--gdbserver", "-", sys.argv[2]],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def send(d):
    rsp_wire.send(p, d)


def recv():
    return rsp_wire.recv(p)


send("QStartNoAckMode")
p.stdout.read(1)  # its ack
print("noack", recv())
p.stdin.write(b"+")  # the reply's ack, the last one
p.stdin.flush()
p.send_signal(signal.SIGINT)  # as the terminal's ^C reaches gdb's process group
time.sleep(0.2)
send("?")
print("after-sigint", recv())
send("vCont;c")
time.sleep(float(sys.argv[3]))
p.stdin.write(b"\x03")
p.stdin.flush()
print("interrupt", recv())
send("bc")
print("reverse", recv())
send("k")
p.wait()
print("exit", p.returncode)
