#!/bin/bash
# SPDX-License-Identifier: MIT
# 70-perl-threads-replay.t - Debian's perl with ithreads: 100 threads, 5
# alive at a time, adding to a shared total under lock(). Under `spool
# locks` the output is the native one and nothing is lost; recorded in
# serial mode and replayed twice (in the script's directory, as a user
# does it), each replay exits 0 with the recorded output.
. "$(dirname "$0")/../lib.sh"
need_progs perl
plan 6

cat >t.pl <<'PL'
use threads; use threads::shared;
my $total :shared = 0;
for my $b (1..20) {
  my @t = map { my $k = $_; threads->create(sub { lock($total); $total += $b * 10 + $k; }) } 1..5;
  $_->join for @t;
}
print "total $total\n";
PL
perl t.pl >native.out
is "$(cat native.out)" "total 10800" "natively the 100 threads add up to 10800"
spool_run locks -o l.trace -- perl t.pl
is_rc 0 "perl with 100 threads under spool locks exits 0"
ok "its output is the native one" cmp -s run.out native.out
is "$(summary_lost)" 0 "no event was lost"
spool_run record -q -o r.trace -- perl t.pl
ok "spool record exits 0 with the native output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out native.out" || show_run
replays_same 2 0 native.out -q -o rep.trace r.trace
is "$SAME" 2 "2 replays of 2 exit 0 with the recorded output"
done_testing
