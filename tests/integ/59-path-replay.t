#!/bin/bash
# SPDX-License-Identifier: MIT
# 59-path-replay.t - the thread path as a replay schedule (spool replay
# --path FILE, doc/record.md "Replaying a path"): a serial recording of a
# racy program replayed with its own path (from spool replay --record-path)
# gives the same output, and the replay's own path is the file; a path
# edited to run one thread's calls before the other's replays in that new
# order, with its own output, every time; paths that cannot be followed
# (a function the thread does not call there, a thread that does not exist,
# a malformed line, a path cut short, a thread before its creation) stop
# with the line named; a sync-mode recording is refused.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/rr_race_counter-finst"
PC="$PROGS/path_prodcons-finst"
for p in "$PROG" "$PC"; do
	if [ ! -x "$p" ]; then
		echo "1..0 # SKIP $p is not built"
		exit 0
	fi
done

plan 40

# cols FILE: the path's records as "thread function object", without the
# seq and time columns and the tid (which differ from run to run).
cols() { grep -v '^#' "$1" | awk '{ sub(/\/[0-9]+$/, "", $3); $1 = ""; $2 = ""; print }'; }

# --- a failing (racy) serial recording, and its path ---
spool_run record --chaos --until-fail 100 -o rec -- "$PROG" 2 200
like "$OUT" "^total [0-9]+ of 400$" "record --chaos --until-fail: a run that lost updates" ||
	show_run
rec_out="$OUT"
rec_rc=$RC

spool_run replay -q --record-path -o rp rec
is "$OUT" "$rec_out" "replay --record-path prints the recorded output"
spool_run path -q --show-exits -w own.txt rp
is_rc 0 "spool path --show-exits of that replay's trace"
spool_run path -q -w own_n.txt rp
is "$(cols own_n.txt | awk '{print $1}' | sort -u | tr '\n' ' ')" "T0 T1 T2 " \
	"  threads are numbered as in the recording: T0 (main), T1, T2"
is "$(cols own_n.txt | awk '{print $2}' | sort | uniq -c | awk '{print $1, $2}' | tr '\n' ' ')" \
	"2 adder 1 main* 400 work " "  every call is there: main, 2 adders, 400 works"
switches=$(cols own_n.txt | awk '{print $1}' | uniq | wc -l)
ok "  a thread was interrupted by another ($switches runs)" test "$switches" -ge 4

# spool path on the recording itself replays it with --record-path.
spool_run path --show-exits -w direct.txt rec
is_rc 0 "spool path of a recording (it replays it to get the entries)"
ok "  the same path as the replay's trace gives" cmp -s <(cols direct.txt) <(cols own.txt)
spool_run path --check rec
like "$OUT" "3 of 3 functions entered" "  spool path --check of a recording"

# --- (a) the recording's own path ---
for i in 1 2 3; do
	spool_run replay -q --path own.txt -o r_own rec
	is "$OUT" "$rec_out" "replay --path (own path with exits), run $i: the recorded output"
done
is_rc "$rec_rc" "  exit status as recorded ($rec_rc)"
spool_run path -q --show-exits -w got.txt r_own
is "$(cols got.txt)" "$(cols own.txt)" \
	"  the replay's own path is the file (seq, time and tid aside)"
spool_run replay -q --path own_n.txt -o r_own_n rec
spool_run path -q -w got_n.txt r_own_n
is "$(cols got_n.txt)" "$(cols own_n.txt)" \
	"replay --path of the path without exits: the replay's path is the file"

# --- (b) an edited path: all of T1's calls, then all of T2's ---
{
	grep '^#' own_n.txt | head -n 1
	grep -v '^#' own_n.txt | awk '$3 ~ /^T0\//'
	grep -v '^#' own_n.txt | awk '$3 ~ /^T1\//'
	grep -v '^#' own_n.txt | awk '$3 ~ /^T2\//'
} >serial.txt
for i in 1 2 3; do
	spool_run replay -q --path serial.txt -o r_ser rec
	is "$OUT" "total 400 of 400" "edited path (T1 then T2), run $i: no update lost"
