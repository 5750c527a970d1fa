#!/bin/bash
# SPDX-License-Identifier: MIT
# 150-mosquitto-pub-snapshots.t - snapshots of Debian's mosquitto_pub -l
# while its threads sit in the kernel (doc/record.md "Snapshots"): the
# main thread reads its lines from stdin (a stdio read, holding the run
# token), the loop thread waits in select. Its lines come slowly here, a
# quarter of a second apart, as from a user. Snapshots used to need every
# other thread parked in the agent, and were looked for only every 256
# switch points of the holder: such a run got none, or one at its end.
# Now a thread out in a blocking call is held by a snapshot, and a
# snapshot due by time is looked for after blocking and input calls: the
# recording (--snap-period 50ms, 8 lines, about 2 s) has several (the loop
# thread in its select, or taking the token back), and, since the holder
# waiting in its stdio read takes one itself (tests/integ/396), one in each
# wait for a line besides the one after it; spool replay --goto each
# one's event exits 0 with the recording's output (mosquitto_pub's own,
# -d: written at its exit, a file is fully buffered), as a replay from the
# start does.
. "$(dirname "$0")/lib.sh"

need_progs mosquitto mosquitto_pub
plan 5

PORT=$(free_port)
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$PORT" >mq.conf
mosquitto -c "$T_DIR/mq.conf" </dev/null >/dev/null 2>broker.err &
BROKER=$!
trap 'kill -TERM "$BROKER" 2>/dev/null; wait "$BROKER" 2>/dev/null; _t_cleanup' EXIT
wait_port "$PORT"

# (the lines come from a pipe, slowly: mosquitto_pub reads each as it comes)
for i in $(seq 1 8); do echo "line $i"; sleep 0.25; done |
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" record --snap-period 50ms -o p.trace -- \
		mosquitto_pub -h 127.0.0.1 -p "$PORT" -t t/x -q 1 -l -d >rec.out 2>rec.err
rc=$?
check_sanitizer rec.err "spool record"
ok "record: exit 0, mosquitto_pub sent the 8 lines" \
	bash -c "[ $rc = 0 ] && [ \$(grep -c 'sending PUBLISH' rec.out) = 8 ]" ||
	diag "$(cat rec.err)"

# (EVENT or EVENT:COUNT: several at one schedule event, told apart by the
# holder's progress count)
snaps=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+(:[0-9]+)? /{print $1 "=" $2}' \
	<("$SPOOL" info p.trace))
nsnaps=0 here=0 good=0 out=0 bad=""
for s in $snaps; do
	n=${s%%=*} e=${s#*=}
	nsnaps=$((nsnaps + 1))
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$e" p.trace >g.out 2>g.err
	grc=$?
	check_sanitizer g.err "spool replay --goto $e"
	grep -q "^spool: started from snapshot $n at schedule event $e " g.err && here=$((here + 1))
	grep -Eq "^spool: starting from snapshot $n .*, 1 in a blocking call[,)]" g.err && out=$((out + 1))
	if [ "$grc" = 0 ] && [ -s g.out ] && tail -c "$(stat -c %s g.out)" rec.out | cmp -s - g.out; then
		good=$((good + 1))
	else
		bad="$bad $n(rc $grc)"
		diag "--goto $e: rc $grc; $(grep -m 3 '^spool: \(error\|warning\)\|diverged' g.err)"
	fi
done
diag "$(grep '^spool: .*snapshot' rec.err)"
# (about one while main waits for each line, in its stdio read, and one
# after it came: 16 to 18 in 6 runs; 9 to 11 when none was taken in that
# wait, 0 to 2 before a thread out in a blocking call could be held. How
# many waits there are depends on how fast it starts: tests/integ/396 pins
# the wait's snapshot.)
num_cmp "$nsnaps" -ge 5 "the recording has several snapshots ($nsnaps; 16 to 18 in 6 runs, 9 to 11 with none in a wait for a line)"
# (where the loop thread is at a take depends on when select returned:
# out in it, or taking the token back; not a check)
diag "$out of them hold a thread in a blocking call"
is "$here" "$nsnaps" "--goto each snapshot's event starts from it"
is "$good" "$nsnaps" "each exits 0 with the recording's output${bad:+ (not:$bad)}"

spool_run replay p.trace
ok "a replay from the start: exit 0, the recording's output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out rec.out" || show_run

done_testing
