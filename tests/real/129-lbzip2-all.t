#!/bin/bash
# SPDX-License-Identifier: MIT
# 129-lbzip2-all.t - Debian's lbzip2 (parallel bzip2 in C: its own bzip2
# code, -n worker threads, a reader and a writer over pthread mutexes and
# condition variables; stripped, its only exported functions are warn and
# warnx) under every command, as a new user would try it: spool locks,
# spool probe (func:* on the executable, func: on libc's condition
# variable calls, args: by the ABI and branch: on libc's write), spool path
# (function entries from its .eh_frame), spool record and spool replay in
# serial and in sync mode (3 replays each, compressing a file and
# decompressing stdin), spool info and spool report on the traces.
# Input: 2 MB of generated text, -n2.
. "$(dirname "$0")/lib.sh"
need_progs lbzip2
plan 29

mkdir data
seq 1 300000 >data/in.txt
ARGS=(-n2)
lbzip2 "${ARGS[@]}" -c data/in.txt >native.bz2
lbzip2 -d -c native.bz2 | cmp -s - data/in.txt
is "$?" 0 "lbzip2 alone: compressed, decompressed back to the input"
OUTSIZE=$(stat -c %s native.bz2)
# same_bz2: the command's stdout (run.out) is lbzip2's own compressed output
same_bz2() { [ "$RC" = 0 ] && cmp -s run.out native.bz2; }

# --- locks
spool_run locks -o lk.trace -- lbzip2 "${ARGS[@]}" -c data/in.txt
ok "locks: exit 0, lbzip2's own output" same_bz2 || show_run
report_json lk.trace
mutexes=$(json report.json "len([l for l in d['locks'] if l['type'] == 'mutex' and l['write']['acquisitions'] > 0])")
lthreads=$(json report.json "len(d['threads'])")
diag "locks: ${mutexes:-?} mutexes taken, by ${lthreads:-?} threads"
num_cmp "${mutexes:-0}" -ge 1 "locks: its mutexes are listed with their acquisitions"
num_cmp "${lthreads:-0}" -ge 3 "locks: its threads are listed (main, 2 workers, ...)"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe: func:* finds only the executable's 2 exported functions
spool_run probe -o fn.trace -e 'func:*' -- lbzip2 "${ARGS[@]}" -c data/in.txt
ok "probe func:* on the stripped executable: exit 0, lbzip2's own output, says it is stripped" \
	bash -c "same_bz2() { [ $RC = 0 ] && cmp -s run.out native.bz2; }; same_bz2 && grep -q 'stripped' run.err" || show_run
"$SPOOL" report --functions --json fn.trace >fn.json 2>/dev/null
is "$(json fn.json "' '.join(sorted(f['name'] for f in d['functions']))")" "warn warnx" \
	"probe func:*: its exported functions warn and warnx were probed (never called: no calls)" ||
	diag "$(head -c 400 fn.json)"
like "$ERR" '^\(none of the 2 functions probed was called\)$' \
	"probe func:*: the report says none of the functions probed was called (not an empty table alone)"
spool_run probe -o cv.trace -e 'func:libc.so*:pthread_cond_*' -- lbzip2 "${ARGS[@]}" -c data/in.txt
ok "probe func:libc.so*:pthread_cond_*: exit 0, lbzip2's own output" same_bz2 || show_run
"$SPOOL" report --functions --json cv.trace >cv.json 2>/dev/null
waits=$(json cv.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'pthread_cond_wait')")
signals=$(json cv.json "sum(f['calls'] for f in d['functions'] if f['name'] in ('pthread_cond_signal', 'pthread_cond_broadcast'))")
diag "probe: pthread_cond_wait ${waits:-?} calls, signal and broadcast ${signals:-?}"
num_cmp "${signals:-0}" -ge 1 "probe: libc's pthread_cond_signal/broadcast calls are counted"

