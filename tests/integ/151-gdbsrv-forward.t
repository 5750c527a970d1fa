#!/bin/bash
# SPDX-License-Identifier: MIT
# 151-gdbsrv-forward.t - spool as gdb's remote target (spool replay
# --gdbserver -, gdb's `target remote | ...`), going forward: an unmodified
# gdb finds the program from the target (exec-file), sets a breakpoint,
# continues to it, sees the threads and their stacks, reads and writes
# memory and registers, steps an instruction, stops at a watchpoint in the
# thread that wrote, reads the auxiliary vector, asks `monitor when` (and
# the extension's `spool when`), and runs to the end with the recorded
# output and exit status.
. "$(dirname "$0")/lib.sh"

gdbsrv_bank
plan 16
# gdb on the replay of rec with spool's extension, no binary given
GDBSRV_EXT="$SPOOL_BUILD/spool-gdb.py"
[ -r "$GDBSRV_EXT" ] || GDBSRV_EXT="$REPO/src/replay/spool-gdb.py"
GDBSRV_BIN=

spool_run record -q -o rec -- "$BIN" 5
is_rc 1 "the recorded run ends with a wrong balance"
like "$OUT" "balance 200" "  and says so"

gdbsrv -ex "break rr_rev_bank.c:$(line_of END)" -ex continue -ex 'print balance' \
	-ex 'info threads' -ex 'monitor when' -ex 'spool when' -ex 'info auxv' -ex kill
like "$G" "Breakpoint 1, main .* at .*rr_rev_bank.c:$(line_of END)" \
	"gdb found the program from the target and stops at a breakpoint in it"
like "$G" '\$1 = 200' "  it reads the program's memory (the recorded run's balance)"
like "$G" 'Thread [0-9]+ \(replay thread 1' "  it lists the threads"
like "$G" 'stop [0-9]+ of the replay .*thread 1' "  monitor when says where the replay stands"
# (spool when reads the agent's schedule when it can, else asks monitor when)
is "$(grep -Ec '^(stop [0-9]* of the replay|spool: schedule event [0-9]+ of [0-9]+)' gdb.out)" 2 \
	"  and so does spool when"
like "$G" 'AT_ENTRY' "  the auxiliary vector is the program's"

gdbsrv -ex "break rr_rev_bank.c:$(line_of BUG)" -ex continue -ex 'info threads' -ex 'bt 1' \
	-ex 'set var balance = 4242' -ex 'print balance' -ex 'print $pc' -ex stepi \
	-ex 'print $pc' -ex 'set var $rax = 77' -ex 'print $rax' -ex kill
like "$G" "hit Breakpoint 1, teller \(arg=0x2\) at .*:$(line_of BUG)" \
	"a breakpoint in the second teller stops in its thread"
like "$G1" 'replay thread 1.*replay thread 3' "  where gdb sees the main thread and it"
like "$G" '\$1 = 4242' "  memory is written"
pc1=$(sed -n 's/^\$2 = .*\(0x[0-9a-f]*\).*/\1/p' gdb.out)
pc2=$(sed -n 's/^\$3 = .*\(0x[0-9a-f]*\).*/\1/p' gdb.out)
if [ -n "$pc1" ] && [ -n "$pc2" ] && [ "$pc1" != "$pc2" ]; then
	pass "  stepi moves the pc ($pc1 -> $pc2)"
else
	fail "  stepi moves the pc ($pc1 -> $pc2)"
fi
like "$G" '\$4 = 77' "  registers are written"

gdbsrv -ex "break rr_rev_bank.c:$(line_of END)" -ex continue -ex 'watch balance' \
	-ex 'set var balance = 5' -ex 'delete 1' -ex continue -ex continue
like "$G" 'exited with code 01' "continuing to the end: the recorded exit status"
like "$G" 'balance 5 \(want 100\)' "  and the program's output, with the value gdb wrote"

gdbsrv -ex 'break audit' -ex continue -ex 'delete' -ex 'watch balance' -ex continue -ex 'info threads' -ex kill
like "$G1" 'Hardware watchpoint 2: balance.*Old value = 100.*New value = 11[12]' \
	"a watchpoint stops at the write, with its old and new values"
done_testing
