#!/bin/bash
# SPDX-License-Identifier: MIT
# 10-locks-counts.t - the lock report against programs whose counts are known
# by construction (tests/progs): exact acquisitions, hold-time floors,
# contention bounds, rwlock sides, trylock/timedlock outcomes, semaphores,
# condition variables, barriers; nothing lost at the default ring size.
. "$(dirname "$0")/lib.sh"

plan 38

# locks_run PROG ARGS...: spool locks -q on a test program, then the JSON
# report of its trace into report.json.
locks_run() {
	local prog="$1"
	shift
	rm -rf spool.trace spool.trace.old
	spool_run locks -q -- "$PROGS/$prog" "$@"
	PROG_RC=$RC
	PROG_OUT="$OUT"
	cp run.err locks.err
	report_json spool.trace
	REPORT_RC=$RC
}

# st NAME FIELD: from report.json.
st() { lock_stat report.json "$1" "$2"; }

# --- lockcount: exact counts, nothing lost ---
locks_run lockcount 4 2000
RC=$PROG_RC is_rc 0 "lockcount 4 2000 under spool exits 0"
is "$PROG_OUT" "total=8000" "  its stdout is its own"
SUMMARY_FILE=locks.err
like "$(summary_line)" . "  spool printed the summary line"
is "$(summary_lost)" 0 "  0 events lost at the default ring size"
num_cmp "$(summary_events)" -ge 32000 "  at least an acquire and a release per pair counted"
is "$REPORT_RC" 0 "spool report --locks --json exits 0"
ok "  and prints valid JSON on stdout" json_true report.json 'isinstance(d, dict)'
is "$(st shared_lock "$F_ACQ")" 8000 "shared_lock acquired exactly THREADS*ITERS times"
num_cmp "$(st shared_lock "$F_CONTENDED")" -le 8000 "  contended <= acquisitions"
is "$(st '*' "$F_ACQ")" 16000 "all mutexes: shared plus 4 per-thread x 2000"

# --- a visible hold time: floors, and contention shows ---
locks_run lockcount 2 200 1000
RC=$PROG_RC is_rc 0 "lockcount 2 200 1000 (1 ms holds) exits 0"
is "$(st shared_lock "$F_ACQ")" 400 "  400 acquisitions"
num_cmp "$(st shared_lock "$F_HOLD_NS")" -ge 400000000 \
	"  total hold >= 400 x 1 ms (busy-waited inside the lock)"
num_cmp "$(st shared_lock "$F_CONTENDED")" -gt 0 "  two threads, 1 ms holds: contended > 0"
num_cmp "$(st shared_lock "$F_WAIT_NS")" -gt 0 "  and some wait time"

# --- rwlock: read and write sides ---
locks_run rwlock 3 2 5000
RC=$PROG_RC is_rc 0 "rwlock 3 2 5000 exits 0"
is "$(st table_lock "$F_RD_ACQ")" 15000 "  read acquisitions = 3 x 5000"
is "$(st table_lock "$F_ACQ")" 10000 "  write acquisitions = 2 x 5000"

# --- spinlocks ---
locks_run spin 2 10000
RC=$PROG_RC is_rc 0 "spin 2 10000 exits 0"
is "$(st spin_lock_var "$F_ACQ")" 20000 "  spinlock acquisitions = 2 x 10000"

# --- semaphores ---
locks_run sem 5000
RC=$PROG_RC is_rc 0 "sem 5000 exits 0"
is "$(st items_sem "$F_POSTS")" 5000 "  5000 sem_post"
is "$(st items_sem "$F_ACQ")" 5000 "  5000 successful sem_wait"

# --- condition variables ---
locks_run condvar 2000
RC=$PROG_RC is_rc 0 "condvar 2000 exits 0"
signals=$(sed -n 's/.*signals=\([0-9]*\).*/\1/p' <<<"$PROG_OUT")
waits=$(sed -n 's/.*waits=\([0-9]*\).*/\1/p' <<<"$PROG_OUT")
is "$(add "$(st not_empty "$F_COND_SIGNALS")" "$(st not_full "$F_COND_SIGNALS")")" \
	"$signals" "  signals on not_empty + not_full = what the program did ($signals)"
is "$(add "$(st not_empty "$F_COND_WAITS")" "$(st not_full "$F_COND_WAITS")")" \
	"$waits" "  cond waits = the program's own count ($waits)"
is "$(add "$(st not_empty "$F_COND_WAKEUPS")" "$(st not_full "$F_COND_WAKEUPS")")" \
	"$waits" "  every wait woke up once"
num_cmp "$(st buf_lock "$F_ACQ")" -ge 4000 "  buf_lock taken at least once per put and get"

# --- barriers ---
locks_run barrier 3 50
RC=$PROG_RC is_rc 0 "barrier 3 50 exits 0"
is "$(st round_barrier "$F_BARRIER_WAITS")" 150 "  barrier waits = 3 x 50"
is "$(st round_barrier "$F_BARRIER_SERIAL")" 50 "  one serial thread per round"

# --- trylock ---
locks_run trylock 100 200
RC=$PROG_RC is_rc 0 "trylock 100 200 exits 0"
is "$(st try_lock "$F_TRY_FAIL")" 100 "  100 failed trylocks"
is "$(st try_lock "$F_TRY_OK")" 200 "  200 successful trylocks"
is "$(st try_lock "$F_ACQ")" 201 "  acquisitions: 200 trylocks + 1 lock"

# --- timedlock ---
locks_run timedlock 5 10
RC=$PROG_RC is_rc 0 "timedlock 5 10 exits 0"
is "$(st timed_lock "$F_TIMEOUTS")" 5 "  5 timeouts"
is "$(st timed_lock "$F_ACQ")" 11 "  acquisitions: 10 timed + 1 lock"

done_testing
