#!/bin/bash
# SPDX-License-Identifier: MIT
# 66-record-block.t - serial record/replay of calls that wait without being
# a lock or a read: a sched_yield spin on a flag set by another thread,
# sleeps, pthread_once from several threads whose initializer sleeps, a
# pipe between two threads carrying more than it holds (rr_block); timed
# waits that must time out in serial mode (rr_timed); send, sendto and
# sendmsg on a socketpair fuller than its buffer (rr_socksend). Each records
# without the watchdog firing and replays with the recorded output and the
# recorded switches, without and with chaos; rr_block also in sync mode,
# where pthread_once is ordered like a lock.
. "$(dirname "$0")/lib.sh"

plan 32

REPLAYS=5

# record_replay NAME ARGS...: record (serial unless RECORD_OPTS says),
# then replay REPLAYS times and compare the outputs and switches.
record_replay() {
	local name="$1"
	shift
	# shellcheck disable=SC2086 # RECORD_OPTS is a word list
	spool_run record --stuck-ms 3000 ${RECORD_OPTS:-} -o "$name.trace" -- "$@"
	if [ "$RC" = 0 ] && ! grep -q 'stuck' run.err; then
		pass "$name: records (exit 0), the watchdog never fires"
	else
		fail "$name: records (exit 0), the watchdog never fires"
		show_run
	fi
	cp run.out "$name.rec.out"
	local same=0 i
	for i in $(seq "$REPLAYS"); do
		spool_run replay --trace-schedule -q --stuck-ms 3000 -o "$name.rep.trace" "$name.trace"
		if [ "$RC" = 0 ] && [ -s run.out ] && cmp -s run.out "$name.rec.out"; then
			same=$((same + 1))
		else
			show_run
			diag "replay printed: $(head -c 300 run.out)"
		fi
	done
	is "$same" "$REPLAYS" "$name: $REPLAYS replays print the recorded output"
	"$SPOOL" replay --dump-schedule "$name.trace" >"$name.rec.sched" 2>/dev/null
	"$SPOOL" replay --dump-schedule "$name.rep.trace" >"$name.rep.sched" 2>/dev/null
	if cmp -s <(grep -v '^input' "$name.rec.sched") <(grep -v '^input' "$name.rep.sched"); then
		pass "$name: the replay's schedule is the recording's"
	else
		fail "$name: the replay's schedule is the recording's"
		diag "$(diff "$name.rec.sched" "$name.rep.sched" | head -n 10)"
	fi
}

BLOCK="$PROGS/rr_block"
TIMED="$PROGS/rr_timed"

# --- serial: yields, sleeps, once, a pipe ----------------------------------
record_replay block "$BLOCK" spins
like "$(cat block.rec.out)" '^flag seen after [0-9]+ yields$' "block: the sched_yield spin saw the flag"
like "$(cat block.rec.out)" '^once ran 1 time\(s\), by worker [0-3]; lock order [0-3]{4}$' \
	"block: pthread_once ran its initializer once for 4 threads"
like "$(cat block.rec.out)" '^pipe 262144 bytes, sum ' "block: 256 KiB went through a 64 KiB pipe"
num_cmp "$(grep -c '^switch' block.rec.sched)" -gt 0 "block: the recording switched threads"
num_cmp "$(grep -c 'call 18 ' block.rec.sched)" -ge 2 "block: the sleeps are inputs of the recording"

RECORD_OPTS=--chaos record_replay blockc "$BLOCK" spins

# --- sync: pthread_once is a synchronization object ------------------------
RECORD_OPTS="--mode sync" record_replay blocks "$BLOCK"
is "$(grep -c ' op 33 ' blocks.rec.sched)" 4 "blocks: each pthread_once call took a turn"

# --- serial: timed waits time out on the recorded clock --------------------
record_replay timed "$TIMED"
is "$(grep -c 'ETIMEDOUT' timed.rec.out)" 5 \
	"timed: a cond, mutex, rwlock and semaphore wait nobody satisfies time out"
like "$(cat timed.rec.out)" '^signalled cond_timedwait: ok, flag 1$' \
	"timed: a signalled timed wait returns 0 before its deadline"
RECORD_OPTS=--chaos record_replay timedc "$TIMED"

# --- serial: send, sendto, sendmsg on a full socketpair --------------------
# The sender blocks in the kernel with 64 KiB chunks in a socket buffer the
# reader drains 1000 bytes at a time: it must give the run token up there.
SOCK="$PROGS/rr_socksend"
record_replay sock "$SOCK" 2048
like "$(cat sock.rec.out)" '^received 2097152 of 2097152 bytes, sum [0-9a-f]{16}$' \
	"sock: 2 MiB went through the socketpair"
is "$(cat sock.rec.out)" "$("$SOCK" 2048)" "sock: the same bytes as without spool"
num_cmp "$(grep -c 'call 2[01] ' sock.rec.sched)" -ge 32 \
	"sock: the sends are recorded (as write and writev)"
RECORD_OPTS=--chaos record_replay sockc "$SOCK" 1024

done_testing
