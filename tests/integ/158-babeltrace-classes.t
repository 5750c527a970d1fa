#!/bin/bash
# SPDX-License-Identifier: MIT
# 158-babeltrace-classes.t - babeltrace2 (Debian's) shows each spool event
# class with its own field names and enumerations (doc/trace-format.md,
# format 2): a probe entry is spool:probe_entry and an exit
# spool:probe_exit, with their site and stack-pointer delta, and the site
# they name is the probe's (spool:site with the probe id), never a lock
# operation; a lock event's op is the lock operation and its object the
# lock; a lockdef names its lock too.
. "$(dirname "$0")/lib.sh"

if ! command -v babeltrace2 >/dev/null; then
	echo "1..0 # SKIP babeltrace2 is not installed (scripts/deps.sh)"
	exit 0
fi

plan 16

spool_run probe -q -o probe.trace -e 'func:probe_leaf_add' -- "$PROGS/probe_calls" 100
is_rc 0 "probe_calls runs under spool probe"
n=$(bt_count probe.trace spool:probe)
is "$?" 0 "babeltrace2 reads the probe trace"
unlike "$(cat bt.err)" "ERROR|CRITICAL" "  without errors"
is "$n" 400 "  it prints 400 probe events (200 calls, entry and exit)"
# the short classes, and the full one where a packet starts (its first
# stack pointer is written whole)
entries=$(grep -cE ' spool:probe_entry: .*\{ site = [0-9]+, sp_delta = -?[0-9]+ \}' bt.out)
full=$(grep -c ' spool:probe: .*op = ( "ENTRY" : container = 1 ), probe = ' bt.out)
is "$((entries + full))" 200 "  200 entries: spool:probe_entry with the fields 'site' and 'sp_delta', or spool:probe with op ENTRY and the field 'probe'"
entries=$(grep -c ' spool:probe_exit: .*site = ' bt.out)
full=$(grep -c ' spool:probe: .*op = ( "EXIT" : container = 2 ), probe = ' bt.out)
is "$((entries + full))" 200 "  200 exits"
like "$(grep -m1 ' spool:site: ' bt.out)" 'index = 0, probe = [0-9]+, addr = 0x[0-9A-F]+, caller = 0x' \
	"  the sites they name: the probe, its address and the caller"
unlike "$(grep -E ' spool:probe(_[a-z]+)?: ' bt.out)" '"(INIT|DESTROY)"|lock = ' \
	"  no probe event shows a lock operation or a lock"

spool_run locks -q -o locks.trace -- "$PROGS/lockcount" 2 100
is_rc 0 "lockcount runs under spool locks"
n=$(bt_count locks.trace spool:lock)
is "$n" "$(($(summary_events) + $(summary_thread_events)))" \
	"babeltrace2 prints the lock trace's lock and thread events"
like "$(grep -m1 ' spool:lock_op: ' bt.out)" 'op = \( "[A-Z_]+" : container = [0-9]+ \), lock = [0-9]+, site = ' \
	"  a spool:lock_op event: op named, the fields 'lock' and 'site'"
# a release is spool:lock_release (format 2.3: class 19), which names its
# lock (format 2.2's, class 18, implied it from the event before, and
# babeltrace2 showed its site only)
like "$(grep -m1 ' spool:lock_release: ' bt.out)" '\{ site = [0-9]+, lock = [1-9][0-9]* \}' \
	"  a spool:lock_release event: its fields 'site' and 'lock'"
is "$(grep -c ' spool:lock_release_prev: ' bt.out)" 0 "  no release leaves its lock unnamed"
# per lock, as babeltrace2 names them: as many acquisitions as releases
per_lock=$(awk '
	/ spool:lock(_op)?: / && /"ACQUIRE"/ { match($0, /lock = [0-9]+/); acq[substr($0, RSTART + 7, RLENGTH - 7)]++ }
	/ spool:lock(_op)?: / && /"RELEASE"/ { match($0, /lock = [0-9]+/); rel[substr($0, RSTART + 7, RLENGTH - 7)]++ }
	/ spool:lock_release: / { match($0, /lock = [0-9]+/); rel[substr($0, RSTART + 7, RLENGTH - 7)]++ }
	END { for (l in acq) if (acq[l] != rel[l]) printf "lock %s: %d acquired, %d released\n", l, acq[l], rel[l];
	      for (l in rel) if (!(l in acq)) printf "lock %s: released, never acquired\n", l;
	      n = 0; for (l in acq) n++; if (n < 2) print "fewer than 2 locks acquired" }' bt.out)
is "$per_lock" "" "  each lock babeltrace2 names is released as often as it is acquired"
like "$(grep -m1 ' spool:lockdef: ' bt.out)" 'lock = [0-9]+, addr = ' \
	"  a spool:lockdef names its lock"
like "$(grep -m1 ' spool:thread: ' bt.out)" 'op = 0, obj = 0, seq = 1, tid = ' \
	"  a spool:thread has a plain op and its sequence number"

done_testing
