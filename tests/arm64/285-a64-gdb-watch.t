#!/bin/bash
# SPDX-License-Identifier: MIT
# 285-a64-gdb-watch.t - hardware watchpoints of spool replay --gdbserver on
# aarch64 (NT_ARM_HW_WATCH), forward and in reverse, on the VM's real arm64
# kernel, debugged by the host's gdb-multiarch (lib.sh's a64_gdb_*, as
# 278: the VM records tests/progs/rr_rev_bank and serves its replay over
# qemu's user network).
# Arm's watchpoints trap before the access, x86's after; the gdb server
# steps the thread over the access (so its searches keep x86's model) and
# answers in place the step gdb for aarch64 makes over a watchpoint it was
# told of. One session, as tests/integ/152 on x86-64, with breakpoints at
# the lines of the two writes (BUG, WITHDRAW): a watchpoint found backwards
# is reached by single steps from the stop before it, which without them
# is far (thousands of steps through the agent and libc, minutes in the
# emulated VM):
#   - from the end, `watch balance` and reverse-continue stop at the write
#     that made the balance wrong (the line marked BUG), in the second
#     teller's thread, with gdb's Old value / New value of going backwards
#     and the balance before the write; the next reverse-continue stops at
#     the breakpoint of that line, the next at the write before it (a
#     withdrawal, in audit);
#   - forward again from there, continue stops at that withdrawal's write,
#     at the breakpoint, then at the doubling, each with the values as they
#     change;
#   - without the watchpoint the replay runs to its end (exit status 1, the
#     recording's).
. "$(dirname "$0")/lib.sh"
a64_need_vm
a64_gdb_vm_need

plan 15

a64_gdb_vm_start

BUG=$(line_of BUG)
END=$(line_of END)
WITHDRAW=$(line_of WITHDRAW)
a64_gdb_session \
	-ex "break rr_rev_bank.c:$END" -ex continue -ex 'print balance' \
	-ex "break rr_rev_bank.c:$BUG" -ex "break rr_rev_bank.c:$WITHDRAW" \
	-ex 'watch balance' -ex reverse-continue -ex 'print balance' -ex 'info threads' \
	-ex reverse-continue -ex reverse-continue -ex 'print balance' -ex 'print amount' \
	-ex continue -ex continue -ex continue -ex 'print balance' \
	-ex delete -ex continue
unlike "$G1$(cat srv.err 2>/dev/null)" 'Could not insert hardware|cannot watch' \
	"the watchpoint is inserted (NT_ARM_HW_WATCH)"
like "$G" '^\$1 = 200$' "at the end of main the balance is wrong (200)"
# (the pc is the store's, inside its line: gdb names the address)
like "$G1" "Old value = 200 +New value = 100 +(0x[0-9a-f]+ in )?teller \\(arg=0x2\\) at [^ ]*rr_rev_bank.c:$BUG" \
	"watch + reverse-continue stop at the write that made the balance wrong"
like "$G1" '\* 2 +Thread [0-9]+ \(replay thread 3[^*]*teller \(arg=0x2\)' \
	"  in the thread that wrote it (the second teller)"
like "$G" '^\$2 = 100$' "  before the write: the balance as it was"
like "$G1" "Breakpoint 2, teller \\(arg=0x2\\) at [^ ]*rr_rev_bank.c:$BUG" \
	"  the next reverse-continue stops at the breakpoint of that line"
like "$G1" "Old value = 100 +New value = [0-9]+ +(0x[0-9a-f]+ in )?audit \\(amount=[0-9]+\\) at [^ ]*rr_rev_bank.c:$WITHDRAW" \
	"the next reverse-continue stops at the write before it (a withdrawal)"
before=$(sed -n 's/^\$3 = \([0-9]*\)$/\1/p' gdb.out)
amount=$(sed -n 's/^\$4 = \([0-9]*\)$/\1/p' gdb.out)
if [ -n "$before" ] && [ -n "$amount" ] && [ "$((before - amount))" -eq 100 ]; then
	pass "  where the balance is the one before it ($before, less $amount: 100)"
else
	fail "  where the balance is the one before it (${before:-none}, less ${amount:-none}: 100)"
fi
like "$G1" "Old value = ${before:-none} +New value = 100 .*Breakpoint 2, teller .*Old value = 100 +New value = 200 " \
	"forward again: continue stops at the withdrawal, the breakpoint, then the doubling"
like "$G" '^\$5 = 200$' "  after the doubling: 200"
like "$G1" '\[Inferior 1 \((process [0-9]+|Remote target)\) exited with code 01\]' \
	"without the watchpoint the replay runs to its end (exit status 1, the recording's)"
done_testing
