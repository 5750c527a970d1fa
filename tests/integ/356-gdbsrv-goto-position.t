#!/bin/bash
# SPDX-License-Identifier: MIT
# 356-gdbsrv-goto-position.t - spool replay --gdbserver - --goto EVENT:COUNT
# (doc/record.md "Replay from a snapshot"): of several snapshots at one
# schedule event (a thread that held the run token alone: rr_solo, one
# thread, snapshots by time), gdb's session starts at the one that position
# names, restored, and every replay the session starts again (going back)
# restores that one. Before, --gdbserver refused a COUNT (its session
# starts at a turn of the token); and a --goto to event 0 stopped as turn 0
# began in the fresh process, before the snapshot was loaded over it.
. "$(dirname "$0")/lib.sh"

need_gdb

plan 11

spool_run record -q --snap-period 200ms -o rec -- "$PROGS/rr_solo" 20000 10
is_rc 0 "record of a thread alone, a snapshot every 200 ms"
cp run.out rec.out
"$SPOOL" info rec 2>/dev/null | sed -n '/^snapshots:/,/^[a-z]/p' | grep -E '^ +[0-9]+ ' >rows
num_cmp "$(wc -l <rows)" -ge 3 "... takes snapshots, all at event 0 ($(awk '{printf "%s ", $2}' rows))"
read -r i2 p2 _ < <(sed -n 2p rows)

# where a replay from that snapshot starts printing (its first step)
spool_run replay -q -o plain.trace --goto "$p2" rec
FIRST=$(sed -n '1s/^step \([0-9]*\) .*/\1/p' run.out)
ok "--goto $p2 without gdb: exit 0, the recording's tail from step ${FIRST:-none}" \
	eval '[ "$RC" = 0 ] && [ -n "$FIRST" ] && suffix_ok rec.out run.out' || show_run

LINE=$(grep -n 'printf("step' "$REPO/tests/progs/rr_solo.c" | cut -d: -f1)
val() { sed -n "s/^$1=\([0-9]*\)\$/\1/p" gdb.out | head -1; }
GDBSRV_OPTS="--goto $p2 "
gdbsrv -ex bt -ex "break rr_solo.c:$LINE" -ex continue -ex 'printf "hit1=%ld\n", i' \
	-ex continue -ex 'printf "hit2=%ld\n", i' -ex delete -ex continue
is "$GRC" 0 "gdb on --goto $p2 --gdbserver - exits 0 (not refused)"
like "$G" "starting from snapshot $i2 at schedule event $p2 " "  the replay starts from snapshot $i2, the one $p2 names"
is "$(val hit1),$(val hit2)" "${FIRST:-x},$((${FIRST:-0} + 1))" \
	"  the session starts at that snapshot: the first hits are steps ${FIRST:-x} and the next"
unlike "$G" "agent_serial_init" "  its first stop is in the restored process, not in the fresh one before the load"
ok "  continue to the end: the recording's last line, a normal exit" \
	eval 'grep -qxF "$(tail -1 rec.out)" gdb.out && grep -q "exited normally" gdb.out'

# back: every replay the session starts again is that snapshot, restored
gdbsrv -ex "break rr_solo.c:$LINE" -ex continue -ex continue \
	-ex reverse-continue -ex 'printf "back1=%ld\n", i' -ex reverse-continue -ex kill
is "$(val back1)" "${FIRST:-x}" "reverse-continue: back to the first hit, step ${FIRST:-x}"
like "$G1" "No more reverse-execution history" "  and once more: the session's start, no further"

# the gdb extension's spool goto EVENT:COUNT (a gdb that runs the program)
SCRIPT="$SPOOL_BUILD/spool-gdb.py"
[ -r "$SCRIPT" ] || SCRIPT="$REPO/src/replay/spool-gdb.py"
SPOOL_BIN="$SPOOL" timeout -k 10 "$T_TIMEOUT" gdb -q -batch -x "$SCRIPT" -ex "set confirm off" \
	-ex "set spool-trace rec" -ex "spool goto $p2" -ex "break rr_solo.c:$LINE" -ex continue \
	-ex 'printf "ext=%ld\n", i' -ex kill "$PROGS/rr_solo" >gdb.out 2>gdb.err
check_sanitizer gdb.err "gdb with spool goto"
ok "gdb's spool goto $p2: restores snapshot $i2, the first hit is step ${FIRST:-x}" \
	eval 'grep -q "started from snapshot $i2 at schedule event $p2 " gdb.err && [ "$(val ext)" = "${FIRST:-x}" ]' ||
	diag "$(grep -v '^\[' gdb.err | head -5; grep ext= gdb.out)"
done_testing
