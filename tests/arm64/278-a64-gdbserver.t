#!/bin/bash
# SPDX-License-Identifier: MIT
# 278-a64-gdbserver.t - spool replay --gdbserver on aarch64, on a real arm64
# kernel (ptrace: qemu-user has none, so scripts/arm64-vm.sh boots Debian's
# arm64 kernel under qemu-system-aarch64), debugged by the host's
# gdb-multiarch (with a long remote timeout: the VM is emulated) over qemu's
# user network (ARM64_VM_HOSTFWD: the host's 127.0.0.1:PORT is the VM's
# 2345, where busybox nc hands the connection to `spool replay --gdbserver
# -`). In the VM the aarch64 spool records
# tests/progs/rr_rev_bank (two tellers; the second doubles the balance by
# mistake) and serves its replay; one gdb session, with the arm64 root as
# its sysroot (the same files the VM runs):
#   - forward: breakpoints (BRK #0) in a function and at a line of another
#     thread, continue to them, the backtrace through the thread's start,
#     memory read (print, x) and written, the registers in gdb's aarch64
#     layout (org.gnu.gdb.aarch64.core and .fpu: x0-x30, sp, pc, cpsr,
#     v0-v31, fpsr, fpcr) read and written, stepi and step (the pc moves, a
#     breakpoint's bytes never show), a hardware watchpoint (NT_ARM_HW_WATCH)
#     stops at the doubling with its old and new value (285 goes back with
#     one);
#   - stepi up to the `svc #0` of libc's syscall() and over it (the kernel
#     reports that step at the call's exit, not as a hardware step);
#   - reverse: from the end, reverse-continue back to the breakpoint at the
#     bug, in the second teller's thread, next over it, reverse-stepi (and
#     stepi forward again), from checkpoints: the server takes one at every
#     stop (SPOOL_GDBSRV_CHECKPOINT_MS=0, so that the evidence does not
#     depend on the VM's speed), copies of the stopped replay made by an
#     injected `svc #0; brk #0` (gdbsrv_fork.c), and `monitor when` says
#     how many replays started from one (0 before the port: every reverse
#     command replayed from the beginning);
#   - after the balance is written (100), continue to the end: the program
#     exits with 0 (the recording's run exited with 1).
. "$(dirname "$0")/lib.sh"
a64_need_vm
a64_gdb_vm_need

plan 36

a64_gdb_vm_start SPOOL_GDBSRV_CHECKPOINT_MS=0

BUG=$(line_of BUG)
END=$(line_of END)
# stepi up to the `svc #0` of libc's syscall() (the agent makes its
# system calls through it), then over it: the
# kernel reports that step at the call's exit (SI_USER, not TRAP_TRACE)
cat >svc.gdb <<'GDB'
set $n = 0
while *(unsigned int *)$pc != 0xd4000001 && $n < 400
  stepi
  set $n = $n + 1
end
printf "svc at %#lx after %d steps\n", $pc, $n
set $svc = $pc
stepi
printf "stepped over svc: %#lx\n", $pc - $svc
GDB
a64_gdb_session \
	-ex 'show architecture' \
	-ex 'break audit' -ex continue \
	-ex 'bt' -ex 'print amount' -ex 'print balance' -ex 'x/2xg &balance' \
	-ex 'print $pc' -ex 'x/i $pc' -ex 'print $x0' -ex 'print $sp' -ex 'print $cpsr' \
	-ex 'info registers fpsr' -ex 'print $v0.q.u[0]' \
	-ex 'print/x *(unsigned int *)$pc' \
	-ex stepi -ex 'print $pc' \
	-ex 'delete' \
	-ex "break rr_rev_bank.c:$BUG" -ex continue \
	-ex 'info threads' -ex 'bt' \
	-ex 'set var $x9 = 77' -ex 'print $x9' \
	-ex 'set var $v1.q.u[0] = 4242' -ex 'print $v1.q.u[0]' \
	-ex 'watch balance' -ex continue \
	-ex 'delete' \
	-ex "break rr_rev_bank.c:$END" -ex continue \
	-ex 'print balance' \
	-ex 'break syscall' -ex continue -ex 'source svc.gdb' -ex 'delete' \
	-ex "break rr_rev_bank.c:$BUG" -ex 'reverse-continue' \
	-ex 'print balance' -ex 'info threads' -ex 'monitor when' \
	-ex 'next' -ex 'print balance' \
	-ex 'print $pc' -ex 'reverse-stepi' -ex 'print $pc' -ex 'monitor when' -ex stepi \
	-ex 'set var balance = 100' \
	-ex 'delete' -ex continue

like "$G" 'target architecture is set to "auto" \(currently "aarch64"\)' \
	"gdb reads the aarch64 target description"
# (audit is inlined in teller: -O2)
like "$G1" 'hit Breakpoint 1, (0x[0-9a-f]+ in )?audit \(amount=[^)]*\) at .*rr_rev_bank.c:' \
	"a breakpoint (BRK #0) in a function stops there"
like "$G1" '#0  (0x[0-9a-f]+ in )?audit .*#1  (0x[0-9a-f]+ in )?teller \(arg=0x1\) at .*rr_rev_bank.c' \
	"  the backtrace goes up to the thread's function"
