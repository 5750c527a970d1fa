#!/bin/bash
# SPDX-License-Identifier: MIT
# 369-rawsys-sigaltstack.t - a program that sets and disables its alternate
# signal stack with its own `syscall` instruction, as Go's runtime does for
# each of its threads (tests/progs/rr_rawsys --sigaltstack): under spool
# record (serial and sync) and in the replays, the stack reads back as set,
# a synchronous signal's SA_ONSTACK handler runs on it, and the disable
# succeeds, as without spool. Before, syscall user dispatch made the call
# inside its SIGSYS handler, which runs on that very stack once it is set:
# the kernel refused the disable (EPERM, "disable -1, reads back enabled"),
# and Debian's restic (Go with cgo) recorded died with "fatal error:
# non-Go code disabled sigaltstack" (serial) or a corrupted goroutine stack
# (sync; tests/real/147-restic-go-all.t).
. "$(dirname "$0")/lib.sh"

plan 9

RAW="$PROGS/rr_rawsys"

kv="$(uname -r)"
if [ "${kv%%.*}" -lt 5 ] || { [ "${kv%%.*}" = 5 ] && [ "$(echo "$kv" | cut -d. -f2)" -lt 11 ]; }; then
	skip 9 "kernel $kv has no syscall user dispatch"
	exit 0
fi

"$RAW" --sigaltstack >native.out
is "$(cat native.out)" "$(printf '%s\n' 'set 0, reads back as set' \
	'handler on the alternate stack: 1' 'disable 0, reads back disabled' \
	'handler on the alternate stack: 0')" "alone: set, used, disabled"

for mode in serial sync; do
	spool_run record --mode "$mode" -o "$mode.trace" -- "$RAW" --sigaltstack
	is_rc 0 "$mode: recorded, exit 0"
	like "$ERR" 'own syscall instruction \(sigaltstack 4\)' "$mode: the 4 raw sigaltstack calls were dispatched"
	if cmp -s run.out native.out; then
		pass "$mode: the program saw its alternate stack as without spool"
	else
		fail "$mode: the program saw its alternate stack as without spool"
		diag "$(diff native.out run.out)"
	fi
	replays_same 2 0 native.out -q -o "$mode.rep" "$mode.trace"
	is "$SAME" 2 "$mode: 2 replays of 2 the same"
done
done_testing
