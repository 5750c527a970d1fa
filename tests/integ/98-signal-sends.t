#!/bin/bash
# SPDX-License-Identifier: MIT
# 98-signal-sends.t - the signals a program sends itself (kill, raise,
# pthread_kill, sigqueue, tgkill) are recorded calls: a replay returns their
# recorded results and sends nothing, since what they did comes from the
# recording (handlers, ended waits). In sync mode a receipt (a handler's
# delivery, a sigwait's return) waits in the replay until the signal has
# been sent as often as when it was recorded: rr_sigsend's signal thread
# prints a value main sets, without a lock, just before its pthread_kill.
# tgkill to a recorded thread id reaches that thread of the replay.
# rr_sigsend does what lbzip2 and pbzip2 do; both of those (Debian) record and replay byte for byte in sync and
# serial mode. Before, lbzip2's replays died of a leftover SIGUSR2 (exit
# 140) and pbzip2's sync replay saw pthread_kill fail.
. "$(dirname "$0")/lib.sh"

plan 20

P="$PROGS/rr_sigsend"
for mode in sync serial; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$P"
	is_rc 0 "$mode: record rr_sigsend"
	cp run.out "$mode.rec.out"
	like "$OUT" 'pthread_kill returned 0' "$mode: the recorded pthread_kill succeeded"
	like "$OUT" 'usr1 1 usr2 1' "$mode: both handlers ran once"
	like "$OUT" 'got SIGQUIT, secret 42' "$mode: the signal thread saw what main set before the send"
	replays_same 3 0 "$mode.rec.out" -q "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 exit 0 with the recorded output"
done
"$SPOOL" replay --dump-schedule sync.trace >sched.txt 2>/dev/null
num_cmp "$(grep -c '^input .* call 26 ' sched.txt)" -ge 3 \
	"the sends are in the recording (kill, pthread_kill, raise)"
like "$(cat sync.trace/.spool/record)" 'kills=1' "the record side file says so"

# A signal a replay sends for real (a fault's: its handler runs at once)
# to a thread named by the id its gettid returned, which is the recorded
# one in a replay: it must reach that thread of this run.
for mode in sync serial; do
	spool_run record -q --mode "$mode" -o "tg.$mode" -- "$PROGS/rr_tgkill"
	cp run.out "tg.$mode.out"
	like "$OUT" 'the handler ran in the worker' "$mode: rr_tgkill's worker got its SIGSEGV"
	replays_same 2 0 "tg.$mode.out" -q --stuck-ms 3000 "tg.$mode"
	is "$SAME" 2 "$mode: replays send it to the worker of the replay (recorded thread id)"
done

head -c 2000000 /dev/urandom | base64 >data
for prog in "pbzip2 -p2 -c" "lbzip2 -n 2 -c"; do
	name=${prog%% *}
	if ! command -v "$name" >/dev/null; then
		skip 2 "$name not installed (scripts/deps.sh installs it)"
		continue
	fi
	ok_modes=0
	for mode in sync serial; do
		RUN_STDIN=data spool_run record -q --mode "$mode" -o "$name.$mode" -- $prog
		cp run.out "$name.$mode.out"
		[ "$RC" = 0 ] || show_run
		RUN_STDIN=/dev/null replays_same 1 0 "$name.$mode.out" -q "$name.$mode"
		[ "$SAME" = 1 ] && ok_modes=$((ok_modes + 1))
	done
	is "$ok_modes" 2 "$name: sync and serial replays write the recorded output"
	ok "$name: which decompresses to the input" bash -c "bzip2 -dc $name.sync.out | cmp -s - data"
done
done_testing
