#!/bin/bash
# SPDX-License-Identifier: MIT
# 141-trace-written-beside.t - a new trace is written beside DIR, as
# DIR.writing.PID, and renamed to DIR only once its writer has finished
# (src/trace/tracedir.c). Before, spool moved the previous trace to DIR.old
# at the start and wrote straight into DIR: a spool killed mid-run left a
# half-written DIR where the user's last good trace had been. Now, while
# the program runs and after a SIGKILL, DIR is the previous trace,
# untouched and complete; the partial trace is at DIR.writing.PID (every
# reader says it is incomplete); a run that ends puts its trace at DIR and
# the previous one at DIR.old, leaving no .writing directory; a DIR spool
# refuses is refused before the program runs.
. "$(dirname "$0")/lib.sh"
plan 14

# the previous trace: complete
spool_run locks -q -o t.trace -- "$PROGS/lockcount" 2 100
is_rc 0 "a first trace at t.trace"
spool_run info t.trace
first_events=$(sed -nE 's/^events=([0-9]+)$/\1/p' t.trace/.spool/summary)
is_rc 0 "  spool info: complete"

# a second run, killed while the program runs
rm -f in.fifo
mkfifo in.fifo
"$SPOOL" locks -q -o t.trace -- "$PROGS/passthrough" 0 <in.fifo >k.out 2>k.err &
sp=$!
exec 3>in.fifo
echo hello >&3
wait_for hello k.out 20
ok "while the program runs, the new trace is at t.trace.writing.$sp" test -d "t.trace.writing.$sp"
ok "  and t.trace is still the previous trace" \
	test "$(sed -nE 's/^events=([0-9]+)$/\1/p' t.trace/.spool/summary)" = "$first_events"
kill -KILL "$sp"
wait "$sp" 2>/dev/null
exec 3>&-
spool_run info t.trace
is_rc 0 "spool killed: t.trace is the previous trace, complete (spool info exits 0)"
like "$OUT" "^writer: finished" "  its writer had finished"
ok "  no t.trace.old: nothing was moved" test ! -e t.trace.old
spool_run info "t.trace.writing.$sp"
is_rc 4 "  the partial trace is at t.trace.writing.$sp and reads as incomplete (exit 4)"
like "$OUT" "^writer: did not finish" "  its writer did not finish"

# a run that ends
spool_run locks -q -o t.trace -- "$PROGS/lockcount" 2 300
is_rc 0 "a run that ends"
ok "  its trace is at t.trace (1,200 acquisitions and more)" \
	test "$(sed -nE 's/^events=([0-9]+)$/\1/p' t.trace/.spool/summary)" -gt "$first_events"
ok "  the previous one at t.trace.old" \
	test "$(sed -nE 's/^events=([0-9]+)$/\1/p' t.trace.old/.spool/summary)" = "$first_events"
ok "  and no .writing directory of its own is left" \
	sh -c '! ls -d t.trace.writing.* 2>/dev/null | grep -v "writing.'"$sp"'$" | grep -q .'

# refused before the program runs
mkdir proj
echo 'int main;' >proj/main.c
spool_run locks -q -o proj -- sh -c 'echo ran >ran.txt'
ok "a directory spool did not write is refused before the program runs (it did not run)" \
	test ! -e ran.txt -a "$RC" != 0 -a -f proj/main.c

done_testing
