#!/bin/bash
# SPDX-License-Identifier: MIT
# 122-plzip-all.t - Debian's plzip (lzip's parallel compressor: C++, a
# pthread mutex and condition variable per queue, its work in liblz; the
# executable is stripped) under every command, as a new user would try it:
# spool locks, spool probe on liblz's functions (func:, args: by the ABI,
# branch:), spool path (function entries from its .eh_frame), spool record
# and spool replay in serial and in sync mode (3 replays each, compressing
# into a file and decompressing stdin), spool info and spool report on the
# traces. Input: 2.6 MB of generated text in 256 KiB blocks (-B), so 2
# worker threads each compress several blocks.
. "$(dirname "$0")/lib.sh"
need_progs plzip
plan 29

mkdir data
seq 1 400000 >data/in.txt
SIZE=$(stat -c %s data/in.txt)
BLOCK=262144
NBLOCKS=$(((SIZE + BLOCK - 1) / BLOCK))
LAST=$((SIZE - (NBLOCKS - 1) * BLOCK))
ARGS=(-n2 -1 -B "$BLOCK")
plzip "${ARGS[@]}" -c data/in.txt >native.lz
plzip -d -c native.lz | cmp -s - data/in.txt
is "$?" 0 "plzip alone: $NBLOCKS blocks, decompressed back to the input"
# same_lz: the command's stdout (run.out) is plzip's own compressed output
same_lz() { [ "$RC" = 0 ] && cmp -s run.out native.lz; }

# --- locks
spool_run locks -o lk.trace -- plzip "${ARGS[@]}" -c data/in.txt
ok "locks: exit 0, plzip's own output" same_lz || show_run
report_json lk.trace
mutexes=$(json report.json "len([l for l in d['locks'] if l['type'] == 'mutex' and l['write']['acquisitions'] > 0])")
cwaits=$(json report.json "sum((l.get('cond') or {}).get('waits', 0) for l in d['locks'])")
diag "locks: ${mutexes:-?} mutexes taken, ${cwaits:-?} condition waits"
num_cmp "${mutexes:-0}" -ge 1 "locks: its queues' mutexes are listed with their acquisitions"
num_cmp "${cwaits:-0}" -ge 1 "locks: its condition variables' waits are counted"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe: liblz's exported functions (the executable has no names)
spool_run probe -o fn.trace -e 'func:*' -- plzip "${ARGS[@]}" -c data/in.txt
ok "probe func:* on the stripped executable: exit status 1, with the reason and what can be probed" \
	bash -c "[ $RC = 1 ] && grep -q \"'func:\\*' matches no function of .*stripped.*func:LIB:GLOB\" run.err" || show_run
spool_run probe -o fn.trace -e 'func:liblz.so*:*' -- plzip "${ARGS[@]}" -c data/in.txt
ok "probe func:liblz.so*:*: exit 0, plzip's own output" same_lz || show_run
"$SPOOL" report --functions --json fn.trace >fn.json 2>/dev/null
is "$(json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'LZ_compress_write')")" \
	"$NBLOCKS" "probe: LZ_compress_write called once per block ($NBLOCKS)"
nthr=$(json fn.json "len(set(t['tid'] for f in d['functions'] if f['name'] == 'LZ_compress_write' for t in f['threads']))")
is "$nthr" 2 "probe: both worker threads compressed"

# --- probe: a variable (an argument by the ABI) and the branches of one function
spool_run probe -o var.trace -e 'args:liblz.so*:LZ_compress_write:long,long,int->int' \
	-e 'branch:liblz.so*:LZ_compress_write' -- plzip "${ARGS[@]}" -c data/in.txt
ok "probe args: and branch:: exit 0, plzip's own output" same_lz || show_run
"$SPOOL" report --vars --json var.trace >var.json 2>/dev/null
is "$(json var.json "sorted(set(int(v['value']) for x in d['vars'] if x['name'] == 'arg3' for v in x['values']))" | tr '\n' ' ')" \
	"$(printf '%s\n' "$LAST" "$BLOCK" | sort -n | tr '\n' ' ')" \
	"probe: LZ_compress_write's size argument is the block size, and the rest for the last block"
"$SPOOL" report --coverage var.trace >cov.txt 2>/dev/null
taken=$("$SPOOL" report --coverage --json var.trace 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(b["taken"] + b["not_taken"] for b in d["branches"]))')
ok "probe: LZ_compress_write's branches were counted ($taken)" test "${taken:-0}" -ge "$NBLOCKS"
like "$(grep -A 1 '^branches' cov.txt | tail -n 1)" '^  liblz\.so[.0-9]*\+0x[0-9a-f]+ +taken +[0-9]+ -> 0x' \
	"report --coverage: a branch of a library without DWARF is named by the library's address, its ways by theirs" ||
	diag "$(sed -n '/^branches/,$p' cov.txt | head -n 5)"

# --- path: the stripped executable's functions from its .eh_frame
spool_run path -o pa.trace -w path.txt -- plzip "${ARGS[@]}" -c data/in.txt
ok "path: exit 0, plzip's own output" same_lz || show_run
unlike "$ERR" 'static functions cannot be probed by name' \
	"path: no note that the stripped file's functions cannot be probed (path probes them)"
threads=$(awk '$1 ~ /^[0-9]+$/ {split($3, t, "/"); print t[1]}' path.txt | sort -u | wc -l)
is "$threads" 4 "path: function entries of its 4 threads"
ok "path: calls that touched its queues name their locks and conditions" \
	grep -qE ' (lock|cond):[^ ,]+' path.txt
"$SPOOL" path --check pa.trace >check.txt 2>/dev/null
like "$(head -n 1 check.txt)" '^[1-9][0-9]* of [0-9]+ functions entered' "path --check: how many of its functions ran"

# --- record and replay: compress into a file, decompress stdin
rr_corpus plzip-file serial --dir data -- plzip "${ARGS[@]}" -k -f in.txt
rr_corpus plzip-file sync --dir data -- plzip "${ARGS[@]}" -k -f in.txt
rr_corpus plzip-d serial --stdin "$T_DIR/native.lz" -- plzip -n2 -d
rr_corpus plzip-d sync --stdin "$T_DIR/native.lz" -- plzip -n2 -d

# --- info and report on a recording
tr="$T_DIR/corpus/plzip-d.sync/rec.trace"
"$SPOOL" info "$tr" >info.txt 2>&1
ok "info on the sync recording: exit 0, its 4 threads, nothing lost, the trace finished" \
	bash -c "[ $? = 0 ] && grep -qx 'threads=4' info.txt && grep -qx 'lost: 0 events' info.txt &&
		grep -qx 'writer: finished' info.txt" || diag "$(cat info.txt)"
like "$(cat info.txt)" '^recording: sync mode; spool replay accepts it$' "info: the recording's mode, and that spool replay accepts it"
"$SPOOL" report "$tr" >rep.txt 2>&1
ok "report on a recording: exit 0, says why it has no lock table" \
	bash -c "[ $? = 0 ] && grep -q 'locks: not recorded' rep.txt" || diag "$(cat rep.txt)"
done_testing
