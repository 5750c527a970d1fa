#!/bin/bash
# SPDX-License-Identifier: MIT
# 116-record-sync-address-space.t - spool record --mode sync took 12 MiB
# more of the program's address space than spool locks (a one-thread
# program: 20,012 kB against 7,716 kB), 8 MiB of it serial slots that sync
# mode never uses; a program near its `ulimit -v` ran out of memory under
# record. Now sync mode maps the record area without them: the turn words
# (4 MiB) and the header. Since then both arrays are mapped as they are
# used (tests/integ/139-record-address-space.t, doc/record.md "Address
# space"). The figure is the program's own VmSize, compared with
# the same program under spool locks, so the agent's other mappings cancel.
. "$(dirname "$0")/lib.sh"

plan 3

# vmsize CMD...: the VmSize (kB) /bin/grep sees in itself under spool CMD
vmsize() {
	spool_run "$@" -- /bin/grep VmSize /proc/self/status
	sed -nE 's/^VmSize:[[:space:]]*([0-9]+) kB$/\1/p' run.out
}

locks=$(vmsize locks -q -o l.trace)
sync=$(vmsize record -q --mode sync -o s.trace)
serial=$(vmsize record -q --mode serial -o r.trace)
diag "VmSize: locks ${locks:-?} kB, record sync ${sync:-?} kB, record serial ${serial:-?} kB"
num_cmp "${locks:-x}" -gt 0 "spool locks: the program reads its VmSize"
num_cmp "$((${sync:-0} - ${locks:-0}))" -le 6144 \
	"record --mode sync maps at most 6 MiB more than locks (no serial slots)"
spool_run replay -q s.trace
is "$RC" 0 "the sync recording replays"

done_testing
