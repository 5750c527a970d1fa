#!/bin/bash
# SPDX-License-Identifier: MIT
# 159-qemu-img-convert-all.t - Debian's qemu-img (qemu-utils) converting
# 8 MB of raw data to qcow2 with 2 coroutines writing out of order (-m 2
# -W): QEMU's coroutines (ucontext stacks), its thread pool for the file
# I/O (QemuMutex, QemuCond, QemuSemaphore over pthreads) and an event loop
# (ppoll, eventfd). Its output is not deterministic alone (the writes'
# order sets where the clusters go), so the replay is compared with the
# recording, byte for byte. Under every command a new user would try:
# spool locks, spool probe (func: on the executable's exported functions,
# sys:io), spool record and spool replay (serial), record --snap-period and
# replay --goto, and info.
# What it found: a replay from a snapshot diverges (the output file, open
# for writing at the snapshot, is a /dev/null stand-in, which spool now
# names; the replay then differs at a switch or dies of SIGSEGV, reported
# as a divergence: TODO below).
. "$(dirname "$0")/lib.sh"
need_progs qemu-img
plan 9

"$REAL_PY" -c '
import random
r = random.Random(1)
open("raw.img", "wb").write(bytes(r.getrandbits(8) & 0x3f for _ in range(8 << 20)))'
Q=(qemu-img convert -m 2 -W -f raw -O qcow2 raw.img)
"${Q[@]}" native.qcow2 2>native.err
rc=$?
ok "qemu-img alone: exit 0, a qcow2 image of the input" \
	bash -c "[ $rc = 0 ] && qemu-img compare -q native.qcow2 raw.img" || diag "$(cat native.err)"

# --- locks
spool_run locks -o lk.trace -- "${Q[@]}" lk.qcow2
ok "locks: exit 0, an image of the input" \
	bash -c "[ $RC = 0 ] && qemu-img compare -q lk.qcow2 raw.img" || show_run
report_json lk.trace
thr=$(json report.json "len(d['threads'])")
diag "locks: ${thr:-?} threads"
num_cmp "${thr:-0}" -ge 2 "locks: the thread pool's threads are seen"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe: the thread pool's work by its exported entry point
spool_run probe -o pr.trace -e 'func:libc.so*:pwritev*' -e sys:io -- "${Q[@]}" pr.qcow2
ok "probe func: on libc, sys:io: exit 0, an image of the input" \
	bash -c "[ $RC = 0 ] && qemu-img compare -q pr.qcow2 raw.img" || show_run
"$SPOOL" report --sys --json pr.trace >sys.json 2>/dev/null
rd=$(json sys.json "sum(r['bytes'] for t in d['threads'] for r in t['io'] if r['dir'] == 'read' and r['kind'] == 'file')")
diag "probe sys:io: ${rd:-?} bytes read from files"
num_cmp "${rd:-0}" -ge $((8 << 20)) "probe sys:io: the input's 8 MB read are counted"

# --- record and replay: the recording's image again, byte for byte
spool_run record -o rec.trace -- "${Q[@]}" rec.qcow2
ok "record: exit 0, an image of the input" \
	bash -c "[ $RC = 0 ] && qemu-img compare -q rec.qcow2 raw.img" || show_run
mv rec.qcow2 recorded.qcow2
spool_run replay rec.trace
ok "replay: exit 0, the recording's image byte for byte (the writes in the recorded order)" \
	bash -c "[ $RC = 0 ] && cmp -s rec.qcow2 recorded.qcow2" || show_run

# --- --goto
spool_run record -q --snap-period 20 -o snap.trace -- "${Q[@]}" snap.qcow2
ev=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' \
	<("$SPOOL" info snap.trace 2>/dev/null) | head -n 1)
spool_run replay -q -o g.trace --goto "${ev:-1}" snap.trace
todo_ok "a replay from a snapshot of qemu-img diverges (a switch point, or SIGSEGV)" \
	"replay --goto ${ev:-none}: exit 0" test "$RC" = 0
done_testing
