#!/bin/bash
# SPDX-License-Identifier: MIT
# 158-babeltrace-classes.t - babeltrace2 (Debian's) shows each spool event
# class with its own field names and enumerations (the metadata's word type
# per class, doc/trace-format.md): a probe hit's op is ENTRY or EXIT and its
# object is the probe, never a lock operation; a lock event's op is the lock
# operation and its object the lock; a lockdef names its lock too.
. "$(dirname "$0")/lib.sh"

if ! command -v babeltrace2 >/dev/null; then
	echo "1..0 # SKIP babeltrace2 is not installed (scripts/deps.sh)"
	exit 0
fi

plan 13

spool_run probe -q -o probe.trace -e 'func:probe_leaf_add' -- "$PROGS/probe_calls" 100
is_rc 0 "probe_calls runs under spool probe"
n=$(bt_count probe.trace spool:probe)
is "$?" 0 "babeltrace2 reads the probe trace"
unlike "$(cat bt.err)" "ERROR|CRITICAL" "  without errors"
is "$n" 400 "  it prints 400 spool:probe events (200 calls, entry and exit)"
is "$(grep ' spool:probe: ' bt.out | grep -c 'op = ( "ENTRY" : container = 1 ), probe = ')" 200 \
	"  200 of them with op ENTRY and the field 'probe'"
is "$(grep ' spool:probe: ' bt.out | grep -c 'op = ( "EXIT" : container = 2 ), probe = ')" 200 \
	"  200 with op EXIT"
unlike "$(grep ' spool:probe: ' bt.out)" '"(INIT|DESTROY)"|lock = ' \
	"  no probe event shows a lock operation or a lock"

spool_run locks -q -o locks.trace -- "$PROGS/lockcount" 2 100
is_rc 0 "lockcount runs under spool locks"
n=$(bt_count locks.trace spool:lock)
is "$n" "$(summary_events)" "babeltrace2 prints the lock trace's lock events"
like "$(grep -m1 ' spool:lock: ' bt.out)" 'op = \( "[A-Z_]+" : container = [0-9]+ \), lock = ' \
	"  a spool:lock event: op named, the field 'lock'"
is "$(grep ' spool:lock: ' bt.out | grep -c '"ACQUIRE"')" \
	"$(grep ' spool:lock: ' bt.out | grep -c '"RELEASE"')" "  as many ACQUIRE as RELEASE"
like "$(grep -m1 ' spool:lockdef: ' bt.out)" 'lock = [0-9]+, thread = ' \
	"  a spool:lockdef names its lock"
like "$(grep -m1 ' spool:thread: ' bt.out)" 'op = 0, obj = 0, thread = ' \
	"  a spool:thread has a plain op"

done_testing
