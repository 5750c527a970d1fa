#!/bin/bash
# SPDX-License-Identifier: MIT
# 63-serial.t - spool record in serial mode (the default) and its replay:
# racy programs (lost updates, check-then-act, ABA) recorded with --chaos
# --until-fail fail within the runs, and every replay of the failing
# recording prints the failing output and exits as it did; race-free
# programs replay with the recorded output and the recorded token schedule;
# --check-cmd sees the run's output; a thread spinning without progress points
# is reported instead of hanging, and coverage progress points
# (libspool-progress.so) let it run; a replay with other arguments
# diverges; pigz -p 2 records and replays byte for byte.
. "$(dirname "$0")/lib.sh"

plan 39

REPLAYS=${SERIAL_REPLAYS:-20}

# --- racy programs: chaos finds the failure, replay repeats it -----------
racy() {
	local name="$1" prog="$PROGS/$1"
	shift
	spool_run record --chaos --until-fail 200 -o "$name.trace" -- "$prog" "$@"
	is_rc 1 "$name: record --chaos --until-fail exits with the failing run's status"
	like "$ERR" 'run [0-9]+ failed \(exit 1\), recording kept in' \
		"$name: says which run failed and keeps its recording"
	cp run.out "$name.rec.out"
	if [ -s "$name.rec.out" ] && cmp -s "$name.rec.out" "$name.trace/.spool/output"; then
		pass "$name: the failing run's output is printed and kept in the trace"
	else
		fail "$name: the failing run's output is printed and kept in the trace"
		show_run
	fi
	local same=0 i
	for i in $(seq "$REPLAYS"); do
		# the last one keeps its schedule, compared below
		if [ "$i" = "$REPLAYS" ]; then
			spool_run replay --trace-schedule -q -o "$name.rep.trace" "$name.trace"
		else
			spool_run replay -q -o "$name.rep.trace" "$name.trace"
		fi
		if [ "$RC" = 1 ] && cmp -s run.out "$name.rec.out"; then
			same=$((same + 1))
		else
			show_run
			diag "replay printed: $(head -c 200 run.out)"
		fi
	done
	is "$same" "$REPLAYS" "$name: $REPLAYS replays print the failing output and exit 1"
	"$SPOOL" replay --dump-schedule "$name.trace" | grep '^switch' >"$name.rec.sw"
	"$SPOOL" replay --dump-schedule "$name.rep.trace" | grep '^switch' >"$name.rep.sw"
	if [ -s "$name.rec.sw" ] && cmp -s "$name.rec.sw" "$name.rep.sw"; then
		pass "$name: the replay switches threads exactly where the recording did"
	else
		fail "$name: the replay switches threads exactly where the recording did"
		diag "$(diff "$name.rec.sw" "$name.rep.sw" | head -n 10)"
	fi
}

racy rr_race_counter-finst 2 1000
like "$(cat rr_race_counter-finst.rec.out)" '^total [0-9]+ of 2000$' "the counter lost updates"
unlike "$(cat rr_race_counter-finst.rec.out)" '^total 2000 of' "... so the total is short"
racy rr_race_cta-finst 2 1000 7
like "$(cat rr_race_cta-finst.rec.out)" '^balance -[0-9]+ after' "check-then-act overdrew the balance"
racy rr_race_aba-finst 50
like "$(cat rr_race_aba-finst.rec.out)" '^[1-9][0-9]* of 50 rounds corrupted' "ABA corrupted the stack"

# A replay with other arguments is a different run: it diverges.
spool_run replay -q rr_race_counter-finst.trace -- "$PROGS/rr_race_counter-finst" 3 1000
is_rc 3 "a replay with other arguments stops with status 3"
like "$ERR" 'replay diverged' "... and says it diverged"

