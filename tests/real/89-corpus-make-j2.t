#!/bin/bash
# SPDX-License-Identifier: MIT
# 89-corpus-make-j2.t - the record/replay corpus: GNU make -j2 building a
# small C project (6 objects and a program, gcc forked per file), recorded
# in serial and in sync mode, 3 replays each: make's output, its exit
# status and the files built. A program that forks is a process tree:
# until spool records every process of it, the replay refuses.
. "$(dirname "$0")/lib.sh"
need_progs make gcc
plan 4

mkdir proj
for i in 1 2 3 4 5 6; do
	printf 'int f%d(int x) { return x * %d + %d; }\n' "$i" "$i" "$i" >"proj/f$i.c"
done
cat >proj/main.c <<'C'
#include <stdio.h>
int f1(int), f2(int), f3(int), f4(int), f5(int), f6(int);
int main(void) { printf("%d\n", f1(1) + f2(2) + f3(3) + f4(4) + f5(5) + f6(6)); return 0; }
C
cat >proj/Makefile <<'MK'
OBJS = main.o f1.o f2.o f3.o f4.o f5.o f6.o
prog: $(OBJS)
	gcc -o $@ $(OBJS)
%.o: %.c
	gcc -O1 -c -o $@ $<
MK
for m in serial sync; do
	rr_corpus make-j2 "$m" --dir proj -- make -j2 prog
done
done_testing
