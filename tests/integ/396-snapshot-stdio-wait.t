#!/bin/bash
# SPDX-License-Identifier: MIT
# 396-snapshot-stdio-wait.t - a snapshot is taken while the token's holder
# waits in a stdio read (doc/record.md "Snapshots": "The holder in a stdio
# read"). rr_stdinwait's main thread reads its lines with fgets from a
# pipe the test writes, and a stdio read keeps the run token while it
# blocks (its FILE's lock is held), so the worker waits for the token and
# nothing took a snapshot until the line came (mosquitto_pub -l: about one
# a line, tests/real/150). Now the holder, when its read would block past
# the time one is due, takes it itself before it reads. The test writes
# line k only once there are k snapshots (10 s at most: the old code took
# none while main waited; --stuck-ms keeps the watchdog, which stops a
# recording whose holder does not come back for 5 s, out of a late line
# under load); spool replay --goto each snapshot exits 0 with the
# recording's tail.
# A signal that comes during that wait: with a handler without SA_RESTART
# fgets returns EINTR as the real read made it, with SA_RESTART it reads on.
. "$(dirname "$0")/lib.sh"

plan 8

P="$PROGS/rr_stdinwait"

# snapshots begun (a copy writes snap_N.tmp, then renames it snap_N.zst),
# in the trace while it is written (TRACE.writing.PID)
nsnap() {
	find . -maxdepth 4 -path "./$1*/.spool/snap/snap_*" 2>/dev/null |
		sed -nE 's#.*/snap_([0-9]+)\.(tmp|zst)$#\1#p' | sort -u | wc -l
}

# a line to the program (in a subshell: one that has ended is no SIGPIPE here)
feed() { (echo "$1" >&3) 2>/dev/null; }

# record MODE PERIOD TRACE: in the background, stdin from in.fifo. (The
# worker waits for the token while main waits for a line: the watchdog
# would stop a recording whose line comes 5 s late, as under load.)
record_bg() {
	rm -f in.fifo rec.out rec.err
	mkfifo in.fifo
	: >rec.out
	: >rec.err
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" record --snap-period "$2" --stuck-ms 60000 -o "$3" \
		-- "$P" $1 \
		<in.fifo >>rec.out 2>>rec.err &
	REC=$!
	exec 3>in.fifo
}

# --- snapshots while main waits for its lines: one a second, and line k
# written once there are k (main reads each at once, and nothing is due
# until it waits again)
record_bg "" 1s s.trace
seen=0
if wait_ready rec.out; then
	for k in 1 2 3; do
		for ((i = 0; i < 200; i++)); do
			[ "$(nsnap s.trace)" -ge $k ] && break
			sleep 0.05
		done
		[ "$(nsnap s.trace)" -ge $k ] || break
		seen=$((seen + 1))
		feed "line $k"
	done
fi
for ((k = seen + 1; k <= 3; k++)); do feed "line $k"; done
exec 3>&-
wait "$REC"
rc=$?
check_sanitizer rec.err "spool record"
ok "record: exit 0, the program's last line" \
	bash -c "[ $rc = 0 ] && grep -q '^main: 3 lines, hash [0-9a-f]*, 0 signal(s), 0 interrupted$' rec.out" ||
	diag "rc $rc" "$(tail -n 5 rec.err)"
is "$seen" 3 "a snapshot was taken while main waited for each of its 3 lines (the old code: none)"
diag "$(grep '^spool: .*snapshot' rec.err)"

snaps=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+(:[0-9]+)? /{print $1 "=" $2}' \
	<("$SPOOL" info s.trace))
nsnaps=0 here=0 good=0 bad="" elsewhere=""
for s in $snaps; do
	n=${s%%=*} e=${s#*=}
	nsnaps=$((nsnaps + 1))
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$e" s.trace >g.out 2>g.err
	grc=$?
	check_sanitizer g.err "spool replay --goto $e"
	if grep -q "^spool: started from snapshot $n at schedule event $e " g.err; then
		here=$((here + 1))
	else
		elsewhere="$elsewhere $n"
		diag "--goto $e: $(grep -m 2 '^spool: ' g.err)"
	fi
	if [ "$grc" = 0 ] && suffix_ok rec.out g.out; then
		good=$((good + 1))
	else
		bad="$bad $n(rc $grc)"
		diag "--goto $e: rc $grc; $(grep -m 3 '^spool: \(error\|warning\)\|diverged' g.err)"
	fi
done
num_cmp "$nsnaps" -ge 3 "the recording lists its snapshots ($nsnaps)"
is "$here" "$nsnaps" "--goto each snapshot's event starts from it${elsewhere:+ (not:$elsewhere)}"
is "$good" "$nsnaps" "each exits 0 with the recording's tail, byte for byte${bad:+ (not:$bad)}"

RUN_STDIN=/dev/null
cp rec.out s.rec
spool_run replay s.trace
ok "a replay from the start prints the recording's output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out s.rec" || show_run

# --- a signal while main waits (before the snapshot is due: 30 s)
for mode in intr restart; do
	record_bg "$mode" 30s "$mode.trace"
	pid="" in=""
	if wait_ready rec.out && wait_for '^pid ' rec.err 15; then
		pid=$(sed -n 's/^pid \([0-9]*\)$/\1/p' rec.err | head -n 1)
		# (the program this test started, none other)
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = rr_stdinwait ] || pid=""
		# in its read: the wait the holder makes (ppoll) or the read
		for ((i = 0; i < 300; i++)); do
			in=$(cut -d' ' -f1 "/proc/$pid/task/$pid/syscall" 2>/dev/null)
			[ "$in" = 271 ] || [ "$in" = 0 ] && break
			sleep 0.05
		done
		[ -n "$pid" ] && kill -USR1 "$pid"
		# (a line already there when main wakes is read, the signal
		# only marked: as the kernel's read does. So the lines come
		# once main has said EINTR, or is in its read again.)
		if [ $mode = intr ]; then
			wait_for 'interrupted' rec.out 10
		else
			for ((i = 0; i < 200; i++)); do
				[ "$(cut -d' ' -f1 "/proc/$pid/task/$pid/syscall" 2>/dev/null)" = 0 ] && break
				sleep 0.05
			done
		fi
	fi
	feed a
	feed b
	exec 3>&-
	wait "$REC"
	rc=$?
	check_sanitizer rec.err "spool record $mode"
	diag "$mode: the signal came in system call ${in:-?} (271: ppoll, the holder's wait; 0: read)"
	cp rec.out "$mode.rec"
	if [ $mode = intr ]; then
		want='^main: fgets interrupted (EINTR), 1 signal(s) so far$'
		last='^main: 2 lines, hash [0-9a-f]*, 1 signal(s), 1 interrupted$'
	else
		want='^main: 2 lines, hash [0-9a-f]*, 1 signal(s), 0 interrupted$'
		last="$want"
	fi
	spool_run replay "$mode.trace"
	ok "$mode: fgets $([ $mode = intr ] && echo returned EINTR || echo read on), and a replay prints the same" \
		bash -c "[ $rc = 0 ] && grep -q '$want' $mode.rec && grep -q '$last' $mode.rec &&
			[ $RC = 0 ] && cmp -s run.out $mode.rec" ||
		diag "rc $rc, replay $RC" "$(cat "$mode.rec")" "$(tail -n 5 rec.err)"
done

done_testing
