#!/bin/bash
# SPDX-License-Identifier: MIT
# 157-report-memory.t - reports keep state bounded by what they report, not
# by the number of events: the peak RSS of each report over a trace of ten
# times the events (2M against 200k, the same functions, locks and call
# sites; the text of --vars shows the first --limit values) stays within
# 2x + 16 MB of the small one's, and the large one also runs within 32 MB
# more virtual memory (ulimit -v) than the small one needs. No time is
# measured.
. "$(dirname "$0")/lib.sh"

TIME=/usr/bin/time
if [ ! -x "$TIME" ] || ! "$TIME" -f %M true >/dev/null 2>&1; then
	echo "1..0 # SKIP GNU time (/usr/bin/time -f %M) is not installed"
	exit 0
fi

REPORTS=("report --functions" "report --functions --json" "export --perfetto -w out.pf"
	 "export --chrome --force -w out.json" "export --folded -w out.folded" "info"
	 "report --locks" "report --locks --json" "report --vars")
plan $((3 + 3 * ${#REPORTS[@]}))

# peak_kb ARGS...: peak RSS in KB of spool ARGS (output dropped), rc in RC.
peak_kb() {
	"$TIME" -o rss.txt -f %M "$SPOOL" "$@" >/dev/null 2>run.err
	RC=$?
	check_sanitizer run.err "spool $*"
	tail -n 1 rss.txt
}

spool_run probe -q -o p.small -e 'func:probe_small' -- "$PROGS/probe_bench" small 50000
spool_run probe -q -o p.big -e 'func:probe_small' -- "$PROGS/probe_bench" small 500000
num_cmp "$(trace_summary p.big events)" -ge 2000000 "probe traces of 200k and 2M events"
spool_run locks -q -o l.small -- "$PROGS/bench_locks" uncontended 100000
spool_run locks -q -o l.big -- "$PROGS/bench_locks" uncontended 1000000
num_cmp "$(trace_summary l.big events)" -ge 2000000 "lock traces of 200k and 2M events"
spool_run probe -q -o v.small -e 'var:long:x@probe_small' -- "$PROGS/probe_bench" small 50000
spool_run probe -q -o v.big -e 'var:long:x@probe_small' -- "$PROGS/probe_bench" small 500000
num_cmp "$(trace_summary v.big events)" -ge 1000000 "variable traces of 1M values and more"

for r in "${REPORTS[@]}"; do
	case "$r" in
	*locks*) s=l.small b=l.big ;;
	*vars*) s=v.small b=v.big ;;
	*) s=p.small b=p.big ;;
	esac
	# shellcheck disable=SC2086 # r is words
	small=$(peak_kb $r "$s")
	# shellcheck disable=SC2086
	big=$(peak_kb $r "$b")
	is_rc 0 "$r on 2M events exits 0"
	num_cmp "$big" -le $((2 * small + 16384)) \
		"  peak RSS ${big} KB on 2M events, ${small} KB on 200k"
	if [ "$SPOOL_ASAN" = 1 ]; then
		skip 1 "ulimit -v under AddressSanitizer (it reserves terabytes)"
		continue
	fi
	# The smallest of 32, 64, 128... MB the small trace's report runs in;
	# the big one must run in 32 MB more (2M events kept at even 16 bytes
	# would not fit).
	lim=32768
	# shellcheck disable=SC2086
	until (ulimit -v "$lim"; "$SPOOL" $r "$s" >/dev/null 2>&1) || [ "$lim" -gt 4194304 ]; do
		lim=$((2 * lim))
	done
	lim=$((lim + 32768))
	# shellcheck disable=SC2086
	(ulimit -v "$lim"; "$SPOOL" $r "$b" >/dev/null 2>ulimit.err)
	is "$?" 0 "  runs within ulimit -v $lim KB, as the small one in 32 MB less"
done

done_testing
