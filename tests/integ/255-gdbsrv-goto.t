#!/bin/bash
# SPDX-License-Identifier: MIT
# 255-gdbsrv-goto.t - spool replay --goto EVENT --gdbserver - (doc/record.md
# "Replay from a snapshot" and "Reverse execution"): gdb's session starts
# stopped at schedule event EVENT, restored from the recorded snapshot before
# it, in the thread that holds the token then (the same point as --goto EVENT
# --gdb stops at: the program's counter has the same value); forward
# execution works from there (a breakpoint, its next hit, continue to the
# normal end with the recording's last line); going back stops at that
# start ("No more reverse-execution history"), where the counter is again
# what it was. The second session's two hits are the first's: the first
# asks `info threads` (Hg to each thread) before it continues, and spool
# answered the g after a stop with the Hg thread's registers, where gdb
# takes the stopped thread (it sends no Hg): gdb saw no breakpoint at that
# pc, resumed silently, and continue missed hits (every run; the old check
# of the reverse-continue against the first session's hit failed 3 in 64).
. "$(dirname "$0")/lib.sh"

need_gdb

plan 15

goto_recording
if [ ! -r "$SPOOL_BUILD/spool-gdb.py" ]; then
	export SPOOL_GDB_SCRIPT="$REPO/src/replay/spool-gdb.py"
fi
export SPOOL_BIN="$SPOOL"

# the counter where --goto E --gdb stops (tests/integ/232)
spool_run replay --goto "$E" --gdb --gdb-args \
	'-batch -ex "set confirm off" -ex run -ex "spool when" -ex "printf \"events=%ld\n\", events" -ex kill' rec
REF=$(sed -n 's/^events=\([0-9]*\)$/\1/p' run.out | head -1)

GDBSRV_OPTS="--goto $E "
val() { sed -n "s/^$1=\([0-9]*\)\$/\1/p" gdb.out | head -1; }
# forward
gdbsrv -ex 'printf "start=%ld\n", events' -ex 'info threads' -ex "break rr_goto.c:$UNLOCK" \
	-ex continue -ex 'printf "hit1=%ld\n", events' -ex continue -ex 'printf "hit2=%ld\n", events' \
	-ex delete -ex continue
START=$(val start) H1=$(val hit1) H2=$(val hit2)
is "$GRC" 0 "gdb on --goto $E --gdbserver - exits 0"
like "$G" "starting from snapshot [0-9]+ at schedule event" "  the replay starts from a snapshot"
like "${REF:-none}" '^[0-9]+$' "--goto $E --gdb stops with the counter at ${REF:-none}"
is "${START:-none}" "${REF:-x}" "  the gdbserver's session starts at the same point"
like "$G1" "5 +Thread [0-9]+ .replay thread 5" "  gdb sees the threads the snapshot holds"
ok "forward: two hits of a breakpoint, the counter going up (${START:-none}, ${H1:-none}, ${H2:-none})" \
	test -n "$H2" -a "${H1:-0}" -ge "${START:-1}" -a "${H2:-0}" -gt "${H1:-0}"
LAST=$(tail -1 rec.out)
ok "continue to the end: the recording's last line" grep -qxF "$LAST" gdb.out
like "$G" "exited normally" "  the program exits normally"

# backwards, to the session's start
gdbsrv -ex "break rr_goto.c:$UNLOCK" -ex continue -ex 'printf "fwd1=%ld\n", events' \
	-ex continue -ex 'printf "fwd2=%ld\n", events' -ex reverse-continue -ex 'printf "back1=%ld\n", events' \
	-ex reverse-continue -ex 'printf "back0=%ld\n", events' -ex 'monitor when' -ex kill
is "$GRC" 0 "gdb going back exits 0"
ok "  the same two hits again (${H1:-x} ${H2:-x}: $(val fwd1) $(val fwd2))" \
	test "$(val fwd1) $(val fwd2)" = "${H1:-x} ${H2:-x}" || diag "$(cat gdb.out)"
ok "  reverse-continue: back to the first hit ($(val back1) for $(val fwd1))" \
	test "$(val back1)" = "$(val fwd1)" || diag "$(cat gdb.out)"
like "$G1" "No more reverse-execution history.* back0=${START:-x} " \
	"  and once more: the session's start (schedule event $E), no further"
like "$G" "replays started: [2-9]" "  monitor when: replays started again"

# an EVENT past the end: refused, with the reason, before gdb gets a target
GDBSRV_OPTS="--goto $((EVENTS + 1000)) "
gdbsrv -ex 'info threads'
# (under load gdb printed only "Remote communication error ... Broken
# pipe" 3 runs in 32, without the reason: spool left before gdb read it;
# spool reads gdb's first packet first now, gdbsrv.c)
ok "--goto past the end: refused with the reason" \
	grep -q "goto $((EVENTS + 1000)): beyond the end of the recording" gdb.out

done_testing
