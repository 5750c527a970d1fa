#!/bin/bash
# SPDX-License-Identifier: MIT
# 80-make-j2-replay.t - Debian's GNU make -j2 building a small C project
# (4 compiles with cc, a link) recorded as a process tree (issue 13: make
# forks, its children exec cc, cc spawns cc1, as, collect2 and ld) and
# replayed 3 times in serial and in sync mode from a clean tree: every
# replay exits 0, prints what make printed when recorded (its command
# lines, in the recorded order), and builds the same program (the compilers
# run for real, each from its own recording). Before, record said nothing
# about the fork and the replay said "the recording lost events: thread 0
# has event 1 where 2 was expected" while spool info said none were lost.
. "$(dirname "$0")/lib.sh"
need_progs make cc
plan 17

mkdir proj
cd proj || exit 1
for i in 1 2 3; do
	printf 'int f%d(int x) { return x * %d + %d; }\n' "$i" "$i" "$i" >"f$i.c"
done
cat >main.c <<'C'
#include <stdio.h>
int f1(int), f2(int), f3(int);
int main(void) { printf("%d\n", f1(1) + f2(2) + f3(3)); return 0; }
C
cat >Makefile <<'MK'
prog: main.o f1.o f2.o f3.o
	cc -o $@ $^
%.o: %.c
	cc -O1 -c -o $@ $<
clean:
	rm -f *.o prog
MK
make -s >/dev/null && ./prog >../native.prog && make -s clean

for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "../$mode.trace" -- make -j2
	is_rc 0 "$mode: record of make -j2 exits 0"
	cp run.out "../$mode.out"
	ok "  and builds the program" bash -c './prog | cmp -s - ../native.prog'
	spool_run info "../$mode.trace"
	like "$OUT" "recording: [0-9]+ processes" "  spool info lists the processes of the recording"
	is "$(info_lost "../$mode.trace")" 0 "  and says nothing was lost"
	make -s clean
	same=0 built=0
	for r in 1 2 3; do
		spool_run replay -q "../$mode.trace"
		if [ "$RC" = 0 ] && cmp -s run.out "../$mode.out"; then
			same=$((same + 1))
		else
			show_run
			diag "$(diff "../$mode.out" run.out | head -n 20)"
		fi
		[ -x prog ] && ./prog | cmp -s - ../native.prog && built=$((built + 1))
		make -s clean
	done
	is "$same" 3 "$mode: 3 replays of 3 exit 0 with make's recorded output"
	is "$built" 3 "  and each builds the same program again"
done

spool_run replay -q -o ../rep.trace ../serial.trace
unlike "$ERR" "lost events|was expected" "no replay mixes the processes' events"
make -s clean
cd "$T_DIR" || exit 1

# Recipes that print, two at once: each shell's echo lines come out in the
# order recorded, although each process replays at its own pace (the
# processes' writes to spool's stdout keep their recorded order).
mkdir echo
cd echo || exit 1
printf 'all: a b c d\na b c d:\n\t@echo start $@; sleep 0.01; echo end $@\n' >Makefile
for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "../echo-$mode.trace" -- make -j2
	is_rc 0 "$mode: record of make -j2 with recipes that echo exits 0"
	cp run.out "../echo-$mode.out"
	replays_same 3 0 "../echo-$mode.out" -q "../echo-$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 print the recipes' lines in the recorded order"
done
cd "$T_DIR" || exit 1
done_testing
