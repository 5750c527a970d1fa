# SPDX-License-Identifier: MIT
# probe_live.py - drives an attached `spool probe -p PID --commands` (or a
# --control socket) for the tests (tests/integ/208-211, tests/real/105):
# sends a command, reads its answer up to the "ok ..." / "error: ..." line,
# parses `list`, and snapshots the process's code to compare after detach.
import os
import socket
import subprocess
import time


def check(ok, desc, *why):
    """one result for the test: PASS/FAIL, desc, why (tab-separated, on one
    line); lib.sh's live_checks turns it into a TAP line."""
    why = "".join("\t" + str(w).replace("\t", " ").replace("\n", " | ") for w in why)
    print(("PASS\t" if ok else "FAIL\t") + desc + why, flush=True)


def hits(s, i):
    """probe i's hits in `list`, None when it is not listed."""
    return parse_list(s.cmd("list")).get(i, {}).get("hits")


def grows(s, i, t=0.3):
    """(True, a, b) once probe i's hits grew from a to b (up to 50 tries t s apart)."""
    a = hits(s, i)
    for _ in range(50):
        time.sleep(t)
        b = hits(s, i)
        if a is not None and b is not None and b > a:
            return True, a, b
    return False, a, b


# func: and args: of live_work (the args: probe in func:'s trampoline) and
# of live_callfirst (in its exit int3's slot): probes of two kinds at one
# point (tests/integ/250, 265)
COMBINED = ["-e", "func:live_work", "-e", "args:live_work", "-e", "func:live_callfirst",
            "-e", "args:live_callfirst:long->long"]


class Spool:
    """spool probe -p PID --commands ARGS..., commands on its stdin."""

    def __init__(self, spool, pid, args, err="spool.err"):
        self.err = open(err, "w")
        self.p = subprocess.Popen([spool, "probe", "-p", str(pid), "--commands"] + args,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, text=True, bufsize=1)

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        out = []
        while True:
            ans = self.p.stdout.readline()
            if not ans:
                raise RuntimeError("spool ended during '%s'" % line)
            ans = ans.rstrip("\n")
            out.append(ans)
            if ans.startswith("ok") or ans.startswith("error:"):
                return out

    def close(self):
        """end of stdin: spool detaches; its exit status."""
        self.p.stdin.close()
        rest = self.p.stdout.read()
        rc = self.p.wait(timeout=120)
        self.err.close()
        return rc, rest


class Control:
    """the same commands over a --control socket."""

    def __init__(self, path, timeout=30):
        end = time.time() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                if time.time() > end:
                    raise
                time.sleep(0.05)
        self.f = self.s.makefile("r")

    def cmd(self, line):
        self.s.sendall((line + "\n").encode())
        out = []
        while True:
            ans = self.f.readline()
            if not ans:
                raise RuntimeError("the socket closed during '%s'" % line)
            ans = ans.rstrip("\n")
            out.append(ans)
            if ans.startswith("ok") or ans.startswith("error:"):
                return out

    def close(self):
        self.f.close()
        self.s.close()


def parse_list(lines):
    """id -> dict(op, method, module, symbol, function, demangled, state,
    hits) from `list` lines ("id op method module offset symbol state hits
    function": the function, demangled, is the rest of the line; "function"
    is the symbol, as C tests name it, "demangled" the last column)."""
    probes = {}
    for l in lines:
        f = l.split(None, 8)
        if not f or f[0].startswith("#") or not f[0].isdigit() or len(f) < 8:
            continue
        probes[int(f[0])] = {"op": f[1], "method": f[2], "module": f[3],
                             "symbol": f[5], "function": f[5], "state": f[6],
                             "hits": None if f[7] == "-" else int(f[7]),
                             "demangled": f[8] if len(f) > 8 else f[5]}
    return probes


def code_snapshot(pid):
    """bytes of every executable file mapping of pid: (start, end, path) -> bytes."""
    snap = {}
    with open("/proc/%d/maps" % pid) as m, open("/proc/%d/mem" % pid, "rb") as mem:
        for l in m:
            f = l.split()
            if len(f) < 6 or "x" not in f[1] or not f[5].startswith("/"):
                continue
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            mem.seek(lo)
            snap[(lo, hi, f[5])] = mem.read(hi - lo)
    return snap


def same_code(before, pid):
    """the address ranges of before, read again (a patched page's mapping
    may have been split by mprotect since): [] when every byte is the same,
    else where they differ."""
    diff = []
    with open("/proc/%d/mem" % pid, "rb") as mem:
        for (lo, hi, path), old in before.items():
            mem.seek(lo)
            now = mem.read(hi - lo)
            if now != old:
                at = [i for i in range(min(len(now), len(old))) if now[i] != old[i]]
                diff.append("%s at %#x: %d bytes differ, first at +%#x" %
                            (path, lo, len(at), at[0] if at else len(now)))
    return diff


def wait_file(path, timeout=30):
    end = time.time() + timeout
    while not (os.path.exists(path) and os.path.getsize(path)):
        if time.time() > end:
            return False
        time.sleep(0.02)
    return True
