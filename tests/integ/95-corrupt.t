#!/bin/bash
# SPDX-License-Identifier: MIT
# 95-corrupt.t - damaged traces: a stream file truncated mid-packet, a packet
# header overwritten, a packet size pointing past the end, garbage appended,
# metadata missing. spool report must warn naming the file (and the offset
# where it can), still report every event from before the damage, and exit 1;
# a trace it cannot read at all is an error, not an empty report.
. "$(dirname "$0")/lib.sh"

plan 22

# 400,000 events of about 40 bytes fit in a 32 MiB ring whatever the
# collector's speed (the AddressSanitizer build drains slower), so the
# undamaged trace is complete and the counts below are exact.
PAIRS=200000
spool_run locks -q --ring-size 32m --max-threads 4 -- "$PROGS/flood" "$PAIRS"
is_rc 0 "flood $PAIRS: a trace with many packets"
is "$(summary_lost)" 0 "  nothing lost"

stream=$(largest_stream spool.trace)
sname=$(basename "$stream")
mapfile -t offs < <(packet_offsets "$stream")
num_cmp "${#offs[@]}" -ge 4 "  $sname has at least 4 packets"
k=$((${#offs[@]} / 2))
off=${offs[$k]}

# damaged NAME: a fresh copy of the trace to damage.
damaged() {
	rm -rf "$1"
	cp -a spool.trace "$1"
}

# check_damage DESC DIR WANT_OFFSET: exit 1, a warning naming the stream
# file (and WANT_OFFSET if not empty), events before the damage reported.
check_damage() {
	local desc="$1" dir="$2" want_off="$3" acq
	report_json "$dir"
	is "$RC" 1 "$desc: spool report exits 1"
	like "$ERR" "$sname" "  the warning names $sname"
	if [ -n "$want_off" ]; then
		like "$ERR" "(^|[^0-9a-fx])($want_off|0x$(printf %x "$want_off"))([^0-9a-f]|$)" \
			"  and the offset $want_off"
	fi
	acq=$(lock_stat report.json flood_lock "$F_ACQ")
	num_cmp "$acq" -gt 0 "  the events before the damage are still reported"
}

damaged truncated.trace
truncate -s $((off + 100)) "truncated.trace/$sname"
check_damage "truncated mid-packet at $((off + 100))" truncated.trace "$off"
num_cmp "$(lock_stat report.json flood_lock "$F_ACQ")" -lt "$PAIRS" \
	"  and not the ones after it"

damaged badmagic.trace
poke "badmagic.trace/$sname" "$off" 00000000
check_damage "packet magic overwritten at $off" badmagic.trace "$off"

damaged badsize.trace
poke "badsize.trace/$sname" $((off + 48)) 00000000ffff0000
check_damage "packet size past the end at $off" badsize.trace "$off"

damaged garbage.trace
head -c 1000 /dev/urandom >>"garbage.trace/$sname"
check_damage "garbage after the last packet" garbage.trace ""
is "$(lock_stat report.json flood_lock "$F_ACQ")" "$PAIRS" "  every acquisition is still there"

damaged nometa.trace
rm nometa.trace/metadata
spool_run report --locks nometa.trace
num_cmp "$RC" -ne 0 "no metadata: spool report fails"
like "$ERR" "metadata" "  naming the metadata file"

done_testing
