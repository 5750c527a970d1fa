#!/bin/bash
# SPDX-License-Identifier: MIT
# tee-test.sh TEST - runs one TAP test file for prove (prove --exec) and
# keeps a copy of all it printed, its standard output and its standard error,
# in $SPOOL_TEST_LOGS/<its path with / as _>: run-integ.sh shows the
# failures and diagnostics of a failed file from its first run, the one
# that failed, not only from a rerun that may pass. Standard error stays
# apart from the TAP stream, as it is without this wrapper.
set -o pipefail
f="${SPOOL_TEST_LOGS:?}/$(tr / _ <<<"$1")"
: >"$f"
bash "$1" 2> >(tee -a "$f" >&2) | tee -a "$f"
