#!/bin/bash
# SPDX-License-Identifier: MIT
# 380-probe-killed-report.t - spool probe killed with SIGKILL while the
# program runs leaves its partial trace (DIR.writing.PID), which every
# reader must still read to its last whole packet (issue 12, "No silent
# loss"). The probe table ("probes") and the variable table ("vars") were
# written only when the run ended: on the partial trace `spool report
# --functions` said "has no probe table: not a trace of spool probe",
# `spool report --vars` had no table either, and `spool export --chrome`
# wrote "0 function calls" over thousands of recorded calls. They are now
# written before the program starts (and again at the end). The block
# counts ("coverage") and the system probes' figures ("sys") can only be
# written at the end: their reports said the trace had no such probes
# ("record with spool probe -e block:FUNC"); they now say the counts were
# lost with the writer.
. "$(dirname "$0")/lib.sh"

plan 12

# a copy under a name of this test's, so that its process is found by name
PROG="$T_DIR/probe380-counter"
cp "$PROGS/rr_race_counter-finst" "$PROG"

"$SPOOL" probe -q -e func:work -e time:work -e block:work -e sys:cpu -o "$T_DIR/p.trace" -- "$PROG" 1 4000000000 \
	>out.probe 2>err.probe </dev/null &
SPID=$!
# until the collector has put whole packets of work's calls on the disk
# (the stream grows past its first packet), however slow the machine is
big=""
for ((i = 0; i < 1200; i++)); do
	big=$(find "$T_DIR" -path "*/p.trace.writing.$SPID/stream_*" -size +64k 2>/dev/null | head -1)
	[ -n "$big" ] && break
	sleep 0.05
done
# the program is spool's child (spool runs no other process here)
PPROG=$(pgrep -P "$SPID" | head -1)
[ -n "$PPROG" ] || PPROG=$(pgrep -f "^$PROG " | head -1)
kill -9 "$SPID"
wait "$SPID" 2>/dev/null
# the program runs on (tests/integ/225): it is ended here, not waited for
[ -n "$PPROG" ] && kill -9 "$PPROG" 2>/dev/null
ok "spool probe killed after packets reached the disk" test -n "$big"
PART="p.trace.writing.$SPID"

spool_run report --functions "$PART"
is_rc 0 "spool report --functions reads the partial trace"
like "$OUT" '^work +[1-9][0-9]* ' "  and counts work's calls"
like "$ERR" "incomplete: its writer did not finish" "  and says the trace is incomplete"

spool_run report --vars "$PART"
like "$OUT" "time:work +[1-9][0-9]* " "spool report --vars counts the timed calls of work"

spool_run export --chrome -w part.json "$PART"
is_rc 0 "spool export --chrome exports the partial trace"
unlike "$ERR" " 0 function calls" "  with its function calls"
like "$ERR" "incomplete" "  and says the trace is incomplete"

spool_run report --coverage "$PART"
is_rc 1 "spool report --coverage: no counts in the partial trace"
like "$ERR" "no block or branch counts.*writer did not finish.*they are lost" \
	"  it says they were lost with the writer, not that there were no block probes"

spool_run report --sys "$PART"
is_rc 1 "spool report --sys: no figures in the partial trace"
like "$ERR" "no system probes' figures.*writer did not finish.*they are lost" \
	"  it says they were lost with the writer, not to run sys:cpu"

done_testing
