#!/bin/bash
# SPDX-License-Identifier: MIT
# 367-probe-attach-sysv-signal.t - spool probe -p, then the program
# installs its SIGTRAP handler with bsd_signal and a one-shot one with
# __sysv_signal (tests/progs/sig_sysv; zstd's command line installs its
# handlers with the latter). glibc's versions reach its sigaction without
# the PLT: the attach redirected only signal and sigaction, so these
# replaced the agent's SIGTRAP handler; an int3 probe's next hit went to
# the program's handler, or, once the one-shot had run, killed the program
# with SIGTRAP (exit 133). Now the attach redirects them too: the program
# sees its handlers run as natively, the probes keep counting.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/sig_sysv"
plan 6

rm -f GO
touch GO
"$PROG" GO >native.out 2>native.err
NATIVE="$? $(echo $(cat native.out))"
is "$NATIVE" "0 ready bsd 3 sysv 1 sums ok reset ok" "natively: each handler ran as glibc says" ||
	diag "$(cat native.err)"

rm -f GO
"$PROG" GO >prog.out 2>prog.err &
pid=$!
wait_for ready prog.out 15
timeout -k 5 60 "$SPOOL" probe --exits patch -p "$pid" -o a.trace -e 'func:sig_i3' >run.out 2>run.err &
spid=$!
wait_for 'probes placed' run.err 20
touch GO
wait "$pid"
PRC=$?
wait "$spid"
RC=$?
check_sanitizer run.err "spool probe -p"
ERR=$(cat run.err)
like "$ERR" "[0-9]+ probes \\([0-9]+ jump, [1-9][0-9]* int3\\)" "int3 probes placed" || diag "$ERR"
is "$PRC $(echo $(cat prog.out))" "$NATIVE" \
	"output and status as natively: its bsd_signal and __sysv_signal handlers, the probes kept" ||
	diag "$ERR" "$(cat prog.err)"
is "$RC" 0 "spool probe -p exits 0" || diag "$ERR"
spool_run report --functions a.trace
is_rc 0 "spool report reads the trace"
like "$OUT" "sig_i3 +1200 " "  sig_i3's 1200 calls, each hit counted" || diag "$OUT"

done_testing
