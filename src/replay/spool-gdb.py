# SPDX-License-Identifier: MIT
# spool-gdb.py - spool's gdb extension: the commands of the scheduling-event
# record-replay debugger (doc/record.md, "--gdb").
#
#   set record-mode on|off   the next `run` records the program (spool record)
#   set replay-mode on|off   the next `run` replays the recording (spool replay)
#   set spool-trace DIR      the recording both use (default spool.trace)
#   set snap-period N        record-mode: a snapshot every N switches of the
#                            run token (spool record --snap-period)
#   spool checkpoint         a copy of the replay at the next switch point
#   spool restart N          replay again from checkpoint N
#   spool when               the current schedule event and its thread
#   spool goto EVENT[:COUNT] replay from the snapshot at or before EVENT,
#                            stopped as the token's turn EVENT begins
#   spool checkpoints        the list
#   spool when               (on a replay served by `spool replay --gdbserver`:
#                            monitor when)
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
import signal
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


# ---- spool's own SIGSEGVs (doc/record.md, "The CPU's own inputs") ----
#
# Under CPUID faulting every cpuid of the program raises SIGSEGV, which the
# agent answers: gdb, which sees every signal first, must pass those on
# silently, but still stop at a real fault of the program where it happens.
# So while the inferior runs under spool, gdb passes SIGSEGV without
# stopping, and the agent's handler calls agent_rr_cpuid_gdb_fault(&stop)
# for each SIGSEGV that is not a cpuid (src/agent/agent_rr_cpuid.c): its
# internal breakpoint sets stop and has gdb stop at SIGSEGV again; the agent
# returns, the instruction faults again and gdb stops there, "Program
# received signal SIGSEGV", as without spool. That stop puts the silent
# passing back; `continue` delivers the fault to the program.

_segv = {"quiet": False, "armed": False}


def _segv_quiet(on):
    gdb.execute("handle SIGSEGV %s pass" % ("nostop noprint" if on else "stop print"),
                to_string=True)
    _segv["quiet"] = on
    _segv["armed"] = False


class _SegvHook(gdb.Breakpoint):
    def stop(self):
        if not _segv["quiet"]:
            return False  # gdb stops at every SIGSEGV already
        try:
            frame = gdb.selected_frame()
            reg = "rdi" if "x86-64" in frame.architecture().name() else "x0"
            addr = int(frame.read_register(reg))
            gdb.selected_inferior().write_memory(addr, b"\x01\x00\x00\x00")
        except (gdb.error, gdb.MemoryError, ValueError):
            return False  # the fault goes to the program, unseen (as before)
        gdb.execute("handle SIGSEGV stop print pass", to_string=True)
        _segv["armed"] = True
        return False


def _on_stop(event):
    if (_segv["armed"] and isinstance(event, gdb.SignalEvent)
            and event.stop_signal == "SIGSEGV"):
        _segv_quiet(True)


def _apply():
    """Point gdb's exec-wrapper at spool for the mode in force."""
    mode, trace = _state["mode"], _state["trace"]
    if mode is not None and any(c in trace for c in "\n\r"):
        # the wrapper is one gdb command line
        raise gdb.GdbError("spool-trace: a directory name with a line break cannot be used")
    if mode is None:
        gdb.execute("unset exec-wrapper", to_string=True)
        _segv_quiet(bool(_replay_trace))
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
    _segv_quiet(True)
    spool = shlex.quote(_spool_bin())
    if mode == "record":
        snap = " --snap-period %d" % _state["snap"] if _state["snap"] else ""
        wrapper = "%s record --gdb-wrapper%s -o %s --" % (spool, snap, shlex.quote(trace))
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
        if _state["mode"] == "record":
            _apply()
        return ("snap-period %d: record-mode runs take a snapshot every %d switches of "
                "the run token (spool record --snap-period; 0: none)"
                % (self.value, self.value))

    def get_show_string(self, svalue):
        return "snap-period is %s scheduling events (spool record --snap-period)" % svalue


_TraceParam()
_SnapParam()


def _on_exit(event):
    _state["ran"] = True
    if _segv["armed"]:
        _segv_quiet(True)
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
        # A tree replayed with --pid under gdb: gdb follows a fork and
        # detaches the parent (an exit event too) while the child replays on.
        gone = getattr(event, "inferior", None)
        if any(i.pid > 0 for i in gdb.inferiors() if i is not gone):
            return
        print("spool: the replay of %s/ has run; another run would not follow the "
              "recording: `set replay-mode on` first" % _replay_trace)


def _on_gdb_exit(event):
    for pid in _ckpts.values():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.unlink(_done_path)
    except OSError:
        pass


# ---- checkpoints of a serial replay (doc/record.md, "Checkpoints in gdb") ----
#
# The agent of a replay under gdb saves each parked thread's context; a
# checkpoint is a copy of the process taken by the run token's holder at its
# next switch point (agent_snap.c). It waits for SIGUSR1; each one makes it
# start a runner that replays on from the checkpoint, stopped until gdb
# attaches. `spool restart N` kills the process gdb debugs and attaches to a
# new runner of checkpoint N (checkpoint N stays for another restart).

