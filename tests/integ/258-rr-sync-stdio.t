#!/bin/bash
# SPDX-License-Identifier: MIT
# 258-rr-sync-stdio.t - sync mode orders each stdio stream like a lock
# (doc/record.md "Standard I/O inside libc"): tests/progs/rr_stdiomt's 4
# threads print to one fully buffered stdout and to unbuffered stderr
# with fprintf, fputs, fwrite, putc, puts and printf, in the order
# glibc's FILE lock lets them. 20 sync recordings, each replayed once:
# every replay prints the recorded stdout and stderr byte for byte, or
# stops at a divergence it reports (exit 3) - never a silently different
# output (before, about every replay printed the lines in another order
# and said nothing). The same with a FILE the program fopens, writes from
# the 4 threads and reads back with fread after join.
. "$(dirname "$0")/lib.sh"

plan 6

P="$PROGS/rr_stdiomt"

# _prog_err FILE: the program's own stderr (spool's lines dropped)
_prog_err() { grep -av '^spool\(-agent\)\?: \|^  \(recorded\|replay\): ' "$1"; }

# rounds MODE N: N recordings of rr_stdiomt MODE, each replayed once;
# sets SAME, LOUD (reported divergences), SILENT (other output, no word)
rounds() {
	local mode=$1 n=$2 i
	SAME=0 LOUD=0 SILENT=0 FLAGS_OK=0
	for ((i = 1; i <= n; i++)); do
		spool_run record -q --mode sync -o "$mode$i.trace" -- "$P" "$mode"
		if [ "$RC" != 0 ]; then
			show_run
			continue
		fi
		cp run.out rec.out
		_prog_err run.err >rec.err
		flags=$(sed -n 's/^flags=//p' "$mode$i.trace/.spool/record")
		[ $(( ${flags:-0} & 0x100000 )) -ne 0 ] && FLAGS_OK=$((FLAGS_OK + 1))
		spool_run replay -q "$mode$i.trace"
		_prog_err run.err >rep.err
		if [ "$RC" = 0 ] && cmp -s rec.out run.out && cmp -s rec.err rep.err; then
			SAME=$((SAME + 1))
		elif [ "$RC" = 3 ] && grep -q '^spool: error: replay diverged' run.err; then
			LOUD=$((LOUD + 1))
			diag "replay $i of $mode: $(grep -m 1 '^spool: error: ' run.err)"
		else
			SILENT=$((SILENT + 1))
			diag "replay $i of $mode: exit status $RC, output against the recorded one:" \
				"$(diff rec.out run.out | head -n 6)" "$(diff rec.err rep.err | head -n 6)"
		fi
	done
}

rounds mix 20
is "$FLAGS_OK" 20 "20 sync recordings of 4 threads printing to stdout and stderr say they ordered the streams"
is "$SILENT" 0 "  no replay printed another stdout or stderr without saying so"
diag "identical: $SAME, reported divergences: $LOUD"
ok "  and most replays print the recorded bytes ($SAME of 20)" test "$SAME" -ge 15
is "$((SAME + LOUD + SILENT))" 20 "  every recording was replayed"

rounds file 5
is "$SILENT" 0 "5 recordings of 4 threads writing one fopen'ed FILE, read back with fread: no silent difference"
ok "  and most replays print the recorded bytes ($SAME of 5)" test "$SAME" -ge 4
done_testing
