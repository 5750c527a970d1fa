#!/bin/bash
# SPDX-License-Identifier: MIT
# probe.sh - cost of a dynamic probe hit (spool probe), timed from inside the
# program (tests/progs/probe_bench.c, clock_gettime): a tight loop of calls
# to a small function, native and with its entry and exit probed (a jump
# probe each: two hits per call), and to a 3-byte function whose probes are
# int3; a block probe (a counter, no record) on the small function; against
# uftrace when it is installed. Prints ns per call and the
# added ns per hit, beside the floor under it: one read of the time-stamp
# counter a hit (rdtsc, timed alone by the same program: 2 a call); then a whole program: pigz -p 2 compressing 50 MB with
# every libz function probed (entry and exit), native against probed, wall
# clock, as a ratio, with the probe hits the run made and the fixed cost
# (the same on an empty input); sqlite3 with every libsqlite3 function probed;
# the -O2 call-heavy program (bench/callheavy.c) whose exits go through the
# return address, against --exits patch (int3) and uftrace.
# Asserts nothing.
#   isolated:  best round of calls that fit under the ring's watermark, the
#              collector asleep: what the probe itself costs the thread
#   sustained: one long loop while the collector drains the ring on the
#              other core (wall clock; cpu = the thread's CPU time)
#   bench/probe.sh BUILD_DIR
# BENCH_PARTS (environment): the parts to run, of "small callheavy pigz
# sqlite3"; all when unset (make bench).
set -u
B="${1:-build}"
B="$(cd "$B" && pwd)"
SPOOL="$B/spool"
P="$B/tests/progs/probe_bench"
[ -x "$SPOOL" ] && [ -x "$P" ] || { echo "probe.sh: build spool and the test programs first"; exit 0; }
BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
T="$(mktemp -d /tmp/spool-bench-probe.XXXXXX)"
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
N=300000	# sustained calls (jump); 86 MB of records for the 64 MB ring
BATCH=100000	# isolated round: 14 MB, under the 16 MB watermark
NT=3000		# int3: each hit is a signal
BT=1000

# best (lowest) value of field $1 over 3 runs of the command
best() {
	local f="$1" b="" v i
	shift
	for i in 1 2 3; do
		"$@" >"$T/run.out" 2>/dev/null
		v="$(sed -n "s/^$f //p" "$T/run.out")"
		[ -n "$v" ] || continue
		if [ -z "$b" ] || awk "BEGIN{exit !($v < $b)}"; then b="$v"; fi
	done
	echo "${b:-nan}"
}
hit() { awk "BEGIN{printf \"%+.1f\", ($1 - $2) / $3}"; }
# part NAME: is NAME among BENCH_PARTS?
part() { case " ${BENCH_PARTS:-small callheavy pigz sqlite3} " in *" $1 "*) return 0 ;; esac; return 1; }

if part small; then
nb="$(best batch_ns_per_call "$P" small $N $BATCH)"
tsc="$(best batch_ns_per_call "$P" tsc $N $BATCH)"
ns="$(best ns_per_call "$P" small $N)"
J=("$SPOOL" probe -q --ring-size 64m -e 'func:probe_small' -- "$P" small $N $BATCH)
jb="$(best batch_ns_per_call "${J[@]}")"
js="$(best ns_per_call "${J[@]}")"
jc="$(best cpu_ns_per_call "${J[@]}")"
K=("$SPOOL" probe -q -e 'block:probe_small' -- "$P" small $N $BATCH)
kb="$(best batch_ns_per_call "${K[@]}")"
tb="$(best batch_ns_per_call "$P" tiny $NT $BT)"
I=("$SPOOL" probe -q --ring-size 64m -e 'func:probe_tiny3' -- "$P" tiny $NT $BT)
ib="$(best batch_ns_per_call "${I[@]}")"

echo "probe: ns per call of a small function, entry and exit probed (2 hits per call)"
printf "  native                          %9s ns\n" "$nb"
printf "  jump probes, isolated           %9s ns   %s ns per hit\n" "$jb" "$(hit "$jb" "$nb" 2)"
# Every recorded hit reads the TSC once: on the development VM (AMD EPYC)
# one rdtsc takes 9 ns of throughput, 18 of the 20.5 ns a probed call adds,
# and a hit handler written in assembly with 15 register saves less
# measured no different (doc/probe.md, "Cost": "That handler, tried and
# left out").
printf "  rdtsc alone (one a hit)         %9s ns   probes above 2 of them: %s ns per call\n" "$tsc" \
	"$(awk "BEGIN{printf \"%+.1f\", $jb - $nb - 2 * $tsc}")"
