#!/bin/bash
# SPDX-License-Identifier: MIT
# 300-rr-sync-flushes.t - in sync mode the stdio writes no call on a stream
# orders take their turns too (doc/record.md "Standard I/O inside libc"):
# tests/progs/rr_flushes runs as `rr_flushes MODE >f 2>&1` with two
# threads whose lines share the file: dprintf(1) against dprintf(2);
# printf followed by fflush(NULL) against fprintf(stderr); printf then
# fclose(stdout) (coreutils' close_stdout) against fprintf(stderr); and
# main's stdout written by the flush at exit (after an atexit handler's
# line) while a worker is still printing to stderr; and a thread that
# holds stdout's lock for good (flockfile, a line in the buffer) while
# main exits: the exit must not wait for it. Each mode is recorded
# once and replayed 10 times: every replay must exit 0 and leave the
# recording's bytes, in its order. Before, dprintf, fflush(NULL) and
# fclose wrote for real in a replay wherever the thread got there: 1 to 2
# replays of 4 left the recorded order, the others another one, exit 0,
# no word from spool. (held: a recording whose exit waited for the lock
# would never end; glibc's flush at exit takes none.)
. "$(dirname "$0")/lib.sh"

MODES="dprintf flushall fclose exit held"
plan 10

P="$PROGS/rr_flushes"

# the program's bytes in FILE (spool's own lines dropped)
_prog() { grep -av '^spool\(-agent\)\?: \|^  \(recorded\|replay\): ' "$1"; }

for m in $MODES; do
	rm -rf t.trace
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --mode sync -o t.trace -- \
		"$P" "$m" 200 >rec.all 2>&1 </dev/null
	rc=$?
	check_sanitizer rec.all "record $m"
	_prog rec.all >rec.f
	flags=$(sed -n 's/^flags=//p' t.trace/.spool/record)
	want=250
	[ "$m" = held ] && want=2 # "main exits", then the held line
	ok "$m: the sync recording exits 0 with its lines and says it ordered the flushes" \
		test "$rc" = 0 -a "$(wc -l <rec.f)" -ge "$want" -a $(( ${flags:-0} & 0x400000 )) -ne 0 ||
		diag "exit $rc, flags ${flags:-none}" "$(tail -n 5 rec.all)"
	[ "$m" = exit ] && diag "exit: the worker printed $(grep -c '^w ' rec.f) lines"
	same=0
	for i in $(seq 10); do
		timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q t.trace >rep.all 2>&1 </dev/null
		rc=$?
		check_sanitizer rep.all "replay $m"
		_prog rep.all >rep.f
		if [ "$rc" = 0 ] && cmp -s rec.f rep.f; then
			same=$((same + 1))
		else
			diag "$m: replay $i: exit $rc, $(grep -m 1 '^spool: error: ' rep.all)" \
				"$(diff rec.f rep.f | head -n 4)"
		fi
	done
	is "$same" 10 "  10 replays of 10 exit 0 with the recorded bytes in the recorded order"
done
