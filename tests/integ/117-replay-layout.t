#!/bin/bash
# SPDX-License-Identifier: MIT
# 117-replay-layout.t - record and replay run the program with one fixed
# address-space layout (ADDR_NO_RANDOMIZE, the agent's own mappings in a
# window of their own, spool's variables padded on the stack): rr_layout
# prints where its stack, heap, mappings, a thread's stack, libc and itself
# are, and dereferences a heap pointer that came back through a pipe and
# through epoll_event.data (recorded inputs). Each replay prints the
# recorded lines (a replay at other addresses prints others, or crashes on
# the recorded pointer), in both modes, from the replay image too, with a
# SPOOL_* variable the recording did not have; a replay whose stack moves
# says so.
. "$(dirname "$0")/lib.sh"

plan 12

PROG="$PROGS/rr_layout"

for mode in serial sync; do
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --mode $mode -o $mode.trace -- "$PROG" a b \
		>$mode.rec.out 2>$mode.rec.err
	rc=$?
	check_sanitizer $mode.rec.err "spool record"
	like "$rc $(grep -c 'gave 0x[0-9a-f]*: heap token 42' $mode.rec.out)" "^0 2$" \
		"$mode: recorded, the pointer came back through the pipe and epoll" ||
		diag "$(cat $mode.rec.err)"
	# two replays: the first writes the replay image, the second maps it
	replays_same 2 0 $mode.rec.out -q $mode.trace
	is "$SAME" 2 "$mode: 2 replays print the recorded addresses and follow the recorded pointers"
done

ok "the recording notes its layout: randomization off, personality ADDR_NO_RANDOMIZE" \
	grep -qx 'aslr=off' serial.trace/.spool/record
like "$(grep -E '^(personality|layout)=' serial.trace/.spool/record | tr '\n' ' ')" \
	'personality=0x4[0-9a-f]{4} layout=stack:0x[0-9a-f]+,brk:0x[0-9a-f]+,mmap:0x[0-9a-f]+,exe:0x' \
	"... its personality and where its stack, heap, mappings and executable began"

# Both modes ran the program at the same addresses, though the agent maps
# other areas in each (the serial slots, the turn words): they are not
# among the program's mappings. (Serial mode takes snapshots by default and
# so loads libzstd into the program, as its replays do, doc/record.md
# "Snapshots": without them.)
timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --snap-period 0 -o serial0.trace -- "$PROG" a b \
	>serial0.rec.out 2>serial0.rec.err
check_sanitizer serial0.rec.err "spool record --snap-period 0"
is "$(grep -v argv serial0.rec.out)" "$(grep -v argv sync.rec.out)" \
	"serial and sync recordings ran at the same addresses (the agent's mappings are apart)"

# --compress: a replay loads libzstd into the program to unpack its input
# (its heap and mappings grow by what the loader allocates); a --compress
# recording loads it at the same point. Without that, the pointer read
# back pointed into libzstd's file name.
head -c 300000 /dev/zero | tr '\0' 'z' >in.txt
timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --compress -o z.trace -- "$PROG" - <in.txt \
	>z.rec.out 2>z.rec.err
like "$? $(head -n 1 z.rec.out)" "^0 stdin 300000 bytes" "--compress: recorded reading 300000 bytes"
RUN_STDIN=/dev/null replays_same 2 0 z.rec.out -q z.trace
is "$SAME" 2 "--compress: 2 replays (libzstd loaded to unpack) print the recorded addresses"

# spool's own variables are padded: a replay with one the recording did not
# have starts its stack at the recorded place.
SPOOL_DEBUG=1 timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q serial.trace >run.out 2>run.err
is "$? $(cat run.out)" "0 $(cat serial.rec.out)" \
	"a replay with SPOOL_DEBUG set (not recorded) runs at the recorded addresses"

# A variable longer than the padding moves the stack: the replay says so.
long=$(printf 'x%.0s' $(seq 1 400))
spool_run replay -q --env "RR_LONG=$long" serial.trace
like "$ERR" "the replay's address-space layout is not the recording's: its stack .* is at 0x[0-9a-f]+, recorded at 0x" \
	"a replay whose stack moved (a long --env) says so"
is "$(grep -E '^(heap|big|thread|libc)' run.out)" "$(grep -E '^(heap|big|thread|libc)' serial.rec.out)" \
	"... its heap, mappings and libraries are where they were"

done_testing
