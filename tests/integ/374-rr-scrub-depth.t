#!/bin/bash
# SPDX-License-Identifier: MIT
# 374-rr-scrub-depth.t - each entry stub zeroes at least as deep as the
# agent's call under it went (doc/record.md, "The program's stack"). The
# stubs zero a fixed span below the program's frame after each recorded or
# replayed call (4 KiB under locks, clocks and waits, 16 KiB or 64 KiB
# under the others); a frame made deeper on a hot path would leave
# words the zeroing misses, other in a recording than in its replay, and a
# conservative GC (Ruby's) would diverge. SPOOL_SCRUB_CHECK=1 makes each stub
# fill the stack below it with a pattern before the call and measure how
# deep the call wrote; at its exit the process names every stub whose call
# went deeper than it zeroes ("scrub check: NAME went D bytes deep"). Here
# the record/replay programs of the hot paths (rr_stackwords: a read, a
# clock, getrandom, a contended mutex; bench_locks: 4 threads on a shared
# mutex and their own; a timed loop of locks and clocks) are recorded and
# replayed in both modes with the check on: none may be named. The locks'
# and clocks' measured depths stay under 1 KiB (what a 1 KiB span would
# need: with that span, before agent_rr_rep_input's 1 KiB of wake numbers
# moved out of its frame, a replay named clock_gettime, 1512 bytes deep).
. "$(dirname "$0")/lib.sh"

plan 15

export SPOOL_SCRUB_CHECK=1
SW="$PROGS/rr_stackwords"
BL="$PROGS/bench_locks"

# run_checked NAME SPOOL-ARGS...: no stub named in what it printed
run_checked() {
	local name=$1
	shift
	spool_run "$@"
	cp run.err "$name.err"
	if [ "$RC" != 0 ] || grep -q 'scrub check: .* went' run.err; then
		diag "$name: exit $RC" "$(grep -v '^spool: recorded' run.err | tail -n 20)"
		return 1
	fi
	return 0
}

for mode in serial sync; do
	run_checked "$mode.sw.rec" record -q --mode "$mode" -o "$mode.sw" -- "$SW"
	ok "$mode: rr_stackwords recorded, no stub's call deeper than it zeroes" test $? = 0
	cp run.out "$mode.sw.out"
	run_checked "$mode.sw.rep" replay -q "$mode.sw"
	ok "$mode: its replay, the same" test $? = 0
	is "$(cat run.out)" "$(cat "$mode.sw.out")" \
		"$mode: check mode too leaves the same stack words in the recording and the replay"
	run_checked "$mode.bl.rec" record -q --mode "$mode" -o "$mode.bl" -- "$BL" 4 300
	ok "$mode: 4 threads' locks recorded, none deeper" test $? = 0
	run_checked "$mode.bl.rep" replay -q "$mode.bl"
	ok "$mode: their replay, none deeper" test $? = 0
	run_checked "$mode.ut.rec" record -q --mode "$mode" -o "$mode.ut" -- "$BL" uncontended-timed 300
	r=$?
	run_checked "$mode.ut.rep" replay -q "$mode.ut"
	ok "$mode: a timed lock loop (clock_gettime) recorded and replayed, none deeper" \
		test "$r$?" = 00
done

# The check measures: every depth it names is above 0 and within its span.
export SPOOL_SCRUB_CHECK=all
spool_run record -q -o all.trace -- "$BL" uncontended-timed 300
spool_run replay -q all.trace
d_lock=$(sed -n 's/.*scrub check: pthread_mutex_lock \([0-9]*\) of [0-9]*$/\1/p' run.err | head -n 1)
d_clock=$(sed -n 's/.*scrub check: clock_gettime \([0-9]*\) of [0-9]*$/\1/p' run.err | head -n 1)
ok "check mode measured the replayed lock's depth, above 0 and under 1 KiB ($d_lock)" \
	test "${d_lock:-0}" -gt 0 -a "${d_lock:-0}" -lt 1024
ok "and the replayed clock_gettime's ($d_clock)" \
	test "${d_clock:-0}" -gt 0 -a "${d_clock:-0}" -lt 1024
unset SPOOL_SCRUB_CHECK
spool_run record -q -o plain.trace -- "$BL" uncontended-timed 300
unlike "$ERR" 'scrub check' "without SPOOL_SCRUB_CHECK nothing is measured or said"
done_testing
