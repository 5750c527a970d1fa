#!/bin/bash
# SPDX-License-Identifier: MIT
# 375-rr-killed-snap-copies.t - a serial recording whose program is killed by
# a signal while a snapshot's copy still writes its image (issue 12, no
# invented loss). The copy is spool's own process, not the program's: spool
# record waits for it (10 s at most) before it counts what is left running.
# Before, it counted the copy as one of the program's processes "still
# running when the trace ended", called the recording incomplete (exit 143
# all the same) and spool replay refused it; 68-signals' SIGTERM case failed
# so 1 run in 4 under load. Here rr_snap has a 100 MB heap and a snapshot is
# due every 100 ms, so a copy is writing whenever the program dies.
. "$(dirname "$0")/lib.sh"

plan 6

"$SPOOL" record -q --snap-period 100ms -o k.trace -- "$PROGS/rr_snap" 3 100000000 100 \
	>k.out 2>k.err &
sp=$!
# two images written: copies are coming and going (the trace is written
# under k.trace.writing.PID until the recording ends)
for ((i = 0; i < 300; i++)); do
	[ "$(ls k.trace.writing.*/.spool/snap 2>/dev/null | grep -c '^snap_[0-9]*\.zst$')" -ge 2 ] && break
	sleep 0.1
done
ok "snapshot images appear while the program runs" test "$i" -lt 300 || diag "$(ls -R . | head -20)"
pid=$(pgrep -P "$sp" | head -n 1)
[ -n "$pid" ] && kill -TERM "$pid"
wait "$sp"
RC=$?
check_sanitizer k.err "spool record"
is "$RC" 143 "spool record exits as the program killed by SIGTERM (128 + 15)" || diag "$(cat k.err)"
like "$(cat k.err)" "killed by signal 15" "  and says so"
unlike "$(cat k.err)" "still running|incomplete" "  and calls no snapshot copy a process of the program still running"
spool_run replay -q --stuck-ms 20000 k.trace
is_rc 3 "the replay runs up to where the recording ends (exit 3)"
like "$ERR" "replay reached the end of the recording" "  and says so"

done_testing
