#!/bin/bash
# SPDX-License-Identifier: MIT
# 130-zstd-all.t - Debian's zstd -T2 (libzstd's multithreaded compressor,
# linked into the stripped executable: a pthread pool with mutexes and
# condition variables, no name to probe but libc's) under every command,
# as a new user would try it: spool locks, spool probe (func:* refused
# with the reason, func: on libc's condition variable calls, args: by the
# ABI and branch: on libc's write), spool path (function entries from its
# .eh_frame), spool record and spool replay in serial and in sync mode (3
# replays each, compressing a file and compressing stdin), spool info and
# spool report on the traces. Input: 10 MB of generated text in 1 MiB
# jobs (-B), so both workers compress several.
. "$(dirname "$0")/lib.sh"
need_progs zstd
plan 29

mkdir data
seq 1 1500000 >data/in.txt
ARGS=(-q -T2 -B1048576)
zstd "${ARGS[@]}" -c data/in.txt >native.zst
zstd -q -d -c native.zst | cmp -s - data/in.txt
is "$?" 0 "zstd alone: compressed, decompressed back to the input"
OUTSIZE=$(stat -c %s native.zst)
# same_zst: the command's stdout (run.out) is zstd's own compressed output
same_zst() { [ "$RC" = 0 ] && cmp -s run.out native.zst; }

# --- locks
spool_run locks -o lk.trace -- zstd "${ARGS[@]}" -c data/in.txt
ok "locks: exit 0, zstd's own output" same_zst || show_run
report_json lk.trace
mutexes=$(json report.json "len([l for l in d['locks'] if l['type'] == 'mutex' and l['write']['acquisitions'] > 0])")
cwaits=$(json report.json "sum((l.get('cond') or {}).get('waits', 0) for l in d['locks'])")
diag "locks: ${mutexes:-?} mutexes taken, ${cwaits:-?} condition waits"
num_cmp "${mutexes:-0}" -ge 2 "locks: its pool's mutexes are listed with their acquisitions"
num_cmp "${cwaits:-0}" -ge 1 "locks: its condition variables' waits are counted"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe
spool_run probe -o fn.trace -e 'func:*' -- zstd "${ARGS[@]}" -c data/in.txt
ok "probe func:* on the stripped executable: exit status 1, with the reason and what can be probed" \
	bash -c "[ $RC = 1 ] && grep -q \"'func:\\*' matches no function of .*stripped.*func:LIB:GLOB\" run.err" || show_run
spool_run probe -o cv.trace -e 'func:libc.so*:pthread_cond_*' -- zstd "${ARGS[@]}" -c data/in.txt
ok "probe func:libc.so*:pthread_cond_*: exit 0, zstd's own output" same_zst || show_run
"$SPOOL" report --functions --json cv.trace >cv.json 2>/dev/null
inits=$(json cv.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'pthread_cond_init')")
destroys=$(json cv.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'pthread_cond_destroy')")
diag "probe: pthread_cond_init ${inits:-?} calls, pthread_cond_destroy ${destroys:-?}"
num_cmp "${inits:-0}" -ge 1 "probe: libc's pthread_cond_init calls are counted"
is "${destroys:-x}" "${inits:-y}" "probe: every condition variable zstd made it destroyed (as many calls)"
is "$(json cv.json "' '.join(sorted(set(c['name'] for f in d['functions'] if f['name'] in ('pthread_cond_wait', 'pthread_cond_init') for c in f['callers'])))")" \
	"pthread_cond_init (libspool-agent.so) pthread_cond_wait (libspool-agent.so)" \
	"probe: the caller of pthread_cond_wait and _init is spool's wrapper, named with its module (not the function itself)"

# --- probe: write's arguments and return values by the ABI, its branches
spool_run probe -o var.trace -e 'args:libc.so*:write:int,char*,unsigned long->long' \
	-e 'branch:libc.so*:write' -- zstd "${ARGS[@]}" -c data/in.txt
ok "probe args: and branch:: exit 0, zstd's own output" same_zst || show_run
"$SPOOL" report --vars --json var.trace >var.json 2>/dev/null
# arg1 and arg3 come from the same hits, in the same order
sums=$(json var.json "' '.join(str(x) for x in (lambda v: (sum(n for f, n in zip(v['arg1'], v['arg3']) if f == 1), sum(v['return'])))({n: [int(p['value']) for x in d['vars'] if x['name'] == n for p in x['values']] for n in ('arg1', 'arg3', 'return')}))")
is "$sums" "$OUTSIZE $OUTSIZE" \
	"probe: the sizes written to stdout, and the values write returned, add up to the output's size ($OUTSIZE)"
taken=$("$SPOOL" report --coverage --json var.trace 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(b["taken"] + b["not_taken"] for b in d["branches"]))')
num_cmp "${taken:-0}" -ge 1 "probe: write's branches were counted"

# --- path: the stripped executable's functions (libzstd's too) from its .eh_frame
spool_run path -o pa.trace -w path.txt -- zstd "${ARGS[@]}" -c data/in.txt
ok "path: exit 0, zstd's own output" same_zst || show_run
# BIT_initDStream's switch (5 copies): its bound check jumps to the table's
# code, after a ret; before x86_jtab.c knew that shape, its cases were
# "not reached from its code (data in the function?): not probed"
unlike "$ERR" 'are not reached from its code' \
	"path: every function's code is reached (jump tables whose bound check jumps to them)"
threads=$(awk '$1 ~ /^[0-9]+$/ {split($3, t, "/"); print t[1]}' path.txt | sort -u | wc -l)
num_cmp "$threads" -ge 3 "path: function entries of its threads (main and 2 workers at least: $threads)"
ok "path: calls that touched its pool name their locks and conditions" \
	grep -qE ' (lock|cond):[^ ]+' path.txt
"$SPOOL" path --check pa.trace >check.txt 2>/dev/null
like "$(head -n 1 check.txt)" '^[1-9][0-9]* of [0-9]+ functions entered' "path --check: how many of its functions ran"

# --- record and replay: compress a file, compress stdin
rr_corpus zstd-file serial --dir data -- zstd "${ARGS[@]}" -k -f in.txt
rr_corpus zstd-file sync --dir data -- zstd "${ARGS[@]}" -k -f in.txt
rr_corpus zstd-stdin serial --stdin "$T_DIR/data/in.txt" -- zstd "${ARGS[@]}" -c
rr_corpus zstd-stdin sync --stdin "$T_DIR/data/in.txt" -- zstd "${ARGS[@]}" -c

# --- info and report on a recording
tr="$T_DIR/corpus/zstd-file.sync/rec.trace"
"$SPOOL" info "$tr" >info.txt 2>&1
ok "info on the sync recording: exit 0, its threads, nothing lost, the trace finished" \
	bash -c "[ $? = 0 ] && grep -qx 'threads=[3-9]' info.txt && grep -qx 'lost: 0 events' info.txt &&
		grep -qx 'writer: finished' info.txt" || diag "$(cat info.txt)"
like "$(cat info.txt)" '^recording: sync mode; spool replay accepts it$' "info: the recording's mode, and that spool replay accepts it"
"$SPOOL" report "$tr" >rep.txt 2>&1
ok "report on a recording: exit 0, says why it has no lock table" \
	bash -c "[ $? = 0 ] && grep -q 'locks: not recorded' rep.txt" || diag "$(cat rep.txt)"
done_testing