printf "  jump probes, sustained (wall)   %9s ns   %s ns per hit\n" "$js" "$(hit "$js" "$ns" 2)"
printf "  jump probes, sustained (cpu)    %9s ns   %s ns per hit\n" "$jc" "$(hit "$jc" "$ns" 2)"
printf "  block probe (a counter), isolated %7s ns   %s ns per hit\n" "$kb" "$(hit "$kb" "$nb" 1)"
printf "  native (3-byte fn)              %9s ns\n" "$tb"
printf "  int3 probes, isolated           %9s ns   %s ns per hit\n" "$ib" "$(hit "$ib" "$tb" 2)"
if command -v uftrace >/dev/null; then
	# uftrace needs -pg or -finstrument-functions for its own hooks; with
	# neither it patches the function dynamically (-P) where it can.
	u="$(best batch_ns_per_call uftrace record -d "$T/uftrace.data" --force -P probe_small \
		"$P" small $N $BATCH)"
	printf "  uftrace -P probe_small          %9s ns   %s ns per call; spool jump = %s x\n" "$u" \
		"$(hit "$u" "$nb" 1)" "$(awk "BEGIN{printf \"%.2f\", ($jb - $nb) / ($u - $nb)}")"
else
	echo "  uftrace: not installed (apt-get install uftrace to compare)"
fi
fi

# --- the -O2 call-heavy program: exits through the return address ------------
# bench/callheavy.c built with -O2: 4 small functions, 3 of whose rets GCC
# leaves without a 5-byte window. spool (default: those exits through the
# return address; --exits patch: int3), uftrace -P (dynamic patching) on
# the same binary; ns added per call (entry and exit). Isolated: the best
# round of 5000 iterations after a pause (the collector asleep, a 16 MB
# ring), best of 3 runs. Whole command: 200,000 iterations, wall clock of
# the command, best of 3, per call (the default 2 MB ring: a larger one
# costs more in first touches of its pages than it saves in waits).
CH="$T/callheavy"
if ! part callheavy; then
	:
