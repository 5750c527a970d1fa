# SPDX-License-Identifier: MIT
# gdbsrv_sigint.py - a minimal GDB remote-protocol client for
# tests/integ/263-gdbsrv-sigint.t: a SIGINT at spool replay --gdbserver -
# (the terminal's ^C reaches gdb's whole process group) while the replay is
# stopped, then while it runs. Prints one line a reply. spool starts with
# SIGINT blocked (inherited from a harness or a daemon, as in CI): it must
# unblock it to serve the ^C.
#
# usage: python3 gdbsrv_sigint.py SPOOL TRACE SECONDS
import signal
import subprocess
import sys
import time

import rsp_wire

signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
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
p.send_signal(signal.SIGINT)  # while stopped: spool stays, nothing reported
time.sleep(0.2)
send("?")
print("stopped-sigint", recv())
send("vCont;c")
time.sleep(float(sys.argv[3]))
p.send_signal(signal.SIGINT)  # while running: the replay stops
print("running-sigint", recv())
send("?")
print("after", recv())
# and once more, the stop reply comes once per SIGINT
send("vCont;c")
time.sleep(float(sys.argv[3]))
p.send_signal(signal.SIGINT)
print("again", recv())
send("k")
p.wait()
print("exit", p.returncode)
