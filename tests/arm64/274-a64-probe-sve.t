#!/bin/bash
# SPDX-License-Identifier: MIT
# 274-a64-probe-sve.t - probes in a program that keeps values in SVE's Z and
# P registers (tests/probe/a64_sve.c), spool's aarch64 build under qemu-user
# (whose default cpu has SVE, 512-bit vectors): every trampoline saves and
# restores Z0-Z31, P0-P15 and FFR around its handlers on a core with SVE
# (src/arch/aarch64/a64_agent_sve.c). Before, a trampoline saved q0-q31
# only, and its own restore cleared the upper bits of every Z register: the
# program's SVE sums came out wrong under block: probes (6226012520 for
# 24005047995 at 512 bits). Checked at 128, 512 and 2048-bit vectors, on a
# core without SVE (cortex-a57: the q0-q31 path, V registers kept), with
# --exits retaddr (an SVE function's vector result through the return
# trampoline) and with BRK probes (the kernel's signal frame holds the SVE
# state).
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"

plan 14

A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
if ! command -v "$A64CC" >/dev/null; then
	skip 14 "no $A64CC on the host"
	done_testing
	exit 0
fi
ok "a64_sve cross-builds (and its BRK twin, beside libfill)" \
	sh -c "$A64CC --sysroot=$QEMU_LD_PREFIX -O2 -o sv $SRC/tests/probe/a64_sve.c" &&
	a64_cc_fill "$SRC/tests/probe/a64_sve.c" svfill -O2

# probed CPU VL: the program run natively and with block:, branch: and
# func: probes on every function, QEMU_CPU=CPU; the output (its sum and
# the vector length it saw) and status must not change, every probe a
# trampoline, none lost
probed() {
	local cpu=$1 vl=$2 native
	native="$(QEMU_CPU=$cpu ./sv 3000 2>&1)"
	QEMU_CPU=$cpu spool_run probe -e 'block:*' -e 'branch:*' -e 'func:*' -o "t.$vl.trace" -- ./sv 3000
	is "$RC:$OUT" "0:$native" "probes in SVE loops, cpu $cpu: the program's sums and status unchanged"
	ok "  every probe a trampoline, placed, nothing lost" bash -c \
		'grep -Eq "spool: ([0-9]+) probes \(\1 jump, 0 int3\)" <<<"$0" &&
		grep -Eq "([0-9]+) of \1 probes placed, 0 events lost" <<<"$0"' "$ERR"
}
like "$(./sv 3000)" "^vl 64 sum ([0-9]+) want \\1$" "qemu-user's default cpu has SVE, 512-bit vectors"
probed max 64
probed max,sve-default-vector-length=256 256
probed max,sve-default-vector-length=16 16
like "$(QEMU_CPU=cortex-a57 ./sv 3000)" "^vl 0 sum ([0-9]+) want \\1$" "cortex-a57 has no SVE: the sums in V registers"
probed cortex-a57 0

# --exits retaddr: sve_step (SVE calling convention) returns its vector in
# z0 through the agent's return trampoline (a64_agent_ra.c), which kept
# q0-q7 only before: the sum came out 73365036980 for 73365146685
native="$(./sv 3000 2>&1)"
spool_run probe --exits retaddr -e 'func:*' -o ra.trace -- ./sv 3000
is "$RC:$OUT" "0:$native" "--exits retaddr on SVE functions: the sums and status unchanged"

# BRK probes: the same program beside libfill, no trampoline within reach
native="$(./svfill 3000 2>/dev/null)"
SPOOL_DEBUG=1 spool_run probe -e 'block:sve_sum' -e 'func:sve_sum' -o brk.trace -- ./svfill 3000
is "$RC:$OUT" "0:$native" "BRK probes in an SVE loop: the sums and status unchanged"
like "$ERR" "probe [0-9]+: a BRK at 0x" "  the probes are BRKs (no trampoline page within reach)"
done_testing
