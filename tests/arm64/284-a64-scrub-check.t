#!/bin/bash
# SPDX-License-Identifier: MIT
# 284-a64-scrub-check.t - the stack scrub's check mode on aarch64, under
# qemu-user (tests/integ/374 on x86-64; doc/record.md "The program's
# stack"): with SPOOL_SCRUB_CHECK=1 each entry stub of the agent
# (src/arch/aarch64/agent_stub.h) fills the stack below it with a pattern
# before the call, measures how deep the call wrote, and at the process's
# exit the agent names every stub whose call went deeper than it zeroes.
# The record/replay programs of the hot paths (rr_stackwords: a read, a
# clock, getrandom, a contended mutex; bench_locks: 4 threads on a shared
# mutex and their own; a timed loop of locks and clocks) are recorded and
# replayed in both modes with the check on: none may be named, and the
# replay prints the recording's stack words. Before, aarch64's stubs had no
# check mode (SPOOL_SCRUB_CHECK did nothing: the last tests, which want
# measured depths, failed).
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
