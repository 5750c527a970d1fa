#!/bin/bash
# SPDX-License-Identifier: MIT
# 399-gdb-replay-env.t - a replay under gdb runs the program with the
# recorded environment, as every other replay does (doc/record.md,
# "Environment"): rr_env prints RR_ENV_VAR and its worker takes a mutex once
# per byte of it, so a replay without the recorded value prints another line
# and, in sync mode, diverges. Recorded with the variable set, replayed
# without it (and with another value in spool's environment) under
# `spool replay --gdb` and under gdb's `target remote | spool replay
# --gdbserver -`. Before, --gdb gave the program gdb's environment (with
# gdb's LINES added): the replay printed spool's value and diverged;
# --gdbserver gave the recorded one already (gdbsrv_inf.c), and still does
# now that the wrapper's own replay loads it too.
. "$(dirname "$0")/lib.sh"

need_gdb

plan 6

PROG="$PROGS/rr_env"
echo hello >rel.txt
export SPOOL_BIN="$SPOOL"
if [ ! -r "$SPOOL_BUILD/spool-gdb.py" ]; then
	export SPOOL_GDB_SCRIPT="$REPO/src/replay/spool-gdb.py"
fi

RR_ENV_VAR=abcdef timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --mode sync \
	-o env.trace -- "$PROG" >rec.out 2>rec.err
like "$(cat rec.out)" "^var abcdef cwd $PWD rel.txt hello count 6\$" \
	"recorded with RR_ENV_VAR set" || diag "$(cat rec.err)"

# --gdb: gdb itself runs with the recorded environment and hands it on.
RR_ENV_VAR=zz timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --gdb --gdb-args \
	'-batch -nx -ex run -ex "show environment RR_ENV_VAR" -ex "show environment LINES"' \
	env.trace >gdb.out 2>gdb.err
rc=$?
check_sanitizer gdb.err "spool replay --gdb"
is "$rc" 0 "--gdb: the replay ends well (no divergence)" || diag "$(cat gdb.out gdb.err)"
like "$(cat gdb.out)" "^var abcdef cwd $PWD rel.txt hello count 6\$" \
	"--gdb: the program prints the recorded variable, not spool's"
# (the recording had no LINES: gdb's terminal does not add one)
like "$(cat gdb.out)" "Environment variable \"LINES\" not defined" \
	"--gdb: gdb's inferior has no LINES the recording did not have"

# --gdbserver: the process that becomes the program gets it too.
RR_ENV_VAR=zz timeout -k 10 "$T_TIMEOUT" gdb -q -batch -nx \
	-ex "target remote | env -u LINES -u COLUMNS $SPOOL replay --gdbserver - env.trace" \
	-ex continue "$PROG" >srv.out 2>&1
check_sanitizer srv.out "spool replay --gdbserver"
like "$(cat srv.out)" "var abcdef cwd $PWD rel.txt hello count 6" \
	"--gdbserver: the program prints the recorded variable" || diag "$(cat srv.out)"
unlike "$(cat srv.out)" "diverge" "--gdbserver: no divergence"
done_testing
