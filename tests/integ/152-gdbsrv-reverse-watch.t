#!/bin/bash
# SPDX-License-Identifier: MIT
# 152-gdbsrv-reverse-watch.t - reverse-continue over spool's gdbserver: a
# recording whose balance ends up wrong; from the end, `watch balance` and
# `reverse-continue` stop at the write that made it wrong (the line marked
# BUG), in the thread that did it (the second teller, arg=0x2), with gdb's
# Old value / New value of going backwards; the next reverse-continue stops
# at the write before (a withdrawal); with nothing to stop at,
# reverse-continue reaches the start of the replay ("No more
# reverse-execution history"); a breakpoint is found backwards too, and
# going forward again from there works.
. "$(dirname "$0")/lib.sh"

gdbsrv_bank
plan 11

spool_run record -q -o rec -- "$BIN" 8
is_rc 1 "the recorded run ends with a wrong balance"

gdbsrv -ex "break rr_rev_bank.c:$(line_of END)" -ex continue -ex 'print balance' \
	-ex 'watch balance' -ex reverse-continue -ex 'print balance' -ex 'info threads' \
	-ex reverse-continue -ex 'print balance' -ex kill
like "$G1" "Old value = 200 +New value = 100 +teller \(arg=0x2\) at [^ ]*rr_rev_bank.c:$(line_of BUG)" \
	"watch + reverse-continue stop at the write that made the balance wrong"
like "$G1" '\* 2 +Thread [0-9]+ \(replay thread 3[^*]*teller \(arg=0x2\)' \
	"  in the thread that wrote it (the second teller)"
like "$G" '^\$2 = 100' "  before the write: the balance as it was"
like "$G1" "Old value = 100 +New value = 112 +audit \(amount=12\) at [^ ]*rr_rev_bank.c:$(line_of WITHDRAW)" \
	"the next reverse-continue stops at the write before it"
like "$G" '^\$3 = 112' "  where the balance is the one before that withdrawal"

gdbsrv -ex "break rr_rev_bank.c:$(line_of END)" -ex continue -ex delete -ex reverse-continue \
	-ex 'info threads' -ex kill
like "$G" 'No more reverse-execution history' \
	"reverse-continue with nothing to stop at reaches the start of the replay"
like "$G" '_start \(\)' "  the program's first instruction"

gdbsrv -ex "break rr_rev_bank.c:$(line_of END)" -ex continue -ex delete \
	-ex "break rr_rev_bank.c:$(line_of DEPOSIT)" -ex reverse-continue -ex 'print amount' \
	-ex 'print balance' -ex delete -ex 'watch balance' -ex continue -ex kill
like "$G" "Breakpoint 2, audit \(amount=1[12]\) at .*:$(line_of DEPOSIT)" \
	"a breakpoint is found backwards: the last deposit"
like "$G" '^\$2 = 100$' "  before it, the balance is back to 100"
like "$G1" 'Old value = 100 +New value = 11[12] ' "  and forward from there a watchpoint stops at the deposit"
done_testing
