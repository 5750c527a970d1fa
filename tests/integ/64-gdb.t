#!/bin/bash
# SPDX-License-Identifier: MIT
# 64-gdb.t - gdb on a replay (spool replay --gdb) and spool's gdb extension
# (spool-gdb.py): a breakpoint in a recorded multithreaded program is hit
# during the replay, gdb sees its threads, continuing to the end prints the
# recorded output; a thread held at a breakpoint longer than the stuck-turn
# limit does not stop the replay; set/show record-mode, replay-mode and
# snap-period work; `set record-mode on` + run records a trace that spool
# replay replays, and `set replay-mode on` + run replays it inside gdb.
. "$(dirname "$0")/lib.sh"

need_gdb

plan 22

BANK="$PROGS/rr_bank"
# The extension is found beside spool; a build directory without it (made
# without `make all`) gets the source copy.
if [ ! -r "$SPOOL_BUILD/spool-gdb.py" ]; then
	export SPOOL_GDB_SCRIPT="$REPO/src/replay/spool-gdb.py"
fi
export SPOOL_BIN="$SPOOL"
EXT="${SPOOL_GDB_SCRIPT:-$SPOOL_BUILD/spool-gdb.py}"
# Only the program's own lines (gdb shares its stdout).
prog_lines() { grep -E '^(journal|balances|audits) ' "$1"; }

spool_run record -o bank.trace -- "$BANK" 3 2000
is_rc 0 "record rr_bank"
prog_lines run.out >rec.out

# --- spool replay --gdb: breakpoint, threads, backtrace, run to the end ----
# (gdb writes to the same file as the program, whose stdio flushes 4 KiB
# blocks that do not end at a line: gdb's "[Thread ... exited]" between two
# of them split a program line once under load. Thread events are off.)
spool_run replay --gdb --gdb-args \
	'-batch -ex "set print thread-events off"
	 -ex "python import os; print(\"gdb-preload=\" + os.environ.get(\"LD_PRELOAD\", \"\"))"
	 -ex "show environment LD_PRELOAD" -ex "break teller" -ex run -ex "info threads" -ex bt
	 -ex delete -ex continue' bank.trace
is_rc 0 "spool replay --gdb exits with gdb's status"
like "$OUT" 'hit Breakpoint 1, teller' "the breakpoint in a thread function is hit during the replay"
num_cmp "$(grep -cE '^\*? +[0-9]+ +Thread .*"rr_bank"' run.out)" -ge 2 \
	"info threads shows the program's threads"
like "$OUT" '^#0 +teller ' "bt shows the stopped thread's stack"
prog_lines run.out >gdb.out
ok "continuing to the end prints the recorded output" cmp -s gdb.out rec.out ||
	diag "$(diff rec.out gdb.out | head -n 10)"
like "$ERR" 'replayed [0-9]+ schedule events' "the replay under gdb follows the whole recording"
like "$(grep '^gdb-preload=' run.out)" '^gdb-preload=$' "gdb itself runs without the agent"
like "$OUT" '^LD_PRELOAD = .*libspool-agent\.so' "... and the program with it"

# A thread parked at a breakpoint for longer than the stuck-turn limit (5 s
# without --gdb) while the others run on (non-stop) and wait for its turns.
spool_run replay --gdb --gdb-args \
	'-batch -ex "set print thread-events off" -ex "set non-stop on"
	 -ex "break teller if arg == 0" -ex run -ex "shell sleep 6"
	 -ex delete -ex "continue -a"
	 -ex "shell timeout 30 sh -c \"until grep -q ^audits run.out; do sleep 0.1; done\""' bank.trace
prog_lines run.out >gdb2.out
ok "6 s at a breakpoint, then continue: still the recorded output" cmp -s gdb2.out rec.out ||
	show_run
unlike "$ERR" 'stuck' "a thread waiting for its turn under gdb is not reported stuck"

spool_run replay --gdb --gdb-args '-ex "break teller' bank.trace
num_cmp "$RC" -ne 0 "unbalanced quotes in --gdb-args are refused"
like "$ERR" 'gdb-args' "... with a message naming the option"

# --- the extension in a plain gdb ----------------------------------------
# (thread events off, as above: a "[Thread ... exited]" line inside a
# program line split it once in the ASan pass)
gdbx() {
	timeout -k 10 "$T_TIMEOUT" gdb -q -batch -x "$EXT" -ex 'set print thread-events off' \
		"$@" </dev/null >gdb.run.out \
		2>gdb.run.err
	RC=$?
	OUT="$(cat gdb.run.out)"
	ERR="$(cat gdb.run.err)"
}

gdbx -ex 'show snap-period' -ex 'set snap-period 250' -ex 'show snap-period' \
	-ex 'show record-mode' -ex 'set record-mode on' -ex 'show record-mode' \
	-ex 'set replay-mode on' -ex 'show replay-mode' -ex 'show record-mode' --args "$BANK" 3 10
like "$OUT" 'snap-period 250: record-mode runs take a snapshot every 250 switches' \
	"set snap-period says what it does"
like "$OUT" 'snap-period is 250 ' "show snap-period shows the period"
like "$OUT" 'record-mode is off' "record-mode starts off"
like "$OUT" 'record-mode is on' "set record-mode on"
like "$(grep -E '^(replay|record)-mode is' gdb.run.out | tail -n 2 | tr '\n' ' ')" \
	'replay-mode is on record-mode is off' "replay-mode on turns record-mode off"

# set record-mode on + run records; spool replay replays it.
gdbx -ex 'set spool-trace g.trace' -ex 'set record-mode on' -ex 'break teller' -ex run \
	-ex delete -ex continue --args "$BANK" 3 2000
like "$OUT" 'hit Breakpoint 1, teller' "under record-mode, the breakpoint is hit in the recorded run"
prog_lines gdb.run.out >g.rec.out
ok "record-mode + run leaves a recording" test -f g.trace/.spool/record ||
	diag "$ERR"
spool_run replay -o g.rep.trace g.trace
prog_lines run.out >g.rep.out
if [ "$RC" = 0 ] && [ -s g.rec.out ] && cmp -s g.rep.out g.rec.out; then
	pass "spool replay of the gdb recording prints what the recorded run printed"
else
	fail "spool replay of the gdb recording prints what the recorded run printed"
	show_run
fi

# set replay-mode on + run replays inside gdb (with the recorded arguments).
gdbx -ex 'set spool-trace g.trace' -ex 'set replay-mode on' -ex run --args "$BANK"
prog_lines gdb.run.out >g.rep2.out
if [ -s g.rep2.out ] && cmp -s g.rep2.out g.rec.out; then
	pass "replay-mode + run replays the recording in gdb"
else
	fail "replay-mode + run replays the recording in gdb"
	diag "$OUT" "$ERR"
fi

done_testing
