#!/bin/bash
# SPDX-License-Identifier: MIT
# 106-output-errors.t - what a new user saw when spool could not write its
# output, or was given the wrong place: `spool report ... > FILE` and `spool
# info > FILE` on a full disk wrote a report cut short and exited 0, as if
# it were whole; `spool export -w FILE` said "Input/output error" where the
# disk was full (/dev/full stands for the full disk: every write ENOSPC).
# `spool locks -o no/such/dir -- PROG` exited 127, the shell's "command not
# found", for a program that exists. And `spool replay DIR` of a directory
# that does not exist said DIR "was not made by spool record", which sent
# the user looking at the wrong thing.
. "$(dirname "$0")/lib.sh"

CALLS="$PROGS/probe_calls"
if [ ! -x "$CALLS" ] || [ ! -c /dev/full ]; then
	echo "1..0 # SKIP probe_calls or /dev/full missing"
	exit 0
fi
plan 13

spool_run probe -q -e 'func:probe_*' -- "$CALLS" 200
is_rc 0 "a probe trace to report on"

# full_rc ARGS...: spool ARGS with stdout on /dev/full; "RC cut" where cut
# is 1 when stderr says the output was cut short.
full_rc() {
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" "$@" </dev/null >/dev/full 2>run.err
	RC=$?
	check_sanitizer run.err "spool $*"
	echo "$RC $(grep -c 'to stdout.*cut short' run.err)"
}
is "$(full_rc report --functions spool.trace)" "1 1" \
	"report --functions on a full disk: exit 1, says it is cut short"
is "$(full_rc report --functions --json spool.trace)" "1 1" "  and --json"
is "$(full_rc report --locks spool.trace)" "1 1" "  and report --locks"
is "$(full_rc report --locks --json spool.trace)" "1 1" "  and report --locks --json"
is "$(full_rc info spool.trace)" "1 1" "spool info on a full disk: exit 1, says it is cut short"

spool_run export --chrome -w /dev/full spool.trace
is "$RC $(grep -c 'No space left on device' run.err)" "1 1" \
	"export --chrome to a full disk: exit 1, says the disk is full"
spool_run export --perfetto -w /dev/full spool.trace
is "$RC $(grep -c 'No space left on device' run.err)" "1 1" "  and export --perfetto"

spool_run locks -q -o no/such/dir -- "$PROGS/lockcount" 1 1
is "$RC $(grep -q 'no/such/dir' run.err && echo named)" "1 named" \
	"spool locks -o in a directory that does not exist: exit 1 (not 127), naming it"
spool_run record -q -o no/such/dir -- "$PROGS/lockcount" 1 1
is_rc 1 "  and spool record"
spool_run locks -q -- ./no-such-program
is_rc 127 "  while a program that does not exist is still 127"

spool_run replay no-such-dir
is_rc 1 "spool replay of a directory that does not exist exits 1"
like "$ERR" "no-such-dir' does not exist" "  and says it does not exist"

done_testing