elif cc -O2 -o "$CH" "$BENCH_DIR/callheavy.c" 2>/dev/null; then
	# chiso N BATCH CMD...: best batch_ns_per_call of 3 runs
	chiso() {
		local n="$1" b="$2"
		shift 2
		best batch_ns_per_call "$@" "$CH" "$n" "$b"
	}
	# chwall N CMD...: best wall ns of 3 runs
	chwall() {
		local n="$1" bw="" t0 t1 i
		shift
		for i in 1 2 3; do
			t0="$(date +%s%N)"
			"$@" "$CH" "$n" >/dev/null 2>&1
			t1="$(date +%s%N)"
			if [ -z "$bw" ] || [ $((t1 - t0)) -lt "$bw" ]; then bw=$((t1 - t0)); fi
		done
		echo "$bw"
	}
	SP=("$SPOOL" probe -q --ring-size 16m -o "$T/ch.trace" -e 'func:ch_*' --)
	SPP=("$SPOOL" probe -q --ring-size 16m --exits patch -o "$T/ch.trace" -e 'func:ch_*' --)
	cn="$(chiso 50000 5000 env)"
	# the records mode (the collector encodes each record); the packets in
	# the ring, the default, below
	ca="$(SPOOL_RING_PACKETS=0 chiso 50000 5000 "${SP[@]}")"
	cp="$(chiso 2000 500 "${SPP[@]}")"
	WN=200000
	wn="$(chwall $WN env)"
	wa="$(SPOOL_RING_PACKETS=0 chwall $WN "$SPOOL" probe -q -o "$T/ch.trace" -e 'func:ch_*' --)"
	pw() { awk "BEGIN{printf \"%.0f\", ($1 - $2) / (4 * $WN)}"; }
	add() { awk "BEGIN{printf \"%+.1f\", $1 - $2}"; }
	echo "probe: -O2 call-heavy program (bench/callheavy.c), 4 functions, entry and exit; ns per call"
	printf "  native                          %9s ns\n" "$cn"
	printf "  spool records mode (exits via return address), isolated %7s ns   %s ns per call; whole command %s ns per call\n" \
		"$ca" "$(add "$ca" "$cn")" "$(pw "$wa" "$wn")"
	printf "  spool --exits patch (int3), isolated %9s ns   %s ns per call\n" "$cp" "$(add "$cp" "$cn")"
	# the agent writing finished packets into its ring (doc/trace-format.md,
	# "Packets in the ring"), the collector copying them whole
	ck="$(SPOOL_RING_PACKETS=1 chiso 50000 5000 "${SP[@]}")"
	wk="$(SPOOL_RING_PACKETS=1 chwall $WN "$SPOOL" probe -q -o "$T/ch.trace" -e 'func:ch_*' --)"
	printf "  spool, packets in the ring, isolated %9s ns   %s ns per call; whole command %s ns per call\n" \
		"$ck" "$(add "$ck" "$cn")" "$(pw "$wk" "$wn")"
	# --clock=none: no time per event, the clock read once per packet
	# (doc/trace-format.md, "Traces without per-event time")
	SPN=("$SPOOL" probe -q --clock=none --ring-size 16m -o "$T/ch.trace" -e 'func:ch_*' --)
	cz="$(SPOOL_RING_PACKETS=1 chiso 50000 5000 "${SPN[@]}")"
	wz="$(SPOOL_RING_PACKETS=1 chwall $WN "$SPOOL" probe -q --clock=none -o "$T/ch.trace" -e 'func:ch_*' --)"
	printf "  spool --clock=none (packets), isolated %7s ns   %s ns per call; whole command %s ns per call\n" \
		"$cz" "$(add "$cz" "$cn")" "$(pw "$wz" "$wn")"
	if command -v uftrace >/dev/null; then
		UF=(uftrace record -d "$T/ch.uftrace" --force -P 'ch_.*')
		cu="$(chiso 50000 5000 "${UF[@]}")"
		wu="$(chwall $WN "${UF[@]}")"
		printf "  uftrace -P 'ch_.*', isolated   %9s ns   %s ns per call; whole command %s ns per call\n" \
			"$cu" "$(add "$cu" "$cn")" "$(pw "$wu" "$wn")"
		printf "  spool / uftrace: %s isolated, %s whole command\n" \
			"$(awk "BEGIN{printf \"%.2f\", ($ca - $cn) / ($cu - $cn)}")" \
			"$(awk "BEGIN{printf \"%.2f\", ($wa - $wn) / ($wu - $wn)}")"
		printf "  spool with packets in the ring / uftrace: %s isolated, %s whole command\n" \
			"$(awk "BEGIN{printf \"%.2f\", ($ck - $cn) / ($cu - $cn)}")" \
			"$(awk "BEGIN{printf \"%.2f\", ($wk - $wn) / ($wu - $wn)}")"
		printf "  spool --clock=none / uftrace: %s isolated, %s whole command\n" \
			"$(awk "BEGIN{printf \"%.2f\", ($cz - $cn) / ($cu - $cn)}")" \
			"$(awk "BEGIN{printf \"%.2f\", ($wz - $wn) / ($wu - $wn)}")"
	else
		echo "  uftrace: not installed (apt-get install uftrace to compare)"
	fi
else
	echo "probe: no C compiler: no call-heavy figure"
fi

# --- a whole program: pigz -p 2, every libz function probed -------------------
if ! part pigz; then
	:
elif command -v pigz >/dev/null; then
	# 50 MB of the system's own libraries: compressible like real data.
	find /usr/lib/x86_64-linux-gnu /usr/lib /usr/bin -maxdepth 1 -type f -size +100k 2>/dev/null |
		sort | xargs cat 2>/dev/null | head -c 50000000 >"$T/in.bin"
	mb="$(awk "BEGIN{printf \"%.0f\", $(stat -c %s "$T/in.bin") / 1e6}")"
	: >"$T/empty"
	# best wall time (ns) of native and probed, 3 runs each, interleaved so
	# that a change of the machine's load hits both alike; $1 = input file
	wall2() {
		local bn="" bp="" t0 t1 t2 i
		for i in 1 2 3; do
			t0="$(date +%s%N)"
			pigz -p 2 -c "$1" >/dev/null 2>&1
			t1="$(date +%s%N)"
			"$SPOOL" probe -q -o "$T/pigz.trace" -e 'func:libz.so*:*' -- \
				pigz -p 2 -c "$1" >/dev/null 2>&1
			t2="$(date +%s%N)"
			if [ -z "$bn" ] || [ $((t1 - t0)) -lt "$bn" ]; then bn=$((t1 - t0)); fi
			if [ -z "$bp" ] || [ $((t2 - t1)) -lt "$bp" ]; then bp=$((t2 - t1)); fi
		done
		echo "$bn $bp"
	}
	read -r en ep <<<"$(wall2 "$T/empty")"
	read -r zn zp <<<"$(wall2 "$T/in.bin")"
	hits="$("$SPOOL" report --functions --json "$T/pigz.trace" 2>/dev/null | python3 -c '
