#!/bin/bash
# SPDX-License-Identifier: MIT
# 233-gdb-spool-goto.t - `spool goto EVENT` in the gdb extension
# (doc/record.md "Replay from a snapshot", "The gdb extension"): in a gdb
# that loaded spool-gdb.py, with the recording as spool-trace, `spool goto
# EVENT` replays from the snapshot at or before EVENT (spool replay
# --gdb-wrapper --goto) and gdb stops as the token's turn EVENT begins;
# `continue` prints the rest of the recorded output. A bad EVENT is refused.
. "$(dirname "$0")/lib.sh"

need_gdb

plan 6

SCRIPT="$SPOOL_BUILD/spool-gdb.py"
[ -r "$SCRIPT" ] || SCRIPT="$REPO/src/replay/spool-gdb.py"
export SPOOL_BIN="$SPOOL"

spool_run record --chaos --snap-period 150 -o g.trace -- "$PROGS/rr_goto" 4 300
is_rc 0 "record --snap-period 150"
cp run.out rec.out
EVENTS=$(sed -nE 's/.* ([0-9,]+) schedule events.*/\1/p' run.err | tr -d , | head -1)
E=$((EVENTS / 2 + RANDOM % 100))

timeout -k 10 "$T_TIMEOUT" gdb -q -batch -x "$SCRIPT" -ex "set confirm off" \
	-ex "set spool-trace g.trace" -ex "spool goto $E" -ex "spool when" \
	-ex 'python print("=== continue")' -ex continue -ex "spool goto x" \
	"$PROGS/rr_goto" >gdb.out 2>gdb.err
check_sanitizer gdb.err "gdb with spool goto"
OUT=$(cat gdb.out)
ERR=$(cat gdb.err)
like "$ERR" "started from snapshot [0-9]+ at schedule event" "spool goto $E restores a snapshot"
like "$OUT" "received signal SIGTRAP" "gdb stops the program"
like "$OUT" "spool: schedule event $E of [0-9]+" "... at schedule event $E (spool when)"
ok "after continue the program prints the recording's last line" \
	grep -qxF "$(tail -1 rec.out)" <(sed -n '/^=== continue/,$p' gdb.out)
like "$ERR" "spool goto EVENT\[:COUNT\]: EVENT is a schedule event" "spool goto without a number is refused"

done_testing
