#!/bin/bash
# SPDX-License-Identifier: MIT
# 313-record-clone-threads-no-hang.t - spool record of a program whose
# threads are made with its own clone (tests/progs/clone_locks), run many
# times: it must end every time, with the program's own output.
#
# Such a thread runs on its creator's TLS, where the agent keeps its thread
# state, the run token's view included: two threads under one serial number.
# The one that did not hold the token gave it away or freed it while the
# other slept, and the thread it had just been handed to waited for good
# (pthread_join of it in main: a hang, about 1 serial record in 40, nearly
# every one with --chaos). Now the recording stops before the first such
# clone is made (the program runs on unrecorded) and spool record says so;
# a thread spool did not see being made (its own clone system call with
# syscall user dispatch off) is found when it first takes part in a switch
# of the token, counted, and the recording stops there. Each configuration
# runs RUNS times (12 configurations: at least 36 records), each under a
# timeout: a hang is a failed check, never a test that does not end.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/clone_locks"
RUNS=${SPOOL_313_RUNS:-3}
plan 17

native="$("$PROG" 2 2>/dev/null)"
native=$(echo $native)
is "$native" "counter ok sums ok" "natively: every thread's locking adds up"

# run_cfg NAME WANT_RC ENV... -- RECORD_OPTS... -- PROG_ARGS...: RUNS records;
# each must end, print the program's output and exit WANT_RC.
run_cfg() {
	local name="$1" want="$2" envs=() opts=() args=() i rc out bad=0 hung=0 what=""
	shift 2
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	args=("$@")
	for ((i = 1; i <= RUNS; i++)); do
		rm -rf c.trace
		env "${envs[@]}" timeout -k 5 120 "$SPOOL" record "${opts[@]}" -o c.trace -- \
			"$PROG" "${args[@]}" >c.out 2>c.err
		rc=$?
		check_sanitizer c.err "spool record ${opts[*]}"
		out=$(echo $(cat c.out))
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			hung=$((hung + 1))
			what="run $i hung (killed after 120 s)"
		elif [ "$rc $out" != "$want $native" ]; then
			bad=$((bad + 1))
			what="run $i: exit $rc, output '$out': $(tail -n 5 c.err)"
		fi
	done
	is "$hung $bad" "0 0" "$name: $RUNS of $RUNS records ended, the program's output, exit $want" ||
		diag "$what"
}

ND=SPOOL_NO_DISPATCH=1
run_cfg "serial" 5 X=1 -- -- 2
run_cfg "serial --chaos" 5 X=1 -- --chaos -- 2
run_cfg "serial --chaos --force" 0 X=1 -- --chaos --force -- 2
run_cfg "sync" 5 X=1 -- --mode sync -- 2
run_cfg "serial, dispatch off" 5 $ND -- -- 2
run_cfg "serial --chaos, dispatch off" 5 $ND -- --chaos -- 2
run_cfg "serial, only its own clone system call" 5 X=1 -- -- 2 raw
run_cfg "serial --chaos, only its own clone system call" 5 X=1 -- --chaos -- 2 raw
run_cfg "serial, only its own clone system call, dispatch off" 5 $ND -- -- 2 raw
run_cfg "serial --chaos, only its own clone system call, dispatch off" 5 $ND -- --chaos -- 2 raw
run_cfg "sync --force, only its own clone system call, dispatch off" 0 $ND -- --mode sync --force -- 2 raw
run_cfg "serial --chaos --force, only its own clone system call" 0 X=1 -- --chaos --force -- 2 raw

# What spool says: the recording stopped at the first clone (seen made)
timeout -k 5 120 "$SPOOL" record --chaos -o s.trace -- "$PROG" 2 >s.out 2>s.err
like "$(cat s.err)" "does not number the threads the program made with its own clone \\(6\\): the recording stopped where the first one was made and the program ran on unrecorded, so spool replay refuses this recording" \
	"spool record says the recording stopped at the first clone, with the count"
spool_run replay s.trace
like "$RC $ERR" "^1 .*which spool record does not number: the recording stopped where the first one was made; cannot replay it" \
	"  spool replay refuses it, saying why"

# ... and at a thread it did not see being made (dispatch off, own clone
# system calls only): found running on its creator's state, counted
SPOOL_NO_DISPATCH=1 timeout -k 5 120 "$SPOOL" record --chaos -o u.trace -- "$PROG" 2 raw >u.out 2>u.err
like "$(cat u.err)" "does not number the threads the program made with its own clone \\(([1-9][0-9]*), of which \\1 not seen being made: found running on its creator's thread state" \
	"dispatch off: spool record counts the thread it did not see made, and says so" ||
	diag "$(cat u.err)"
n=$(sed -n 's/^clone_threads=//p' u.trace/.spool/record 2>/dev/null)
num_cmp "${n:-0}" -gt 0 "  the recording keeps the count ($n), so spool replay refuses it"

done_testing
