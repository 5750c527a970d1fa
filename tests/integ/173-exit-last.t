#!/bin/bash
# SPDX-License-Identifier: MIT
# 173-exit-last.t - a worker whose last calls come after main's last
# recorded call, while main is in exit (tests/progs/rr_exitlast.c; xz -T2's
# worker takes its mutex once more as main exits): a sync replay holds the
# exit until the worker has replayed them. That wait was cut short while
# the agent's own read of /proc/self/maps at exit closed its descriptor
# through the program's close: the close was recorded as one more turn of
# the descriptor table, main looked unfinished when the wait began, and
# every replay ended with "the program ended before thread 1 replayed its
# 3 recorded events". The exiting thread may have calls of its own after
# the wait (a destructor of a library the program links, which runs after
# the agent's): the wait holds the exit for the worker all the same (it
# used to return at once, the worker was cut short). Also: two replays started together of a recording
# that has no replay image yet both write one; each runs with the image
# it checked (one replaced by the other's stopped the agent: "no longer
# the file spool checked").
. "$(dirname "$0")/lib.sh"

plan 14

P="$PROGS/rr_exitlast"

spool_run record -q --mode sync -o s.trace -- "$P" 100
is_rc 0 "sync record: the program's status"
cp run.out rec.out
like "$OUT" '^main done, pipe of [0-9]+ bytes full$' "the recorded run printed its line"
"$SPOOL" replay --dump-schedule s.trace >dump.txt 2>/dev/null
# op 60: a descriptor call (rr_area.h RR_OP_FDTAB). The program makes one
# (its pipe); the agent's own opens and closes are none of the program's.
is "$(grep -c ' op 60 ' dump.txt)" 1 "the descriptor table has the program's one call (pipe), none of the agent's"
# the worker's mutex before its wait (and the wait, when main was not
# first) and its last one, after the computing
num_cmp "$(grep -c '^sched .* thread 1 event' dump.txt)" -ge 2 "the worker's lock after its computing is recorded"

same=0
for i in 1 2 3 4 5; do
	spool_run replay -q s.trace
	if [ "$RC" = 0 ] && cmp -s run.out rec.out; then
		same=$((same + 1))
	else
		show_run
	fi
done
is "$same" 5 "5 sync replays: the exit waits for the worker's last events (exit 0, same output)"
unlike "$ERR" 'ended before thread' "no thread left short"

# The same program linked with a library whose destructor asks for the
# process id: main's last recorded call comes after the agent's destructor.
CC="${CC:-cc}"
if command -v "$CC" >/dev/null; then
	cat >late.c <<'SRC'
#include <unistd.h>
__attribute__((destructor)) static void exitlate_fini(void)
{
	if (getpid() <= 0)
		_exit(1);
}
SRC
	if "$CC" -shared -fPIC -O1 -o libexitlate.so late.c &&
		"$CC" -O1 -pthread -D_GNU_SOURCE -o exitlast_late "$REPO/tests/progs/rr_exitlast.c" \
			-L. -Wl,--no-as-needed -lexitlate -Wl,-rpath,"$PWD"; then
		spool_run record -q --mode sync -o late.trace -- ./exitlast_late 100
		is_rc 0 "with a library destructor: sync record"
		cp run.out late.rec.out
		"$SPOOL" replay --dump-schedule late.trace >late.dump 2>/dev/null
		# (call 16: getpid, the library's, after main's pthread calls)
		like "$(grep '^input thread 0 ' late.dump | tail -n 1)" ' call 16 ' \
			"main's last recorded call is the library destructor's getpid"
		same=0
		for i in 1 2 3; do
			spool_run replay -q late.trace
			if [ "$RC" = 0 ] && cmp -s run.out late.rec.out; then
				same=$((same + 1))
			else
				show_run
			fi
		done
		is "$same" 3 "3 sync replays hold the exit for the worker though main has a call left"
		unlike "$ERR" 'ended before thread' "no thread left short"
	else
		fail "the program with a library destructor builds"
		skip 3 "not built"
	fi
else
	skip 4 "no C compiler"
fi

# Two replays at once of a fresh recording (no replay image yet).
spool_run record -q --mode sync -o p.trace -- "$P" 20
is_rc 0 "record again"
cp run.out p.rec.out
"$SPOOL" replay -q p.trace <"$RUN_STDIN" >a.out 2>a.err &
apid=$!
"$SPOOL" replay -q p.trace <"$RUN_STDIN" >b.out 2>b.err
brc=$?
wait "$apid"
arc=$?
if [ "$arc" = 0 ] && [ "$brc" = 0 ] && cmp -s a.out p.rec.out && cmp -s b.out p.rec.out; then
	pass "two replays started together both end like the recording"
else
	fail "two replays started together both end like the recording"
	diag "exit $arc: $(cat a.err)" "exit $brc: $(cat b.err)"
fi
unlike "$(cat a.err b.err)" 'no longer the file spool checked' "neither replay's image was replaced under it"
is "$(ls -A p.trace/.spool | grep -c 'replay\.img\..*\.tmp')" 0 "no temporary image left behind"
done_testing
