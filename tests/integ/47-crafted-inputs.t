#!/bin/bash
# SPDX-License-Identifier: MIT
# 47-crafted-inputs.t - inputs the fuzz harnesses (make fuzz, doc/fuzzing.md)
# found crashing spool, each given to the command a user would have run on
# it. The harness inputs themselves are in fuzz/corpus/*/crash-*; here spool
# itself must read them, exit with a status (not a signal) and, in the
# AddressSanitizer pass, without a sanitizer report (done_testing fails the
# file on one).
. "$(dirname "$0")/lib.sh"

plan 2

spool_run locks -q -o plain.trace -- "$PROGS/trylock" 1 1
is_rc 0 "a small plain trace"

# spool decode --table FILE with an empty FILE: getdelim leaves its buffer
# unterminated at end of file and decode ran strlen over it.
: >empty.table
spool_run decode --table empty.table plain.trace
is_rc 0 "spool decode --table EMPTY_FILE reads a plain trace"

done_testing
