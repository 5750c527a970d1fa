#!/bin/bash
# SPDX-License-Identifier: MIT
# 212-export-big.t - exports and paths bigger than their write buffers
# (doc/export.md, "Speed and memory on big traces"): the Chrome JSON export
# is built in 64 KB blocks, the Perfetto one packet by packet with varints
# encoded in place, a hold's slice name is reused from one hold to the next,
# and spool path builds each text record in one buffer. On a trace of tens of
# thousands of slices (many blocks) the JSON must still parse, give one hold
# slice per acquisition the lock report counts, name each hold after its
# thread, agree with the Perfetto export; and every path record must be the
# line the documented printf format gives.
. "$(dirname "$0")/lib.sh"

plan 14

# 4 threads x (5,000 pairs on one shared mutex + 5,000 on their own):
# 40,000 holds, about 5 MB of JSON.
spool_run locks -q -- "$PROGS/bench_locks" 4 5000
is_rc 0 "bench_locks 4 5000 runs under spool locks"
report_json spool.trace
acq=$(lock_stat report.json '*' "$F_ACQ")
num_cmp "$acq" -ge 40000 "the lock report counts the 40,000 acquisitions"

spool_run export --chrome -w out.json spool.trace
is_rc 0 "export --chrome exits 0"
num_cmp "$(stat -c %s out.json)" -gt 1000000 "  the export is many 64 KB blocks long"
holds='[e for e in d["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "hold"]'
is "$(json out.json "len($holds)")" "$acq" "  it parses, with one hold slice per acquisition"
# each hold is named "hold by TID (NAME)" after the thread in its args
is "$(json out.json "len([e for e in $holds if not e['name'].startswith('hold by %d ' % e['args']['tid'])])")" \
	0 "  every hold slice is named after its own thread"
is "$(json out.json "len(set(e['args']['tid'] for e in $holds))")" 4 "  the holds of the 4 threads"

spool_run export --perfetto -w out.pftrace spool.trace
is_rc 0 "export --perfetto exits 0"
if command -v protoc >/dev/null && [ -f "$REPO/tests/data/perfetto/trace.proto" ]; then
	protoc -I"$REPO/tests/data/perfetto" --decode=perfetto.protos.Trace trace.proto \
		<out.pftrace >pf.txt 2>pf.err
	is "$?" 0 "  protoc decodes it"
	is "$(grep -c 'categories: "hold"' pf.txt)" "$acq" "  as many hold slices as the Chrome export"
else
	skip 2 "protoc or tests/data/perfetto/trace.proto missing"
fi

# --- spool path: 20,000 calls, entries and exits ---
spool_run probe -q -e 'func:probe_small' -- "$PROGS/probe_bench" small 20000
is_rc 0 "probe_bench small 20000 runs under spool probe"
spool_run path --show-exits -w path.txt spool.trace
is_rc 0 "spool path --show-exits -w writes the path"
grep -v '^#' path.txt >rec.txt
# entries and exits of the 20,000 calls (the warm-up adds as many again)
num_cmp "$(wc -l <rec.txt)" -ge 40000 "  a record per entry and exit"
# every record as "%8d %12s  %-14s %-28s %s" prints its fields, seq 1, 2, ...
# and the time with 3 decimals, ascending
awk '{
	line = sprintf("%8d %12s  %-14s %-28s %s", $1, $2, $3, $4, $5)
	if (line != $0 || $1 != NR || $2 !~ /^[0-9]+\.[0-9][0-9][0-9]$/ || $2 + 0 < last + 0 ||
	    $3 !~ /^T0\/[0-9]+$/ || $4 !~ /^[<>]probe_small$/) { print NR ": " $0; exit 1 }
	last = $2
}' rec.txt >bad.txt
ok "  every record is the documented line (first bad one: $(cat bad.txt))" test ! -s bad.txt

done_testing
