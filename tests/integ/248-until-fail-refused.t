#!/bin/bash
# SPDX-License-Identifier: MIT
# 248-until-fail-refused.t - `spool record --until-fail` exits like one
# `spool record` (src/cmd/record.c, record_status): rr_futex makes futex
# calls of its own, which sync mode does not order, so spool replay
# refuses its sync recordings. One sync record exits 5 with the reason;
# --until-fail in sync mode stops at the first run with status 5 and the
# same reason (it used to run all N and exit 0, keeping a recording spool
# replay refuses); --force keeps the program's status (0 after N good
# runs) and still says why; serial mode records those futexes and exits 0.
. "$(dirname "$0")/lib.sh"

plan 10

spool_run record --mode sync -o one.trace -- "$PROGS/rr_futex" 40
is_rc 5 "sync record of rr_futex exits 5 (spool replay will refuse it)"
like "$ERR" "futex calls of its own" "  and says why"

spool_run record --mode sync --until-fail 3 -o uf.trace -- "$PROGS/rr_futex" 40
is_rc 5 "sync --until-fail 3 exits 5 too"
like "$ERR" "futex calls of its own" "  with the reason"
like "$ERR" "run 1: spool replay refuses this recording; no more runs" "  and stops at run 1"
spool_run replay -q uf.trace
ok "  the recording it left is the one spool replay refuses" test "$RC" != 0

spool_run record --mode sync --force --until-fail 2 -o force.trace -- "$PROGS/rr_futex" 40
is_rc 0 "--force --until-fail 2: the program's status after 2 good runs (0)"
like "$ERR" "no failure in 2 runs" "  after running both"
like "$ERR" "futex calls of its own" "  and still says why replay refuses it"

spool_run record --until-fail 2 -o serial.trace -- "$PROGS/rr_futex" 40
is_rc 0 "serial --until-fail 2 (serial mode records the futexes): 0"
done_testing
