# SPDX-License-Identifier: MIT
# spool-gdb.py - spool's gdb extension: the commands of the scheduling-event
# record-replay debugger (doc/record.md, "--gdb").
#
#   set record-mode on|off   the next `run` records the program (spool record)
#   set replay-mode on|off   the next `run` replays the recording (spool replay)
#   set spool-trace DIR      the recording both use (default spool.trace)
#   set snap-period N        snapshot period in scheduling events (stored;
#                            snapshots are not implemented yet)
#
# `spool replay --gdb` loads it; in a plain gdb: `gdb -x spool-gdb.py PROG`
# (spool installs it in PREFIX/share/spool/).
#
# How `run` goes through spool: gdb's exec-wrapper becomes
# `spool record --gdb-wrapper -o DIR --` (or `spool replay --gdb-wrapper DIR
# --`). gdb starts the wrapper in the process it traces; spool moves its
# collector to a background process, receives the program's environment
# (the agent in LD_PRELOAD, the shared memory) from it and execs the program
# in place, so gdb debugs the program itself and gdb is never preloaded.
# When the program exits, the extension waits for the collector to finish
# the trace (a lock file, SPOOL_GDB_DONE) before gdb carries on.

import fcntl
import os
import shlex
import tempfile
import time

import gdb

_here = os.path.dirname(os.path.abspath(__file__))
_replay_trace = os.environ.get("SPOOL_GDB_TRACE")  # set by spool replay --gdb
_done_fd, _done_path = tempfile.mkstemp(prefix="spool-gdb-", suffix=".lock")
os.close(_done_fd)
_state = {"mode": None, "trace": _replay_trace or "spool.trace", "snap": 0, "ran": False}


def _spool_bin():
    """spool itself: $SPOOL_BIN, beside this file (the build directory),
    PREFIX/bin for PREFIX/share/spool, or spool from PATH."""
    env = os.environ.get("SPOOL_BIN")
    if env:
        return env
    for cand in (os.path.join(_here, "spool"), os.path.join(_here, "..", "..", "bin", "spool")):
        if os.access(cand, os.X_OK):
            return os.path.normpath(cand)
    return "spool"


def _recorded_args(trace):
    """The recorded program and its arguments, from the trace's side files."""
    info = {}
    try:
        with open(os.path.join(trace, ".spool", "record")) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                info[k] = v
        with open(os.path.join(trace, ".spool", "proc", info["pid"] + ".cmdline"), "rb") as f:
            argv = [a.decode(errors="replace") for a in f.read().split(b"\0")]
    except (OSError, KeyError):
        return None, None
    if argv and argv[-1] == "":
        argv.pop()
    return info.get("exe"), argv[1:]


def _apply():
    """Point gdb's exec-wrapper at spool for the mode in force."""
    mode, trace = _state["mode"], _state["trace"]
    if mode is None:
        gdb.execute("unset exec-wrapper", to_string=True)
        return
    if _replay_trace:
        # This gdb was started by spool replay --gdb, which gave the
        # inferior the agent and its session directly: from now on each
        # run starts its own session instead.
        gdb.execute("unset environment LD_PRELOAD", to_string=True)
        gdb.execute("unset environment SPOOL_SHM_FD", to_string=True)
    gdb.execute("set environment SPOOL_GDB_DONE=" + _done_path, to_string=True)
    # The agent catches the program's own syscall instructions with
    # syscall user dispatch, which raises SIGSYS: not gdb's business.
    gdb.execute("handle SIGSYS nostop noprint pass", to_string=True)
    spool = shlex.quote(_spool_bin())
    if mode == "record":
        wrapper = "%s record --gdb-wrapper -o %s --" % (spool, shlex.quote(trace))
    else:
        wrapper = "%s replay --gdb-wrapper %s --" % (spool, shlex.quote(trace))
    gdb.execute("set exec-wrapper " + wrapper, to_string=True)