import json, sys
try:
    print(sum(2 * f["calls"] for f in json.load(sys.stdin)["functions"]))
except Exception:
    print("nan")')"
	s() { awk "BEGIN{printf \"%.3f\", $1 / 1e9}"; }
	echo "probe: pigz -p 2 compressing $mb MB, every libz function probed (func:libz.so*:*)"
	printf "  native                          %9s s\n" "$(s "$zn")"
	printf "  probed                          %9s s   slowdown %s x (%s probe hits)\n" "$(s "$zp")" \
		"$(awk "BEGIN{printf \"%.3f\", $zp / $zn}")" "$hits"
	printf "  of which fixed (empty input)    %9s s   (spool's start: plan, place, collect, write)\n" \
		"$(s $((ep - en)))"
else
	echo "probe: pigz is not installed: no whole-program figure"
fi

# sqlite3 (Debian's, libsqlite3 stripped: .dynsym only) inserting 20000 rows
# with every exported libsqlite3 function probed: wall clock, best of 3, and
# how many of its probes are int3 (each hit ~10 us). Tail calls through
# function pointers (sqlite3_mutex_enter/leave) have jump exit probes since
# they are recognized; before, their functions' exits were int3.
SQ="$(command -v sqlite3 || true)"
if ! part sqlite3; then
	:
elif [ -n "$SQ" ]; then
	cat >"$T/q.sql" <<'SQL'
