#!/bin/bash
# SPDX-License-Identifier: MIT
# 155-gdbsrv-edges.t - spool replay --gdbserver at its edges: a recording
# that does not exist, a port that is not a number, --gdb with it (each
# said, nothing served); going back from the program's first instruction
# says "No more reverse-execution history" and stays there; stepi and
# reverse-stepi walk the first instructions both ways; the end of the
# program is reported with its recorded exit status; ^C (gdb's 0x03) while
# the program runs stops it (and going back from such a point is refused),
# a SIGINT at spool (the terminal's ^C reaches gdb's process group) does not
# end it; and gdb leaving
# (kill, or the pipe closing) ends the replay and spool's own processes.
. "$(dirname "$0")/lib.sh"

if ! command -v gdb >/dev/null 2>&1; then
	echo "1..0 # SKIP gdb is not installed"
	exit 0
fi

plan 15

BIN="$PROGS/rr_rev_bank"

spool_run replay --gdbserver - nosuch
is_rc 1 "a recording that does not exist: refused"
like "$ERR" "recording 'nosuch' does not exist" "  and said"
spool_run record -q -o rec -- "$BIN" 3
is_rc 1 "a recording"
spool_run replay --gdbserver abc rec
like "$ERR" "--gdbserver 'abc': want a port number or -" "a port that is not a number is refused"
spool_run replay --gdb --gdbserver - rec
is_rc 2 "--gdb with --gdbserver is a usage error"

timeout -k 5 120 gdb -q -batch -nx -ex "target remote | $SPOOL replay --gdbserver - rec" \
	-ex reverse-stepi -ex 'print $pc' -ex stepi -ex stepi -ex 'print $pc' -ex reverse-stepi \
	-ex reverse-stepi -ex 'print $pc' -ex reverse-continue -ex kill "$BIN" >gdb.out 2>&1
check_sanitizer gdb.out "gdb on spool replay --gdbserver"
G="$(cat gdb.out)"
is "$(grep -c 'No more reverse-execution history' gdb.out)" 2 \
	"going back from the first instruction: no more history (reverse-stepi, reverse-continue)"
p1=$(sed -n 's/^\$1 = .*\(0x[0-9a-f]*\).*/\1/p' gdb.out)
p2=$(sed -n 's/^\$2 = .*\(0x[0-9a-f]*\).*/\1/p' gdb.out)
p3=$(sed -n 's/^\$3 = .*\(0x[0-9a-f]*\).*/\1/p' gdb.out)
if [ -n "$p1" ] && [ "$p1" != "$p2" ] && [ "$p1" = "$p3" ]; then
	pass "two stepi move, two reverse-stepi come back ($p1 -> $p2 -> $p3)"
else
	fail "two stepi move, two reverse-stepi come back ($p1 -> $p2 -> $p3)"
fi
like "$G" "_start" "  in the dynamic loader's _start"

timeout -k 5 120 gdb -q -batch -nx -ex "target remote | $SPOOL replay --gdbserver - rec" \
	-ex continue "$BIN" >gdb.out 2>&1
like "$(cat gdb.out)" 'exited with code 01' "the end: the recorded exit status"
like "$(cat gdb.out)" 'balance 200 \(want 100\)' "  and the program's output (on gdb's stderr)"

# ^C: a program that runs for a while, interrupted after half a second
spool_run record -q -o long -- "$PROGS/rr_race_counter-finst" 1 300000000
is_rc 0 "a long recording"
timeout -k 5 120 python3 "$REPO/tests/integ/gdbsrv_rsp.py" "$SPOOL" long 0.5 >rsp.out 2>&1
like "$(cat rsp.out)" '^after-sigint T05' "spool serving gdb outlives a SIGINT"
like "$(cat rsp.out)" '^interrupt T02thread:' "^C (0x03) while the program runs stops it with SIGINT"
like "$(cat rsp.out)" '^reverse E' "  going back from that point is refused"

# gdb goes away in the middle: the replay and its session end with it
timeout -k 5 120 gdb -q -batch -nx -ex "target remote | $SPOOL replay --gdbserver - rec" \
	-ex 'break teller' -ex continue "$BIN" >gdb.out 2>&1
# (only this test's: the ASan pass runs the same test beside it, in
# another directory)
left=0
for i in 1 2 3 4 5; do
	sleep 1
	left=0
	for p in $(pgrep -f "replay --gdb-wrapper"); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$PWD" ] && left=$((left + 1))
	done
	[ "$left" = 0 ] && break
done
is "$left" 0 "gdb leaving at a breakpoint ends the replay and its session"
done_testing
