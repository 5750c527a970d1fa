# SPDX-License-Identifier: MIT
# spool-gdb.py - spool's gdb extension: the commands of the scheduling-event
# record-replay debugger (doc/record.md, "--gdb").
#
#   set record-mode on|off   the next `run` records the program (spool record)
#   set replay-mode on|off   the next `run` replays the recording (spool replay)
#   set spool-trace DIR      the recording both use (default spool.trace)
#   set snap-period N        snapshot period in scheduling events (stored;
#                            snapshots are not implemented yet)
#   spool when               where a replay served by `spool replay
#                            --gdbserver` stands (monitor when)
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
import re
import shlex
import stat
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


# A trace is untrusted (doc/trace-format.md, "Reading untrusted traces"):
# its side files are opened as spool's reader opens them, the words taken
# from them never reach gdb's command parser whole, and what is printed of
# them has its control characters escaped.
_SIDE_MAX = 32 << 20  # a side file's bound (a command line is kept whole up to 32 MiB)


def _read_side(trace, rel):
    """The bytes of .spool/REL in TRACE: no component a link, no FIFO or
    device (O_NONBLOCK, then a regular file), at most _SIDE_MAX bytes."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fds = [os.open(trace, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)]
    try:
        parts = [".spool"] + rel.split("/")
        for comp in parts[:-1]:
            fds.append(os.open(comp, flags | os.O_DIRECTORY, dir_fd=fds[-1]))
        fd = os.open(parts[-1], flags, dir_fd=fds[-1])
        fds.append(fd)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _SIDE_MAX:
            raise OSError("not a regular file of at most %d bytes" % _SIDE_MAX)
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read(_SIDE_MAX + 1)[:_SIDE_MAX]
    finally:
        for fd in fds:
            os.close(fd)


def _printable(s):
    """s with the characters a terminal acts on as \\xNN (util/escape.h)."""
    return "".join(c if c.isprintable() else
                   "".join("\\x%02x" % b for b in c.encode("utf-8", "surrogateescape"))
                   for c in s)


def _recorded_args(trace):
    """The recorded program and its arguments, from the trace's side files."""
    info = {}
    try:
        for line in _read_side(trace, "record").decode(errors="replace").split("\n"):
            k, _, v = line.partition("=")
            info[k] = v
        if not re.fullmatch(r"[0-9]{1,10}", info.get("pid", "")):
            return None, None  # a pid names a file of the trace: digits only
        data = _read_side(trace, "proc/%s.cmdline" % info["pid"])
        argv = [a.decode(errors="replace") for a in data.split(b"\0")]
    except (OSError, KeyError):
        return None, None
    if argv and argv[-1] == "":
        argv.pop()
    return info.get("exe"), argv[1:]


def _apply():
    """Point gdb's exec-wrapper at spool for the mode in force."""
    mode, trace = _state["mode"], _state["trace"]
    if mode is not None and any(c in trace for c in "\n\r"):
        # the wrapper is one gdb command line
        raise gdb.GdbError("spool-trace: a directory name with a line break cannot be used")
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
        # gdb.execute runs each line of its string as a command: an
        # argument with a line break would run the rest as gdb commands
        # (shell, python). gdb's "set args" cannot hold one anyway.
        if any(c in a for a in args for c in "\n\r"):
            return ("replay-mode on: run replays %s/ (spool replay); the recorded "
                    "arguments hold a line break, which gdb's 'set args' cannot take: "
                    "not set (spool replay --gdb passes them whole)" % _state["trace"])
        gdb.execute("set args " + " ".join(shlex.quote(a) for a in args), to_string=True)
        cur = gdb.current_progspace().filename
        note = ""
        if cur and os.path.realpath(cur) != os.path.realpath(exe):
            note = "; warning: gdb's program is %s, the recording's is %s" % (
                _printable(cur), _printable(exe))
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


class _SpoolPrefix(gdb.Command):
    """spool's commands on a replay served by `spool replay --gdbserver`."""

    def __init__(self):
        super().__init__("spool", gdb.COMMAND_RUNNING, gdb.COMPLETE_NONE, True)


class _SpoolWhen(gdb.Command):
    """spool when: where the replay stands (its stop count from the start and
    the current thread), asked of spool's gdbserver (`monitor when`)."""

    def __init__(self):
        super().__init__("spool when", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        try:
            gdb.execute("monitor when", to_string=False)
        except gdb.error as e:
            raise gdb.GdbError("spool when: needs a replay served by spool "
                               "(target remote | spool replay --gdbserver - TRACE): %s" % e)


_SpoolPrefix()
_SpoolWhen()


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
