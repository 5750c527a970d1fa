#!/bin/bash
# SPDX-License-Identifier: MIT
# 86-corpus-perl-threads.t - the record/replay corpus: Debian's perl with
# ithreads (4 workers taking from a Thread::Queue, a shared hash under
# lock(), cond_signal to the main thread, a result file), recorded in
# serial and in sync mode, 3 replays each.
. "$(dirname "$0")/lib.sh"
need_progs perl
plan 4

mkdir app
cat >app/q.pl <<'PL'
use strict; use threads; use threads::shared; use Thread::Queue;
my $q = Thread::Queue->new(1 .. 400);
$q->end();
my %by :shared;
my $done :shared = 0;
my @t = map {
  my $w = $_;
  threads->create(sub {
    while (defined(my $x = $q->dequeue())) {
      my $s = 0; $s += $_ * $x for 1 .. 200;
      lock(%by); $by{$x} = "$w:$s";
    }
    lock($done); $done++; cond_signal($done);
  });
} 1 .. 4;
{ lock($done); cond_wait($done) until $done == 4; }
$_->join for @t;
my %per; $per{(split /:/, $by{$_})[0]}++ for keys %by;
open(my $f, ">", "result.txt") or die; print $f join(",", map { (split /:/, $by{$_})[1] } sort { $a <=> $b } keys %by), "\n"; close $f;
print "items ", scalar(keys %by), " per worker ", join(" ", map { "$_=" . ($per{$_} // 0) } 1 .. 4), "\n";
PL
for m in serial sync; do
	rr_corpus perl-threads "$m" --dir app -- perl q.pl
done
done_testing
