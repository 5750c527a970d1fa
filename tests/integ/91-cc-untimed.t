#!/bin/bash
# SPDX-License-Identifier: MIT
# 91-cc-untimed.t - spool cc's untimed records (doc/cc.md, "Untimed
# records"): a merged record that follows the record before it through
# straight-line code of its block calls spool_trace_emit_nt, which reads no
# TSC; the collector gives it the time of the thread's record before it and
# spool decode adds the optimizer's estimate (table t<c>). tests/cc/tight.c
# and bank.c (transfer's last call, behind a barrier) get one at -O0, -O2 and
# -Os: --explain counts it, the table marks it, the binary calls the untimed
# entry, and the trace has records with exactly their predecessor's time
# (two rdtsc reads never give the same value) while the raw trace never goes
# back in time (babeltrace2 reads it). Decoded: the plain build's events,
# event for event, times strictly increasing (also with --no-cycles and
# through --trace-out), also through a small ring that wraps often.
# spool-ccopt --no-untimed (through SPOOL_CCOPT) makes
# none, so the counts above are not an accident of the workload; its table,
# labelled version 5, decodes as an older build's does.
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/cc/cc-lib.sh"

cc_require_tools

plan 85

explain_num() {
	sed -nE "s/.* ([0-9]+) $2.*/\\1/p" <<<"$1" | head -n 1
}

# raw_times TRACE: "EQUAL BACK" over the spool:user events of the trace as
# recorded: how many have exactly the time of the thread's event before
# them, and how many an earlier one (raw TSC cycles, zero-padded: compared
# as strings).
raw_times() {
	babeltrace2 --clock-cycles "$1" 2>/dev/null | awk '
		/spool:user/ { c = substr($1, 2, length($1) - 2); t = $0
		  sub(/.*tid = /, "", t); sub(/[^0-9].*/, "", t)
		  if (t in last) { if (c == last[t]) eq++; else if (c < last[t]) back++ }
		  last[t] = c }
		END { print eq + 0, back + 0 }'
}

have_bt=0
command -v babeltrace2 >/dev/null && have_bt=1

# A spool-ccopt that never makes untimed records.
printf '#!/bin/sh\nexec "%s" --no-untimed "$@"\n' "$CCOPT" >ccopt-timed
chmod +x ccopt-timed

for O in O0 O2 Os; do
	for p in tight bank; do
		case $p in
		tight) args=(2000 0) min=2000 ;;
		bank) args=(300) min=300 ;;
		esac
		"$CLANG" -"$O" -pthread -I"$SRC/include" "$SRC/tests/cc/$p.c" -o "$p-plain-$O"
		spool_run cc -"$O" --explain -pthread "$SRC/tests/cc/$p.c" -o "$p-cc-$O"
		is_rc 0 "-$O: $p builds with spool cc"
		n=$(explain_num "$ERR" "merged records untimed")
		num_cmp "${n:-0}" -ge 1 "-$O: $p: --explain counts untimed records ($n)"
		objcopy --dump-section .spool_cc_table="$p-$O.tab" "$p-cc-$O" "$p-$O.tmp" 2>/dev/null
		ok "  its table marks them (t<c>)" grep -Eq '^m .* t[0-9]+$' "$p-$O.tab"
		ok "  the binary calls the untimed entry" \
			sh -c "nm -D '$p-cc-$O' | grep -q ' spool_trace_emit_nt\$'"
		for b in plain cc; do
			rm -rf "t-$p-$b-$O"
			spool_run locks -q -o "t-$p-$b-$O" -- "./$p-$b-$O" "${args[@]}"
			spool_run decode "t-$p-$b-$O"
			cp run.out "dec-$p-$b-$O"
		done
		is_rc 0 "-$O: $p: the cc build's trace decodes"
		cc_same_events "dec-$p-plain-$O" "dec-$p-cc-$O" \
			"  decoded trace = plain trace, event for event"
		ok "  decoded times strictly increase" cc_increasing "dec-$p-cc-$O"
		if [ "$have_bt" = 1 ]; then
			read -r eq back < <(raw_times "t-$p-cc-$O")
			num_cmp "$eq" -ge "$min" "  records with their predecessor's time ($eq)"
			is "$back" 0 "  the raw trace never goes back in time"
		else
			skip 2 "babeltrace2 is not installed"
		fi
	done
done

