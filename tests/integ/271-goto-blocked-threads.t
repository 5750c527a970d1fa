#!/bin/bash
# SPDX-License-Identifier: MIT
# 271-goto-blocked-threads.t - replay from snapshots that hold threads
# taking the run token back after a blocking call (doc/record.md, "Replay
# from a snapshot"). rr_snapblock's workers poll and read their pipes and
# nap; in serial mode each such call gives the token up, and a thread that
# comes back while another holds it waits to take it back: most snapshots
# of it find threads there. Such a snapshot was skipped for an earlier one
# ("cannot be restored"), or the replay started from the beginning. Now
# --goto starts from it: spool says how many threads it holds in that
# wait, the restored threads finish their calls as the replay's (the
# result is the recorded one, taken off the log), and the program prints
# the recording's tail byte for byte and exits 0, from every snapshot of
# three chaos recordings (up to six: how many snapshots a recording gets
# depends on where its switches come, and a loaded machine gives fewer; the
# recordings go on until there are at least 4, 2 of them with threads in
# that wait).
. "$(dirname "$0")/lib.sh"

plan 7

P="$PROGS/rr_snapblock"

recorded=0 nsnaps=0 tried=0 good=0 here=0 blocked=0 bad="" elsewhere=""
for r in 1 2 3 4 5 6; do
	[ $r -gt 3 ] && [ $nsnaps -ge 4 ] && [ $blocked -ge 2 ] && break
	attempts=$r
	spool_run record --chaos --snap-period 20 -o b$r.trace -- "$P" 4 300
	if [ "$RC" = 0 ] && grep -q '^events 1200 total .* list 1200 ' run.out; then
		recorded=$((recorded + 1))
	else
		show_run
		continue
	fi
	cp run.out rec$r.out
	# (the last schedule event: a snapshot there has nothing left to print)
	end=$(($(sed -nE 's/.* ([0-9,]+) schedule events.*/\1/p' run.err | tr -d , | head -1) - 1))
	snaps=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $1 ":" $2}' \
		<("$SPOOL" info b$r.trace))
	for s in $snaps; do
		n=${s%%:*} e=${s##*:}
		nsnaps=$((nsnaps + 1))
		timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$e" b$r.trace \
			>g.out 2>g.err
		rc=$?
		check_sanitizer g.err "spool replay --goto $e"
		tried=$((tried + 1))
		if grep -q "^spool: started from snapshot $n at schedule event $e " g.err; then
			here=$((here + 1))
		else
			elsewhere="$elsewhere $r:$n"
			diag "recording $r, --goto $e: $(grep -m 2 '^spool: ' g.err)"
		fi
		grep -Eq "^spool: starting from snapshot $n .*[0-9]+ back from a blocking call\)" g.err &&
			blocked=$((blocked + 1))
		if [ "$rc" = 0 ] && { tail_ok rec$r.out g.out || { [ "$e" = "$end" ] && [ ! -s g.out ]; }; }; then
			good=$((good + 1))
		else
			bad="$bad $r:$n(rc $rc)"
			diag "recording $r, --goto $e: rc $rc; $(grep -m 3 '^spool: \(error\|warning\)' g.err)"
		fi
	done
done
is "$recorded" "$attempts" "$attempts chaos recordings with --snap-period 20 of threads in blocking calls, each with the program's output"
num_cmp "$nsnaps" -ge 4 "they have snapshots ($nsnaps)"
num_cmp "$blocked" -ge 2 "spool says of $blocked of them that threads wait to take the run token back after a blocking call"
is "$tried" "$nsnaps" "--goto each snapshot's event: $tried replays"
is "$here" "$tried" "each starts from that very snapshot${elsewhere:+ (not:$elsewhere)}"
is "$good" "$tried" "each exits 0 with the recording's tail, byte for byte${bad:+ (not:$bad)}"

# the restored threads' calls are the replay's: a replay from the start of
# the same recording prints the whole recorded output
spool_run replay b1.trace
ok "a replay of the first recording from the start prints its output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out rec1.out" || show_run

done_testing
