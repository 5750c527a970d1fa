#!/bin/bash
# SPDX-License-Identifier: MIT
# 277-a64-snapshots.t - snapshots of serial mode on aarch64 (doc/arm64.md,
# "Snapshots"): spool record --snap-period N takes copies of the program
# while every other thread is parked, and spool replay --goto EVENT restores
# the snapshot at or before EVENT into a fresh process (the threads
# recreated with their TLS, tid words and contexts: src/arch/arch_snap.h)
# and replays the rest: what the program prints from there is the tail of
# the recorded output, byte for byte.
#   - under qemu-user: rr_goto (4 threads, a mutex, a heap list) recorded
#     with chaos, snapshots taken (qemu takes a copy only as a SIGCHLD
#     child), listed by the host's spool info, and replayed from three
#     events; threads created and joined in waves (snapshots with threads
#     in their first wait and in pthread_join), replayed from every
#     snapshot; copies that run the program on with every thread recreated
#     (SPOOL_SNAP_RUN=1: each finishes with the right totals);
#   - a program built with -mbranch-protection=standard (return addresses
#     signed): no snapshot, and spool says why (a replay's new keys could not
#     check them);
#   - on a real arm64 kernel (scripts/arm64-vm.sh, one boot): the same
#     record and replays, and copies that run the program on with every
#     thread recreated (SPOOL_SNAP_RUN=1: mutexes, condition variables,
#     joins and stdio work in each copy, its totals are right).
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"

plan 25

P="$PROGS/rr_goto"

# goto_each CMP TRACE REC.OUT EVENTS...: replay from each event; prints
# "good tried bad-list". CMP: tail_ok (a proper suffix of the recorded
# output) or suffix_ok (the whole output too: a snapshot taken before the
# program's stdio buffer was first written out holds all of it)
goto_each() {
	local cmp="$1" tr="$2" rec="$3" good=0 tried=0 bad="" e rc
	shift 3
	for e in "$@"; do
		timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$e" "$tr" >replay.out 2>replay.err
		rc=$?
		tried=$((tried + 1))
		if [ "$rc" = 0 ] && "$cmp" "$rec" replay.out &&
			grep -Eq '^spool: started from snapshot [0-9]+ at schedule event' replay.err; then
			good=$((good + 1))
		else
			bad="$bad $e(rc $rc: $(grep -m1 -E 'error|started from' replay.err))"
		fi
	done
	echo "$good $tried$bad"
}

# --- qemu-user ---------------------------------------------------------------
spool_run record --chaos --snap-period 150 -o goto.trace -- "$P" 4 300
is_rc 0 "record --snap-period 150 of a 4-thread program on aarch64: exit 0" || show_run
cp run.out rec.out
NS=$(ls goto.trace/.spool/snap/ 2>/dev/null | grep -c '^snap_[0-9]*\.zst$')
num_cmp "$NS" -ge 4 "it has snapshots ($NS)"
like "$(cat run.err)" "spool: $NS snapshots \\(every 150 switches\\)" "  the summary counts them"
SNAPS=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' \
	<("$HOST_SPOOL" info goto.trace))
is "$(echo $SNAPS | wc -w)" "$NS" "the host's spool info lists the board's snapshots"
set -- $SNAPS
R=$(goto_each tail_ok goto.trace rec.out "$(($1 + 7))" "$(($2 + 50))" "$(eval echo \${$NS})")
read -r good tried bad <<<"$R"
is "$good/$tried" "3/3" "--goto from three events: each replay starts from its snapshot and prints the recorded tail, byte for byte${bad:+ (not: $bad)}"
spool_run replay --goto 3 goto.trace
like "$ERR" 'no snapshot .* at or before that event can be restored: replaying from the start' \
	"--goto before the first snapshot replays from the start and says so"
ok "  with the whole recorded output" cmp -s rec.out run.out

spool_run record --chaos --snap-period 37 -o waves.trace -- "$P" 3 20 waves=8
is_rc 0 "threads created and joined in waves, a snapshot every 37 switches: exit 0" || show_run
cp run.out waves.out
WS=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2 + 1}' \
	<("$HOST_SPOOL" info waves.trace))
num_cmp "$(echo $WS | wc -w)" -ge 4 "  snapshots taken ($(echo $WS | wc -w))"
R=$(goto_each suffix_ok waves.trace waves.out $WS)
read -r good tried bad <<<"$R"
is "$good" "$tried" "  each of the $tried replays from them prints the recorded tail${bad:+ (not: $bad)}"

