#!/bin/bash
# SPDX-License-Identifier: MIT
# 41-shm-scribble.t - a program that writes over spool's shared memory
# (tests/progs/shm_scribble: it maps the region from SPOOL_SHM_FD) must not
# crash or hang spool: spool kept its own copy of the layout, checks what it
# reads, says what the program damaged and counts what that cost as lost.
# Before, overwriting the control block's offsets crashed spool (SIGSEGV),
# truncating the region crashed it (SIGBUS), setting the ring allocator
# back hid the rings from the collector, spool probe read its probe table
# wherever the program pointed it, and spool record killed whatever pid the
# program wrote into its process slot.
. "$(dirname "$0")/lib.sh"

plan 42

P="$PROGS/shm_scribble"
T_TIMEOUT=60
# spool's status when the program exited 0 but events were lost
# (doc/locks.md, "Exit status")
INCOMPLETE=4

# run_mode MODE SEED: spool locks on the scribbler; RC, OUT, ERR set.
run_mode() {
	spool_run locks -q -- "$P" "$1" "$2"
	if [ "$RC" = 124 ] || [ "$RC" -ge 128 ]; then
		diag "spool locks -- shm_scribble $1 $2: status $RC" "$ERR"
	fi
}

total_of() { sed -n 's/^total=//p' <<<"$OUT"; }

run_mode shrink 1
is_rc 0 "shrink: spool and the program end normally"
like "$OUT" "shrink=refused" "  the region cannot be shrunk under spool (sealed)"

run_mode ctl 1
is_rc 0 "ctl: a program that overwrites the control block's sizes and offsets does not crash spool"
like "$ERR" "overwrote spool's control block" "  spool says the program overwrote it"
like "$ERR" "count of events lost for lack of a ring .* not trusted" \
	"  and does not report the absurd lost count it found there"
want="$(total_of)"
report_json spool.trace
is "$RC" 0 "  the trace reads"
is "$(lock_stat report.json scribble_lock "$F_ACQ")" "$want" \
	"  every acquisition is in it (spool never used the overwritten sizes)"

run_mode nrings 1
is_rc 0 "nrings: the ring allocator set back to 0 after the threads claimed rings"
want="$(total_of)"
report_json spool.trace
is "$(lock_stat report.json scribble_lock "$F_ACQ")" "$want" \
	"  spool still drains every ring: all $want acquisitions are in the trace"

run_mode heads 1
is_rc "$INCOMPLETE" "heads: ring heads, tails and lost counters overwritten: the trace is incomplete"
like "$ERR" "damaged the shared memory of thread" "  spool names the damaged rings"
num_cmp "$(summary_lost)" -gt 0 "  and counts their loss in the summary"
num_cmp "$(add "$(summary_events)" "$(summary_lost)")" -ge "$((2 * $(total_of)))" \
	"  recorded + lost accounts for every lock and unlock the program made"
num_cmp "$(trace_summary spool.trace damaged_rings)" -gt 0 "  and in the trace's run summary"
report_json spool.trace
is "$RC" 0 "  the trace reads"
num_cmp "$(json report.json "d['$J_TOTALS']['lost']")" -gt 0 "  the report shows the loss too"

run_mode procs 1
is_rc 0 "procs: process slots' lengths and offsets overwritten"
like "$ERR" "could not be kept whole" "  spool says what it could not keep"

run_mode records 1
is_rc "$INCOMPLETE" "records: record sizes and kinds overwritten in the rings: the trace is incomplete"
like "$ERR" "damaged the shared memory of thread" "  spool names the damaged rings"
num_cmp "$(summary_lost)" -gt 0 "  and counts what they lost"

# The program closes the region's descriptor and puts its own file there;
# a thread started after that must not get that file mapped as its ring.
spool_run locks -q -- "$PROGS/shm_fdreuse"
is_rc "$INCOMPLETE" "fdreuse: a program that replaced spool's descriptor with its own file runs (incomplete)"
like "$OUT" "victim=untouched" "  its file is not written to (the agent checks what it maps)"
like "$ERR" "closed spool's descriptor" "  spool says why the later thread was not traced"
num_cmp "$(summary_lost)" -ge 2000 "  and counts its 2000 lock events as lost"

# Under spool probe, the program rewrites the probe area's table offsets
# and counts: spool reads the probes' status within the area or not at all.
spool_run probe -q -e func:nap_us -- "$P" probes 1
is_rc 0 "probes: spool probe survives a program that rewrote its probe area"
like "$ERR" "overwrote spool's probe area" "  and says the probes' status is unknown"

# The record/replay area's thread table pointed out of the area: spool
# replay reads the table where it put it, not where the program says.
spool_run record -q -o rra.trace -- "$P" rrarea 1
is_rc 0 "rrarea: spool record of a program that rewrote the replay area's thread table"
spool_run replay -q rra.trace
is_rc 0 "  spool replay of it ends with the program's status (spool does not crash)"

# Under spool record, the program names another process as itself in its
# process slot and asks spool to stop the recording: spool kills the program
# it started, never the pid the program wrote (-1 would be every process of
# the user; a decoy stands in here).
sleep 120 &
decoy=$!
spool_run record -q -o rec.trace -- "$P" rrpid "$decoy"
is_rc 137 "rrpid: spool record stops the program that asked for it (SIGKILL)"
if kill -0 "$decoy" 2>/dev/null; then
	pass "  the process whose pid the program wrote is alive"
else
	fail "  the process whose pid the program wrote is alive"
fi

# The same pid under spool locks, and the program ends normally: spool must
# not take the decoy for a process of the program (it waited for it to end,
# and called the trace incomplete).
spool_run locks -q -- "$P" pidslot "$decoy"
is_rc 0 "pidslot: spool ends with the program that wrote another pid into its slot"
like "$ERR" "not one of its processes" "  spool says the pid is not the program's"
unlike "$ERR" "still running" "  and does not wait for that process or call the trace incomplete"
kill "$decoy" 2>/dev/null
wait "$decoy" 2>/dev/null

# Random bytes at random places and moments: spool survives every seed and
# never hangs. A record whose bytes the program changed but whose size still
# fits its kind can reach the trace; the report then reads the rest and
# names the damage (status 1, "malformed record skipped").
report_ok() {
	[ "$RC" = 0 ] || { [ "$RC" = 1 ] && grep -q "malformed" <<<"$ERR"; }
}
for seed in 1 2 3 4; do
	run_mode random "$seed"
	# 0, or incomplete when the scribbles damaged a ring (they usually do)
	if [ "$RC" = 0 ] || { [ "$RC" = "$INCOMPLETE" ] && [ "$(summary_lost)" -gt 0 ]; }; then
		pass "random scribbles, seed $seed: spool and the program end normally (status $RC)"
	else
		fail "random scribbles, seed $seed: spool and the program end normally (status $RC)"
		show_run
	fi
	report_json spool.trace
	if report_ok; then
		pass "  its trace reads, or the report names the damage"
	else
		fail "  its trace reads, or the report names the damage"
		diag "spool report: status $RC" "$ERR"
	fi
done

done_testing
