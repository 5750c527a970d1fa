#!/bin/bash
# SPDX-License-Identifier: MIT
# 146-ffmpeg-threads-all.t - Debian's ffmpeg 5.1 (stripped executable,
# stripped libraries: libavcodec, libavutil's slice threads, libavfilter's
# lavfi source) encoding a synthetic input (testsrc, 1 s at 10 frames/s) to
# MPEG-4 with -threads 2, printing each frame's MD5 (framemd5), under every
# command as a new user would try it: spool locks, spool probe (func: on
# libavcodec's API, block: on libavutil's av_frame_ref, sys:io), spool
# path, spool record and spool replay in serial and in sync mode (3 replays
# each; sync mode may stop at a reported divergence: the slice threads hand
# out their jobs with atomics), spool record --snap-period and spool
# replay --goto (each snapshot holds some 124 MB of writable memory), spool
# probe -p attached to an ffmpeg encoding in real time (-re), spool report,
# export and info.
. "$(dirname "$0")/lib.sh"
need_progs ffmpeg
plan 26

FF=(ffmpeg -nostdin -hide_banner -loglevel error -f lavfi -i testsrc=size=160x120:rate=10:duration=1
	-threads 2 -c:v mpeg4 -f framemd5 -)
"${FF[@]}" >native.md5 2>native.err
rc=$?
ok "ffmpeg alone: exit 0, 10 frames' MD5s" \
	bash -c "[ $rc = 0 ] && [ \$(grep -c '^0, ' native.md5) = 10 ]" || diag "$(cat native.md5 native.err)"
"${FF[@]}" >native2.md5 2>/dev/null
ok "ffmpeg alone: the same MD5s again (its output is deterministic)" cmp -s native.md5 native2.md5
OUTSIZE=$(stat -c %s native.md5)
same_md5() { [ "$RC" = 0 ] && cmp -s run.out native.md5; }

# --- locks
spool_run locks -o lk.trace -- "${FF[@]}"
ok "locks: exit 0, ffmpeg's own output" same_md5 || show_run
report_json lk.trace
mutexes=$(json report.json "sum(l['acquisitions'] for l in d['locks'] if l['type'] == 'mutex')")
cwaits=$(json report.json "sum((l.get('cond') or {}).get('waits', 0) for l in d['locks'])")
sliced=$(json report.json "len([l for l in d['locks'] if l['name'].startswith('avpriv_slicethread_create')])")
diag "locks: ${mutexes:-?} mutex acquisitions, ${cwaits:-?} condition waits, ${sliced:-?} slice-thread locks"
num_cmp "${mutexes:-0}" -ge 50 "locks: libav's mutexes are listed with their acquisitions"
num_cmp "${cwaits:-0}" -ge 1 "locks: the slice threads' condition waits are counted"
num_cmp "${sliced:-0}" -ge 1 "locks: the slice threads' locks are named by the function that made them"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe
spool_run probe -o fa.trace -e 'func:libavcodec.so*:avcodec_send_frame' \
	-e 'block:libavutil.so*:av_frame_ref' -e sys:io -- "${FF[@]}"
ok "probe func:, block:, sys:io: exit 0, ffmpeg's own output" same_md5 || show_run
"$SPOOL" report --functions --json fa.trace >fa.json 2>/dev/null
is "$(json fa.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'avcodec_send_frame')")" 11 \
	"probe: avcodec_send_frame ran once a frame and once to flush (11)"
"$SPOOL" report --coverage --json fa.trace >cov.json 2>/dev/null
hit=$(json cov.json "sum(f['blocks_hit'] for f in d['functions'] if f['name'] == 'av_frame_ref')")
num_cmp "${hit:-0}" -ge 5 "probe: block: counted av_frame_ref's blocks (${hit:-?} hit)"
"$SPOOL" report --sys --json fa.trace >sys.json 2>/dev/null
is "$(json sys.json "sum(r['bytes'] for t in d['threads'] for r in t['io'] if r['dir'] == 'write')")" "$OUTSIZE" \
	"probe sys:io: the bytes written are the output's ($OUTSIZE)"

