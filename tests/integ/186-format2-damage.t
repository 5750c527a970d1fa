#!/bin/bash
# SPDX-License-Identifier: MIT
# 186-format2-damage.t - a format 2 trace is untrusted input
# (doc/trace-format.md, "Reading version 2"): a packet whose event count
# is not what it holds, a short event naming a site its packet never
# defined, an extended header with an unknown id, a stream cut in the middle
# of a packet. Each is a problem spool info names (file and byte offset),
# with exit status 1; the events before it are still read, the other
# streams entirely, and the reports still run. And a loss (not damage) is
# still seen two ways: the packets' events_discarded and the sequence
# numbers the reader gives back (implied by position in format 2).
. "$(dirname "$0")/lib.sh"

plan 20

spool_run locks -q -o good.trace -- "$PROGS/lockcount" 2 300
is_rc 0 "lockcount 2 300 under spool locks"
total=$(trace_summary good.trace events)
where() { python3 "$REPO/bench/trace_classes.py" --where "$1" "$2" 2>/dev/null | head -n 1; }
# poke TRACE FILE OFFSET PYTHON_BYTES: overwrite bytes of a stream file
poke() {
	python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); f.write(eval(sys.argv[3]))' \
		"$1/$2" "$3" "$4"
}
events_read() { sed -nE 's/^events: ([0-9]+) .*/\1/p' <<<"$OUT"; }

# The event count of stream_1's first packet, one too many.
cp -r good.trace count.trace
cnt=$(python3 -c 'import struct,sys; print(struct.unpack_from("<I", open(sys.argv[1], "rb").read(96), 92)[0])' \
	count.trace/stream_1)
poke count.trace stream_1 92 "(($cnt + 1) & 0xffffffff).to_bytes(4, 'little')"
spool_run info count.trace
is_rc 1 "a packet's event count that is wrong: spool info exits 1"
like "$ERR" "stream_1 at offset 0: packet of $((cnt + 1)) events holds $cnt" \
	"  naming the file, the packet and both counts"
is "$(events_read)" "$total" "  its events are read all the same (the count is checked at its end)"

# A short lock event naming site 65535.
cp -r good.trace site.trace
read -r file off < <(where lock_op site.trace)
like "$file" "^stream_[0-9]+$" "the trace has spool:lock_op events"
poke site.trace "$file" $((off + 9)) "b'\xff\xff'"
spool_run info site.trace
is_rc 1 "an undefined site: spool info exits 1"
like "$ERR" "$file at offset $off: event names a site the packet did not define: 65535" \
	"  naming the file, the event's offset and the site"
num_cmp "$(events_read)" -gt 0 "  the events before it are read"
spool_run report --locks site.trace
is_rc 1 "  spool report --locks exits 1 (a damaged trace)"
like "$OUT" "acq .* contended" "  and still reports the locks of what it read"

# An extended header whose id is no class.
cp -r good.trace id.trace
read -r file off < <(where lock_op id.trace)
poke id.trace "$file" "$off" "b'\x1f' + (200).to_bytes(4, 'little')"
spool_run info id.trace
is_rc 1 "an unknown event id: spool info exits 1"
like "$ERR" "$file at offset $off: unknown event id 200" "  naming the id"

# A stream cut in the middle of its packet.
cp -r good.trace cut.trace
size=$(stat -c %s cut.trace/stream_1)
truncate -s $((size / 2)) cut.trace/stream_1
spool_run info cut.trace
is_rc 1 "a stream cut short: spool info exits 1"
like "$ERR" "stream_1 at offset 0: truncated packet" "  says it is truncated"
num_cmp "$(events_read)" -gt 0 "  the whole events of the part that is left are read"
num_cmp "$(events_read)" -lt "$total" "  not more"

# A ring that overflows: both counts, per stream; the sequence numbers
# cannot see the drops after the stream's last event, so they may count
# fewer (all of them when the ring only overflowed at the end), never more
# (test_trace.c checks an exact count of gaps).
spool_run locks -q --ring-size 4k --on-full drop -o loss.trace -- "$PROGS/flood" 300000
is_rc 4 "flood with a 4k ring and --on-full drop: events lost (exit 4)"
run_lost=$(summary_lost)
spool_run info loss.trace
read -r disc gaps < <(awk '$NF == "stream_0" { print $5, $6 }' <<<"$OUT")
num_cmp "$disc" -gt 0 "  spool info counts the stream's discarded events"
num_cmp "$gaps" -le "$disc" "  the sequence numbers' gaps, no more than were discarded"
like "$OUT" "^lost: $run_lost events" "  and it says the run's number lost"

done_testing
