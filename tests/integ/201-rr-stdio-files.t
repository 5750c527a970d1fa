#!/bin/bash
# SPDX-License-Identifier: MIT
# 201-rr-stdio-files.t - stdio's own reads and writes in one process,
# recorded and replayed in serial mode (doc/record.md "Standard I/O inside
# libc"): rr_stdiofile reads a file through fgets and fread and checks
# ftell, then reopens it "r+", reads ahead, seeks and writes. A replay with
# the file changed prints the recorded contents and writes the same bytes
# at the same offset (a replayed stdio read moves the file's offset as the
# recorded read did: stdio seeks relative to it). 4 threads reading one
# shared FILE with fgets and writing one fully buffered stdout, recorded
# with --chaos: the recording ends (stdio's calls hold glibc's FILE lock,
# so they never hand the run token to a thread that would block on that
# lock) and 3 replays print the recorded bytes.
. "$(dirname "$0")/lib.sh"

plan 11

P="$PROGS/rr_stdiofile"

printf 'hello world line one\nsecond line here\nthird\n' >f.txt
spool_run record -o file.trace -- "$P" file f.txt
is_rc 0 "record of stdio reads, ftell and an r+ write exits 0"
cp run.out file.out
like "$OUT" "ftell after it: 21 \(its length 21\)" "  ftell agrees with what fgets read"
is "$(head -c 14 f.txt)" "hello[written]" "  and the r+ write landed after what it read"
flags=$(sed -n 's/^flags=//p' file.trace/.spool/record)
ok "  the recording saw stdio's reads and writes (flags $flags)" test $(( ${flags:-0} & 0x40000 )) -ne 0

printf 'CHANGED CONTENTS\nxx\n' >f.txt
spool_run replay -q file.trace
is_rc 0 "replay with the file changed exits 0"
ok "  and prints the recorded contents, ftell and offsets" cmp -s run.out file.out
is "$(head -c 14 f.txt)" "CHANG[written]" "  writing the same bytes at the recorded offset"

seq 1 3000 >n.txt
spool_run record -q --chaos -o th.trace -- "$P" threads n.txt
is_rc 0 "record --chaos of 4 threads sharing a FILE to read and stdout to write ends (exit 0)"
cp run.out th.out
is "$(grep -c ' got ' th.out)" 3000 "  every line read was printed once"
unlike "$ERR" "stuck" "  no thread was reported stuck"
replays_same 3 0 th.out -q th.trace
is "$SAME" 3 "3 replays of 3 print the recorded bytes"
done_testing
