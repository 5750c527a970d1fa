#!/bin/bash
# SPDX-License-Identifier: MIT
# 120-sort-computes-not-stuck.t - the serial stuck watchdog tells a token
# holder that computes from one that spins (doc/record.md, "A thread that
# runs without reaching a switch point"). Debian's sort --parallel=4 sorts
# each quarter of its input in memory without a call spool sees; with
# 300,000 lines and --stuck-ms 20 that takes longer than --stuck-ms (at
# the default 5 s the same happens with a 50 MB file: the recording was
# killed as "stuck", exit 137). Its stack changes while it computes, so
# the recording now waits for it: recorded with sort's own output and
# replayed exactly (serial, 2 replays). A thread that spins on a flag
# without calls (tests/progs/rr_stuck spin: its stack does not change) is
# still reported at the same --stuck-ms.
. "$(dirname "$0")/lib.sh"
need_progs sort
plan 5

awk 'BEGIN { x = 12345; for (i = 0; i < 300000; i++) {
	x = (x * 1103515245 + 12345) % 2147483648; printf "%08x line %d\n", x, i } }' >lines.txt
sort --parallel=4 -S 100M lines.txt >native.out
num_cmp "$(wc -l <native.out)" -eq 300000 "sort alone sorts the 300,000 lines"

wall spool_run record -q --stuck-ms 20 -o serial.trace -- sort --parallel=4 -S 100M lines.txt
diag "serial record ${WALL} s"
ok "record --stuck-ms 20: exits 0 with sort's own output (not killed as stuck)" \
	bash -c "[ $RC = 0 ] && cmp -s run.out native.out && ! grep -q 'record stuck' run.err" || show_run
replays_same 2 0 native.out -q -o rep.trace serial.trace
is "$SAME" 2 "serial: 2 replays of 2 exit 0 with the sorted output"

# the spinning thread: reported, as before
spool_run record --stuck-ms 20 -o spin.trace -- "$PROGS/rr_stuck" spin
ok "record --stuck-ms 20 of a thread spinning on a flag: stops, exit not 0" \
	bash -c "[ $RC != 0 ] && [ $RC != 124 ]" || show_run
like "$(cat run.err)" 'record stuck: .*thread 1 holds it and has not reached a switch point' \
	"... naming the spinning thread"
done_testing
