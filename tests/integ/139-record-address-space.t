#!/bin/bash
# SPDX-License-Identifier: MIT
# 139-record-address-space.t - spool record takes from the program's
# address space what it uses, not 12 MiB: the agent mapped the record
# area's turn words (4 MiB) and serial slots (8 MiB) whole, so a one-thread
# program had 16 MiB less under `spool record` (20,012 kB against 3,892 kB
# alone; 7,716 kB under spool locks) and a program near its `ulimit -v`
# ran out of memory (tests/real/64-limits.t). Now both arrays are mapped
# 64 KiB at a time as lock objects and threads are numbered
# (src/agent/agent_lazy.c). A program with 40,000 mutexes (three chunks of
# turn words past the first) and one with 3,000 threads (three chunks of
# serial slots) are recorded and replayed the same.
. "$(dirname "$0")/lib.sh"

plan 13

# vmsize CMD...: the VmSize (kB) /bin/grep sees in itself under spool CMD
vmsize() {
	spool_run "$@" -- /bin/grep VmSize /proc/self/status
	sed -nE 's/^VmSize:[[:space:]]*([0-9]+) kB$/\1/p' run.out
}

locks=$(vmsize locks -q -o l.trace)
# (serial mode's default snapshots add libzstd and the threads' snapshot
# slots, about 1.8 MiB: doc/record.md "Snapshots"; measured without them)
serial=$(vmsize record -q --mode serial --snap-period 0 -o r.trace)
snaps=$(vmsize record -q --mode serial -o r2.trace)
sync=$(vmsize record -q --mode sync -o s.trace)
diag "VmSize: locks ${locks:-?} kB, record serial ${serial:-?} kB (with snapshots ${snaps:-?} kB), record sync ${sync:-?} kB"
num_cmp "${locks:-x}" -gt 0 "spool locks: the program reads its VmSize"
num_cmp "$((${serial:-99999} - ${locks:-0}))" -le 512 \
	"record (serial, --snap-period 0) maps at most 512 KiB more than locks"
num_cmp "$((${sync:-99999} - ${locks:-0}))" -le 512 \
	"record --mode sync maps at most 512 KiB more than locks"

# Under a limit: what the program allocates alone, then under record.
if [ "$SPOOL_ASAN" = 1 ]; then
	skip 2 "AddressSanitizer's shadow memory does not fit under ulimit -v"
else
	plain_max=0
	for ((mb = 256; mb >= 200; mb -= 2)); do
		if (ulimit -v 262144 && "$PROGS/as_hog" "$mb") >/dev/null 2>&1; then
			plain_max=$mb
			break
		fi
	done
	want=$((plain_max - 6))
	(
		ulimit -v 262144
		spool_run record -q -o h.trace -- "$PROGS/as_hog" "$want"
		echo "$RC" >rc.txt
	)
	RC="$(cat rc.txt)"
	OUT="$(cat run.out)"
	is "$OUT" "got=$want" "under ulimit -v 262144, record leaves as_hog all but 6 MB of its $plain_max MB"
	is_rc 0 "  and it exits 0"
fi

# 40,000 mutexes: sync mode takes a turn of each object's word.
spool_run record -q --mode sync -o m.trace -- "$PROGS/rr_manylocks" 40000 3
is_rc 0 "record --mode sync of 40,000 mutexes exits 0"
like "$OUT" "^locks=40000 threads=3 hash=" "  the program ran to its end"
cp run.out m.out
spool_run info m.trace
like "$OUT" "(^|[^0-9])0 lost|lost: 0|lost 0" "  nothing was lost (the turn words of every object were mapped)"
replays_same 1 0 m.out -q m.trace
is "$SAME" 1 "  its replay prints the same hash (every object's order replayed)"

# 3,000 short threads in serial mode: slots past the first chunk.
spool_run record -q -o t.trace -- "$PROGS/shortthreads-finst" 3000 2
is_rc 0 "record (serial) of 3,000 short threads exits 0"
is "$OUT" "threads=3000 total=3000" "  the program ran to its end"
cp run.out t.out
replays_same 1 0 t.out -q t.trace
is "$SAME" 1 "  its replay prints the same"
spool_run info t.trace
like "$OUT" "(^|[^0-9])0 lost|lost: 0|lost 0" "  nothing was lost"

done_testing
