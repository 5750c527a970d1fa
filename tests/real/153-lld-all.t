#!/bin/bash
# SPDX-License-Identifier: MIT
# 153-lld-all.t - Debian's ld.lld 14 (stripped, nearly all of it in
# libLLVM-14.so.1: LLVM's thread pool, C++ std::thread workers taking tasks
# under a mutex and a condition variable) linking 20 objects into a shared
# library with --threads=2 and a SHA-1 build id (hashed in parallel), under
# every command as a new user would try it: spool locks, spool probe
# (func: and block: on libLLVM by its C++ names), spool path, spool record
# and spool replay in serial and sync mode, record --snap-period and
# replay --goto, report, export and info. (No spool probe -p: the link
# takes a fifth of a second.) lld ends with _exit while its workers still
# take their queue's lock on the way to their wait: every sync replay
# stopped, "replay diverged: the program ended before thread 1 replayed
# its 11967 recorded events (it replayed 11966)" (tests/integ/388).
. "$(dirname "$0")/lib.sh"
need_progs ld.lld
need_cc
plan 19

mkdir -p wd
"$REAL_PY" - <<'EOF2'
for i in range(20):
    with open("wd/u%d.c" % i, "w") as f:
        for j in range(30):
            f.write("int f_%d_%d(int x) { int s = 0; for (int k = 0; k < x; k++) s += k * %d ^ %d; return s; }\n"
                    % (i, j, j + 1, i))
            f.write('const char s_%d_%d[] = "string %d %d padding padding";\n' % (i, j, i, j))
EOF2
(cd wd && "$CC" -c -O0 -ffunction-sections -fdata-sections -fPIC u*.c && rm -f u*.c)
OBJS=()
for i in $(seq 0 19); do OBJS+=("u$i.o"); done
L=(ld.lld -shared --threads=2 --build-id=sha1 --icf=all -o libx.so "${OBJS[@]}")
(cd wd && "${L[@]}" && mv libx.so ../native.so && "${L[@]}" && mv libx.so ../native2.so)
ok "ld.lld alone: a shared library, the same bytes twice" cmp -s native.so native2.so
cd wd || exit 1
same_out() { [ "$RC" = 0 ] && cmp -s libx.so ../native.so; }

# --- locks
spool_run locks -o ../lk.trace -- "${L[@]}"
ok "locks: exit 0, the same library" same_out || show_run
report_json ../lk.trace
spawn=$(json report.json "sum(l['acquisitions'] for l in d['locks'] if l['name'].startswith('llvm::parallel::detail::TaskGroup::spawn'))")
cwaits=$(json report.json "sum((l.get('cond') or {}).get('waits', 0) for l in d['locks'])")
diag "locks: ${spawn:-?} acquisitions of the thread pool's locks, ${cwaits:-?} condition waits"
num_cmp "${spawn:-0}" -ge 100 "locks: the thread pool's locks, named by the C++ function that made them"
num_cmp "${cwaits:-0}" -ge 1 "locks: the workers' condition waits are counted"
is "$(info_lost ../lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe
spool_run probe -o ../pr.trace -e 'func:libLLVM-14.so*:llvm::parallel::detail::TaskGroup::spawn*' \
	-e 'block:libLLVM-14.so*:llvm::SHA1::update*' -e sys:io -- "${L[@]}"
ok "probe func:, block: on libLLVM by C++ names, sys:io: exit 0, the same library" same_out || show_run
"$SPOOL" report --functions --json ../pr.trace >fn.json 2>/dev/null
n=$(json fn.json "sum(f['calls'] for f in d['functions'] if f['name'].startswith('llvm::parallel::detail::TaskGroup::spawn'))")
num_cmp "${n:-0}" -ge 100 "probe: TaskGroup::spawn's calls are counted (${n:-?})"
"$SPOOL" report --functions ../pr.trace >fn.txt 2>&1
unlike "$(cat fn.txt)" "<- 0x" "probe: every caller is named"
"$SPOOL" report --coverage --json ../pr.trace >cov.json 2>/dev/null
hit=$(json cov.json "sum(f['blocks_hit'] for f in d['functions'] if f['name'].startswith('llvm::SHA1::update'))")
num_cmp "${hit:-0}" -ge 2 "probe block:: SHA1::update's blocks counted (${hit:-?} hit)"
"$SPOOL" report --sys ../pr.trace >sys.txt 2>&1
ok "probe sys:io: the report has its I/O table (lld maps its files: it may be empty)" \
	grep -Eq 'dir +kind +calls +bytes' sys.txt

# --- path
spool_run path -o ../pa.trace -w ../path.txt -- "${L[@]}"
ok "path: exit 0, the same library" same_out || show_run
nent=$(grep -c '^ *[0-9]' ../path.txt)
num_cmp "$nent" -ge 10 "path: the executable's function entries ($nent)"
cd .. || exit 1

# --- record and replay
rr_corpus lld serial --dir wd -- "${L[@]}"
rr_corpus lld sync --dir wd -- "${L[@]}"

# --- snapshots and --goto
cd wd || exit 1
spool_run record --snap-period 20 -o ../snap.trace -- "${L[@]}"
ok "record --snap-period 20: exit 0, the same library" same_out || show_run
"$SPOOL" info ../snap.trace >sinfo.txt 2>&1
ev=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' sinfo.txt | head -n 1)
if [ -z "$ev" ]; then
	skip 1 "no snapshot taken: $(grep snapshot run.err)"
else
	rm -f libx.so
	spool_run replay -o ../g.trace --goto "$ev" ../snap.trace
	ok "replay --goto $ev: exit 0, started from the snapshot, the same library written" \
		bash -c "[ $RC = 0 ] && grep -q '^spool: started from snapshot [0-9]* at schedule event $ev' run.err && cmp -s libx.so ../native.so" || show_run
fi
cd .. || exit 1

# --- export
"$SPOOL" export --perfetto -w pr.pftrace pr.trace >/dev/null 2>exp.err
ok "export --perfetto of the probe trace: exit 0, a file" bash -c "[ $? = 0 ] && [ -s pr.pftrace ]" ||
	diag "$(cat exp.err)"
done_testing
