#!/bin/bash
# SPDX-License-Identifier: MIT
# 158-graphicsmagick-openmp-all.t - Debian's GraphicsMagick (gm convert:
# a blur and a charcoal of a 600x400 PNG) with OpenMP on 2 threads
# (OMP_NUM_THREADS=2): libgomp's workers wait at its barriers with futex
# calls made by their own syscall instruction, and GraphicsMagick's
# semaphores are pthread mutexes. Under every command as a new user would
# try it: spool locks, spool probe (func: on the stripped libGraphicsMagick
# and libgomp, sys:cpu), spool path, spool record and spool replay in
# serial mode, the sync-mode refusal, record --snap-period and replay
# --goto from every snapshot, and info.
# What it found: a replay from a snapshot whose libgomp worker the restore
# recreated was reported stuck ("spins in code without calls the agent
# sees", exit 3): the worker had no syscall user dispatch and its raw
# FUTEX_WAIT blocked in the kernel while it held the run token
# (tests/integ/401); spool info's snapshot times (time-s) were the times
# the copies wrote them.
. "$(dirname "$0")/lib.sh"
need_progs gm
plan 15

export OMP_NUM_THREADS=2
gm convert -size 600x400 gradient:red-blue in.png || bail "gm cannot make the input"
G=(gm convert in.png -blur 0x3 -charcoal 2)
"${G[@]}" native.png 2>native.err
rc=$?
ok "gm alone: exit 0, a PNG" bash -c "[ $rc = 0 ] && [ -s native.png ]" || diag "$(cat native.err)"
"${G[@]}" native2.png 2>/dev/null
ok "gm alone: the same bytes again (its output is deterministic)" cmp -s native.png native2.png
same_png() { [ "$RC" = 0 ] && cmp -s "$1" native.png; }

# --- locks
spool_run locks -o lk.trace -- "${G[@]}" lk.png
ok "locks: exit 0, gm's own image" same_png lk.png || show_run
report_json lk.trace
thr=$(json report.json "len(d['threads'])")
acq=$(json report.json "sum(l['acquisitions'] for l in d['locks'])")
diag "locks: ${thr:-?} threads, ${acq:-?} acquisitions"
is "${thr:-0}" 2 "locks: the main thread and libgomp's worker"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe: stripped libraries, by their exported names
spool_run probe -o pr.trace -e 'func:libGraphicsMagick*:BlurImage' \
	-e 'func:libgomp*:GOMP_parallel' -e sys:cpu -- "${G[@]}" pr.png
ok "probe func: on libGraphicsMagick and libgomp, sys:cpu: exit 0, gm's own image" same_png pr.png ||
	show_run
"$SPOOL" report --functions --json pr.trace >fn.json 2>/dev/null
blur=$(json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'BlurImage')")
par=$(json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'GOMP_parallel')")
diag "probe: BlurImage ${blur:-?} calls, GOMP_parallel ${par:-?}"
is "${blur:-0}" 2 "probe: BlurImage's calls (-blur, and -charcoal's own)"
num_cmp "${par:-0}" -ge 2 "probe: GOMP_parallel's calls are counted"

# --- path
spool_run path -o pa.trace -w path.txt -- "${G[@]}" pa.png
path_ok() { same_png pa.png && grep -q '^ *1 ' path.txt; }
ok "path: exit 0, gm's own image, a path" path_ok || show_run

# --- record and replay (serial); sync mode refuses with the reason
spool_run record -o rec.trace -- "${G[@]}" rec.png
ok "record: exit 0, gm's own image" same_png rec.png || show_run
rm -f rec.png
spool_run replay rec.trace
ok "replay: exit 0, the recording's image written again" same_png rec.png || show_run
spool_run record --mode sync -o sync.trace -- "${G[@]}" sync.png
ok "record --mode sync: exit 5, saying libgomp's own futexes are why and what to do" \
	bash -c "[ $RC = 5 ] && grep -q 'futex calls of its own.*libgomp.*record it in serial mode' run.err" ||
	show_run

# --- snapshots and --goto from each
spool_run record -q --snap-period 6 -o snap.trace -- "${G[@]}" snap.png
ok "record --snap-period 6: exit 0, gm's own image" same_png snap.png || show_run
"$SPOOL" info snap.trace >sinfo.txt 2>&1
EVS=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' sinfo.txt)
num_cmp "$(echo "$EVS" | grep -c .)" -ge 2 "it has snapshots (at events $(echo $EVS))"
good=0 tried=0 bad=""
for e in $EVS; do
	spool_run replay -q --stuck-ms 3000 -o "g$e.trace" --goto "$e" snap.trace
	tried=$((tried + 1))
	if [ "$RC" = 0 ]; then
		good=$((good + 1))
	else
		bad="$bad $e(rc $RC)"
		diag "--goto $e: $(grep -m2 -E 'error|stuck' run.err)"
	fi
done
is "$good" "$tried" "replay --goto each snapshot: exit 0 (libgomp's restored worker waits as a yield)${bad:+ (not:$bad)}"
done_testing
