#!/bin/bash
# SPDX-License-Identifier: MIT
# 151-7z-all.t - Debian's 7-Zip (p7zip-full: /usr/bin/7z is a #! /bin/sh
# script that execs /usr/lib/p7zip/7z, a stripped C++ program that dlopens
# its codecs from 7z.so beside it and dlcloses it at exit) compressing 1 MB
# to bzip2 on 2 threads (-mmt2: 7z.so's Event/Thread wrappers over pthread
# mutexes and condition variables), under every command as a new user
# would try it: spool locks, spool probe (func: and block: on 7z.so by its
# path, sys:io), spool path, spool record and spool replay in serial and
# sync mode (through the script), record --snap-period and replay --goto,
# spool probe -p on a 7z reading a slow pipe, report, export and info.
# What it found: every replay of a recording made through the script was
# refused ("/usr/bin/7z has build id (none), the recording was made with
# build id ... (/usr/bin/dash)": tests/integ/386), and the locks 7z.so made
# were "mutex#8", the callers of its functions bare addresses (its maps
# were gone from the trace after the dlclose: tests/integ/387).
. "$(dirname "$0")/lib.sh"
need_progs 7z
plan 28

LIB=/usr/lib/p7zip/7z.so
BIN=/usr/lib/p7zip/7z
"$REAL_PY" -c '
import random
r = random.Random(1)
open("in.dat", "wb").write(bytes(r.getrandbits(8) & 0x3f for _ in range(1000000)))'
Z=(7z a -tbzip2 -mmt2 -bd -so dummy in.dat)
ZB=("$BIN" a -tbzip2 -mmt2 -bd -so dummy in.dat)
"${Z[@]}" >native.bz2 2>native.err
rc=$?
ok "7z alone: exit 0, bzip2 of the input" \
	bash -c "[ $rc = 0 ] && bzip2 -dc native.bz2 | cmp -s - in.dat" || diag "$(cat native.err)"
"${Z[@]}" >native2.bz2 2>/dev/null
ok "7z alone: the same bytes again (its output is deterministic)" cmp -s native.bz2 native2.bz2
OUTSIZE=$(stat -c %s native.bz2)
same_out() { [ "$RC" = 0 ] && cmp -s run.out native.bz2; }

# --- locks: 7z.so's locks named by their init site although 7z.so is
# unloaded before the end
spool_run locks -o lk.trace -- "${Z[@]}"
ok "locks: exit 0, 7z's own output" same_out || show_run
report_json lk.trace
named=$(json report.json "len([l for l in d['locks'] if l['name'].startswith(('AutoResetEvent_Create', 'ManualResetEvent_Create'))])")
unnamed=$(json report.json "len([l for l in d['locks'] if l['name'].startswith(('mutex#', 'cond#')) and l['events'] > 2])")
cwaits=$(json report.json "sum((l.get('cond') or {}).get('waits', 0) for l in d['locks'])")
diag "locks: ${named:-?} named by 7z.so's event functions, ${unnamed:-?} used and unnamed, ${cwaits:-?} condition waits"
num_cmp "${named:-0}" -ge 4 "locks: 7z.so's event locks are named by the function that made them"
is "${unnamed:-x}" 0 "locks: no lock that was used is left as mutex#N or cond#N"
num_cmp "${cwaits:-0}" -ge 2 "locks: the worker threads' condition waits are counted"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe: by the script, spool says what it probes
spool_run probe -o sc.trace -e "func:$LIB:Event_Set" -- "${Z[@]}"
like "$ERR" "exec'd during the run .*probe it directly" \
	"probe through the #! script: spool says the exec'd 7z was not probed and what to do"
# ... and on the program itself
spool_run probe -o pr.trace -e "func:$LIB:Event_*" -e "block:$LIB:Event_Set" -e sys:io -- "${ZB[@]}"
ok "probe func:, block: on 7z.so (dlopened), sys:io: exit 0, 7z's own output" same_out || show_run
"$SPOOL" report --functions --json pr.trace >fn.json 2>/dev/null
sets=$(json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'Event_Set')")
waits=$(json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'Event_Wait')")
diag "probe: Event_Set ${sets:-?} calls, Event_Wait ${waits:-?}"
num_cmp "${sets:-0}" -ge 4 "probe: Event_Set's calls are counted"
"$SPOOL" report --functions pr.trace >fn.txt 2>&1
like "$(cat fn.txt)" "<- NCompress::NBZip2::" "probe: its callers are named (7z.so's bzip2 encoder)"
unlike "$(cat fn.txt)" "<- 0x" "probe: no caller is a bare address"
"$SPOOL" report --coverage --json pr.trace >cov.json 2>/dev/null
is "$(json cov.json "sum(f['blocks_hit'] for f in d['functions'] if f['name'] == 'Event_Set')")" \
	"$(json cov.json "sum(f['blocks'] for f in d['functions'] if f['name'] == 'Event_Set')")" \
	"probe block:: every block of Event_Set was hit"
