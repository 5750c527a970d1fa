#!/bin/bash
# SPDX-License-Identifier: MIT
# 179-gdbsrv-checkpoints.t - reverse execution from checkpoints
# (doc/record.md, "Checkpoints of the gdbserver"): spool replay --gdbserver
# keeps copies of the stopped replay (made under ptrace) and goes back from
# the latest one before the point instead of from the beginning. A racy
# counter's chaos recording, walked back write by write to its start with a watchpoint,
# with a checkpoint at every stop (SPOOL_GDBSRV_CHECKPOINT_MS=0, the most
# copies of copies): `monitor when` says replays started from checkpoints,
# the writes found are one chain back in time (each one's New value is the
# value the next one overwrote), in both threads, and they are the writes
# the same walk finds without checkpoints. reverse-next, reverse-stepi and
# reverse-finish in a thread, through checkpoints, land where they land
# without.
. "$(dirname "$0")/lib.sh"

if ! command -v gdb >/dev/null 2>&1; then
	echo "1..0 # SKIP gdb is not installed"
	exit 0
fi

plan 10

BIN="$PROGS/rr_race_counter-finst"
SRC="$REPO/tests/progs/rr_race_counter-finst.c"
END=$(grep -n 'printf("total' "$SRC" | cut -d: -f1)

spool_run record -q --chaos --seed 7 -o race -- "$BIN" 2 6
total=$(sed -n 's/^total \([0-9]*\) of 12$/\1/p' run.out)
like "$total" '^[0-9]+$' "a recording of the racy counter (total ${total:-none} of 12)"

# walk back over every write (12) to the start; $1: the checkpoint setting
walk() {
	local rc=()
	for _ in $(seq 13); do rc+=(-ex reverse-continue); done
	env $1 timeout -k 5 300 gdb -q -batch -nx -ex "target remote | $SPOOL replay --gdbserver - race" \
		-ex "break rr_race_counter-finst.c:$END" -ex continue -ex delete -ex 'watch counter' \
		"${rc[@]}" -ex 'monitor when' -ex kill "$BIN" >"gdb.$2" 2>&1
	check_sanitizer "gdb.$2" "gdb on spool replay --gdbserver"
	awk '/^Thread [0-9]+ hit Hardware watchpoint/ {t=$2} /^Old value = / {o=$4}
	     /^New value = / {print t, o, $4}' "gdb.$2" >"writes.$2"
}

walk SPOOL_GDBSRV_CHECKPOINT_MS=0 ck
walk SPOOL_GDBSRV_CHECKPOINTS=0 none
when=$(grep 'replays started' gdb.ck)
from=$(echo "$when" | sed -n 's/.*from a checkpoint: \([0-9]*\).*/\1/p')
fresh=$(echo "$when" | sed -n 's/.*replays started: \([0-9]*\),.*/\1/p')
fresh0=$(sed -n 's/.*replays started: \([0-9]*\),.*/\1/p' gdb.none)
num_cmp "${from:-0}" -ge 12 "monitor when: replays started from checkpoints (${from:-none})"
num_cmp "${fresh:-99}" -lt "${fresh0:-0}" \
	"  fewer replays from the beginning than without checkpoints (${fresh:-none} against ${fresh0:-none})"
is "$(wc -l <writes.ck)" 12 "every write (12) found backwards with checkpoints"
# going back in time, each write's new value is the value the one after
# it (in time: the row above) overwrote
chain=$(awk 'NR > 1 && $2 != prev {bad = bad " " NR} {prev = $3} END {print bad}' writes.ck)
is "$chain" "" "  one chain of writes: each overwrote the value the one before it in time wrote"
like "$(cut -d' ' -f1 writes.ck | sort -u | tr '\n' ' ')" '^[0-9]+ [0-9]+ $' "  by both threads"
if cmp -s writes.ck writes.none; then
	pass "  the same writes as without checkpoints"
else
	fail "  the same writes as without checkpoints"
	diag "$(paste writes.ck writes.none)"
fi

# reverse-next / reverse-stepi / reverse-finish in a thread, through copies
BIN2="$PROGS/rr_rev_bank"
SRC2="$REPO/tests/progs/rr_rev_bank.c"
line_of() { grep -n "/\* $1 \*/" "$SRC2" | cut -d: -f1; }
BUG=$(line_of BUG)
spool_run record -q -o rec -- "$BIN2" 6
steps() {
	env $1 timeout -k 5 300 gdb -q -batch -nx -ex "target remote | $SPOOL replay --gdbserver - rec" \
		-ex "break rr_rev_bank.c:$BUG" -ex continue -ex 'print $pc' -ex next -ex stepi \
		-ex reverse-stepi -ex reverse-next -ex 'print $pc' -ex reverse-next -ex 'info line *$pc' \
		-ex reverse-finish -ex 'bt 1' -ex 'monitor when' -ex kill "$BIN2" >"steps.$2" 2>&1
	check_sanitizer "steps.$2" "gdb on spool replay --gdbserver"
	grep -E '^\$[0-9]|^Line |^#0|^Run till' "steps.$2" | sed 's/ (LWP [0-9]*)//' >"stops.$2"
}
steps SPOOL_GDBSRV_CHECKPOINT_MS=0 ck
steps SPOOL_GDBSRV_CHECKPOINTS=0 none
pc1=$(sed -n 's/^\$1 = .*\(0x[0-9a-f]*\).*/\1/p' steps.ck)
pc2=$(sed -n 's/^\$2 = .*\(0x[0-9a-f]*\).*/\1/p' steps.ck)
if [ -n "$pc1" ] && [ "$pc1" = "$pc2" ]; then
	pass "next, stepi, reverse-stepi, reverse-next: back at the same instruction ($pc1)"
else
	fail "next, stepi, reverse-stepi, reverse-next: back at the same instruction ($pc1, $pc2)"
fi
like "$(grep 'replays started' steps.ck)" 'from a checkpoint: [1-9]' \
	"  the reverse commands started from checkpoints"
if [ -s stops.ck ] && cmp -s stops.ck stops.none; then
	pass "  reverse-next, reverse-finish stop where they stop without checkpoints"
else
	fail "  reverse-next, reverse-finish stop where they stop without checkpoints"
	diag "$(paste -d'|' stops.ck stops.none)"
fi
done_testing
