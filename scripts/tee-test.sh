#!/bin/bash
# SPDX-License-Identifier: MIT
# tee-test.sh TEST - runs one TAP test file for prove (prove --exec) and
# keeps a copy of its standard output, the TAP stream with its diagnostics,
# in $SPOOL_TEST_LOGS/<its path with / as _>: run-integ.sh shows the
# failures and diagnostics of a failed file from its first run, the one
# that failed, not only from a rerun that may pass. Standard error is left
# as it is, a file: through a pipe, a process a test leaves running on
# purpose (a daemon) would hold it open and keep the test from ending.
set -o pipefail
f="${SPOOL_TEST_LOGS:?}/$(tr / _ <<<"$1")"
: >"$f"
bash "$1" | tee -a "$f"