"$SPOOL" report --sys --json pr.trace >sys.json 2>/dev/null
is "$(json sys.json "sum(r['bytes'] for t in d['threads'] for r in t['io'] if r['dir'] == 'write')")" "$OUTSIZE" \
	"probe sys:io: the bytes written are the output's ($OUTSIZE)"

# --- path: the stripped executable's functions from its .eh_frame
spool_run path -o pa.trace -w path.txt -- "${ZB[@]}"
ok "path: exit 0, 7z's own output" same_out || show_run
nent=$(grep -c '^ *[0-9]' path.txt)
num_cmp "$nent" -ge 100 "path: the executable's function entries ($nent)"

# --- record and replay, through the script
mkdir -p wd && cp in.dat wd/
rr_corpus 7z serial --dir wd -- "${Z[@]}"
rr_corpus 7z sync --dir wd -- "${Z[@]}"

# --- snapshots and --goto (the program itself: through the script, the
# first process is the shell, and only it takes snapshots)
spool_run record --snap-period 30 -o snap.trace -- "${ZB[@]}"
ok "record --snap-period 30: exit 0, 7z's own output" same_out || show_run
cp run.out snaprec.out
"$SPOOL" info snap.trace >sinfo.txt 2>&1
ev=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' sinfo.txt | head -n 1)
if [ -z "$ev" ]; then
	skip 2 "no snapshot taken: $(grep snapshot run.err)"
else
	spool_run replay -o g.trace --goto "$ev" snap.trace
	ok "replay --goto $ev: exit 0, started from the snapshot" \
		bash -c "[ $RC = 0 ] && grep -q '^spool: started from snapshot [0-9]* at schedule event $ev' run.err" || show_run
	ok "replay --goto $ev: the output from there on is the recording's tail" \
		bash -c "[ -s run.out ] && tail -c \$(stat -c %s run.out) snaprec.out | cmp -s - run.out"
fi

# --- attach: 7z compressing a pipe fed 100 KB every 0.2 s (4 s)
(for i in $(seq 1 20); do head -c 100000 in.dat; sleep 0.2; done) |
	"$BIN" a -tbzip2 -mmt2 -bd -si -so dummy >att.bz2 2>att.err &
sleep 1
zpid=$(pgrep -n -f "^$BIN a -tbzip2 -mmt2 -bd -si")
spool_run probe -p "${zpid:-0}" -d 2s -o at.trace -e 'func:7z.so:Event_Set' -e sys:io
ok "probe -p: attached, detached after 2 s, exit 0" \
	bash -c "[ $RC = 0 ] && grep -q 'attached to pid $zpid' run.err && grep -q 'detached, its code restored' run.err" || show_run
"$SPOOL" report --sys --json at.trace >atsys.json 2>/dev/null
rd=$(json atsys.json "sum(r['bytes'] for t in d['threads'] for r in t['io'] if r['dir'] == 'read' and r['kind'] == 'pipe')")
diag "probe -p: ${rd:-?} bytes read from the pipe in 2 s (fed 500 KB/s)"
num_cmp "${rd:-0}" -ge 400000 "probe -p sys:io: the pipe bytes read while attached are counted"
wait
(for i in $(seq 1 20); do head -c 100000 in.dat; done) >att.in
ok "probe -p: 7z ran on and ended as usual, its output whole" \
	bash -c "bzip2 -dc att.bz2 | cmp -s - att.in" || diag "$(cat att.err)"

# --- report, export
"$SPOOL" report lk.trace >rep.txt 2>&1
ok "report: exit 0, the lock table" bash -c "[ $? = 0 ] && grep -q '^locks (' rep.txt" || diag "$(head rep.txt)"
"$SPOOL" export --perfetto -w pr.pftrace pr.trace >/dev/null 2>exp.err
ok "export --perfetto of the probe trace: exit 0, a file" bash -c "[ $? = 0 ] && [ -s pr.pftrace ]" ||
	diag "$(cat exp.err)"
done_testing
