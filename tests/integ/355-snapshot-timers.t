#!/bin/bash
# SPDX-License-Identifier: MIT
# 355-snapshot-timers.t - a snapshot holds the program's POSIX timers, and a
# replay from it (--goto) makes them again with their recorded ids, target
# thread and setting (doc/record.md, "Replay from a snapshot";
# src/agent/agent_snap_timer.c). Before, a replay from a snapshot had no
# timer: the program's timer_gettime, timer_settime and timer_delete on the
# ids it held failed (EINVAL) where the recording's had not, and the replay
# diverged (Debian's ruby deletes its timer at exit: tests/real/142).
# rr_snaptimer: timers A (signal), B (deleted: a gap in the ids), C
# (SIGEV_NONE, armed), D (signals worker 1 alone, armed), then 3 threads on
# a mutex (snapshots among them), then A, C and D used and deleted. With
# "gone", D signals a thread that ended before the snapshot: made to signal
# the process, and spool warns.
. "$(dirname "$0")/lib.sh"

plan 11

P="$PROGS/rr_snaptimer"

spool_run record -q --snap-period 100 -o g.trace -- "$P" 3 200
is_rc 0 "record --snap-period 100: exit 0"
cp run.out rec.out
is "$(grep -c 'armed again and deleted' rec.out)" 3 "the recording: each timer is used and deleted" ||
	diag "$(cat rec.out)"
"$SPOOL" info g.trace >info.txt 2>&1
EVS=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' info.txt)
num_cmp "$(echo "$EVS" | grep -c .)" -ge 2 "it has snapshots (at events $(echo $EVS))"

good=0 tried=0 bad=""
for e in $(echo "$EVS" | head -n 1) $(echo "$EVS" | tail -n 1); do
	SPOOL_DEBUG=1 spool_run replay -q -o "r$e.trace" --goto "$e" g.trace
	cp run.err "r$e.err"
	tried=$((tried + 1))
	if [ "$RC" = 0 ] && suffix_ok rec.out run.out; then
		good=$((good + 1))
	else
		bad="$bad $e(rc $RC)"
		diag "--goto $e: $(grep -v spool-agent run.err | head -4; cat run.out)"
	fi
done
is "$good" "$tried" "replays from the first and the last snapshot: exit 0, each timer used and deleted as recorded${bad:+ (not:$bad)}"
last=$(echo "$EVS" | tail -n 1)
like "$(grep -c 'spool-agent: restore: timer [023] made' "r$last.err")" '^3$' \
	"the restore makes the three timers with their ids, 0, 2 and 3 (1 was deleted)"
like "$(grep 'restore: timer 3 made' "r$last.err")" 'notify 4, signal 12, armed\)$' \
	"timer D signals a thread of the replay (SIGEV_THREAD_ID: worker 1's new tid) and is armed"
unlike "$(cat "r$last.err")" 'could not be made again|not in the snapshot' "no timer off its recorded id, thread or clock"

# the way a kernel before Linux 6.16 is asked (no PR_TIMER_CREATE_RESTORE_IDS):
# the ids in order, fillers for the gaps
SPOOL_SNAP_TIMER_ORDER=1 SPOOL_DEBUG=1 spool_run replay -q -o ord.trace --goto "$last" g.trace
same=no
suffix_ok rec.out run.out && same=yes
ok "ids in order (SPOOL_SNAP_TIMER_ORDER=1): exit 0, the recording's output, the three timers made" \
	bash -c "[ $RC = 0 ] && [ $same = yes ] && [ \$(grep -c 'restore: timer [023] made' run.err) = 3 ]" ||
	show_run
spool_run replay -o full.trace --goto "$last" g.trace
like "$ERR" "started from snapshot [0-9]+ at schedule event [0-9:]+ \(restored in [0-9.]+ ms, 3 POSIX timers\)" \
	"spool says how many timers it put back"

# a timer whose thread is not in the snapshot: made all the same, said
spool_run record -q --snap-period 100 -o gone.trace -- "$P" 3 200 gone
cp run.out gone.out
last=$("$SPOOL" info gone.trace 2>/dev/null | awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' | tail -n 1)
SPOOL_DEBUG=1 spool_run replay -o gone.rep --goto "${last:-1}" gone.trace
same=no
suffix_ok gone.out run.out && same=yes
ok "D's thread ended before the snapshot: the replay from it still ends as recorded" \
	eval '[ "$RC" = 0 ] && [ $same = yes ] && grep -q "restore: timer 3 made .*its thread not in the snapshot" run.err' ||
	show_run
like "$ERR" "warning: snapshot [0-9]+: 1 of its POSIX timers could not be made again with their recorded id, target thread or clock" \
	"  and spool says it could not match that timer's thread"
done_testing
