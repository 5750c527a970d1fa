#!/bin/bash
# SPDX-License-Identifier: MIT
# 407-gdbsrv-stepi-cpuid.t - `stepi` onto a cpuid instruction under
# `spool replay --gdbserver` (doc/record.md "The CPU's own inputs"): with
# CPUID faulting the instruction raises SIGSEGV, which the agent's handler
# answers from the recording. The step must land just after the cpuid, in
# the program's function, with the recorded answer in the registers (leaf 1:
# rdrand hidden, though this CPU may have it), never show spool's SIGSEGV or
# step into the agent's handler (as it did before: spool delivered the
# signal with the step, which stopped at the handler's first instruction).
# Then `continue` runs to the end with the recorded output.
. "$(dirname "$0")/lib.sh"

if [ "$(uname -m)" != x86_64 ] || ! grep -qw cpuid_fault /proc/cpuinfo; then
	echo "1..0 # SKIP no CPUID faulting on this machine (x86-64 cpuid_fault)"
	exit 0
fi
need_gdb

plan 7

P="$PROGS/rr_cpuid"
spool_run record -q -o c.trace -- "$P"
is "$RC" 0 "rr_cpuid recorded under CPUID faulting"
cp run.out rec.out

# line 60 of rr_cpuid.c is features()'s cpuid(1, 0, r): leaf 1
timeout -k 10 "$T_TIMEOUT" gdb -q -batch -nx -x "$REPO/tests/integ/gdbsrv_stepi_cpuid.py" \
	-ex "target remote | $SPOOL replay --gdbserver - c.trace" \
	-ex 'break rr_cpuid.c:60' -ex continue -ex step-cpuid -ex 'info registers rip' \
	-ex continue >srv.out 2>&1
check_sanitizer srv.out "spool replay --gdbserver"
like "$(cat srv.out)" "at-cpuid: eax=0x1" "stepped to the program's cpuid of leaf 1" ||
	diag "$(tail -n 20 srv.out)"
like "$(cat srv.out)" "stepped: advanced=2 func=features" \
	"stepi lands just after the cpuid, in features()" ||
	diag "$(grep -a -B2 -A3 'stepped:' srv.out)"
like "$(cat srv.out)" "stepped: .* rdrand=0 signal=0" \
	"  with the recorded answer (rdrand hidden) and no SIGSEGV shown"
unlike "$(cat srv.out)" "received signal SIGSEGV|x86_cpuid_handler" "gdb never sees spool's SIGSEGV"
like "$(cat srv.out)" "rdrand: hidden" "continue: the program prints the recorded lines"
like "$(cat srv.out)" "exited normally" "  and ends"

done_testing