done
is_rc 0 "  and the program exits 0 (the recording failed with $rec_rc)"
spool_run path -q -w got_ser.txt r_ser
is "$(cols got_ser.txt)" "$(cols serial.txt)" "  the replay followed the edited order"
is "$(cols got_ser.txt | awk '{print $1}' | uniq | tr '\n' ' ')" "T0 T1 T2 " \
	"  one run per thread"

# an edited path that alternates the two threads call by call (exits
# included): both read the counter before either writes it back
{
	grep '^#' own.txt | head -n 1
	grep -v '^#' own.txt | awk '$3 ~ /^T0\// && $4 ~ /^>/'
	paste -d '\n' <(grep -v '^#' own.txt | awk '$3 ~ /^T1\//') \
		<(grep -v '^#' own.txt | awk '$3 ~ /^T2\//')
	grep -v '^#' own.txt | awk '$3 ~ /^T0\// && $4 ~ /^</'
} >alt.txt
spool_run replay -q --path alt.txt -o r_alt rec
alt_out="$OUT"
is "$alt_out" "total 200 of 400" "edited path, alternating call by call: every other update lost"
spool_run replay -q --path alt.txt -o r_alt rec
is "$OUT" "$alt_out" "  the same again"
spool_run path -q --show-exits -w got_alt.txt r_alt
is "$(cols got_alt.txt)" "$(cols alt.txt)" "  the replay followed it"

# --- semaphores: a producer/consumer recording and its own path ---
spool_run record -q --chaos --seed 7 -o pc -- "$PC" 3
pc_out="$OUT"
spool_run replay -q --record-path -o pcr pc
spool_run path -q --show-exits -w pc.txt pcr
spool_run replay -q --path pc.txt -o pcr2 pc
is "$OUT" "$pc_out" "prodcons (semaphores): replay --path of its own path, same output"
is_rc 0 "  exit 0"
spool_run path -q --show-exits -w pc2.txt pcr2
is "$(cols pc2.txt)" "$(cols pc.txt)" "  and the same path"

# --- (c) paths that cannot be followed ---
line=$(grep -n ' work ' own_n.txt | sed -n 10p | cut -d: -f1)
sed "${line}s/ work / never_called /" own_n.txt >bad_fn.txt
spool_run replay -q --path bad_fn.txt -o r_bad rec
is_rc 3 "a function the thread does not call there: exit 3"
like "$ERR" "bad_fn\\.txt line $line: the path has T[12] call never_called here; the replay did not follow it: .* call work" \
	"  the error names the line, the function and what the thread called"

sed "${line}s/ T[12]\\// T7\\//" own_n.txt >bad_thr.txt
spool_run replay -q --path bad_thr.txt -o r_bad rec
is_rc 1 "a thread that does not exist: refused"
like "$ERR" "bad_thr\\.txt line $line: thread T7 does not exist: the recording has 3 threads" \
	"  the error names the line and the thread"

sed "${line}s/^ *[0-9]* /x /" own_n.txt >bad_line.txt
spool_run replay -q --path bad_line.txt -o r_bad rec
is_rc 1 "a malformed line: refused"
like "$ERR" "bad_line\\.txt line $line: want: seq time thread function object" \
	"  the error names the line"

head -n 30 own_n.txt >short.txt
spool_run replay -q --path short.txt -o r_bad rec
is_rc 3 "a path cut short: exit 3"
like "$ERR" "makes a call after the path's end" "  the thread that goes on is named"

{
	grep '^#' own_n.txt | head -n 1
	grep -v '^#' own_n.txt | awk '$3 ~ /^T1\//'
	grep -v '^#' own_n.txt | awk '$3 !~ /^T1\//'
} >early.txt
spool_run replay -q --path early.txt -o r_bad rec
is_rc 3 "a thread's calls before the thread is created: exit 3"
like "$ERR" "path's next turn is never created" "  said so"

# --- refusals ---
spool_run record -q --mode sync -o srec -- "$PROG" 2 50
spool_run replay -q --path own_n.txt srec
is_rc 1 "a sync-mode recording is refused"
like "$ERR" "--path needs a serial-mode recording" "  with the reason"

spool_run replay --help
like "$OUT" "--path FILE" "replay --help documents --path"

done_testing
