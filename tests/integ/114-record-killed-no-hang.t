#!/bin/bash
# SPDX-License-Identifier: MIT
# 113-record-killed-no-hang.t - spool record killed (SIGKILL) while the
# program reads input that fills its log: the program used to hang for
# good (pigz under a killed spool record never ended): its reading thread
# waited for room in the log that only spool frees, and in serial mode the
# other threads waited for a run token that never came back. Now the agent
# sees spool gone, stops recording and lets every thread run on: the
# program ends within seconds with its whole output. Serial mode (three
# threads, two waiting for the token) and sync mode; a small ring so the
# log fills at once.
. "$(dirname "$0")/lib.sh"

plan 8

# killed_record MODE: spool record --mode MODE of rr_readers 3 reading a
# FIFO (not its stdin: spool record passes stdin on, and its end is the
# program's end of file); once its threads run, SIGKILL to spool; then 4 MB of input (about
# a thousand records past a full 64 KiB ring), end of file, and up to 10 s
# for the program to end. Leaves the program's output in k.out and its
# state in PROG_ENDED (1: ended).
killed_record() {
	local sp prog i
	rm -f in.fifo k.out
	mkfifo in.fifo
	"$SPOOL" record -q --mode "$1" --ring-size 64k -o "r-$1.trace" -- \
		"$PROGS/rr_readers" 3 in.fifo </dev/null >k.out 2>k.err &
	sp=$!
	PART="r-$1.trace.writing.$sp" # written beside -o until whole
	exec 3>in.fifo
	wait_for "threads 3" k.out 20
	prog=$(pgrep -P "$sp" | head -n 1)
	kill -KILL "$sp"
	wait "$sp" 2>/dev/null
	# A program that hangs stops reading: the writer must not hang too.
	timeout 10 head -c 4000000 /dev/zero >&3
	exec 3>&-
	PROG_ENDED=0
	for ((i = 0; i < 100; i++)); do
		case "$(cut -d' ' -f3 "/proc/$prog/stat" 2>/dev/null)" in
		"" | Z)
			PROG_ENDED=1
			break
			;;
		esac
		sleep 0.1
	done
	if [ "$PROG_ENDED" = 0 ]; then
		diag "rr_readers (pid $prog) still runs 10 s after spool was killed: killed"
		kill -KILL "$prog" 2>/dev/null
	fi
	check_sanitizer k.err "spool record --mode $1"
}

for mode in serial sync; do
	killed_record "$mode"
	is "$PROG_ENDED" 1 "$mode: the program ends after spool record was killed"
	is "$(tail -n 1 k.out)" "bytes 4000000" "  having read all its input"
	like "$(cat k.err)" "spool is gone: recording stopped" "  the agent says why it stopped recording"
	spool_run info "$PART"
	is_rc 4 "  the partial recording is incomplete (spool info exits 4)"
done

done_testing
