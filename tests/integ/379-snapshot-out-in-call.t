#!/bin/bash
# SPDX-License-Identifier: MIT
# 379-snapshot-out-in-call.t - snapshots hold a thread that is out in a
# blocking call (doc/record.md "Snapshots"). rr_snapout's reader thread
# sits in select or read on a pipe nearly all the time; main works (lock
# calls) and naps between the numbers it writes. A snapshot needed every
# other thread parked in the agent: the reader never was, and such a
# program got one snapshot, at its end, or none (mosquitto_pub -l alike).
# Now a thread that gives the run token up for a blocking call saves its
# context in the call's frame, and a restore brings it back there: it
# waits for its recorded turn and takes the call's result off the log. So
# the recording has several snapshots with --snap-period 50ms, spool says
# of them that a thread is in a blocking call, and spool replay --goto
# each one's event starts from it and prints the recording's tail byte for
# byte, exit 0. Recorded twice: the chaos schedule too.
. "$(dirname "$0")/lib.sh"

plan 10

P="$PROGS/rr_snapout"

for mode in plain chaos; do
	opt=""
	[ $mode = chaos ] && opt="--chaos"
	# shellcheck disable=SC2086
	spool_run record $opt --snap-period 50ms -o $mode.trace -- "$P" 150 2000
	ok "$mode: record exits 0 with the program's last line" \
		bash -c "[ $RC = 0 ] && grep -q '^main: 150 rounds, .* reader got 150, total 11325$' run.out" ||
		show_run
	cp run.out $mode.rec
	end=$(($(sed -nE 's/.* ([0-9,]+) schedule events.*/\1/p' run.err | tr -d , | head -1) - 1))
	snaps=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $1 ":" $2}' \
		<("$SPOOL" info $mode.trace))
	nsnaps=0 here=0 out=0 good=0 bad="" elsewhere=""
	for s in $snaps; do
		n=${s%%:*} e=${s##*:}
		nsnaps=$((nsnaps + 1))
		timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$e" $mode.trace >g.out 2>g.err
		rc=$?
		check_sanitizer g.err "spool replay --goto $e"
		if grep -q "^spool: started from snapshot $n at schedule event $e " g.err; then
			here=$((here + 1))
		else
			elsewhere="$elsewhere $n"
			diag "$mode, --goto $e: $(grep -m 2 '^spool: ' g.err)"
		fi
		grep -Eq "^spool: starting from snapshot $n .*, 1 in a blocking call[,)]" g.err &&
			out=$((out + 1))
		# (all of it from a snapshot taken before stdout's buffer, a
		# file's, was first written out: under load the first one can
		# come at event 3)
		if [ "$rc" = 0 ] && { suffix_ok $mode.rec g.out || { [ "$e" = "$end" ] && [ ! -s g.out ]; }; }; then
			good=$((good + 1))
		else
			bad="$bad $n(rc $rc)"
			diag "$mode, --goto $e: rc $rc; $(grep -m 3 '^spool: \(error\|warning\)\|diverged' g.err)"
		fi
	done
	num_cmp "$nsnaps" -ge 3 "$mode: the recording has several snapshots ($nsnaps; the old code: 1 or 0)"
	num_cmp "$out" -ge 2 "$mode: spool says of $out of them that a thread is in a blocking call"
	is "$here" "$nsnaps" "$mode: --goto each snapshot's event starts from it${elsewhere:+ (not:$elsewhere)}"
	is "$good" "$nsnaps" "$mode: each exits 0 with the recording's tail, byte for byte${bad:+ (not:$bad)}"
done

done_testing
