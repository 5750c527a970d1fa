#!/bin/bash
# SPDX-License-Identifier: MIT
# 20-a64-features.t - what the first stage of the aarch64 port does, feature
# by feature, with spool's aarch64 build under qemu-user (make check-arm64;
# the quick part is tests/arm64/quick/): a race-free program recorded and
# replayed in both modes, the thread path, system probes, what is refused
# with its reason (probes other than func:, attach, static programs),
# and the host's x86-64 spool reading everything the "board" wrote
# (report, export, decode, path). Not covered here: ptrace under qemu-user
# (attach, spool replay --gdb) - doc/arm64.md.
. "$(dirname "$0")/lib.sh"

plan 22

# --- record/replay of a race-free program, both modes ---
for mode in serial sync; do
	spool_run record --mode "$mode" -o "bank.$mode.trace" -- "$PROGS/rr_bank" 3 500
	is_rc 0 "$mode record of rr_bank exits 0"
	cp run.out "bank.$mode.out"
	spool_run replay -q -o "bank.$mode.rep" "bank.$mode.trace"
	if [ "$RC" = 0 ] && [ -s run.out ] && cmp -s run.out "bank.$mode.out"; then
		pass "  its replay prints what the recording printed"
	else
		fail "  its replay prints what the recording printed"
		show_run
	fi
done

# --- the thread path of a replay (-finstrument-functions) ---
spool_run record --chaos --until-fail 100 -o race.trace -- "$PROGS/rr_race_counter-finst" 2 200
is_rc 1 "a racy counter's failing run is recorded"
spool_run path race.trace
is_rc 0 "spool path replays it on aarch64 and prints its function entries"
like "$OUT" 'adder' "  the racing threads' function is in the path"
# The host's spool cannot run an aarch64 program with its x86-64 agent
# (binfmt would start it, the loader would drop the agent): it refuses.
host_run path race.trace
like "$ERR" 'program for another machine' "the x86-64 spool refuses to replay an aarch64 program, saying why"

# --- system probes ---
spool_run probe -q -e sys:io -o sys.trace -- "$PROGS/probe_sys" 37 123 out.bin
is_rc 0 "spool probe -e sys:io runs the program on aarch64"
is "$(stat -c %s out.bin)" $((37 * 123)) "  the program wrote its file"
host_run report --sys --json sys.trace
is_rc 0 "the x86-64 spool reports the aarch64 system probes"
calls="$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(x["calls"] for t in d["threads"] for x in t["io"]
          if x["dir"] == "write" and x["kind"] == "file"))' run.out 2>/dev/null)"
is "$calls" 37 "  the 37 file writes are counted"

# --- refused, with the reason ---
spool_run probe -e 'func:worker' -p $$
is_rc 1 "attach (-p) is refused under qemu-user, which has no ptrace (on a real kernel it works: 276)"
like "$ERR" 'attaching .*not available' "  and spool says why"
# (snapshots were refused here until issue 18's second stage: 277 checks them)
spool_run record --chaos --snap-period 5 -o snap.trace -- "$PROGS/rr_bank" 2 2000
is_rc 0 "record --snap-period on aarch64: exit 0"
like "$ERR" 'spool: [1-9][0-9]* snapshots? \(every 5 switches\)' "  snapshots are taken"
spool_run locks -- "$PROGS/lockcount-static" 2 10
isnt_ok=$RC
num_cmp "$isnt_ok" -ne 0 "a statically linked program is refused, as on x86-64"

# --- what a recording cannot see, found in the executable (a64_rr_scan.c) ---
CROSS_CC="${CROSS_CC:-aarch64-linux-gnu-gcc}"
if command -v "$CROSS_CC" >/dev/null 2>&1; then
	cat >rawsvc.c <<'C'
#include <stdint.h>
#include <stdio.h>
int main(void)
{
	register long x8 __asm__("x8") = 172; /* getpid */
	register long x0 __asm__("x0");
	uint64_t v;

	__asm__ volatile("svc 0" : "=r"(x0) : "r"(x8) : "memory");
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	printf("pid %ld\n", x0);
	return v == 0;
}
C
	"$CROSS_CC" --sysroot="$QEMU_LD_PREFIX" -O1 -g -o rawsvc rawsvc.c
	spool_run record -o raw.trace -- ./rawsvc
	like "$ERR" 'svc at main\+0x' "record names the program's own svc instruction"
	like "$ERR" 'mrs cntvct_el0 at main\+0x' "  and its own read of the counter"
else
	skip 2 "$CROSS_CC is not installed"
fi

# --- the host reads the board's traces ---
spool_run locks -q -o locks.trace -- "$PROGS/lockcount" 2 300
host_run export --chrome -w locks.json locks.trace
is_rc 0 "the x86-64 spool exports the aarch64 lock trace (Chrome JSON)"
ok "  the export is JSON with events" python3 -c '
import json, sys
d = json.load(open("locks.json"))
ev = d["traceEvents"] if isinstance(d, dict) else d
sys.exit(0 if len(ev) > 0 else 1)'
host_run decode locks.trace
is_rc 0 "the x86-64 spool decodes the aarch64 trace"

done_testing
