#!/bin/bash
# SPDX-License-Identifier: MIT
# 115-node-record-replay.t - Debian's node (V8, libuv) recorded and replayed
# while libuv's thread pool runs crypto.pbkdf2, zlib.deflate and
# fs.readFile (tests/real/data/node-pool.js; 11 threads: V8's platform
# workers, the inspector's thread, libuv's 4 pool threads).
#   - serial: 5 replays of one recording, each identical to it;
#   - sync: each of 5 replays identical or stopped at a reported divergence
#     (libuv wakes its loop through an atomic flag and an eventfd write;
#     every sync replay stopped there until sync mode ordered wake-ups
#     through a descriptor; now about 2 recordings of 3 replay identically,
#     tests/real/118; the advice said "only one thread had been created"
#     in 1 of 5: fixed);
#   - snapshots (--snap-period): spool info lists them; --goto EVENT starts
#     from the last one and gives the recording's output from there, exit 0
#     (node's snapshots are taken while a thread takes the token back after
#     a blocking call: they were skipped, and the replay started from the
#     beginning; restored, node aborted in libuv's epoll_ctl on the
#     /dev/null that stood in for its epoll descriptor: a restore now makes
#     an epoll instance with its interest list, eventfds, pipes, sockets);
#   - never a hang: a replay of such a recording went another way (thread 0
#     reached its recorded switch in libuv's uv_once before it created the
#     pool's threads) and handed the run token to a thread it had not
#     created: every thread waited for good, with no report, and SIGTERM
#     did not end it. Now "replay stuck: thread 7 should run next but has
#     not been created", exit 3. Why the replay goes another way is not
#     found (seen in 2 of 14 recordings with --snap-period 20, 0 of 25
#     without): a TODO.
. "$(dirname "$0")/lib.sh"
need_progs node

plan 12

JS="$REPO/tests/real/data/node-pool.js"
node "$JS" >native.out
is "$?:$(wc -l <native.out)" "0:10" "node alone: exit 0, 10 result lines"

rr_corpus node-pool serial --replays 5 -- node "$JS"
rr_corpus node-pool sync --replays 5 \
	--may-diverge "V8 locks behind a lock-free fast path in some recordings (tests/real/118)" \
	-- node "$JS"
# The advice names the threads the replay had: the one that diverged (thread
# 1) had been created ("only one thread had been created" was said of it,
# in 1 replay of 5: its creator's turn was not done yet).
ok "sync: no report says only one thread had been created" \
	bash -c "! grep -l 'only one thread had been created' '$T_DIR'/corpus/node-pool.sync/rep*.err"

# --- snapshots ---
spool_run record -q --snap-period 20 -o snap.trace -- node "$JS"
cp run.out snap-rec.out
ok "record --snap-period 20: exit 0 with node's own output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out native.out" || show_run
"$SPOOL" info snap.trace >info.out 2>&1
nsnap=$(sed -n 's/^snapshots: \([0-9]*\) in .*/\1/p' info.out)
last=$(awk '/^snapshots:/ { s = 1; next } s && $1 ~ /^[0-9]+$/ { e = $2 } END { print e }' info.out)
diag "snapshots: ${nsnap:-none}, the last at schedule event ${last:-?}"
ok "spool info lists the snapshots with their events" test "${nsnap:-0}" -gt 0 -a -n "$last"

# Each replay ends, identical or with spool's report: never a hang, never
# another output without a word.
ended=0 same=0
for i in 1 2 3; do
	spool_run replay -q -o rep.trace snap.trace
	if [ "$RC" = 0 ] && cmp -s run.out snap-rec.out; then
		same=$((same + 1)) ended=$((ended + 1))
	elif [ "$RC" = 3 ] && grep -q '^spool: error: replay' run.err; then
		ended=$((ended + 1))
		diag "replay $i: $(grep -m 1 '^spool: error: ' run.err)"
	else
		show_run
	fi
done
is "$ended" 3 "3 replays of the recording with snapshots: each identical or stopped with a report"
todo_ok "a replay of a node recording made with snapshots may go another way (cause not found)" \
	"3 replays of the recording with snapshots identical" test "$same" = 3

goto=${last:-0}
spool_run replay --goto "$goto" -o goto.trace snap.trace
diag "$(grep '^spool: ' run.err | head -n 4)"
tail -c "$(wc -c <run.out)" snap-rec.out >want.out
like "$ERR" "started from snapshot $nsnap at schedule event $goto" \
	"replay --goto $goto: restored from the last snapshot"
# (what it prints is the end of the recording's output: none when the
# recording wrote it all before the snapshot)
ok "  exit 0 with the end of the recording's output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out want.out" || show_run

done_testing
