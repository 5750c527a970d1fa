#!/bin/bash
# SPDX-License-Identifier: MIT
# 232-replay-goto-gdb.t - spool replay --goto EVENT --gdb (doc/record.md
# "Replay from a snapshot"): gdb runs the program restored from the
# snapshot before EVENT, and stops (SIGTRAP, in the agent) as the token's
# turn EVENT begins: `spool when` says EVENT; gdb sees every thread; after
# `continue` the program prints the rest of the recorded output and exits
# normally.
. "$(dirname "$0")/lib.sh"

need_gdb

plan 6

if [ ! -r "$SPOOL_BUILD/spool-gdb.py" ]; then
	export SPOOL_GDB_SCRIPT="$REPO/src/replay/spool-gdb.py"
fi
export SPOOL_BIN="$SPOOL"

spool_run record --chaos --snap-period 150 -o g.trace -- "$PROGS/rr_goto" 4 300
is_rc 0 "record --snap-period 150"
cp run.out rec.out
EVENTS=$(sed -nE 's/.* ([0-9,]+) schedule events.*/\1/p' run.err | tr -d , | head -1)
E=$((EVENTS / 2 + RANDOM % 100))

spool_run replay --goto "$E" --gdb --gdb-args \
	'-batch -ex "set confirm off" -ex run -ex "spool when" -ex "info threads"
	 -ex "python print(\"=== continue\")" -ex continue' g.trace
is_rc 0 "--goto $E --gdb: gdb exits 0"
like "$ERR" "started from snapshot [0-9]+ at schedule event" "... the replay started from a snapshot"
like "$OUT" "received signal SIGTRAP" "gdb stops the program"
like "$OUT" "spool: schedule event $E of [0-9]+" "... at schedule event $E (spool when)"
LAST=$(tail -1 rec.out)
ok "after continue the program prints the recording's last line" \
	grep -qxF "$LAST" <(sed -n '/^=== continue/,$p' run.out)

done_testing