like "$G" '^\$2 = 100$' "  memory: the balance"
like "$G" '0x[0-9a-f]+ <balance>:[[:space:]]+0x0000000000000064' "  x/2xg reads it too"
bp1=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\): .*/\1/p' gdb.out)
like "$G1" '\$3 = \(void \(\*\)\(\)\) '"$bp1"' <(audit|teller)\+[0-9]+>' \
	"  registers: pc is the breakpoint's address ($bp1)"
like "$G" '^\$4 = -?[0-9]+$' "  x0"
like "$G1" '\$5 = \(void \*\) 0x[0-9a-f]+' "  sp"
like "$G1" '\$6 = \[ [A-Za-z ]*EL=0[A-Za-z ]* \]|\$6 = \[ *\]' "  cpsr, with its flags (EL 0)"
like "$G" '^fpsr +0x[0-9a-f]+' "  fpsr (the fpu feature)"
like "$G" '^\$7 = [0-9]+$' "  v0 as gdb's aarch64v union"
like "$G" '^\$8 = 0x[0-9a-f]{8}$' "  the word at pc is read"
unlike "$G" '^\$8 = 0xd4200000$' "  and it is the program's instruction, not a BRK"
pc1=$(sed -n 's/^\$3 = .*\(0x[0-9a-f]*\) <.*/\1/p' gdb.out)
pc2=$(sed -n 's/^\$9 = .*\(0x[0-9a-f]*\) <.*/\1/p' gdb.out)
if [ -n "$pc1" ] && [ -n "$pc2" ] && [ "$((pc2 - pc1))" -gt 0 ] && [ "$((pc2 - pc1))" -le 8 ]; then
	pass "  stepi moves the pc by an instruction ($pc1 -> $pc2)"
else
	fail "  stepi moves the pc by an instruction ($pc1 -> $pc2)"
fi
like "$G1" 'Breakpoint 2, teller \(arg=0x2\) at .*rr_rev_bank.c:'"$BUG" \
	"a breakpoint at a line of the second teller stops in its thread"
like "$G" '^\$10 = 77$' "  a register written (x9)"
like "$G" '^\$11 = 4242$' "  a vector register written (v1)"
like "$G1" "Hardware watchpoint 3: balance +Old value = 100 +New value = 200 " \
	"  a hardware watchpoint stops at the doubling, with the old and new value"
unlike "$G1$(cat srv.err 2>/dev/null)" 'Could not insert hardware|cannot watch' \
	"  gdb could insert it"
like "$G1" "Breakpoint 4, main .*rr_rev_bank.c:$END" "the end of main"
like "$G" '^svc at 0x[0-9a-f]+ after [0-9]+ steps' "stepi up to the svc #0 of libc's syscall()"
like "$G" '^stepped over svc: 0x4$' "  and over it, to the next instruction (the kernel's report at its exit)"
unlike "$G" 'SIGTRAP' "  no SIGTRAP reaches the program or gdb"
like "$G1" "Breakpoint 6, teller \(arg=0x2\) at .*rr_rev_bank.c:$BUG.*\\\$13 = 100" \
	"reverse-continue from the end goes back to the bug, before the doubling"
like "$G1" '\$14 = 200' "  and next runs the doubling again"
# (its output is not shown: a replay started to go back runs quiet)
pc3=$(sed -n 's/^\$15 = .*\(0x[0-9a-f]*\) <.*/\1/p' gdb.out)
pc4=$(sed -n 's/^\$16 = .*\(0x[0-9a-f]*\) <.*/\1/p' gdb.out)
if [ -n "$pc3" ] && [ -n "$pc4" ] && [ "$((pc3 - pc4))" -eq 4 ]; then
	pass "  reverse-stepi goes back one instruction ($pc3 -> $pc4)"
else
	fail "  reverse-stepi goes back one instruction ($pc3 -> $pc4)"
fi
# monitor when, after reverse-continue then after reverse-stepi
whens="$(sed -n 's/.*replays started: \([0-9]*\), from a checkpoint: \([0-9]*\), .*checkpoints: \([0-9]*\) (\([0-9]*\) made).*/\1 \2 \3 \4/p' gdb.out)"
read -r rep1 ck1 kept1 made1 <<<"$(sed -n 1p <<<"$whens")"
read -r rep2 ck2 kept2 made2 <<<"$(sed -n 2p <<<"$whens")"
num_cmp "${made1:-0}" -ge 3 "checkpoints are made on aarch64 (${made1:-none} at reverse-continue's end, ${kept1:-none} kept)" ||
	diag "$(grep -i 'checkpoint' srv.err 2>/dev/null | head -5)"
num_cmp "${ck1:-0}" -ge 1 "  reverse-continue went back from one (${ck1:-none} starts from checkpoints)"
num_cmp "${ck2:-0}" -gt "${ck1:-0}" "  reverse-stepi from one too (${ck2:-none})"
is "${rep2:-none}" 1 "  and no reverse command replayed from the beginning (replays started: 1, the first)"
unlike "$(cat srv.err 2>/dev/null)" 'copy of checkpoint [0-9]+ failed|vector registers' \
	"  no copy failed"
like "$G1" '\[Inferior 1 \((process [0-9]+|Remote target)\) exited normally\]' \
	"continue to the end: the balance gdb wrote (100) is the exit status's (0)"
done_testing