# Which records: tests/cc/untimed.c's call behind a barrier is untimed (a
# lone call with a new value: a one-call merged event, for its t<c>), the
# ones after a memmove of run-time size and after a function call are not.
for O in O0 O2 Os; do
	"$CLANG" -"$O" -I"$SRC/include" "$SRC/tests/cc/untimed.c" -o "u-plain-$O"
	spool_run cc -"$O" --explain "$SRC/tests/cc/untimed.c" -o "u-cc-$O"
	is_rc 0 "-$O: untimed.c builds with spool cc"
	is "$(explain_num "$ERR" "merged records untimed")" 1 "  one untimed record"
	objcopy --dump-section .spool_cc_table="u-$O.tab" "u-cc-$O" "u-$O.tmp" 2>/dev/null
	ids=$(awk '/^m .* t[0-9]+$/ { m = 1; next } /^m / { m = 0 } m && /^e / { print $2 }' \
		"u-$O.tab" | tr '\n' ' ')
	is "$ids" "11 " "  it is EV_AFTER_BARRIER's (id 11)"
	for b in plain cc; do
		rm -rf "t-u-$b-$O"
		spool_run locks -q -o "t-u-$b-$O" -- "./u-$b-$O" 200
		spool_run decode "t-u-$b-$O"
		cp run.out "dec-u-$b-$O"
	done
	cc_same_events "dec-u-plain-$O" "dec-u-cc-$O" "  decoded trace = plain trace, event for event"
	ok "  decoded times strictly increase" cc_increasing "dec-u-cc-$O"
done

# tight at -O2 once more: --no-cycles, --trace-out, and the timed build.
spool_run decode --no-cycles t-tight-cc-O2
is_rc 0 "decode --no-cycles reads the untimed trace"
cp run.out nocyc
ok "  its times strictly increase" cc_increasing nocyc
cc_same_events dec-tight-plain-O2 nocyc "  same events"
rm -rf t-out
spool_run decode --trace-out t-out t-tight-cc-O2
is_rc 0 "decode --trace-out writes the decoded untimed trace"
spool_run decode t-out
cp run.out dec-out
ok "  its times strictly increase" cc_increasing dec-out
cc_same_events dec-tight-plain-O2 dec-out "  it holds the plain build's events"

# A 64 KiB ring: 2 MB of records wrap it about 30 times (the agent's
# general path: padding at the end, waiting for room). The events are the
# plain build's unless the ring overflowed (then decode still keeps times).
spool_run locks -q -o t-plain-big -- ./tight-plain-O2 20000 0
spool_run decode t-plain-big
cp run.out dec-plain-big
rm -rf t-small
spool_run locks -q --ring-size 64k -o t-small -- ./tight-cc-O2 20000 0
lost=$(summary_lost)
spool_run decode t-small
cp run.out dec-small
ok "a 64 KiB ring: decoded times strictly increase" cc_increasing dec-small
if [ "${lost:-1}" = 0 ]; then
	cc_same_events dec-plain-big dec-small "  decoded trace = plain trace, event for event"
else
	skip 1 "the small ring lost $lost records under load"
fi
if [ "$have_bt" = 1 ]; then
	read -r eq back < <(raw_times t-small)
	is "$back" 0 "  the raw trace never goes back in time"
else
	skip 1 "babeltrace2 is not installed"
fi

SPOOL_CCOPT="$PWD/ccopt-timed" spool_run cc -O2 --explain "$SRC/tests/cc/tight.c" -o tight-timed
is_rc 0 "spool-ccopt --no-untimed builds tight"
n=$(explain_num "$ERR" "merged records untimed")
is "$n" 0 "  and makes no untimed record"
rm -rf t-timed
spool_run locks -q -o t-timed -- ./tight-timed 2000 0
if [ "$have_bt" = 1 ]; then
	read -r eq back < <(raw_times t-timed)
	is "$eq" 0 "  no record has its predecessor's time then"
else
	skip 1 "babeltrace2 is not installed"
fi

# Older tables: the table of a build without untimed records is what a
# version 5 spool-ccopt wrote (the hash covers the lines after the header,
# which do not change); labelled version 5 it still decodes that build's
# trace. A t<c> in a version 5 table is refused.
objcopy --dump-section .spool_cc_table=timed.tab tight-timed timed.tmp 2>/dev/null
sed '1s/^spool-cc-table 6 /spool-cc-table 5 /' timed.tab >v5.tab
spool_run decode --table v5.tab t-timed
is_rc 0 "a version 5 table decodes its build's trace"
cp run.out dec-v5
cc_same_events dec-tight-plain-O2 dec-v5 "  the plain build's events"
sed '1s/^spool-cc-table 6 /spool-cc-table 5 /' tight-O2.tab >v5t.tab
spool_run decode --table v5t.tab t-tight-cc-O2
is "$RC" 1 "a t<c> in a version 5 table is refused"
like "$ERR" "corrupt" "  as a corrupt table"

done_testing
