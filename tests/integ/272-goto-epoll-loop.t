#!/bin/bash
# SPDX-License-Identifier: MIT
# 272-goto-epoll-loop.t - replay from snapshots of an event loop (doc/record.md,
# "Replay from a snapshot"): rr_snapepoll waits in epoll_wait on an eventfd
# and a pipe that its workers write, and changes the pipe's entry with
# epoll_ctl(EPOLL_CTL_MOD) at each wake, as libuv (node) does; a failed
# epoll_ctl ends it with status 3. A restore used to give every descriptor
# a /dev/null stand-in, where epoll_ctl fails (node aborted in libuv); now
# the stand-ins are of the recorded kind (an epoll instance with its
# interest list, an eventfd, the pipe's two ends), and --goto each snapshot
# of three or more chaos recordings prints the recording's tail and exits 0.
. "$(dirname "$0")/lib.sh"

plan 4

P="$PROGS/rr_snapepoll"

# A snapshot is taken only at a switch where no thread is inside a
# blocking call (epoll_wait here), so how many a recording gets varies
# with the timing: recordings are made (at most 6) until there are 3 and
# at least 2 snapshots in all.
recorded=0 tried=0 nsnaps=0 here=0 good=0 bad="" elsewhere=""
for r in 1 2 3 4 5 6; do
	[ "$recorded" -ge 3 ] && [ "$nsnaps" -ge 2 ] && break
	tried=$((tried + 1))
	spool_run record --chaos --snap-period 20 -o e$r.trace -- "$P" 2 600
	if [ "$RC" = 0 ] && grep -q "^done: 1200 events in " run.out; then
		recorded=$((recorded + 1))
	else
		show_run
		continue
	fi
	cp run.out rec$r.out
	# (the last schedule event: a snapshot there has nothing left to print)
	end=$(($(sed -nE 's/.* ([0-9,]+) schedule events.*/\1/p' run.err | tr -d , | head -1) - 1))
	snaps=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $1 ":" $2}' \
		<("$SPOOL" info e$r.trace))
	for s in $snaps; do
		n=${s%%:*} e=${s##*:}
		nsnaps=$((nsnaps + 1))
		timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$e" e$r.trace >g.out 2>g.err
		rc=$?
		check_sanitizer g.err "spool replay --goto $e"
		if grep -q "^spool: started from snapshot $n at schedule event $e " g.err; then
			here=$((here + 1))
		else
			elsewhere="$elsewhere $r:$n"
		fi
		if [ "$rc" = 0 ] && { tail_ok rec$r.out g.out || { [ "$e" = "$end" ] && [ ! -s g.out ]; }; }; then
			good=$((good + 1))
		else
			bad="$bad $r:$n(rc $rc)"
			diag "recording $r, --goto $e: rc $rc; $(grep -m 3 'spool: \(error\|warning\)\|epoll' g.err)"
		fi
	done
done
ok "$tried chaos recordings with --snap-period 20 of an epoll loop, each with the program's output" \
	[ "$recorded" = "$tried" ]
num_cmp "$nsnaps" -ge 2 "they have snapshots ($nsnaps)"
is "$here" "$nsnaps" "--goto each snapshot's event starts from that very snapshot${elsewhere:+ (not:$elsewhere)}"
is "$good" "$nsnaps" "each exits 0 with the recording's tail, byte for byte: its epoll_ctl works${bad:+ (not:$bad)}"

done_testing