# --- path: the stripped executable's functions from its .eh_frame
spool_run path -o pa.trace -w path.txt -- "${FF[@]}"
ok "path: exit 0, ffmpeg's own output" same_md5 || show_run
nent=$(grep -c '^ *[0-9]' path.txt)
num_cmp "$nent" -ge 100 "path: the executable's function entries ($nent)"

# --- record and replay
rr_corpus ffmpeg serial -- "${FF[@]}"
rr_corpus ffmpeg sync --may-diverge "the slice threads hand out jobs with atomics" -- "${FF[@]}"

# --- snapshots and --goto
spool_run record --snap-period 150 -o snap.trace -- "${FF[@]}"
ok "record --snap-period 150: exit 0, ffmpeg's own output" same_md5 || show_run
cp run.out snaprec.out
modes=$(stat -c %a snap.trace/.spool/snap/snap_*.zst 2>/dev/null | sort -u | tr '\n' ' ')
is "$modes" "600 " "record: the snapshot files are private (0600), as the trace's other files"
"$SPOOL" info snap.trace >sinfo.txt 2>&1
# the first: ffmpeg writes its output at the end, after it
ev=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' sinfo.txt | head -n 1)
diag "snapshots: $(grep -c '^ *[0-9].* whole\|delta' sinfo.txt) taken, $(grep -o '[0-9,]* schedule events' run.err | head -n 1)"
if [ -z "$ev" ]; then
	skip 2 "no snapshot taken: $(grep -A 3 '^snapshots' sinfo.txt)"
else
	spool_run replay -o g.trace --goto "$ev" snap.trace
	ok "replay --goto $ev: exit 0, started from the snapshot" \
		bash -c "[ $RC = 0 ] && grep -q '^spool: started from snapshot [0-9]* at schedule event $ev' run.err" || show_run
	ok "replay --goto $ev: the output from there on is the recording's tail" \
		bash -c "[ -s run.out ] && tail -c \$(stat -c %s run.out) snaprec.out | cmp -s - run.out" ||
		diag "$(diff run.out snaprec.out | head)"
fi

# --- attach: spool probe -p on an ffmpeg encoding in real time (4 s)
ffmpeg -nostdin -hide_banner -loglevel error -re -f lavfi -i testsrc=size=160x120:rate=10:duration=4 \
	-threads 2 -c:v mpeg4 -f framemd5 - >att.md5 2>att.err &
fpid=$!
sleep 0.5
spool_run probe -p "$fpid" -d 2s -o at.trace -e 'func:libavcodec.so*:avcodec_send_frame'
ok "probe -p: attached, detached after 2 s, exit 0" \
	bash -c "[ $RC = 0 ] && grep -q 'attached to pid $fpid' run.err && grep -q 'detached, its code restored' run.err" || show_run
"$SPOOL" report --functions --json at.trace >at.json 2>/dev/null
frames=$(json at.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'avcodec_send_frame')")
num_cmp "${frames:-0}" -ge 10 "probe -p: the frames encoded while attached were seen (${frames:-?} of about 20)"
wait "$fpid"
rc=$?
ok "probe -p: ffmpeg ran on and ended as usual: exit 0, 40 frames" \
	bash -c "[ $rc = 0 ] && [ \$(grep -c '^0, ' att.md5) = 40 ]" || diag "$(cat att.err)"

# --- report, export, info
"$SPOOL" report lk.trace >rep.txt 2>&1
ok "report: exit 0, the lock table" bash -c "[ $? = 0 ] && grep -q '^locks (' rep.txt" || diag "$(head rep.txt)"
"$SPOOL" export --perfetto -w fa.pftrace fa.trace >/dev/null 2>exp.err
ok "export --perfetto of the probe trace: exit 0, a file" bash -c "[ $? = 0 ] && [ -s fa.pftrace ]" ||
	diag "$(cat exp.err)"
done_testing
