#!/bin/bash
# SPDX-License-Identifier: MIT
# 126-corpus-20-more.t - verdicts that do not vary, two more corpus
# programs: Debian's perl with ithreads (4 workers, a Thread::Queue, a
# shared hash under lock(), cond_wait; as tests/real/86) and
# `git pack-objects --threads=2` on a small repository (as tests/real/88),
# one recording each in serial and in sync mode, replayed 20 times: every
# replay gives the same verdict (identical), exit status, stdout, stderr
# and files (rr_corpus --replays 20; quick/81 does sqlite3 and C++).
# Then perl's threads printing to STDOUT and warning to STDERR, run as
# `perl p.pl >out 2>&1`: 8 sync recordings, each replay leaves the
# recorded bytes in the recorded order or says it diverged (before the
# turn of the standard output, 4 of 8 left another order silently;
# doc/record.md "The turn of the standard output").
. "$(dirname "$0")/lib.sh"
need_progs perl git
plan 10

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

cat >app/p.pl <<'PL'
use strict; use threads; $| = 1;
my @t = map { my $w = $_; threads->create(sub { for my $i (1 .. 200) { if ($w % 2) { print "out $w $i\n" } else { warn "err $w $i\n" } } }) } 1 .. 4;
$_->join for @t;
print "done\n";
PL
_prog() { grep -av '^spool\(-agent\)\?: \|^  \(recorded\|replay\): ' "$1"; }
same=0 loud=0 silent=0
for i in 1 2 3 4 5 6 7 8; do
	rm -rf p.trace
	(cd app && timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --mode sync -o ../p.trace -- perl p.pl \
		>../rec.all 2>&1 </dev/null)
	_prog rec.all >rec.f
	(cd app && timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q ../p.trace >../rep.all 2>&1 </dev/null)
	rc=$?
	_prog rep.all >rep.f
	if [ "$rc" = 0 ] && [ "$(grep -c '^\(out\|err\) ' rec.f)" = 800 ] && cmp -s rec.f rep.f; then
		same=$((same + 1))
	elif [ "$rc" = 3 ] && grep -q '^spool: error: replay diverged' rep.all; then
		loud=$((loud + 1))
	else
		silent=$((silent + 1))
		diag "replay $i: exit $rc" "$(diff rec.f rep.f | head -n 6)"
	fi
done
is "$silent" 0 "perl threads' print and warn into one file (2>&1), 8 sync recordings: no replay leaves another order silently"
ok "  most leave the recorded bytes ($same of 8, $loud reported)" test "$same" -ge 6
done_testing
