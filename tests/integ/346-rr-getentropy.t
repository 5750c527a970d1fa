#!/bin/bash
# SPDX-License-Identifier: MIT
# 346-rr-getentropy.t - getentropy(3) is an input of record/replay
# (doc/record.md, "What is recorded"): glibc's makes the getrandom system
# call itself, not through getrandom's symbol, so the agent saw nothing, and
# every replay of Debian's ruby printed another `rand` (silently: exit 0, no
# divergence; tests/real/142-ruby-all.t). rr_entropy_open prints 16 bytes of
# getentropy first: each replay, serial and sync, prints the recording's
# bytes, and the recording holds them as a getrandom input; without spool
# and under spool locks the program gets fresh bytes as before.
. "$(dirname "$0")/lib.sh"

plan 6

P="$PROGS/rr_entropy_open"
ent() { sed -n 's/^entropy \([0-9a-f]*\)$/\1/p' "$1"; }

"$P" 2 5 a.txt >n1.out 2>&1
"$P" 2 5 a.txt >n2.out 2>&1
ok "without spool: 16 fresh bytes a run" \
	bash -c "[ \"$(ent n1.out | wc -c)\" = 33 ] && [ \"$(ent n1.out)\" != \"$(ent n2.out)\" ]"
spool_run locks -q -o lk.trace -- "$P" 2 5 a.txt
ok "under spool locks: exit 0, fresh bytes too (getentropy is the real one)" \
	bash -c "[ $RC = 0 ] && [ -n \"$(ent run.out)\" ] && [ \"$(ent run.out)\" != \"$(ent n1.out)\" ]" || show_run

for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$P" 2 5 a.txt
	cp run.out "$mode.rec"
	got=$("$SPOOL" replay --dump-schedule "$mode.trace" 2>/dev/null | grep -c ' call 15 .* len 16$')
	ok "$mode: recorded (exit 0), getentropy's 16 bytes are a getrandom input in the log" \
		bash -c "[ $RC = 0 ] && [ \"$got\" -ge 1 ]" || show_run
	same=0
	for i in 1 2 3; do
		spool_run replay -q -o "r$i.trace" "$mode.trace"
		[ "$RC" = 0 ] && cmp -s run.out "$mode.rec" && same=$((same + 1))
	done
	is "$same" 3 "$mode: 3 replays of 3 print the recorded bytes ($(ent "$mode.rec")) and exit 0" ||
		diag "$(diff "$mode.rec" run.out)"
done
done_testing
