#!/bin/bash
# SPDX-License-Identifier: MIT
# 178-netdb-damaged.t - a recording is untrusted (DESIGN.md, rules of
# trust): the records of a name lookup (calls 80, 81) and of a tree walk
# (call 83) are rebuilt into the program's memory by the agent, which must
# check every count and length against the bytes there are. Recordings of
# rr_netdb hosts and rr_netdb walk get one field of those records made
# huge in the trace (tests/integ/trace_craft.py u32if): a host entry's name
# length, a service entry's number of aliases, a walk entry's path length.
# Each replay stops with spool's report saying the record is damaged (exit
# status 3), not with a crash of the program or a write past a buffer.
. "$(dirname "$0")/lib.sh"

# trace_craft.py edits format 1's layout: these traces are written in it
# (format 1 is still read: doc/trace-format.md, "Versions")
export SPOOL_TRACE_FORMAT=1

plan 6

P="$PROGS/rr_netdb"
CRAFT="$REPO/tests/integ/trace_craft.py"
mkdir -p t/a
echo x >t/a/f

# damage NAME MODE FIELD-OFFSET VALUE CALL WHAT: record, damage, replay
damage() {
	local name=$1 off=$2 value=$3 call=$4 what=$5 n
	shift 5
	spool_run record -q -o "$name" -- "$P" "$@"
	n=$(python3 "$CRAFT" u32if "$name" 7 "$off" "$value" 8 "$call")
	num_cmp "${n:-0}" -gt 0 "$name: the recording has call $call records with data, now damaged" ||
		show_run
	spool_run replay -o "rp.$name" "$name"
	like "$RC:$ERR" "^3:.*replay stopped: a damaged $what record" \
		"$name: the replay stops at the damaged record and says so (exit 3)" || show_run
}
# payload offsets (doc/trace-format.md): the data starts at 48
damage host 64 0x7fffffff 80 "name lookup" hosts	 # the host name's length
damage serv 52 100000 81 "name lookup" hosts	 # a service's number of aliases
damage walk 60 5000 83 "ftw/nftw" walk t	 # an entry's path length
done_testing