class _ModeParam(gdb.Parameter):
    def __init__(self, name, mode, doc):
        self.__doc__ = doc
        self.set_doc = "Set " + name + "."
        self.show_doc = "Show " + name + "."
        self._mode = mode
        super().__init__(name, gdb.COMMAND_RUNNING, gdb.PARAM_BOOLEAN)
        self.value = False

    def get_set_string(self):
        if self.value:
            _state["mode"] = self._mode
            # the other mode goes off
            other = record_mode if self._mode == "replay" else replay_mode
            other.value = False
        elif _state["mode"] == self._mode:
            _state["mode"] = None
        _apply()
        if not self.value:
            return "%s-mode off: run starts the program without spool" % self._mode
        if self._mode == "record":
            return "record-mode on: run records the program into %s/ (spool record)" % (
                _state["trace"])
        exe, args = _recorded_args(_state["trace"])
        if exe is None:
            return ("replay-mode on: run replays %s/ (spool replay); it has no readable "
                    "recording yet" % _state["trace"])
        gdb.execute("set args " + " ".join(shlex.quote(a) for a in args), to_string=True)
        cur = gdb.current_progspace().filename
        note = ""
        if cur and os.path.realpath(cur) != os.path.realpath(exe):
            note = "; warning: gdb's program is %s, the recording's is %s" % (cur, exe)
        return ("replay-mode on: run replays %s/ (spool replay), with the recorded "
                "arguments%s" % (_state["trace"], note))

    def get_show_string(self, svalue):
        if self._mode == "replay" and _replay_trace and not _state["ran"] and \
                _state["mode"] is None:
            return "replay-mode is on: this gdb runs spool replay of %s/" % _replay_trace
        return "%s-mode is %s" % (self._mode, svalue)


record_mode = _ModeParam("record-mode", "record",
                         "When on, run records the program with spool record.")
replay_mode = _ModeParam("replay-mode", "replay",
                         "When on, run replays the spool recording (spool-trace).")


class _TraceParam(gdb.Parameter):
    """The spool recording that record-mode writes and replay-mode reads."""
    set_doc = "Set the spool trace directory."
    show_doc = "Show the spool trace directory."

    def __init__(self):
        super().__init__("spool-trace", gdb.COMMAND_RUNNING, gdb.PARAM_STRING)
        self.value = _state["trace"]

    def get_set_string(self):
        _state["trace"] = self.value or "spool.trace"
        _apply()
        return "spool trace: %s/" % _state["trace"]

    def get_show_string(self, svalue):
        return "spool trace is %s/" % svalue


class _SnapParam(gdb.Parameter):
    """Take a process snapshot every N scheduling events (0: none)."""
    set_doc = "Set the snapshot period, in scheduling events."
    show_doc = "Show the snapshot period, in scheduling events."

    def __init__(self):
        super().__init__("snap-period", gdb.COMMAND_RUNNING, gdb.PARAM_ZUINTEGER)
        self.value = 0

    def get_set_string(self):
        _state["snap"] = self.value
        return ("snap-period %d stored: snapshots are not implemented yet, it takes "
                "effect when they land (a later issue)" % self.value)

    def get_show_string(self, svalue):
        return ("snap-period is %s scheduling events (stored; snapshots are not "
                "implemented yet)" % svalue)


_TraceParam()
_SnapParam()


def _on_exit(event):
    _state["ran"] = True
    if _state["mode"] is not None:
        # The collector runs in the background: wait until the trace is
        # finished, so the next command (or gdb's exit) sees a whole one.
        try:
            fd = os.open(_done_path, os.O_RDONLY)
        except OSError:
            return
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    fcntl.flock(fd, fcntl.LOCK_UN)
                    break
                except OSError:
                    time.sleep(0.02)
        finally:
            os.close(fd)
    elif _replay_trace:
        print("spool: the replay of %s/ has run; another run would not follow the "
              "recording: `set replay-mode on` first" % _replay_trace)


def _on_gdb_exit(event):
    try:
        os.unlink(_done_path)
    except OSError:
        pass


gdb.events.exited.connect(_on_exit)
if hasattr(gdb.events, "gdb_exiting"):
    gdb.events.gdb_exiting.connect(_on_gdb_exit)
