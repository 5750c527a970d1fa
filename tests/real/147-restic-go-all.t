#!/bin/bash
# SPDX-License-Identifier: MIT
# 147-restic-go-all.t - Debian's restic 0.14 (Go 1.19 with cgo, stripped:
# the runtime makes its threads with pthread_create through cgo, but its
# system calls, futexes, signal stacks and clock reads itself) listing a
# repository made here, under every command as a new user would try it:
# spool locks, spool probe (func: on the cgo functions, sys:io, sys:cpu),
# spool path, spool record and spool replay (serial: the recording gives
# restic's own output, the replays are the recording's or stop at a
# reported divergence, the runtime reading the vDSO's clock itself; sync:
# refused at the recording with the reason, the runtime's own futexes),
# and spool probe -p attached to a restic backing up its stdin (the probes
# it plans are the probes it says it placed). Before,
# restic recorded died: syscall user dispatch made its raw sigaltstack in
# the SIGSYS handler ("fatal error: non-Go code disabled sigaltstack",
# exit 137 in serial mode; a corrupted goroutine stack in sync mode;
# tests/integ/369-rawsys-sigaltstack.t).
. "$(dirname "$0")/lib.sh"
need_progs restic
plan 19

export RESTIC_PASSWORD=spooltest
export RESTIC_CACHE_DIR="$T_DIR/cache"
REPO_DIR="$T_DIR/repo"
mkdir data
for i in 1 2 3; do head -c 100000 /dev/urandom >"data/f$i"; done
echo hello >data/small.txt
restic -r "$REPO_DIR" init -q >/dev/null 2>init.err && restic -r "$REPO_DIR" backup -q data >/dev/null 2>>init.err
is "$?" 0 "restic alone: a repository made, data backed up" || diag "$(cat init.err)"
RL=(restic -r "$REPO_DIR" --no-cache ls latest)
"${RL[@]}" >native.out 2>native.err
rc=$?
ok "restic alone: ls latest lists the 4 files" \
	bash -c "[ $rc = 0 ] && [ \$(grep -c '/data/' native.out) = 4 ]" || diag "$(cat native.out native.err)"
same_ls() { [ "$RC" = 0 ] && cmp -s run.out native.out; }

# --- locks: the cgo side only (Go's own locks are futexes of its own)
spool_run locks -o lk.trace -- "${RL[@]}"
ok "locks: exit 0, restic's own output" same_ls || show_run
"$SPOOL" info lk.trace >lkinfo.txt 2>&1
nthr=$(grep -c '^[0-9]\+ \+[0-9]\+ \+[0-9]\+ ' lkinfo.txt)
num_cmp "$nthr" -ge 3 "locks: the runtime's threads (made through cgo's pthread_create) have streams ($nthr)"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe: cgo's functions, I/O, CPU
spool_run probe -o fa.trace -e 'func:x_cgo_*' -e 'func:_cgo_*' -e sys:cpu -- "${RL[@]}"
ok "probe func: on cgo's functions, sys:cpu: exit 0, restic's own output" same_ls || show_run
"$SPOOL" report --functions --json fa.trace >fa.json 2>/dev/null
starts=$(json fa.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'x_cgo_thread_start')")
num_cmp "${starts:-0}" -ge 2 "probe: x_cgo_thread_start, one call a runtime thread (${starts:-?})"
"$SPOOL" report --sys --json fa.trace >sys.json 2>/dev/null
cpus=$(json sys.json "len([t for t in d['threads'] if t['cpu_ns'] > 0])")
num_cmp "${cpus:-0}" -ge 3 "probe sys:cpu: the threads' CPU times (${cpus:-?} threads)"

# --- path: the stripped executable's exported and .eh_frame functions
spool_run path -o pa.trace -w path.txt -- "${RL[@]}"
ok "path: exit 0, restic's own output" same_ls || show_run
num_cmp "$(grep -c '^ *[0-9]' path.txt)" -ge 5 "path: function entries of the cgo side"

# --- record and replay
spool_run record -o rec.trace -- "${RL[@]}"
ok "record (serial): exit 0, restic's own output (it died of its signal stack before)" same_ls || show_run
like "$ERR" 'own syscall instruction \(.*sigaltstack [0-9]+' "record: restic's own sigaltstack calls were dispatched"
rr_corpus restic serial --may-diverge "Go's runtime reads the vDSO's clock itself" -- "${RL[@]}"
spool_run record --mode sync -o sync.trace -- "${RL[@]}"
ok "record --mode sync: refused with the reason (exit 5): the runtime's own futexes" \
	bash -c "[ $RC = 5 ] && grep -q 'sync mode cannot replay this program: it made [0-9]* futex calls of its own' run.err" ||
	show_run

# --- attach: spool probe -p on a restic backing up its stdin
mkfifo in.fifo
restic -r "$REPO_DIR" --no-cache backup -q --stdin --stdin-filename s.txt <in.fifo >bk.out 2>bk.err &
rpid=$!
exec 7>in.fifo
echo first >&7
sleep 1
timeout -k 10 "$T_TIMEOUT" "$SPOOL" probe -p "$rpid" -d 2s -o at.trace -e sys:cpu -e 'func:x_cgo_*' \
	>at.out 2>at.err &
sp=$!
for i in $(seq 100); do grep -q 'attached to pid' at.err && break; sleep 0.1; done
head -c 200000 /dev/urandom >&7
wait "$sp"
RC=$?
check_sanitizer at.err "spool probe -p (restic)"
ok "probe -p: attached, detached after 2 s, exit 0" \
	bash -c "[ $RC = 0 ] && grep -q 'attached to pid $rpid' at.err && grep -q 'detached, its code restored' at.err" ||
	diag "$(cat at.err)"
# the probes it planned are the probes it placed: an exit probe running in
# its entry's trampoline (x_cgo_unsetenv) made that "22 probes", then "23
# probes placed" (tests/integ/385)
planned=$(sed -n 's/^spool: \([0-9]*\) probes (.*/\1/p' at.err)
placed=$(sed -n 's/^spool: attached to pid [0-9]*: \([0-9]*\) probes placed.*/\1/p' at.err)
ok "probe -p: the probes planned ($planned) are the probes placed ($placed)" \
	test -n "$planned" -a "$planned" = "$placed" || diag "$(head -5 at.err)"
"$SPOOL" report --sys --json at.trace >atsys.json 2>/dev/null
num_cmp "$(json atsys.json "len(d['threads'])")" -ge 3 "probe -p sys:cpu: every thread of the runtime is sampled"
exec 7>&-
wait "$rpid"
rc=$?
ok "probe -p: restic finished its backup, exit 0" bash -c "[ $rc = 0 ]" || diag "$(cat bk.err)"
done_testing
