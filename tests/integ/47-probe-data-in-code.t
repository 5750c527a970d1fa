#!/bin/bash
# SPDX-License-Identifier: MIT
# 47-probe-data-in-code.t - data inside a function's symbol range (a table
# in hand-written assembly, a jump table between the blocks) was patched as
# if it were code by block: probes (the program crashed) and func: exit
# probes (a table entry was overwritten: the program silently computed a
# different result). Only bytes reached from the function's code by
# following its control flow may be patched; spool must say which bytes it
# left alone, and the program must compute what it computes natively.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_data"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
N=2000
plan $((3 + 3 * 3 + 1))

native="$("$PROG" $N)"
like "$native" '^sum [0-9]+$' "the program runs natively"

spool_run probe --list -e 'block:data_*' -e 'func:data_*' "$PROG"
like "$ERR" 'data_lookup: 64 bytes from data_lookup\+0x19 are not reached from its code' \
	"--list says which bytes of data_lookup (its table) are not probed"
like "$ERR" 'data_switch: 32 bytes from data_switch\+0x1b are not reached from its code' \
	"--list says which bytes of data_switch (its jump table) are not probed"

for s in 'block:data_*' 'func:data_*' 'branch:data_*'; do
	spool_run probe -q -e "$s" -- "$PROG" $N
	is_rc 0 "$s: the program exits 0" || show_run
	is "$OUT" "$native" "$s: it computes its native result"
	like "$ERR" 'not reached from its code \(data in the function\?\): not probed' \
		"$s: spool says what it left alone"
done

# The rets after data_switch's jump table are found (its entries are code):
# every call has its exit.
spool_run probe -q -e 'func:data_*' -- "$PROG" $N
spool_run report --functions --json spool.trace
calls="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(" ".join("%s=%d" % (f["name"], f["calls"]) for f in sorted(d["functions"], key=lambda f: f["name"])),
      "unmatched=%d" % d.get("unmatched_exits", 0))' "$OUT")"
is "$calls" "data_lookup=$((N + N / 100)) data_switch=$N unmatched=0" \
	"every call of both functions was recorded, entry and exit"

done_testing