# --- probe: write's arguments and return values by the ABI, its branches
spool_run probe -o var.trace -e 'args:libc.so*:write:int,char*,unsigned long->long' \
	-e 'branch:libc.so*:write' -- lbzip2 "${ARGS[@]}" -c data/in.txt
ok "probe args: and branch:: exit 0, lbzip2's own output" same_bz2 || show_run
"$SPOOL" report --vars --json var.trace >var.json 2>/dev/null
# arg1 and arg3 come from the same hits, in the same order
sums=$(json var.json "' '.join(str(x) for x in (lambda v: (sum(n for f, n in zip(v['arg1'], v['arg3']) if f == 1), sum(v['return'])))({n: [int(p['value']) for x in d['vars'] if x['name'] == n for p in x['values']] for n in ('arg1', 'arg3', 'return')}))")
is "$sums" "$OUTSIZE $OUTSIZE" \
	"probe: the sizes written to stdout, and the values write returned, add up to the output's size ($OUTSIZE)"
# libc's write has several rets, one return-value timeline each: the text
# report tells them apart by their probe numbers, as --list shows them
"$SPOOL" report --vars var.trace >var.txt 2>/dev/null
nret=$(json var.json "len([x for x in d['vars'] if x['name'] == 'return'])")
labels=$(grep '^variable return ' var.txt | sed 's/:[^:]*values.*//' | sort -u | wc -l)
ok "report --vars: write's $nret return-value timelines have $nret different labels" \
	bash -c "[ \"${nret:-0}\" -ge 1 ] && [ \"$labels\" = \"$nret\" ]" ||
	diag "$(grep '^variable return ' var.txt)"
taken=$("$SPOOL" report --coverage --json var.trace 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(b["taken"] + b["not_taken"] for b in d["branches"]))')
num_cmp "${taken:-0}" -ge 1 "probe: write's branches were counted"

# --- path: the stripped executable's functions from its .eh_frame
spool_run path -o pa.trace -w path.txt -- lbzip2 "${ARGS[@]}" -c data/in.txt
ok "path: exit 0, lbzip2's own output" same_bz2 || show_run
threads=$(awk '$1 ~ /^[0-9]+$/ {split($3, t, "/"); print t[1]}' path.txt | sort -u | wc -l)
num_cmp "$threads" -ge 3 "path: function entries of its threads ($threads)"
ok "path: calls that touched its queues name their locks" grep -qE ' (lock|cond):[^ ]+' path.txt
"$SPOOL" path --check pa.trace >check.txt 2>/dev/null
like "$(head -n 1 check.txt)" '^[1-9][0-9]* of [0-9]+ functions entered' "path --check: how many of its functions ran"

# --- record and replay: compress a file, decompress stdin
rr_corpus lbzip2-file serial --dir data -- lbzip2 "${ARGS[@]}" -k -f in.txt
rr_corpus lbzip2-file sync --dir data -- lbzip2 "${ARGS[@]}" -k -f in.txt
rr_corpus lbzip2-d serial --stdin "$T_DIR/native.bz2" -- lbzip2 -n2 -d
rr_corpus lbzip2-d sync --stdin "$T_DIR/native.bz2" -- lbzip2 -n2 -d

# --- info and report on a recording
tr="$T_DIR/corpus/lbzip2-d.sync/rec.trace"
"$SPOOL" info "$tr" >info.txt 2>&1
ok "info on the sync recording: exit 0, its threads, nothing lost, the trace finished" \
	bash -c "[ $? = 0 ] && grep -qx 'threads=[3-9]' info.txt && grep -qx 'lost: 0 events' info.txt &&
		grep -qx 'writer: finished' info.txt" || diag "$(cat info.txt)"
like "$(cat info.txt)" '^recording: sync mode; spool replay accepts it$' "info: the recording's mode, and that spool replay accepts it"
"$SPOOL" report "$tr" >rep.txt 2>&1
ok "report on a recording: exit 0, says why it has no lock table" \
	bash -c "[ $? = 0 ] && grep -q 'locks: not recorded' rep.txt" || diag "$(cat rep.txt)"
done_testing
