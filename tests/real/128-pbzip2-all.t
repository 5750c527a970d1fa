#!/bin/bash
# SPDX-License-Identifier: MIT
# 128-pbzip2-all.t - Debian's pbzip2 (parallel bzip2: C++, a producer, -p
# consumer threads and a writer handing 100 KB blocks over pthread mutexes
# and condition variables; its work in libbz2; the executable and libbz2
# are stripped) under every command, as a new user would try it: spool
# locks, spool probe on libbz2's exported functions (func:, args: by the
# ABI, branch:), spool path (function entries from its .eh_frame), spool
# record and spool replay in serial and in sync mode (3 replays each,
# compressing a file and decompressing stdin), spool info and spool report
# on the traces. Input: 2 MB of generated text, -b1 (100 KB blocks), -p2.
. "$(dirname "$0")/lib.sh"
need_progs pbzip2
plan 28

mkdir data
seq 1 300000 >data/in.txt
SIZE=$(stat -c %s data/in.txt)
BLOCK=100000
NBLOCKS=$(((SIZE + BLOCK - 1) / BLOCK))
LAST=$((SIZE - (NBLOCKS - 1) * BLOCK))
ARGS=(-p2 -b1)
pbzip2 "${ARGS[@]}" -c data/in.txt >native.bz2
pbzip2 -d -c native.bz2 | cmp -s - data/in.txt
is "$?" 0 "pbzip2 alone: $NBLOCKS blocks, decompressed back to the input"
# same_bz2: the command's stdout (run.out) is pbzip2's own compressed output
same_bz2() { [ "$RC" = 0 ] && cmp -s run.out native.bz2; }

# --- locks
spool_run locks -o lk.trace -- pbzip2 "${ARGS[@]}" -c data/in.txt
ok "locks: exit 0, pbzip2's own output" same_bz2 || show_run
report_json lk.trace
mutexes=$(json report.json "len([l for l in d['locks'] if l['type'] == 'mutex' and l['write']['acquisitions'] > 0])")
cwaits=$(json report.json "sum((l.get('cond') or {}).get('waits', 0) for l in d['locks'])")
diag "locks: ${mutexes:-?} mutexes taken, ${cwaits:-?} condition waits"
num_cmp "${mutexes:-0}" -ge 2 "locks: its queue's and its writer's mutexes are listed with their acquisitions"
num_cmp "${cwaits:-0}" -ge 1 "locks: its condition variables' waits are counted"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe: libbz2's exported functions (the executable has no names)
spool_run probe -o fn.trace -e 'func:*' -- pbzip2 "${ARGS[@]}" -c data/in.txt
ok "probe func:* on the stripped executable: exit status 1, with the reason and what can be probed" \
	bash -c "[ $RC = 1 ] && grep -q \"'func:\\*' matches no function of .*stripped.*func:LIB:GLOB\" run.err" || show_run
spool_run probe -o fn.trace -e 'func:libbz2*:*' -- pbzip2 "${ARGS[@]}" -c data/in.txt
ok "probe func:libbz2*:*: exit 0, pbzip2's own output" same_bz2 || show_run
"$SPOOL" report --functions --json fn.trace >fn.json 2>/dev/null
is "$(json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'BZ2_bzBuffToBuffCompress')")" \
	"$NBLOCKS" "probe: BZ2_bzBuffToBuffCompress called once per block ($NBLOCKS)"
nthr=$(json fn.json "len(set(t['tid'] for f in d['functions'] if f['name'] == 'BZ2_bzBuffToBuffCompress' for t in f['threads']))")
is "$nthr" 2 "probe: both consumer threads compressed"

# --- probe: the arguments by the ABI and the branches of one function
spool_run probe -o var.trace \
	-e 'args:libbz2*:BZ2_bzBuffToBuffCompress:char*,unsigned*,char*,unsigned,int,int,int->int' \
	-e 'branch:libbz2*:BZ2_bzBuffToBuffCompress' -- pbzip2 "${ARGS[@]}" -c data/in.txt
ok "probe args: and branch:: exit 0, pbzip2's own output" same_bz2 || show_run
"$SPOOL" report --vars --json var.trace >var.json 2>/dev/null
is "$(json var.json "sorted(set(int(v['value']) for x in d['vars'] if x['name'] == 'arg4' for v in x['values']))" | tr '\n' ' ')" \
	"$(printf '%s\n' "$LAST" "$BLOCK" | sort -n | tr '\n' ' ')" \
	"probe: the source length argument is the block size, and the rest for the last block"
is "$(json var.json "sorted(set(int(v['value']) for x in d['vars'] if x['name'] == 'return' for v in x['values']))")" \
	0 "probe: every call returned BZ_OK (0)"
taken=$("$SPOOL" report --coverage --json var.trace 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(b["taken"] + b["not_taken"] for b in d["branches"]))')
ok "probe: BZ2_bzBuffToBuffCompress's branches were counted ($taken)" test "${taken:-0}" -ge "$NBLOCKS"

# --- path: the stripped executable's functions from its .eh_frame
spool_run path -o pa.trace -w path.txt -- pbzip2 "${ARGS[@]}" -c data/in.txt
ok "path: exit 0, pbzip2's own output" same_bz2 || show_run
threads=$(awk '$1 ~ /^[0-9]+$/ {split($3, t, "/"); print t[1]}' path.txt | sort -u | wc -l)
num_cmp "$threads" -ge 4 "path: function entries of its threads (main, 2 consumers, writer: $threads)"
ok "path: calls that touched its queues name their locks and conditions" \
	grep -qE ' (lock|cond):[^ ]+' path.txt
"$SPOOL" path --check pa.trace >check.txt 2>/dev/null
like "$(head -n 1 check.txt)" '^[1-9][0-9]* of [0-9]+ functions entered' "path --check: how many of its functions ran"

# --- record and replay: compress a file, decompress stdin
rr_corpus pbzip2-file serial --dir data -- pbzip2 "${ARGS[@]}" -k -f in.txt
rr_corpus pbzip2-file sync --dir data -- pbzip2 "${ARGS[@]}" -k -f in.txt
rr_corpus pbzip2-d serial --stdin "$T_DIR/native.bz2" -- pbzip2 -p2 -d -c
rr_corpus pbzip2-d sync --stdin "$T_DIR/native.bz2" -- pbzip2 -p2 -d -c

# --- info and report on a recording
tr="$T_DIR/corpus/pbzip2-file.sync/rec.trace"
"$SPOOL" info "$tr" >info.txt 2>&1
ok "info on the sync recording: exit 0, its threads, nothing lost, the trace finished" \
	bash -c "[ $? = 0 ] && grep -qx 'threads=[4-9]' info.txt && grep -qx 'lost: 0 events' info.txt &&
		grep -qx 'writer: finished' info.txt" || diag "$(cat info.txt)"
like "$(cat info.txt)" '^recording: sync mode; spool replay accepts it$' "info: the recording's mode, and that spool replay accepts it"
"$SPOOL" report "$tr" >rep.txt 2>&1
ok "report on a recording: exit 0, says why it has no lock table" \
	bash -c "[ $? = 0 ] && grep -q 'locks: not recorded' rep.txt" || diag "$(cat rep.txt)"
done_testing
