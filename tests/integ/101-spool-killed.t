#!/bin/bash
# SPDX-License-Identifier: MIT
# 101-spool-killed.t - spool killed (SIGKILL) while the program runs: the
# program runs on, and the partial trace used to look complete (spool info
# exited 0 and said 0 lost; a killed spool record left a trace that replay
# called "not made by spool record"). The trace's state file says the writer
# did not finish: info, report and export say the trace is incomplete and
# still read every whole packet, and replay refuses it for that reason.
# A new trace is written beside DIR (DIR.writing.PID) and renamed to DIR
# only when whole: the killed spool's partial trace is read there, and DIR
# itself is left as it was (tests/integ/141-trace-written-beside.t).
. "$(dirname "$0")/lib.sh"

plan 15

# kill_spool_mid_run DIR CMD...: spool CMD -o DIR -- passthrough 0, fed
# one line through a FIFO; once the collector has flushed it (about every
# second), SIGKILL to spool, then the program is let go (its stdin closed).
kill_spool_mid_run() {
	local dir="$1" sp prog
	shift
	rm -f in.fifo
	mkfifo in.fifo
	"$SPOOL" "$@" -o "$dir" -- "$PROGS/passthrough" 0 <in.fifo >k.out 2>k.err &
	sp=$!
	exec 3>in.fifo
	echo hello >&3
	wait_for hello k.out 20
	# until the collector's first flush (about a second in) wrote a packet
	PART="$dir.writing.$sp"
	for _ in $(seq 100); do
		find "$PART" -maxdepth 1 -name 'stream_*' -size +0 2>/dev/null | grep -q . && break
		sleep 0.05
	done
	prog=$(pgrep -P "$sp" | head -n 1)
	kill -KILL "$sp"
	wait "$sp" 2>/dev/null
	SPOOL_RC=$?
	exec 3>&-
	# (it has no parent left to reap it at once: a zombie has exited)
	for _ in $(seq 200); do
		case "$(cut -d' ' -f3 "/proc/$prog/stat" 2>/dev/null)" in
		"" | Z) break ;;
		esac
		sleep 0.05
	done
	check_sanitizer k.err "spool $*"
}

kill_spool_mid_run k.trace locks -q
is "$SPOOL_RC" 137 "spool locks was killed by SIGKILL"
is "$(cat k.out)" "hello" "  the program ran on"
spool_run info "$PART"
is_rc 4 "spool info exits 4 on the trace of a killed spool"
like "$OUT" "^writer: did not finish" "  and says its writer did not finish"
like "$ERR" "k.trace.writing.[0-9]+ is incomplete: .*did not finish" "  with a warning"
like "$OUT" "^events: [1-9]" "  it still reads the events flushed before the kill"
spool_run report --locks "$PART"
is_rc 0 "spool report --locks still reports it"
like "$ERR" "k.trace.writing.[0-9]+ is incomplete: .*did not finish" "  and says it is incomplete"
like "$OUT" "io_lock" "  with the lock the program used"
spool_run export --perfetto -w k.pftrace "$PART"
like "$ERR" "k.trace.writing.[0-9]+ is incomplete: .*did not finish" "spool export says it is incomplete"

kill_spool_mid_run r.trace record
is "$SPOOL_RC" 137 "spool record was killed by SIGKILL"
spool_run replay "$PART"
is_rc 4 "spool replay exits 4 on a recording whose spool was killed"
like "$ERR" "did not finish" "  saying the recording was not finished"
unlike "$ERR" "not made by spool record" "  not that it is not a recording"
spool_run info "$PART"
is_rc 4 "spool info says the recording is incomplete too"

done_testing
