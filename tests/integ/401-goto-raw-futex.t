#!/bin/bash
# SPDX-License-Identifier: MIT
# 401-goto-raw-futex.t - spool replay --goto on a program whose threads wait
# on futexes with their own syscall instruction, as libgomp's barriers do
# (Debian's GraphicsMagick with OMP_NUM_THREADS=2, tests/real/158): a thread
# the restore recreated had no syscall user dispatch, so its raw FUTEX_WAIT
# waited in the kernel while it held the run token, and the replay was
# reported stuck ("spins in code without calls the agent sees", exit 3)
# from every snapshot but those where only the first thread waits. Also:
# a descriptor open for writing on a file at the snapshot is a /dev/null
# stand-in in the replay (doc/record.md, "Replay from a snapshot"): the
# replay says so, naming it, instead of exiting 0 over a file it did not
# write; and spool info's time-s of each snapshot is when it was taken
# (it was when its copy got to write it: it went backwards).
# rr_rawfutex_goto: two threads pass a turn 200 times through raw futexes,
# each step printed and written to out.txt.
. "$(dirname "$0")/lib.sh"

plan 8

P="$PROGS/rr_rawfutex_goto"

kv="$(uname -r)"
if [ "$(uname -m)" != x86_64 ] || [ "${kv%%.*}" -lt 5 ] ||
	{ [ "${kv%%.*}" = 5 ] && [ "$(echo "$kv" | cut -d. -f2)" -lt 11 ]; }; then
	skip 8 "no syscall user dispatch here ($(uname -m), kernel $kv)"
	exit 0
fi

spool_run record -q --snap-period 50 -o g.trace -- "$P" 200 out.txt
is_rc 0 "record --snap-period 50: exit 0"
cp run.out rec.out
cp out.txt rec.txt
"$SPOOL" info g.trace >info.txt 2>&1
EVS=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' info.txt)
num_cmp "$(echo "$EVS" | grep -c .)" -ge 3 "it has snapshots (at events $(echo $EVS))"
TIMES=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $4}' info.txt)
ok "spool info: the snapshots' times (time-s) grow with their events ($(echo $TIMES))" \
	bash -c "[ \"\$(echo '$TIMES' | sort -g)\" = '$TIMES' ]"

# every snapshot but the last (the program may be past its last step there)
good=0 tried=0 bad=""
for e in $(echo "$EVS" | sed '$d'); do
	rm -f out.txt
	spool_run replay -q --stuck-ms 3000 -o "r$e.trace" --goto "$e" g.trace
	tried=$((tried + 1))
	if [ "$RC" = 0 ] && tail_ok rec.out run.out; then
		good=$((good + 1))
	else
		bad="$bad $e(rc $RC)"
		diag "--goto $e: $(grep -m2 -E 'error|stuck' run.err)"
	fi
done
num_cmp "$tried" -ge 2 "replayed from $tried snapshots"
is "$good" "$tried" "each exits 0 and prints the recording's tail (the restored worker's raw futex waits are yields)${bad:+ (not:$bad)}"
like "$(cat run.err)" "warning: snapshot [0-9]+: 1 descriptor was open for writing on a file \\(3: [^)]*/out\\.txt\\), restored as /dev/null: what the program writes there from event [0-9]+ on is not written" \
	"the replay from a snapshot names the file it does not write"
ok "... which it did not write" test ! -e out.txt

spool_run replay -q -o full.trace g.trace
ok "a replay from the start: exit 0, the recorded output and file, no such warning" \
	bash -c "[ $RC = 0 ] && cmp -s run.out rec.out && cmp -s out.txt rec.txt && ! grep -q 'open for writing' run.err" ||
	show_run
done_testing
