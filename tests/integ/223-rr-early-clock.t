#!/bin/bash
# SPDX-License-Identifier: MIT
# 223-rr-early-clock.t - a clock read in a library's constructor, which
# runs before the preloaded agent's (jemalloc's first malloc in
# redis-server reads CLOCK_MONOTONIC_COARSE there: tests/real/106): the
# recording keeps the reading (early_clock= in .spool/record) and a serial
# and a sync replay give it back, so the program prints the recorded
# reading and the recorded time between it and main's own read. Without
# it a replay printed its own, later, clock. A damaged early_clock= line
# (hostile input) gives the real clock back, without a crash.
. "$(dirname "$0")/lib.sh"

need_cc
plan 8

cat >early.c <<'SRC'
#include <time.h>
long long early_clock_ns = -1;
__attribute__((constructor)) static void early_init(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0)
		early_clock_ns = ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
SRC
cat >main.c <<'SRC'
#include <stdio.h>
#include <time.h>
extern long long early_clock_ns;
int main(void)
{
	struct timespec ts;
	long long now;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	printf("early %lld\nlater by %lld ns\n", early_clock_ns, now - early_clock_ns);
	return 0;
}
SRC
early_prog_build

clock_kept() {
	like "$(grep '^early_clock=' "$1.trace/.spool/record")" '^early_clock=6:[0-9]+$' \
		"$1: .spool/record keeps the constructor's CLOCK_MONOTONIC_COARSE read"
}
# (a pause: a replay's own clock is later than the recorded one)
REPLAYS_PAUSE=0.05
for mode in serial sync; do
	early_rr "$mode" "the recorded reading and interval" clock_kept
done
REPLAYS_PAUSE=

# hostile input: a damaged reading in .spool/record
sed -i 's/^early_clock=.*/early_clock=6:99999999999999999999999999,x:-/' serial.trace/.spool/record
spool_run replay -q serial.trace
unlike "$ERR" 'AddressSanitizer|runtime error|Segmentation' "a damaged early_clock= line: no crash"
# (the program runs with the real clock, prints another reading than the
# recorded one, and the replay stops at that write: 372)
like "$ERR" "the write's bytes differ from the recorded ones" \
	"a damaged early_clock= line: the program ran (with the real clock) and its other output stopped the replay"
done_testing
