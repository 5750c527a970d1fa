#!/bin/bash
# SPDX-License-Identifier: MIT
# 406-gdb-cpuid-segv.t - under a debugger the user never sees spool's own
# SIGSEGVs (issue 13, doc/record.md "The CPU's own inputs"): with CPUID
# faulting each cpuid of the program raises SIGSEGV, which the agent
# answers. gdb must pass those on silently and still stop at a real fault
# of the program, where it happens, as without spool. rr_cpuid runs cpuid
# (leaves 0, 1, 7); `rr_cpuid segv` runs cpuid, then faults into its own
# handler (siglongjmp), then cpuid again; `rr_cpuid crash` runs cpuid, then
# faults with no handler (killed by SIGSEGV). Each is replayed under
# `spool replay --gdb` (gdb the tracer: spool-gdb.py passes SIGSEGV
# silently, the agent has gdb stop at a real fault by running it again),
# under gdb's `target remote | spool replay --gdbserver -` (spool the
# tracer: it reads the siginfo and the instruction at the pc) and recorded
# in gdb's record-mode. Before, gdb stopped at every cpuid ("Program
# received signal SIGSEGV" in features()), and under --gdbserver a
# `continue` past any SIGSEGV killed the program with SIGSTKFLT (gdb's
# `vCont;C0b:TID;c`: the `c` took the signal back, and its 0 became 16).
. "$(dirname "$0")/lib.sh"

if [ "$(uname -m)" != x86_64 ] || ! grep -qw cpuid_fault /proc/cpuinfo; then
	echo "1..0 # SKIP no CPUID faulting on this machine (x86-64 cpuid_fault)"
	exit 0
fi
need_gdb

plan 22

P="$PROGS/rr_cpuid"
export SPOOL_BIN="$SPOOL"
if [ ! -r "$SPOOL_BUILD/spool-gdb.py" ]; then
	export SPOOL_GDB_SCRIPT="$REPO/src/replay/spool-gdb.py"
fi
EXT="${SPOOL_GDB_SCRIPT:-$SPOOL_BUILD/spool-gdb.py}"

for m in plain segv crash; do
	arg=$m
	[ "$m" = plain ] && arg=
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q -o "$m.trace" -- "$P" $arg \
		>"$m.rec" 2>"$m.rec.err"
done
grep -q "rdrand: hidden" plain.rec && grep -q "fault caught" segv.rec &&
	grep -q "rdrand hidden" crash.rec
ok "recorded rr_cpuid, rr_cpuid segv and rr_cpuid crash under CPUID faulting" test $? = 0 ||
	diag "$(cat ./*.rec.err)"

# nsegv FILE: how many times gdb stopped at SIGSEGV
nsegv() { grep -c "Program received signal SIGSEGV" "$1"; }

# checks WHAT FILE KIND: gdb's output FILE for one replay of KIND
checks() {
	local what=$1 f=$2 kind=$3
	case $kind in
	plain)
		is "$(nsegv "$f")" 0 "$what plain: gdb never stops at the program's cpuid"
		like "$(cat "$f")" "rdrand: hidden" "$what plain: the replay prints the recorded lines"
		like "$(cat "$f")" "exited normally" "$what plain: and ends" || diag "$(tail -20 "$f")"
		;;
	segv)
		is "$(nsegv "$f")" 1 "$what segv: gdb stops once, at the real fault" ||
			diag "$(grep -A3 "received signal" "$f" | head -20)"
		like "$(grep -A1 "received signal SIGSEGV" "$f" | head -2)" "^segv \\(\\) at .*rr_cpuid.c" \
			"$what segv: in segv(), where the program faults"
		like "$(cat "$f")" "fault caught by the program's handler: 1.*
cpuid after the fault: rdrand hidden" \
			"$what segv: continue gives the fault to the program's handler"
		like "$(cat "$f")" "exited normally" "$what segv: which ends normally" ||
			diag "$(tail -20 "$f")"
		;;
	crash)
		is "$(nsegv "$f")" 1 "$what crash: gdb stops once, at the real fault" ||
			diag "$(grep -A3 "received signal" "$f" | head -20)"
		like "$(grep -A1 "received signal SIGSEGV" "$f" | head -2)" "^crash \\(\\) at .*rr_cpuid.c" \
			"$what crash: in crash(), where the program faults"
		like "$(cat "$f")" "Program terminated with signal SIGSEGV" \
			"$what crash: continue: killed by SIGSEGV, as without spool" || diag "$(tail -20 "$f")"
		;;
	esac
}

# spool replay --gdb: gdb is the tracer
for m in plain segv crash; do
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --gdb --gdb-args \
		'-batch -nx -ex run -ex bt -ex continue' "$m.trace" >"gdb-$m.out" 2>&1
	check_sanitizer "gdb-$m.out" "spool replay --gdb"
	checks "--gdb" "gdb-$m.out" "$m"
done

# spool replay --gdbserver: spool is the tracer
for m in segv crash; do
	timeout -k 10 "$T_TIMEOUT" gdb -q -batch -nx \
		-ex "target remote | $SPOOL replay --gdbserver - $m.trace" \
		-ex continue -ex bt -ex continue "$P" >"srv-$m.out" 2>&1
	check_sanitizer "srv-$m.out" "spool replay --gdbserver"
	checks "--gdbserver" "srv-$m.out" "$m"
done

# gdb's record-mode (spool record --gdb-wrapper): recorded under gdb
timeout -k 10 "$T_TIMEOUT" gdb -q -batch -nx -x "$EXT" -ex "set spool-trace rm.trace" \
	-ex "set record-mode on" -ex run -ex bt -ex continue --args "$P" segv >rm-segv.out 2>&1
check_sanitizer rm-segv.out "gdb record-mode"
checks "record-mode" rm-segv.out segv
done_testing
