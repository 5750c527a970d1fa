#!/bin/bash
# SPDX-License-Identifier: MIT
# 399-gdb-replay-env.t - a replay under gdb should run the program with the
# recorded environment, as every other replay does (doc/record.md,
# "Environment"): rr_env prints RR_ENV_VAR and its worker takes a mutex once
# per byte of it, so a replay without the recorded value prints another line
# and, in sync mode, diverges. Recorded with the variable set, replayed
# without it (and with another value in spool's environment) under
# `spool replay --gdb` (from another directory: the program runs in the
# recorded one; gdb keeps spool's environment, spool-gdb.py gives the
# program the recorded one) and under gdb's `target remote | spool replay
# --gdbserver -`. Before, --gdb gave the program gdb's environment (with
# gdb's LINES added) and directory: the replay printed spool's value and
# diverged; --gdbserver gave the recorded one already (gdbsrv_inf.c).
. "$(dirname "$0")/lib.sh"

need_gdb

plan 16

PROG="$PROGS/rr_env"
echo hello >rel.txt
export SPOOL_BIN="$SPOOL"
if [ ! -r "$SPOOL_BUILD/spool-gdb.py" ]; then
	export SPOOL_GDB_SCRIPT="$REPO/src/replay/spool-gdb.py"
fi

RR_ENV_VAR=abcdef RR_EMPTY= RR_BLANKS="a b=c  " RR_BREAK="x
print 12345" timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --mode sync \
	-o env.trace -- "$PROG" >rec.out 2>rec.err
like "$(cat rec.out)" "^var abcdef cwd $PWD rel.txt hello count 6\$" \
	"recorded with RR_ENV_VAR set" || diag "$(cat rec.err)"

# --gdb: the program gets the recorded environment and directory, gdb keeps
# spool's (a recording must not choose gdb's HOME or PYTHONHOME): replayed
# from a subdirectory, with another RR_ENV_VAR in spool's environment.
mkdir -p sub
(cd sub && RR_ENV_VAR=zz timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --gdb --gdb-args \
	'-batch -nx -ex run -ex "show environment RR_ENV_VAR" -ex "show environment LINES"
	 -ex "show environment RR_EMPTY" -ex "show environment RR_BLANKS"
	 -ex "show environment RR_BREAK"
	 -ex "python print(\"gdb has \" + os.environ.get(\"RR_ENV_VAR\", \"none\"))"' \
	../env.trace >../gdb.out 2>../gdb.err)
rc=$?
check_sanitizer gdb.err "spool replay --gdb"
is "$rc" 0 "--gdb: the replay ends well (no divergence)" || diag "$(cat gdb.err)"
like "$(cat gdb.out)" "var abcdef cwd $PWD rel.txt hello count 6" \
	"--gdb: the program prints the recorded variable, in the recorded directory" ||
	diag "$(cat gdb.out)"
# (the recording had no LINES: gdb's terminal does not add one)
like "$(cat gdb.out)" "Environment variable \"LINES\" not defined" \
	"--gdb: gdb's inferior has no LINES the recording did not have"
like "$(cat gdb.out)" "RR_EMPTY = \$" "--gdb: an empty recorded value stays empty"
# (gdb drops the blanks that end a command: spool says so; a value with a
# line break would run the rest as a gdb command: it is left out, said)
like "$(cat gdb.out)" "RR_BLANKS = a b=c\$" "--gdb: blanks and = inside a value stay"
like "$(cat gdb.err)" "gets RR_BLANKS without the blanks its recorded value starts or ends with" \
	"--gdb: the blanks that end it are lost, and spool says so"
like "$(cat gdb.out)" "Environment variable \"RR_BREAK\" not defined" \
	"--gdb: a value with a line break is not given to gdb"
like "$(cat gdb.err)" "does not get RR_BREAK: its recorded value holds a line break" \
	"--gdb: and spool says so"
unlike "$(cat gdb.out)" "12345" "--gdb: nor run as a command"
like "$(cat gdb.out)" "gdb has zz" "--gdb: gdb itself keeps spool's environment"
unlike "$(cat gdb.err)" "diverge" "--gdb: no divergence (no descriptor of spool's left open)"

# --gdbserver: the process that becomes the program gets it too.
RR_ENV_VAR=zz timeout -k 10 "$T_TIMEOUT" gdb -q -batch -nx \
	-ex "target remote | env -u LINES -u COLUMNS $SPOOL replay --gdbserver - env.trace" \
	-ex continue "$PROG" >srv.out 2>&1
check_sanitizer srv.out "spool replay --gdbserver"
like "$(cat srv.out)" "var abcdef cwd $PWD rel.txt hello count 6" \
	"--gdbserver: the program prints the recorded variable" || diag "$(cat srv.out)"
unlike "$(cat srv.out)" "diverge" "--gdbserver: no divergence"
# An argument with a blank: gdb, which runs the program without a shell,
# cannot pass it whole (a limit of gdb's), and spool says so; --gdbserver
# passes it whole.
timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q -o echo.trace -- /bin/echo "a b" c >/dev/null 2>&1
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --gdb --gdb-args '-batch -nx -ex run' echo.trace \
	>echo.out 2>echo.err
check_sanitizer echo.err "spool replay --gdb"
like "$(cat echo.err)" "argument 1 \(it holds a blank\) reaches it split or lost" \
	"--gdb: an argument gdb cannot pass whole is said" || diag "$(cat echo.err)"
timeout -k 10 "$T_TIMEOUT" gdb -q -batch -nx \
	-ex "target remote | $SPOOL replay --gdbserver - echo.trace" -ex continue >srv-echo.out 2>&1
check_sanitizer srv-echo.out "spool replay --gdbserver"
like "$(cat srv-echo.out)" "^a b c\$" "--gdbserver: passes it whole" || diag "$(cat srv-echo.out)"
done_testing