create table t(a integer primary key, b text);
with recursive c(x) as (select 1 union all select x+1 from c where x<20000) insert into t select x, 'v'||x from c;
select count(*), sum(a), max(b) from t;
SQL
	: >"$T/empty.sql"
	# best wall ns of native and probed (3 runs, interleaved); $1 = script,
	# the rest: spool probe options
	sqbest() {
		local q="$1" bn="" bp="" t0 t1 t2 i
		shift
		for i in 1 2 3; do
			t0="$(date +%s%N)"
			"$SQ" :memory: <"$q" >/dev/null 2>&1
			t1="$(date +%s%N)"
			"$SPOOL" probe -q "$@" -o "$T/sq.trace" -e 'func:libsqlite3.so.0:*' -- "$SQ" :memory: \
				<"$q" >/dev/null 2>&1
			t2="$(date +%s%N)"
			if [ -z "$bn" ] || [ $((t1 - t0)) -lt "$bn" ]; then bn=$((t1 - t0)); fi
			if [ -z "$bp" ] || [ $((t2 - t1)) -lt "$bp" ]; then bp=$((t2 - t1)); fi
		done
		echo "$bn $bp"
	}
	echo "probe: sqlite3 inserting 20000 rows, every libsqlite3 function probed"
	for ex in auto patch; do
		read -r bn bp <<<"$(sqbest "$T/q.sql" --exits $ex)"
		read -r en ep <<<"$(sqbest "$T/empty.sql" --exits $ex)"
		ni="$("$SPOOL" probe --list --exits $ex -e 'func:libsqlite3.so.0:*' -- "$SQ" 2>/dev/null | tail -1)"
		printf "  --exits %-5s native %.3f s, probed %.3f s: slowdown %s x; without spool's fixed cost (empty input: %.3f s) %s x (%s)\n" \
			"$ex" "$(awk "BEGIN{print $bn / 1e9}")" "$(awk "BEGIN{print $bp / 1e9}")" \
			"$(awk "BEGIN{printf \"%.1f\", $bp / $bn}")" "$(awk "BEGIN{print ($ep - $en) / 1e9}")" \
			"$(awk "BEGIN{printf \"%.1f\", ($bp - ($ep - $en)) / $bn}")" "$ni"
	done
	# the same with packets in the ring (the agent encodes, the collector
	# copies packets) against records (the collector encodes each one)
	read -r bn bp <<<"$(SPOOL_RING_PACKETS=1 sqbest "$T/q.sql" --exits auto)"
	read -r en ep <<<"$(SPOOL_RING_PACKETS=1 sqbest "$T/empty.sql" --exits auto)"
	printf "  packets in the ring: native %.3f s, probed %.3f s: slowdown %s x; without the fixed cost (%.3f s) %s x\n" \
		"$(awk "BEGIN{print $bn / 1e9}")" "$(awk "BEGIN{print $bp / 1e9}")" \
		"$(awk "BEGIN{printf \"%.1f\", $bp / $bn}")" "$(awk "BEGIN{print ($ep - $en) / 1e9}")" \
		"$(awk "BEGIN{printf \"%.1f\", ($bp - ($ep - $en)) / $bn}")"
	# CPU of the sqlite3 process alone (perf's cpu-clock samples at 10 kHz
	# by command name, best of 3): what the probes cost the program, apart
	# from spool's own process and from the machine's load, which the wall
	# clock above mixes in.
	if command -v perf >/dev/null && perf record -q -e cpu-clock -o "$T/p.data" true >/dev/null 2>&1; then
		# sqcpu CMD...: the ms of CPU the sqlite3 process used, best of 3
		sqcpu() {
			local b="" v i
			for i in 1 2 3; do
				perf record -q -e cpu-clock -F 10000 -o "$T/p.data" -- "$@" <"$T/q.sql" \
					>/dev/null 2>&1
				v="$(perf report -i "$T/p.data" --sort comm -F comm,sample --stdio 2>/dev/null |
					awk '$1 == "sqlite3" { printf "%.1f", $2 / 10 }')"
				[ -n "$v" ] || continue
				if [ -z "$b" ] || awk "BEGIN{exit !($v < $b)}"; then b="$v"; fi
			done
			echo "${b:-nan}"
		}
		cn="$(sqcpu "$SQ" :memory:)"
		cp="$(sqcpu "$SPOOL" probe -q -o "$T/sq.trace" -e 'func:libsqlite3.so.0:*' -- "$SQ" :memory:)"
		printf "  CPU of the sqlite3 process (perf samples): native %s ms, probed %s ms: %s x\n" \
			"$cn" "$cp" "$(awk "BEGIN{printf \"%.1f\", $cp / $cn}")"
	fi
	# spool's fixed cost alone: planning (--list: ELF, .eh_frame, decoding
	# every probed function) and the whole command on an empty input, CPU
	# time of spool and sqlite3 together (wall clock on a loaded VM is
	# mostly waiting). Issue 16, perf stat -r 5 on the development VM at
	# load 13 - 14: planning 86.8 -> 55.5 ms CPU, an empty input 124.5 ->
	# 65.0 ms CPU, the 20000 rows 263 -> 215 ms CPU (native 9.7 ms).
	cpu_ms() {
		/usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null </dev/null | tail -n 1 |
			awk '{printf "%.0f", ($1 + $2) * 1000}'
	}
	# The plan cache (doc/probe.md): the runs above after the first load
	# the plan saved by the first; an empty input planned every time
	# (SPOOL_PLAN_CACHE=0) against one whose plan is cached.
	if [ -x /usr/bin/time ]; then
		printf "  fixed cost, CPU ms (best of 3): planning (--list) %s, an empty input %s (plan cached), %s (planned: SPOOL_PLAN_CACHE=0)\n" \
			"$(for i in 1 2 3; do cpu_ms "$SPOOL" probe --list -e 'func:libsqlite3.so.0:*' "$SQ"; echo; done | sort -n | head -n 1)" \
			"$(for i in 1 2 3; do cpu_ms "$SPOOL" probe -q -o "$T/sq.trace" -e 'func:libsqlite3.so.0:*' -- "$SQ" :memory:; echo; done | sort -n | head -n 1)" \
			"$(for i in 1 2 3; do SPOOL_PLAN_CACHE=0 cpu_ms "$SPOOL" probe -q -o "$T/sq.trace" -e 'func:libsqlite3.so.0:*' -- "$SQ" :memory:; echo; done | sort -n | head -n 1)"
	fi
else
	echo "probe: sqlite3 is not installed: no sqlite3 figure"
fi
