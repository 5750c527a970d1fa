#!/bin/bash
# SPDX-License-Identifier: MIT
# 123-pixz-all.t - Debian's pixz (parallel, indexed xz: C, pthread queues
# of a reader, a writer and worker threads, its work in liblzma; the
# executable is stripped) under every command, as a new user would try it:
# spool locks, spool probe on liblzma's functions (func:, args: by the
# ABI, branch:), spool path (function entries from its .eh_frame), spool
# record and spool replay in serial and in sync mode (3 replays each:
# compressing stdin, a file into a file, and decompressing), spool info and
# spool report on the traces. Input: 2.6 MB of generated text in 256 KiB
# blocks (-1: a 1 MiB dictionary, -f 0.25 of it a block).
. "$(dirname "$0")/lib.sh"
need_progs pixz xz
plan 30

mkdir data
seq 1 400000 >data/in.txt
SIZE=$(stat -c %s data/in.txt)
ARGS=(-1 -f 0.25 -p 2)
pixz "${ARGS[@]}" <data/in.txt >native.pxz
# its blocks, as xz counts them
NBLOCKS=$(xz -l --robot native.pxz | awk '$1 == "totals" { print $3 }')
xz -d -c native.pxz | cmp -s - data/in.txt
ok "pixz alone: ${NBLOCKS:-?} blocks, xz decompresses them back to the input" \
	bash -c "[ $? = 0 ] && [ ${NBLOCKS:-0} -gt 2 ]"
RUN_STDIN=data/in.txt
# same_xz: the command's stdout (run.out) is pixz's own compressed output
same_xz() { [ "$RC" = 0 ] && cmp -s run.out native.pxz; }

# --- locks
spool_run locks -o lk.trace -- pixz "${ARGS[@]}"
ok "locks: exit 0, pixz's own output" same_xz || show_run
report_json lk.trace
mutexes=$(json report.json "len([l for l in d['locks'] if l['type'] == 'mutex' and l['write']['acquisitions'] > 0])")
cwaits=$(json report.json "sum((l.get('cond') or {}).get('waits', 0) for l in d['locks'])")
nthr=$(json report.json "len(set(t['tid'] for t in d.get('threads', [])))")
diag "locks: ${mutexes:-?} mutexes taken, ${cwaits:-?} condition waits, ${nthr:-?} threads"
num_cmp "${mutexes:-0}" -ge 1 "locks: its queues' mutexes are listed with their acquisitions"
num_cmp "${cwaits:-0}" -ge 1 "locks: its condition variables' waits are counted"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe: liblzma's exported functions (the executable has no names)
spool_run probe -o fn.trace -e 'func:*' -- pixz "${ARGS[@]}"
ok "probe func:* on the stripped executable: exit status 1, with the reason" \
	bash -c "[ $RC = 1 ] && grep -q \"'func:\\*' matches no function of .*stripped\" run.err" || show_run
spool_run probe -o fn.trace -e 'func:liblzma.so*:lzma_*' -- pixz "${ARGS[@]}"
ok "probe func:liblzma.so*:lzma_*: exit 0, pixz's own output" same_xz || show_run
"$SPOOL" report --functions --json fn.trace >fn.json 2>/dev/null
is "$(json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'lzma_block_encoder')")" \
	"$NBLOCKS" "probe: lzma_block_encoder called once per block ($NBLOCKS)"
nthr=$(json fn.json "len(set(t['tid'] for f in d['functions'] if f['name'] == 'lzma_block_encoder' for t in f['threads']))")
is "$nthr" 2 "probe: both worker threads compressed"

# --- probe: a variable (an argument by the ABI) and the branches of one function
spool_run probe -o var.trace -e 'args:liblzma.so*:lzma_index_append:long,long,long,long->int' \
	-e 'branch:liblzma.so*:lzma_index_append' -- pixz "${ARGS[@]}"
ok "probe args: and branch:: exit 0, pixz's own output" same_xz || show_run
"$SPOOL" report --vars --json var.trace >var.json 2>/dev/null
is "$(json var.json "sum(int(v['value']) for x in d['vars'] if x['name'] == 'arg4' for v in x['values'])")" \
	"$SIZE" "probe: lzma_index_append's uncompressed sizes add up to the input's ($SIZE bytes)"
is "$(json var.json "sorted(set(int(v['value']) for x in d['vars'] if x['name'] == 'return' for v in x['values']))")" \
	0 "probe: lzma_index_append returned LZMA_OK every time"
taken=$("$SPOOL" report --coverage --json var.trace 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(b["taken"] + b["not_taken"] for b in d["branches"]))')
ok "probe: lzma_index_append's branches were counted (${taken:-?})" test "${taken:-0}" -ge "$NBLOCKS"

# --- path: the stripped executable's functions from its .eh_frame
spool_run path -o pa.trace -w path.txt -- pixz "${ARGS[@]}"
ok "path: exit 0, pixz's own output" same_xz || show_run
threads=$(awk '$1 ~ /^[0-9]+$/ {split($3, t, "/"); print t[1]}' path.txt | sort -u | wc -l)
num_cmp "$threads" -ge 3 "path: function entries of its threads (main, reader or writer, workers): $threads"
ok "path: calls that touched its queues name their locks and conditions" \
	grep -qE ' (lock|cond):[^ ,]+' path.txt
RUN_STDIN=/dev/null

# --- record and replay
rr_corpus pixz-stdin serial --stdin "$T_DIR/data/in.txt" -- pixz "${ARGS[@]}"
rr_corpus pixz-stdin sync --stdin "$T_DIR/data/in.txt" -- pixz "${ARGS[@]}"
rr_corpus pixz-file serial --dir data -- pixz "${ARGS[@]}" in.txt in.txt.pxz
rr_corpus pixz-file sync --dir data -- pixz "${ARGS[@]}" in.txt in.txt.pxz
rr_corpus pixz-d serial --stdin "$T_DIR/native.pxz" -- pixz -d -p 2
rr_corpus pixz-d sync --stdin "$T_DIR/native.pxz" -- pixz -d -p 2

# --- info and report on a recording
tr="$T_DIR/corpus/pixz-file.serial/rec.trace"
"$SPOOL" info "$tr" >info.txt 2>&1
ok "info on the serial recording: exit 0, nothing lost, the trace finished" \
	bash -c "[ $? = 0 ] && grep -qx 'lost: 0 events' info.txt && grep -qx 'writer: finished' info.txt" ||
	diag "$(cat info.txt)"
"$SPOOL" report "$tr" >rep.txt 2>&1
ok "report on a recording: exit 0, says why it has no lock table" \
	bash -c "[ $? = 0 ] && grep -q 'locks: not recorded' rep.txt" || diag "$(cat rep.txt)"
done_testing
