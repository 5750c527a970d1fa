# SPDX-License-Identifier: MIT
# gdbsrv_close.py - a GDB remote-protocol client for
# tests/integ/224-gdbsrv-orphans.t that goes away as a crashed front end
# would: it starts `spool replay --gdbserver - TRACE` on two pipes, runs the
# replay to a breakpoint, sets a write watchpoint and asks for a
# reverse-continue (bc), then, while spool searches, closes both pipes
# and leaves without waiting for spool. Prints spool's pid first.
#
# usage: python3 gdbsrv_close.py SPOOL TRACE BP_ADDR WATCH_ADDR SECONDS
import subprocess
import sys
import time

import rsp_wire

spool, trace, bp, wp, secs = sys.argv[1:6]
p = subprocess.Popen([spool, "replay", "--gdbserver", "-", trace], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
print(p.pid, flush=True)


def send(d):
    rsp_wire.send(p, d)


def recv():
    return rsp_wire.recv(p)


send("QStartNoAckMode")
p.stdout.read(1)  # its ack
recv()
p.stdin.write(b"+")
p.stdin.flush()
send("Z0,%s,1" % bp)
print("Z0", recv(), flush=True)
send("vCont;c")
print("stop", recv(), flush=True)
send("z0,%s,1" % bp)
recv()
send("Z2,%s,8" % wp)
print("Z2", recv(), flush=True)
send("bc")
time.sleep(float(secs))
p.stdin.close()
p.stdout.close()
print("closed", flush=True)
