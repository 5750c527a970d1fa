#!/bin/bash
# SPDX-License-Identifier: MIT
# 136-ninja-all.t - Debian's ninja -j2 (C++, stripped; one thread that
# posix_spawns a shell per command, two at a time, and waits in ppoll for
# their output) building a small project of shell commands (tr on 4 files,
# cat of the results), under every command, as a new user would try it:
# spool locks (a process tree), spool probe (func:* on its 2 exported
# names, func: and args: by the ABI and branch: on libc), spool path
# (function entries from its .eh_frame), spool record and spool replay in
# serial and in sync mode (3 replays each: ninja's output, the files it
# builds and its .ninja_log, whose times come from the recorded clock),
# spool record --snap-period and spool replay --goto (refused, with the
# reason, for a recording of several processes), spool info and spool
# report on the traces.
. "$(dirname "$0")/lib.sh"
need_progs ninja tr cat
plan 24

mkdir data
cat >data/build.ninja <<'EOF'
rule up
  command = tr a-z A-Z < $in > $out
rule cat
  command = cat $in > $out
build a.up: up a.txt
build b.up: up b.txt
build c.up: up c.txt
build d.up: up d.txt
build all.txt: cat a.up b.up c.up d.up
default all.txt
EOF
for x in a b c d; do seq 1 3000 | sed "s/^/$x line /" >data/$x.txt; done
for x in a b c d; do tr '[:lower:]' '[:upper:]' <data/$x.txt; done >want.txt

# fresh: a copy of the project, nothing built (the working directory of a run)
fresh() { rm -rf w && cp -a data w; }
# built: spool's status 0, all.txt is the 4 files upper-cased, and ninja
# said it ran the 5 commands (their order varies with -j2)
built() {
	[ "$RC" = 0 ] && cmp -s w/all.txt want.txt && grep -q '^\[5/5\] cat a.up b.up c.up d.up > all.txt$' run.out &&
		[ "$(grep -c '^\[[1-5]/5\] ' run.out)" = 5 ]
}
# wrun ARGS...: spool_run in the project's copy
# (not in a subshell: spool_run notes a sanitizer report for done_testing)
wrun() { fresh; cd w || return 1; spool_run "$@"; cd "$T_DIR" && mv w/run.out w/run.err .; }

fresh
(cd w && ninja -j2 >../run.out 2>&1)
RC=$?
ok "ninja alone: the 5 commands run, all.txt built" built

# --- locks
wrun locks -o "$T_DIR/lk.trace" -- ninja -j2
ok "locks: exit 0, the project built" built || show_run
procs=$("$SPOOL" info lk.trace 2>/dev/null | sed -n 's/^processes=//p')
diag "locks: ${procs:-?} processes"
num_cmp "${procs:-0}" -ge 6 "locks: the trace has ninja and the shell of each of its 5 commands"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe
wrun probe -o "$T_DIR/fa.trace" -e 'func:*' -- ninja -j2
ok "probe func:* (the stripped executable's 2 exported names): exit 0, the project built" built || show_run
like "$ERR" 'using .dynsym, 2 functions; static functions cannot be probed by name' \
	"probe func:*: spool says the stripped executable names 2 functions"
like "$ERR" "programs exec'd during the run .* were traced but not probed" \
	"probe: spool says the programs ninja ran were not probed"
wrun probe -o "$T_DIR/sp.trace" -e 'func:libc.so*:posix_spawn*' -- ninja -j2
ok "probe func:libc.so*:posix_spawn*: exit 0, the project built" built || show_run
"$SPOOL" report --functions --json sp.trace >sp.json 2>/dev/null
is "$(json sp.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'posix_spawn')")" 5 \
	"probe: ninja spawned its 5 commands with posix_spawn"
wrun probe -o "$T_DIR/var.trace" -e 'args:libc.so*:write:int,char*,unsigned long->long' \
	-e 'branch:libc.so*:posix_spawn' -e 'branch:libc.so*:__spawnix' -- ninja -j2
ok "probe args: and branch:: exit 0, the project built" built || show_run
"$SPOOL" report --vars --json var.trace >var.json 2>/dev/null
# arg1 and arg3 come from the same hits, in the same order
outsize=$(stat -c %s run.out)
is "$(json var.json "(lambda v: sum(n for f, n in zip(v['arg1'], v['arg3']) if f == 1))({n: [int(p['value']) for x in d['vars'] if x['name'] == n for p in x['values']] for n in ('arg1', 'arg3')})")" \
	"$outsize" "probe: the sizes ninja wrote to its stdout add up to the output's size ($outsize)"
taken=$("$SPOOL" report --coverage --json var.trace 2>/dev/null |
	"$REAL_PY" -c 'import json,sys; d=json.load(sys.stdin); print(sum(b["taken"] + b["not_taken"] for b in d["branches"]))')
num_cmp "${taken:-0}" -ge 5 "probe: __spawnix's branches were counted (where posix_spawn's work is)"
# glibc's posix_spawn only calls __spawni, which calls __spawnix: no branch to count, said
# (before, a spec that placed no probe said nothing at all)
like "$ERR" 'warning: probe: posix_spawn at 0x[0-9a-f]+ in .*libc.so.6 has no conditional branch: nothing to count there' \
	"probe: spool says posix_spawn has no conditional branch"

# --- path
wrun path -o "$T_DIR/pa.trace" -w "$T_DIR/path.txt" -- ninja -j2
ok "path: exit 0, the project built" built || show_run
like "$ERR" 'stripped: [0-9]+ of its functions have no name but their .eh_frame entry' \
	"path: the stripped executable's functions come from its .eh_frame, and spool says so"
n=$(awk '$1 ~ /^[0-9]+$/' path.txt | wc -l)
num_cmp "$n" -ge 100 "path: ninja's function entries ($n)"

# --- record and replay: ninja's output, the files it builds, its .ninja_log
rr_corpus ninja serial --dir "$T_DIR/data" -- ninja -j2
rr_corpus ninja sync --dir "$T_DIR/data" -- ninja -j2
tr="$T_DIR/corpus/ninja.serial/rec.trace"
"$SPOOL" info "$tr" >info.txt 2>&1
ok "info on the serial recording: exit 0, its processes, nothing lost, the trace finished" \
	bash -c "[ $? = 0 ] && grep -q '^recording: [0-9]* processes, each with its own recording' info.txt &&
		grep -qx 'lost: 0 events' info.txt && grep -qx 'writer: finished' info.txt" || diag "$(cat info.txt)"
"$SPOOL" report "$tr" >rep.txt 2>&1
ok "report on a recording: exit 0, says why it has no lock table" \
	bash -c "[ $? = 0 ] && grep -q 'locks: not recorded' rep.txt" || diag "$(cat rep.txt)"

# --- snapshots: --goto does not start a tree of processes from a snapshot
wrun record -q --snap-period 1 -o "$T_DIR/snap.trace" -- ninja -j2
ok "record --snap-period 1: exit 0, the project built" built || show_run
wrun replay -o "$T_DIR/g.trace" --goto 1 "$T_DIR/snap.trace"
ok "replay --goto: refused with the reason (exit status 1): a recording of several processes" \
	bash -c "[ $RC = 1 ] && grep -q 'goto does not combine with a recording of several processes' run.err" || show_run
done_testing
