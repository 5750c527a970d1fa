#!/bin/bash
# SPDX-License-Identifier: MIT
# 148-gdb-checkpoint.t - checkpoints of a serial replay in gdb (doc/record.md,
# "Checkpoints in gdb"): `spool checkpoint` copies the replayed process at the
# running thread's next switch point, `spool restart N` replays again from
# there (twice, from the same checkpoint), `spool when` says the schedule
# event. A replay restarted from a checkpoint prints from that point what
# the recording printed, and the program's threads, mutexes, condition
# variables and joins work in it.
. "$(dirname "$0")/lib.sh"

need_gdb

plan 11

if [ ! -r "$SPOOL_BUILD/spool-gdb.py" ]; then
	export SPOOL_GDB_SCRIPT="$REPO/src/replay/spool-gdb.py"
fi
export SPOOL_BIN="$SPOOL"

spool_run record -o snap.trace -- "$PROGS/rr_snap" 3 2000
is_rc 0 "record rr_snap"
RECPID=$(head -n 1 run.out | cut -d' ' -f1)
cp run.out rec.out

# Stop in the consumer after its 200th item, checkpoint there, run to the
# end, then go back twice.
spool_run replay --gdb --gdb-args \
	'-batch -ex "set confirm off" -ex "set print thread-events off"
	 -ex "break rr_snap.c:72 if consumed == 200" -ex run -ex "spool when"
	 -ex "spool checkpoint" -ex "spool when" -ex delete
	 -ex "python print(\"=== first\")" -ex continue
	 -ex "spool checkpoints" -ex "spool restart 7" -ex "spool restart 1" -ex "spool when"
	 -ex "python print(\"=== second\")" -ex continue
	 -ex "spool restart 1" -ex "python print(\"=== third\")" -ex continue' snap.trace
is_rc 0 "spool replay --gdb with checkpoints exits 0"
like "$OUT" 'spool: schedule event [0-9]+ of [0-9]+ \(turn of the run token\); it is held by thread [0-9]+' \
	"spool when says the schedule event and the thread"
EV=$(sed -nE 's/^spool: checkpoint 1 at schedule event ([0-9]+), thread ([0-9]+).*/\1/p' run.out)
ok "spool checkpoint says where it was taken (event ${EV:-none})" [ -n "$EV" ]
like "$OUT" "spool: restarted from checkpoint 1 at schedule event $EV" \
	"spool restart 1 says it goes back there"
# spool when right after the restart: the checkpoint's event
AFTER=$(sed -n '/^spool: restarted from checkpoint 1/{n;p;q}' run.out)
like "$AFTER" "schedule event $EV of" "spool when after the restart names the checkpoint's event"
part() { sed -n "/^=== $1\$/,/^\\[Inferior 1 .* exited/p" run.out | grep "^$RECPID "; }
part first >first.out
part second >second.out
part third >third.out
N=$(wc -l <second.out)
tail -n "$N" rec.out >rec.tail
ok "the restarted replay prints the recording's last $N lines" cmp -s second.out rec.tail ||
	diag "$(diff rec.tail second.out | head -n 10)"
like "$(tail -n 1 second.out)" 'done counter=6000 want=6000 consumed=500 want=500 sums=equal joined=5' \
	"... to the end: threads, locks, condition variables and joins work"
ok "a second restart from the same checkpoint prints the same" cmp -s second.out third.out
ok "the first run from the checkpoint printed the same" cmp -s first.out second.out
like "$ERR" 'no checkpoint 7' "spool restart of an unknown checkpoint says so"

done_testing
