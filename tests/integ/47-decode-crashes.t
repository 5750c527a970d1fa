#!/bin/bash
# SPDX-License-Identifier: MIT
# 47-decode-crashes.t - spool decode crashed (or, in the AddressSanitizer
# pass, reported memory errors) on an empty --table file and when writing
# --trace-out of an event with more than 6 values. Both were found by the
# fuzz harness fuzz_decode (make fuzz, doc/fuzzing.md), whose inputs are in
# fuzz/corpus/decode/crash-*; here they are what a user would run. A
# sanitizer report fails the file (done_testing).
. "$(dirname "$0")/lib.sh"

plan 6

spool_run locks -q -o plain.trace -- "$PROGS/trylock" 1 1
is_rc 0 "a small plain trace"

# spool decode --table FILE with an empty FILE: getdelim leaves its buffer
# unterminated at end of file and decode ran strlen over it.
: >empty.table
spool_run decode --table empty.table plain.trace
is_rc 0 "spool decode --table EMPTY_FILE reads a plain trace"

# spool decode --trace-out of a plain event with more than 6 values (a
# program may call spool_trace_emit itself with up to 1024): the decoded
# record was built in a stack buffer for 6 and the values overran it.
cat >wide.c <<'C'
#include <spool/trace.h>
int main(void)
{
	int64_t v[300];

	for (int i = 0; i < 300; i++)
		v[i] = 3 * i + 1;
	if (spool_trace_emit)
		spool_trace_emit(7, 300, v);
	SPOOL_TRACE(8, 1, 2);
	return 0;
}
C
ok "a program that emits a 300-value event builds" gcc -O1 -I"$REPO/include" -o wide wide.c
spool_run locks -q -o wide.trace -- ./wide
is_rc 0 "  it runs under spool"
spool_run decode wide.trace
cut -d' ' -f3- run.out >want.events
spool_run decode --trace-out wide2.trace wide.trace
is_rc 0 "spool decode --trace-out copies an event of 300 values"
spool_run decode wide2.trace
cut -d' ' -f3- run.out >got.events
if [ "$(wc -w <want.events)" -ge 300 ] && cmp -s want.events got.events; then
	pass "  the written trace decodes to the same events, all 300 values"
else
	fail "  the written trace decodes to the same events, all 300 values"
	diag "want: $(head -c 300 want.events)" "got: $(head -c 300 got.events)"
fi

done_testing
