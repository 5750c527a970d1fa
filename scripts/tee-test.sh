#!/bin/bash
# SPDX-License-Identifier: MIT
# tee-test.sh TEST - runs one TAP test file for prove (prove --exec) and
# keeps a copy of its standard output (the TAP stream) and of its standard
# error (lib.sh's diag writes there) in $SPOOL_TEST_LOGS/<its path with / as
# _>: run-integ.sh shows the failures and diagnostics of a failed file from
# its first run, the one that failed, not only from a rerun that may pass.
# Standard error goes through a process substitution, which nothing waits
# for: a process a test leaves running on purpose (a daemon) may hold it
# open without keeping the test from ending.
set -o pipefail
f="${SPOOL_TEST_LOGS:?}/$(tr / _ <<<"$1")"
: >"$f"
bash "$1" 2> >(tee -a "$f" >&2) | tee -a "$f"
