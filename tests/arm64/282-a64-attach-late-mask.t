#!/bin/bash
# SPDX-License-Identifier: MIT
# 282-a64-attach-late-mask.t - aarch64, on a real arm64 kernel (the VM of
# 276): a program that blocks SIGTRAP, or sets its own SIGTRAP handler,
# after `spool probe -p` attached with BRK probes in. The kernel kills a
# process whose blocked synchronous SIGTRAP fires, so the first BRK hit in
# such a thread ended the program (exit 133), and a handler set after the
# attach took the probes' traps. Attached, the agent is dlopen'ed and no
# module of the program calls its interposers; now the modules' GOT slots
# of the signal calls (pthread_sigmask, sigprocmask, sigaction, ...) point
# at the agent's while spool is attached (src/agent/agent_probe_got.c,
# shared with x86-64; tests/integ/140 there), which keep SIGTRAP out of
# the kernel's mask and the program's handler apart; at the detach spool
# blocks SIGTRAP for real in the threads that asked.
# tests/progs/attach_state linked with tests/probe/a64_fill.c (no trampoline
# page in reach: the probes are BRKs), run with "latetrap GOFILE": once
# spool has attached, one thread blocks SIGTRAP with pthread_sigmask,
# another every signal with sigprocmask, and the main thread sets a SIGTRAP
# handler and raises SIGTRAP once.
. "$(dirname "$0")/lib.sh"
a64_need_vm
[ -x "$PROGS/attach_state" ] || _a64_skip "$PROGS/attach_state is not built (make ARCH=aarch64 progs)"
A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
command -v "$A64CC" >/dev/null || _a64_skip "no $A64CC"

plan 12

ok "attach_state linked with the space-filling library cross-builds" \
	a64_cc_fill "$REPO/tests/progs/attach_state.c" sfill -std=gnu11 -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE

a64_vm_script
cat >>vm.sh <<'EOF'
wait_line() { i=0; while ! grep -qE "$2" "$1" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done; }
SPOOL_DEBUG=1 ./sfill 120 stop1 latetrap go1 >late.prog.out 2>late.prog.err &
pid=$!
wait_line late.prog.out '^t 30$'
run late $S probe -p $pid -e func:attach_step --duration 4s -o late.trace &
spid=$!
wait_line late.err 'probes placed'
touch go1
wait_line late.prog.out '^late blocked 4$'
wait_line late.prog.out '^late blocked 3$'
wait $spid
sleep 1
touch stop1
wait $pid
echo $? >late.prog.rc
EOF

a64_vm_boot

like "$(cat late.prog.err 2>/dev/null)" "BRK probes written at the commit" \
	"the probes are BRKs (no trampoline page in reach)"
like "$(cat late.prog.err 2>/dev/null)" "GOT slots of the signal-mask calls sent to the agent" \
	"  the signal calls' GOT slots sent to the agent at the commit"
is "$(cat late.rc 2>/dev/null)" 0 "spool probe -p: exit 0" || diag "$(cat late.err 2>/dev/null)"
like "$(cat late.err 2>/dev/null)" "spool: 0 events lost" "  no event lost"
is "$(grep -c '^late blocked' late.prog.out 2>/dev/null)" 2 \
	"  both threads blocked signals while spool was attached"
is "$(cat late.prog.rc 2>/dev/null)" 0 "the program was not killed by its next BRK hit: exit 0" ||
	diag "$(tail -n 3 late.prog.out 2>/dev/null)"
like "$(tail -n 1 late.prog.out 2>/dev/null)" '^done calls [0-9]+ check ok fp ok read ok code same$' \
	"  with every result, its vector state, its read and its code unchanged"
is "$(grep -c '^late trap blocked yes$' late.prog.out 2>/dev/null)" 2 \
	"  each thread's mask blocks SIGTRAP, as it asked (for real after the detach)"
is "$(grep '^late handler' late.prog.out 2>/dev/null)" "late handler 1" \
	"  the handler it set after the attach ran once for its own SIGTRAP"

done_testing