_ckpts = {}  # number -> pid of the checkpoint process
_ckpt_info = {}  # number -> (turn, thread)


def _agent_int(expr):
    return int(gdb.parse_and_eval(expr))


def _live_pid():
    inf = gdb.selected_inferior()
    if not inf or not inf.pid:
        raise gdb.GdbError("spool: no process: `run` (or `start`) the replay first")
    return inf.pid


def _children_stopped(ppid):
    """Pids of ppid's children (a runner waits for gdb to attach)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        rest = st[st.rfind(")") + 2:].split()
        if len(rest) > 1 and rest[1] == str(ppid) and rest[0] != "Z":
            out.append(int(d))
    return out


class _SpoolPrefix(gdb.Command):
    """spool: the scheduling-event debugger's commands (checkpoint, restart, when)."""

    def __init__(self):
        super().__init__("spool", gdb.COMMAND_RUNNING, gdb.COMPLETE_NONE, True)


class _SpoolWhen(gdb.Command):
    """spool when: the current schedule event (turn of the run token) and the thread holding it."""

    def __init__(self):
        super().__init__("spool when", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        _live_pid()
        try:
            turn = _agent_int("ser_area->tturn")
            owner = _agent_int("ser_area->owner")
            nsw = _agent_int("ser_area->nsw")
        except gdb.error:
            # a replay served by spool's gdbserver answers itself
            try:
                gdb.execute("monitor when", to_string=False)
                return
            except gdb.error:
                pass
            raise gdb.GdbError("spool: no serial replay in this process (the agent's "
                               "scheduler is not there)")
        who = "free" if owner == 0xffffffff else "thread %d" % owner
        print("spool: schedule event %d of %d (turn of the run token); it is held by %s"
              % (turn, nsw, who))


class _SpoolCheckpoint(gdb.Command):
    """spool checkpoint: copy the replayed process at the running thread's next
switch point (the program runs on to it); `spool restart N` goes back there."""

    def __init__(self):
        super().__init__("spool checkpoint", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        _live_pid()
        try:
            before = _agent_int("agent_snap_last_pid")
            gdb.execute("set var agent_snap_request = 1", to_string=True)
        except gdb.error:
            raise gdb.GdbError("spool: checkpoints need a serial replay under "
                               "`spool replay --gdb` (the agent's checkpoint code is not "
                               "in this process)")
        bp = gdb.Breakpoint("agent_snap_taken", internal=True, temporary=True)
        bp.silent = True
        try:
            gdb.execute("continue", to_string=True)
        finally:
            if bp.is_valid():
                bp.delete()
        if not gdb.selected_inferior().pid:
            raise gdb.GdbError("spool: the program ended before a switch point: no checkpoint")
        pid = _agent_int("agent_snap_last_pid")
        if pid <= 0 or pid == before or _agent_int("agent_snap_request"):
            print("spool: no checkpoint yet (the program stopped first); it is taken at the "
                  "next switch point where every other thread is parked")
            return
        n = len(_ckpts) + 1
        _ckpts[n] = pid
        _ckpt_info[n] = (_agent_int("agent_snap_last_turn"), _agent_int("agent_snap_last_thread"))
        print("spool: checkpoint %d at schedule event %d, thread %d (process %d)"
              % (n, _ckpt_info[n][0], _ckpt_info[n][1], pid))


class _SpoolRestart(gdb.Command):
    """spool restart N: replay again from checkpoint N (the current process is killed)."""

    def __init__(self):
        super().__init__("spool restart", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        try:
            n = int(arg.strip())
        except ValueError:
            raise gdb.GdbError("spool restart N: N is a checkpoint number (spool checkpoints)")
        if n not in _ckpts:
            raise gdb.GdbError("spool: no checkpoint %d" % n)
        pid = _ckpts[n]
        old = set(_children_stopped(pid))
        if gdb.selected_inferior().pid:
            gdb.execute("kill inferiors %d" % gdb.selected_inferior().num, to_string=True)
        try:
            os.kill(pid, signal.SIGUSR1)
        except OSError as e:
            raise gdb.GdbError("spool: checkpoint %d (process %d) is gone: %s" % (n, pid, e))
        runner = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and runner is None:
            new = [p for p in _children_stopped(pid) if p not in old]
            if new:
                runner = new[0]
            else:
                time.sleep(0.01)
        if runner is None:
            raise gdb.GdbError("spool: checkpoint %d started no replay" % n)
        # The runner is ready once it waits for gdb (nanosleep, in a loop):
        # its memory, threads and area are then the checkpoint's.
        while time.monotonic() < deadline:
            try:
                with open("/proc/%d/syscall" % runner) as f:
                    if f.read().split(" ", 1)[0] == "35":
                        break
            except OSError:
                break
            time.sleep(0.005)
        gdb.execute("attach %d" % runner, to_string=True)
        print("spool: restarted from checkpoint %d at schedule event %d, thread %d "
              "(process %d)" % (n, _ckpt_info[n][0], _ckpt_info[n][1], runner))


class _SpoolCheckpoints(gdb.Command):
    """spool checkpoints: list the checkpoints."""

    def __init__(self):
        super().__init__("spool checkpoints", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        if not _ckpts:
            print("spool: no checkpoints")
        for n in sorted(_ckpts):
            print("%d: schedule event %d, thread %d, process %d"
                  % (n, _ckpt_info[n][0], _ckpt_info[n][1], _ckpts[n]))


class _SpoolGoto(gdb.Command):
    """spool goto EVENT[:COUNT]: replay the recording again from its snapshot at or
before schedule event EVENT (spool record --snap-period), restored into a fresh
process (spool replay --goto); the program stops (SIGTRAP, in the agent) as the
run token's turn EVENT begins, or as the restore ends when the snapshot is at
EVENT. Several snapshots at one event (spool info lists them EVENT:COUNT) are
told apart by COUNT: the latest at or before that position. The process gdb
debugs is killed first."""

    def __init__(self):
        super().__init__("spool goto", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        ev = arg.strip()
        if not re.fullmatch(r"[0-9]{1,19}(:[0-9]{1,19})?", ev):
            raise gdb.GdbError("spool goto EVENT[:COUNT]: EVENT is a schedule event (a "
                               "number; spool info lists the snapshots' positions)")
        if _state["mode"] == "record":
            raise gdb.GdbError("spool goto: record-mode is on (set replay-mode on)")
        if _replay_trace:
            # (its run goes through spool replay --gdb's own session: the
            # exec-wrapper's replay did not take over there)
            raise gdb.GdbError("spool goto: not under spool replay --gdb (use spool replay "
                               "--goto EVENT --gdb, or gdb -x spool-gdb.py PROGRAM with "
                               "set spool-trace DIR)")
        if _state["mode"] is None:
            gdb.execute("set replay-mode on", to_string=True)
        trace = _state["trace"]
        if any(c in trace for c in "\n\r"):
            raise gdb.GdbError("spool-trace: a directory name with a line break cannot be used")
        if gdb.selected_inferior().pid:
            gdb.execute("kill inferiors %d" % gdb.selected_inferior().num, to_string=True)
        spool = shlex.quote(_spool_bin())
        gdb.execute("set exec-wrapper %s replay --gdb-wrapper --goto %s %s --"
                    % (spool, ev, shlex.quote(trace)), to_string=True)
        try:
            gdb.execute("run", to_string=False)
        finally:
            _apply()  # the next run replays from the start


_SpoolPrefix()
_SpoolWhen()
_SpoolGoto()
_SpoolCheckpoint()
_SpoolRestart()
_SpoolCheckpoints()


def _on_new_objfile(event):
    # set once spool's agent is loaded (set before, gdb would say that the
    # function is not defined yet)
    if _segv.get("hook") is None and "libspool-agent" in os.path.basename(
            event.new_objfile.filename or ""):
        _segv["hook"] = _SegvHook("agent_rr_cpuid_gdb_fault", internal=True)


def _inferior_env():
    """spool replay --gdb: the program gets the recorded environment and
    directory, gdb keeps spool's (src/replay/gdb.c: a memfd of NUL-ended
    strings, the directory first)."""
    num = os.environ.pop("SPOOL_GDB_ENV_FD", None)
    if num is None or not num.isdigit():
        return
    fd = int(num)
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        chunks = []
        while True:
            b = os.read(fd, 65536)
            if not b:
                break
            chunks.append(b)
    except OSError as e:
        print("spool: cannot read the recorded environment (%s): the program gets gdb's" % e)
        return
    finally:
        os.close(fd)  # (gdb would hand it on to the program)
    items = b"".join(chunks).split(b"\0")[:-1]
    if not items:
        return
    confirm = gdb.parameter("confirm")
    gdb.execute("set confirm off", to_string=True)
    try:
        gdb.execute("unset environment", to_string=True)
    finally:
        gdb.execute("set confirm %s" % ("on" if confirm else "off"), to_string=True)
    lost = []
    for e in items[1:]:
        try:
            if b"\n" in e or b"\r" in e:
                # (the rest of the line would be another gdb command; gdb.c
                # leaves these out and says so)
                raise UnicodeError("a line break")
            gdb.execute("set environment " + e.decode(), to_string=True)
        except (gdb.error, UnicodeError):
            lost.append(e.split(b"=", 1)[0].decode(errors="replace"))
    if lost:
        print("spool: under gdb the program does not get these recorded variables: "
              + " ".join(lost))
    if items[0]:
        try:
            if b"\n" in items[0] or b"\r" in items[0]:
                raise UnicodeError("a line break")
            gdb.execute("set cwd " + items[0].decode(), to_string=True)
        except (gdb.error, UnicodeError):
            print("spool: under gdb the program runs in gdb's directory, not the recorded one")


gdb.events.new_objfile.connect(_on_new_objfile)
_inferior_env()
if _replay_trace:
    _segv_quiet(True)  # the inferior runs under the agent from the start
gdb.events.stop.connect(_on_stop)
gdb.events.exited.connect(_on_exit)
if hasattr(gdb.events, "gdb_exiting"):
    gdb.events.gdb_exiting.connect(_on_gdb_exit)
