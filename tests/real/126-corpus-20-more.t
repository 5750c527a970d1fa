#!/bin/bash
# SPDX-License-Identifier: MIT
# 126-corpus-20-more.t - verdicts that do not vary, two more corpus
# programs: Debian's perl with ithreads (4 workers, a Thread::Queue, a
# shared hash under lock(), cond_wait; as tests/real/86) and
# `git pack-objects --threads=2` on a small repository (as tests/real/88),
# one recording each in serial and in sync mode, replayed 20 times: every
# replay gives the same verdict (identical), exit status, stdout, stderr
# and files (rr_corpus --replays 20; quick/81 does sqlite3 and C++).
. "$(dirname "$0")/lib.sh"
need_progs perl git
plan 8

mkdir app repo
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
(
	cd repo || exit 1
	git init -q . && git config user.email t@example.com && git config user.name t
	for c in 1 2 3; do
		for i in $(seq 1 200); do
			printf 'file %d commit %d\nline with needle %d\n%s\n' "$i" "$c" $((i * c)) \
				"$(seq "$i" $((i + 40)) | tr '\n' ' ')" >"f$i.txt"
		done
		git add -A && git commit -qm "commit $c"
	done
	git rev-list --objects --all >../objects.list
	git gc -q --prune=now 2>/dev/null || true
)
export GIT_CONFIG_NOSYSTEM=1 HOME="$T_DIR"
for m in serial sync; do
	rr_corpus perl-threads-20 "$m" --replays 20 --dir app -- perl q.pl
	rr_corpus git-pack-objects-20 "$m" --replays 20 --dir repo --stdin objects.list -- \
		git pack-objects --threads=2 -q pk
done
done_testing