# copies that run the program on (SPOOL_SNAP_RUN=1, a test of the primitive):
# every thread recreated in each copy, mutexes, condition variables, stdio
# and joins work there (the copy's tid word: arm64's clone takes ctid last)
SPOOL_SNAP_RUN=1 spool_run record --chaos --snap-period 50 -o srun.trace -- "$PROGS/rr_snap" 3 2000
NSNAP=$(sed -nE 's/^spool: ([0-9]+) snapshots? \(every 50 switches\).*/\1/p' run.err)
num_cmp "${NSNAP:-0}" -ge 3 "copies that run the program on: snapshots taken (${NSNAP:-none}), exit $RC"
NDONE=$(grep -c ' done ' run.out)
num_cmp "$NDONE" -ge "$((${NSNAP:-0} + 1))" "  the program and each copy print their last line ($NDONE)"
BAD=$(grep ' done ' run.out | grep -cv 'counter=6000 want=6000 consumed=500 want=500 sums=equal joined=5$')
is "$BAD" 0 "  in every copy the recreated threads finish: totals right, 5 joins"

# a program that signs its return addresses (pointer authentication, which
# qemu's "max" CPU has): a replay, a new exec with new keys, could not
# return through the snapshot's frames, so none is taken, and spool says why
A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
if command -v "$A64CC" >/dev/null &&
	"$A64CC" --sysroot="$QEMU_LD_PREFIX" -O2 -D_GNU_SOURCE -mbranch-protection=standard \
		-o goto-pac "$REPO/tests/progs/rr_goto.c" -lpthread 2>cc.err; then
	spool_run record --chaos --snap-period 150 -o pac.trace -- ./goto-pac 4 300
	is "$RC:$(ls pac.trace/.spool/snap/ 2>/dev/null | grep -c '^snap_')" "0:0" \
		"built with -mbranch-protection=standard: recorded, no snapshot taken"
	like "$ERR" 'no snapshots: the program signs its return addresses \(pointer authentication\)' \
		"  spool says why"
else
	skip 2 "no $A64CC for the pointer-authentication case"
fi

# --- a real arm64 kernel ---------------------------------------------------
WHY="$(a64_vm_missing)"
if [ -n "$WHY" ]; then
	skip 10 "$WHY"
	done_testing
	exit 0
fi
a64_vm_script
# (the copies that run on: a few, each a whole program on the VM's two
# emulated CPUs, a short run and a generous --stuck-ms: with 19 copies
# under a load of 20 the program's holder was starved 5 s and reported
# stuck; SPOOL_DEBUG=1: the copies' fate in srun.err)
cat >>vm.sh <<'EOF'
run vrec $S record --chaos --snap-period 150 -o vgoto.trace -- $P/rr_goto 4 300
n=0
for e in $(ls vgoto.trace/.spool/snap/ | sed -n 's/^snap_\([0-9]*\)\.zst$/\1/p'); do n=$((n + 1)); done
echo $n >vsnaps.txt
for e in 200 500 1000; do run rep$e $S replay --goto $e vgoto.trace; done
SPOOL_DEBUG=1 SPOOL_SNAP_RUN=1 run srun $S record --chaos --snap-period 100 --stuck-ms 60000 -o srun.trace -- $P/rr_snap 3 400
EOF
a64_vm_boot
is "$(cat vrec.rc 2>/dev/null)" 0 "record --snap-period 150 on the real kernel: exit 0" || diag "$(tail -3 vrec.err)"
num_cmp "$(cat vsnaps.txt 2>/dev/null || echo 0)" -ge 4 "  snapshots taken ($(cat vsnaps.txt 2>/dev/null))"
vm_goto_ok() {
	[ "$(cat rep$1.rc 2>/dev/null)" = 0 ] && suffix_ok vrec.out rep$1.out &&
		grep -q '^spool: started from snapshot' rep$1.err
}
for e in 200 500 1000; do
	ok "--goto $e on the real kernel: exit 0, from its snapshot, the recorded tail" vm_goto_ok $e ||
		diag "$(grep -m2 -E 'error|snapshot' rep$e.err 2>/dev/null)"
done
is "$(cat srun.rc 2>/dev/null)" 0 "snapshots whose copies run the program on (SPOOL_SNAP_RUN=1): exit 0" ||
	diag "$(tail -3 srun.err 2>/dev/null)"
NSNAP=$(sed -nE 's/^spool: ([0-9]+) snapshots? \(every 100 switches\).*/\1/p' srun.err 2>/dev/null)
NDONE=$(grep -c ' done ' srun.out 2>/dev/null)
num_cmp "${NDONE:-0}" -ge "$((${NSNAP:-0} + 1))" "  the program and each of its ${NSNAP:-0} copies print their last line (${NDONE:-0})" ||
	diag "$(grep -E 'snapshot copy|still runs' srun.err 2>/dev/null | head -5)"
BAD=$(grep ' done ' srun.out 2>/dev/null | grep -cv 'counter=1200 want=1200 consumed=100 want=100 sums=equal joined=5$')
is "$BAD" 0 "  in every copy the recreated threads finish: totals right, 5 joins"

done_testing
