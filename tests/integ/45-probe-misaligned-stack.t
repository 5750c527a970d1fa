#!/bin/bash
# SPDX-License-Identifier: MIT
# 45-probe-misaligned-stack.t - a probed program was killed by SIGSEGV (or
# silently computed a different result) when a probed function was called
# with the stack pointer 8 bytes off the ABI's alignment (a caller without
# a frame, as -O2 code has) and the thread's ring filled: the handler
# reached the ring-full wait, compiled with SSE, on a misaligned stack, and
# that wait clobbered the vector registers holding the function's double
# argument. tests/progs/probe_harm calls its functions from C and from an
# assembly caller that leaves rsp misaligned, with a double argument live in
# xmm0, through a 16 KiB ring that thousands of records overflow; jump and
# int3 probes of every kind that records (func:, var:, assert:, time:) must
# leave its output and exit status as they are natively; so must exits
# hooked through the return address (--exits retaddr), which swap a return
# address on a misaligned stack and return through the agent's trampoline.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_harm"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
N=3000
SPECS=(
	'func:harm_leaf' 'func:harm_leaf_i3'
	'var:long:x@harm_leaf' 'var:double:d@harm_leaf' 'var:long:x@harm_leaf_i3'
	'assert:x >= 0 && d >= 0@harm_leaf' 'assert:x >= 0@harm_leaf_i3'
	'time:harm_leaf' 'time:harm_leaf_i3'
)
plan $((2 + 2 * ${#SPECS[@]} + 4))

native="$("$PROG" $N)"
like "$native" '^sum [0-9]+$' "the program runs natively"

# The two methods are both exercised: harm_leaf's probes are jumps, the
# computed goto of harm_leaf_i3 makes its exits and variable probes int3.
spool_run probe --list --exits patch -e 'func:harm_leaf' -e 'func:harm_leaf_i3' "$PROG"
if like "$OUT" '^harm_leaf +entry +jump ' "--list: harm_leaf has jump probes" &&
	grep -Eq '^harm_leaf_i3 +exit +int3 ' <<<"$OUT"; then
	:
else
	diag "harm_leaf_i3's exits are not int3: the int3 path is not tested"
fi

# --exits patch: harm_leaf_i3's exits stay int3 (by default they would
# go through the return address)
for s in "${SPECS[@]}"; do
	spool_run probe -q --exits patch --ring-size 16k -e "$s" -- "$PROG" $N
	is_rc 0 "$s: the program exits 0 with a ring that fills" || show_run
	is "$OUT" "$native" "$s: its result is the native one"
done
for mode in auto retaddr; do
	spool_run probe -q --exits $mode --ring-size 16k -e 'func:harm_leaf' -e 'func:harm_leaf_i3' \
		-- "$PROG" $N
	is_rc 0 "--exits $mode: the program exits 0 with a ring that fills" || show_run
	is "$OUT" "$native" "--exits $mode: its result is the native one"
done

done_testing
