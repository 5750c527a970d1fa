#!/bin/bash
# SPDX-License-Identifier: MIT
# tee-test.sh TEST - runs one TAP test file for prove (prove --exec) and
# keeps a copy of its standard output (the TAP stream) and of its standard
# error (lib.sh's diag writes there) in $SPOOL_TEST_LOGS/<its path with / as
# _>: run-integ.sh shows the failures and diagnostics of a failed file from
# its first run, the one that failed, not only from a rerun that may pass.
#
# Standard error goes to a file, passed on to prove once the test has
# ended, never through a pipe: a process a test leaves running on purpose
# (a daemon, a watchdog's sleep) inherits the test's standard error, and a
# pipe it holds open would keep prove waiting for it (tests/integ/115 took
# 60 s instead of 1 that way: its watchdog's `sleep 60` held it).
f="${SPOOL_TEST_LOGS:?}/$(tr / _ <<<"$1")"
: >"$f"
bash "$1" 2>"$f.err" | tee -a "$f"
rc=${PIPESTATUS[0]}
cat "$f.err" >&2
cat "$f.err" >>"$f"
rm -f "$f.err"
exit "$rc"
