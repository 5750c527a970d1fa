#!/bin/bash
# SPDX-License-Identifier: MIT
# 350-probe-clone-unseen-hits-only.t - spool probe of a thread of the
# program's own clone system call (on its creator's TLS, where spool keeps
# its thread state) that calls into spool only through probe hits, no
# interposed function (tests/progs/clone_busy probe). The jump probes'
# handlers did not look at the stack: its 600 hits of cb_leaf were
# written into its creator's ring as its creator's (400 calls of cb_leaf
# in main's thread, 100 made), and spool said "0 events lost". Now a hit
# off the state's stack asks the kernel whose it is, as an interposed call
# does: they are counted lost in threads made by the program's own clone,
# the creator's 100 calls are recorded whole. The int3 probes (cb_tiny3,
# 3 bytes) were right already (they turn syscall user dispatch on, which
# sees the clone made): checked too, alone and with the jump probes.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/clone_busy"
OWN=100 # CB_OWN
CALLS=300 # CB_CALLS
plan 13

if [ "$(uname -m)" != x86_64 ]; then
	skip 13 "the program's own clone system call is x86-64 assembly"
	done_testing
fi

native="$("$PROG" probe 2>native.err)"
is "$? $native" "0 sums ok" "natively: the sums add up"

# calls FN TRACE: FN's calls in the function report
calls() {
	"$SPOOL" report --functions --json "$2" 2>/dev/null >f.json
	json f.json "sum(f[\"calls\"] for f in d[\"functions\"] if f[\"name\"] == \"$1\")"
}

# run NAME FN...: spool probe with func:FN for each FN
run() {
	local name="$1" e=() f
	shift
	for f in "$@"; do e+=(-e "func:$f"); done
	rm -rf p.trace
	timeout -k 5 60 "$SPOOL" probe -o p.trace "${e[@]}" -- "$PROG" probe >p.out 2>p.err
	RC=$?
	check_sanitizer p.err "spool probe ($name)"
	ERR=$(cat p.err)
}

for cfg in "jump:cb_leaf" "int3:cb_tiny3"; do
	kind=${cfg%%:*} fn=${cfg#*:}
	run "$kind" "$fn"
	want=$((CALLS * 2))
	is "$RC $(cat p.out)" "4 sums ok" "$kind probes ($fn): the program's output; exit 4 (events lost, said)" ||
		diag "$ERR"
	like "$ERR" "p\\.trace is incomplete: $want events lost \\($want in threads made by the program's own clone\\)" \
		"  the clone thread's $want hits (entry and exit) counted lost, in threads made by the program's own clone"
	like "$ERR" "the program made 1 thread with its own clone system call .*counted as lost" \
		"  spool says what it does not cover"
	# (int3 probes turn syscall user dispatch on: the clone is seen made)
	[ "$kind" = jump ] &&
		like "$ERR" "spool found 1 of these threads running on its creator's thread state" \
			"  spool says it found the thread it did not see made"
	is "$(calls "$fn" p.trace)" "$OWN" "  $fn: the creator's $OWN calls, none of the clone thread's"
	spool_run info p.trace
	like "$OUT" "^lost: $want events" "  spool info: lost: $want events"
done

# both kinds at once: every hit of the thread counted, whichever comes first
run both cb_leaf cb_tiny3
want=$((CALLS * 4))
like "$ERR" "p\\.trace is incomplete: $want events lost \\($want in threads made by the program's own clone\\)" \
	"jump and int3 probes: all $want of the thread's hits counted lost"

done_testing
