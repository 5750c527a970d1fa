#!/bin/bash
# SPDX-License-Identifier: MIT
# 124-ripgrep-all.t - Debian's ripgrep (rg: Rust, a directory walk shared
# by 2 worker threads through atomics, Rust's std locks made of its own
# futexes, PCRE2 with -P; the executable is stripped) under every command,
# as a new user would try it: spool locks (its futexes), spool probe on
# libpcre2's functions (func:, args: by the ABI, branch:), spool path
# (function entries from its .eh_frame), spool record and spool replay in
# serial mode (3 replays each: the order in which its threads printed is
# the recording's) and in sync mode (refused at record time: Rust's locks
# are its own futexes, which sync mode does not order), spool info and
# spool report on the traces. Input: a generated tree of 120 files.
. "$(dirname "$0")/lib.sh"
need_progs rg
plan 24

mkdir -p data/tree
for d in a b c d; do
	mkdir -p data/tree/$d
	for i in $(seq 1 30); do seq $((i * 100)) $((i * 100 + 300)) >data/tree/$d/f$i.txt; done
done
LINES=$(cat data/tree/*/* | wc -l)
BYTES=$(cat data/tree/*/* | wc -c)
# --sort path: one thread, a fixed order; the runs below use 2 threads, in
# whatever order they finish: compared sorted
rg --sort path -c 1234 data/tree >native.out
is "$?:$(wc -l <native.out)" "0:12" "rg alone: 12 files with a match"
# same_rg: the command's stdout (run.out), sorted, is rg's own
same_rg() { [ "$RC" = 0 ] && sort run.out | cmp -s - native.out; }

# --- locks: Rust's std locks are futexes made through syscall()
spool_run locks -o lk.trace -- rg -j2 -c 1234 data/tree
ok "locks: exit 0, rg's own output" same_rg || show_run
report_json lk.trace
nthr=$(json report.json "len(d['threads'])")
nfutex=$(json report.json "len([l for l in d['locks'] if l['type'] == 'futex'])")
diag "locks: ${nthr:-?} threads, ${nfutex:-?} futexes"
is "$nthr" 3 "locks: its 3 threads (main and 2 workers)"
num_cmp "${nfutex:-0}" -ge 1 "locks: its futexes are listed (no pthread lock is used)"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe: libpcre2's exported functions (the executable has no names)
spool_run probe -o fn.trace -e 'func:*' -- rg -j2 -c 1234 data/tree
ok "probe func:* on the stripped executable: exit status 1, with the reason" \
	bash -c "[ $RC = 1 ] && grep -q \"'func:\\*' matches no function of .*stripped\" run.err" || show_run
spool_run probe -o fn.trace -e 'func:libpcre2-8.so*:pcre2_*' -- rg -P -j2 -c '12(?=34)' data/tree
ok "probe func:libpcre2-8.so*:pcre2_*: exit 0, rg's own output" same_rg || show_run
"$SPOOL" report --functions --json fn.trace >fn.json 2>/dev/null
is "$(json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'pcre2_match_8')")" \
	"$LINES" "probe: pcre2_match_8 called once per line ($LINES)"

# --- probe: a variable (an argument by the ABI) and the branches of one function
spool_run probe -o var.trace -e 'args:libpcre2-8.so*:pcre2_match_8:long,long,long->int' \
	-e 'branch:libpcre2-8.so*:pcre2_jit_match_8' -- rg -P -j2 -c '12(?=34)' data/tree
ok "probe args: and branch:: exit 0, rg's own output" same_rg || show_run
"$SPOOL" report --vars --json var.trace >var.json 2>/dev/null
is "$(json var.json "sum(int(v['value']) for x in d['vars'] if x['name'] == 'arg3' for v in x['values'])")" \
	"$((BYTES - LINES))" "probe: pcre2_match_8's lengths add up to the lines' bytes without their newlines"
taken=$("$SPOOL" report --coverage --json var.trace 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(b["taken"] + b["not_taken"] for b in d["branches"]))')
ok "probe: pcre2_jit_match_8's branches were counted (${taken:-?})" test "${taken:-0}" -ge "$LINES"

# --- path: the stripped executable's functions from its .eh_frame
spool_run path -o pa.trace -w path.txt -- rg -j2 -c 1234 data/tree
ok "path: exit 0, rg's own output" same_rg || show_run
threads=$(awk '$1 ~ /^[0-9]+$/ {split($3, t, "/"); print t[1]}' path.txt | sort -u | wc -l)
is "$threads" 3 "path: function entries of its 3 threads"
"$SPOOL" path --check pa.trace >check.txt 2>/dev/null
like "$(head -n 1 check.txt)" '^[1-9][0-9]* of [0-9]+ functions entered' "path --check: how many of its functions ran"

# --- record and replay (the replays print in the recording's order)
rr_corpus rg-count serial --dir data -- rg -j2 -c 1234 tree
rr_corpus rg-count sync --dir data --may-diverge "Rust's locks are its own futexes" -- rg -j2 -c 1234 tree
rr_corpus rg-lines serial --dir data -- rg -j2 -n '^1.3.$' tree

# --- info and report on a recording
tr="$T_DIR/corpus/rg-lines.serial/rec.trace"
"$SPOOL" info "$tr" >info.txt 2>&1
ok "info on the serial recording: exit 0, its 3 threads, nothing lost, the trace finished" \
	bash -c "[ $? = 0 ] && grep -qx 'threads=3' info.txt && grep -qx 'lost: 0 events' info.txt &&
		grep -qx 'writer: finished' info.txt" || diag "$(cat info.txt)"
"$SPOOL" info "$T_DIR/corpus/rg-count.sync/rec.trace" >info2.txt 2>&1
like "$(cat info2.txt)" "^recording: sync mode; spool replay stops at once with: refusing to replay .* its own futexes" \
	"info on the sync recording: spool replay refuses it, and why"
like "$(cat info.txt)" '^recording: serial mode \(seed [0-9]+\); spool replay accepts it$' \
	"info on the serial recording: its mode and seed, and that spool replay accepts it"
"$SPOOL" report "$tr" >rep.txt 2>&1
ok "report on a recording: exit 0, says why it has no lock table" \
	bash -c "[ $? = 0 ] && grep -q 'locks: not recorded' rep.txt" || diag "$(cat rep.txt)"
done_testing
