#!/bin/bash
# SPDX-License-Identifier: MIT
# 63-long-command-line.t - `sort -n *.txt` over 300 files: a command line
# of 12 KB, as shells, make and build scripts produce. Nothing in a trace
# has a fixed size a real program exceeds without a warning (issue 12):
# the trace of `spool locks` keeps the whole command line, and `spool
# replay` of `spool record` runs the recorded one (spool kept 4 KiB of
# it before 4964824: the replay ran `sort` on a file name cut in the
# middle, and said the program diverged).
. "$(dirname "$0")/lib.sh"
need_progs sort
plan 6

mkdir files
for i in $(seq 1 300); do
	echo "$i" >"files/a_file_with_a_rather_long_name_$i.txt"
done
cd files || exit 1
sort -n ./*.txt >../native.out
printf '%s\0' sort -n ./*.txt >../cmdline.want
spool_run locks -q -o ../l.trace -- sort -n ./*.txt
is_rc 0 "sort over 300 files under spool locks exits 0"
ok "its output is the native run's" cmp -s run.out ../native.out
cmdline=$(ls ../l.trace/.spool/proc/*.cmdline 2>/dev/null | head -n 1)
ok "the trace keeps the whole command line ($(stat -c %s ../cmdline.want) bytes)" \
	cmp -s "$cmdline" ../cmdline.want || diag "the trace has $(stat -c %s "$cmdline" 2>/dev/null) bytes"

spool_run record -q -o ../r.trace -- sort -n ./*.txt
is_rc 0 "spool record of it exits 0"
cd .. || exit 1
spool_run replay -q -o rep.trace r.trace
is_rc 0 "spool replay exits 0"
ok "the replay prints the recorded output" cmp -s run.out native.out
done_testing
