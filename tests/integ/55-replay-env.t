#!/bin/bash
# SPDX-License-Identifier: MIT
# 55-replay-env.t - a replay runs the program with the environment and in
# the working directory it was recorded with (src/collect/run_env.c):
# rr_env prints a variable, its directory and a file it opens by a
# relative path, and takes a mutex once per byte of the variable. Recorded
# in one directory with the variable set, replayed from another without
# it, in sync mode; spool's own SPOOL_* variables come from the replay's
# environment, --env sets one for the replay; a recorded directory that is
# gone is said.
. "$(dirname "$0")/lib.sh"

plan 8

PROG="$PROGS/rr_env"
mkdir -p there
echo hello >there/rel.txt

(cd there && RR_ENV_VAR=abcdef timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --mode sync \
	-o ../env.trace -- "$PROG" >../env.rec.out 2>../env.rec.err)
like "$(cat env.rec.out)" "^var abcdef cwd $PWD/there rel.txt hello count 6\$" \
	"recorded in there/ with RR_ENV_VAR set" || diag "$(cat env.rec.err)"
ok "the recording keeps the environment and the directory" \
	test -n "$(tr '\0' '\n' <env.trace/.spool/environ | grep -x RR_ENV_VAR=abcdef)" -a \
	-n "$(grep -x "cwd=$PWD/there" env.trace/.spool/record)"

env -u RR_ENV_VAR timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q env.trace >run.out 2>run.err
rc=$?
check_sanitizer run.err "spool replay"
is "$rc" 0 "replayed from elsewhere without the variable: no divergence" || diag "$(cat run.err)"
ok "... and the recorded output" cmp -s env.rec.out run.out

# --env sets a variable for the replay (same length: the same turns).
spool_run replay -q --env RR_ENV_VAR=abcdeg env.trace
like "$RC $OUT" "^0 var abcdeg cwd $PWD/there " "--env NAME=VALUE sets a variable of the replay"

# A longer value: the worker takes the mutex more often than recorded and
# waits at the end of its log for good, while main joins it: the replay
# says so (it used to hang in the join).
spool_run replay -q --env RR_ENV_VAR=abcdefghij env.trace
like "$RC $ERR" '^3 .*the joined thread went past its recording' \
	"a replay whose joined thread went past its recording diverges, not hangs"

SPOOL_DEBUG=1 timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q env.trace >run.out 2>run.err
like "$(cat run.err)" 'spool-agent: ' "SPOOL_DEBUG comes from the replay's environment"

rm -r there
spool_run replay -q env.trace
like "$ERR" "the recorded working directory $PWD/there is gone" "a recorded directory that is gone is said"

done_testing