# --- race-free programs: serial replays repeat the recording --------------
spool_run record -o bank.trace -- "$PROGS/rr_bank" 4 2000
is_rc 0 "serial is the default mode (rr_bank records)"
like "$ERR" 'serial mode' "... and record says so"
cp run.out bank.rec.out
same=0
for i in 1 2 3; do
	spool_run replay --trace-schedule -q -o bank.rep.trace bank.trace
	[ "$RC" = 0 ] && [ -s run.out ] && cmp -s run.out bank.rec.out && same=$((same + 1))
done
is "$same" 3 "3 serial replays of rr_bank print the recorded output"
spool_run record --mode sync -o banks.trace -- "$PROGS/rr_bank" 4 2000
cp run.out banks.rec.out
spool_run replay --trace-schedule -q -o banks.rep.trace banks.trace
ok "a sync replay of rr_bank prints the sync recording's output" cmp -s run.out banks.rec.out

spool_run record -o pc.trace -- "$PROGS/rr_pc" 2 3 1000
is_rc 0 "record rr_pc (condition variables, semaphore) in serial mode"
cp run.out pc.rec.out
same=0
for i in 1 2 3; do
	spool_run replay --trace-schedule -q -o pc.rep.trace pc.trace
	[ "$RC" = 0 ] && [ -s run.out ] && cmp -s run.out pc.rec.out && same=$((same + 1))
done
is "$same" 3 "3 serial replays of rr_pc print the recorded output"

# --- --check-cmd sees the run's output -------------------------------------
spool_run record --until-fail 5 --check-cmd '! grep -q "^journal" "$SPOOL_OUTPUT"' \
	-o chk.trace -- "$PROGS/rr_bank" 2 100
is_rc 1 "--check-cmd failing the first run: spool exits 1"
like "$ERR" 'run 1 failed \(--check-cmd\)' "... and says run 1 failed the check"
spool_run record --until-fail 3 --check-cmd 'grep -q "^journal" "$SPOOL_OUTPUT"' \
	-o chk.trace -- "$PROGS/rr_bank" 2 100
is_rc 0 "a check that always passes: exit 0 after N runs"
like "$ERR" 'no failure in 3 runs' "... and says so"

# --- a thread spinning without progress points ----------------------------
spool_run record --stuck-ms 300 -o spin.trace -- "$PROGS/rr_spin"
isnt_rc=$([ "$RC" != 0 ] && [ "$RC" != 124 ] && echo yes)
is "$isnt_rc" yes "a spin without progress points stops the recording (no hang)"
like "$ERR" 'has not reached a switch point' "... naming the thread that spins"
like "$ERR" 'fsanitize-coverage=trace-pc' "... and how to give it progress points"
spool_run record -o spinc.trace -- "$PROGS/rr_spin-cov"
is_rc 0 "the same loop built with trace-pc and libspool-progress.so records"
spool_run replay -q spinc.trace
like "$OUT" '^flag seen$' "... and replays"
"$PROGS/rr_spin-cov" >native.out
is "$(cat native.out)" "flag seen" "libspool-progress.so alone is a no-op (the program runs without spool)"

# --- pigz -p 2: a real program, not built with progress points -------------
if command -v pigz >/dev/null; then
	head -c 3000000 /dev/urandom | base64 >data.txt
	RUN_STDIN=data.txt spool_run record -o pigz.trace -- pigz -p 2 -c
	is_rc 0 "pigz -p 2 records in serial mode"
	cp run.out pigz.rec.gz
	RUN_STDIN=data.txt spool_run replay --trace-schedule -q -o pigz.rep.trace pigz.trace
	if [ "$RC" = 0 ] && cmp -s run.out pigz.rec.gz &&
		[ "$(gzip -dc <run.out | md5sum)" = "$(md5sum <data.txt)" ]; then
		pass "pigz -p 2 replays with identical output bytes"
	else
		fail "pigz -p 2 replays with identical output bytes"
		show_run
	fi
	RUN_STDIN=/dev/null
else
	skip 2 "pigz is not installed"
fi

done_testing
