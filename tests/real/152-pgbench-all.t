#!/bin/bash
# SPDX-License-Identifier: MIT
# 152-pgbench-all.t - Debian's pgbench (PostgreSQL 15: /usr/bin/pgbench is
# postgresql-client-common's #! /usr/bin/perl wrapper that execs
# /usr/lib/postgresql/15/bin/pgbench, stripped; libpq) running 200
# select-only transactions from 4 clients on 2 threads (-j 2) against a
# server the test starts (initdb as the postgres user, a unix socket in its
# own directory, no TCP), under every command as a new user would try it:
# spool locks, spool probe (func: and block: on libpq, sys:io), spool path,
# spool record and spool replay in serial and sync mode (through the
# wrapper; a replay with the server stopped too: the answers come from the
# recording), record --snap-period and replay --goto, spool probe -p on a
# pgbench running at 100 transactions a second, report, export and info.
# What it found: a recording made through the wrapper was refused by every
# replay (its build id, none, against perl's: tests/integ/386).
. "$(dirname "$0")/lib.sh"
PGBIN=/usr/lib/postgresql/15/bin
need_progs pgbench "$PGBIN/initdb" "$PGBIN/pg_ctl"
if [ "$(id -u)" != 0 ] || ! id postgres >/dev/null 2>&1; then
	echo "1..0 # SKIP the server runs as the postgres user: needs root and that user"
	exit 0
fi
plan 23

PGD=$(mktemp -d /tmp/spool-pg.XXXXXX)
chown postgres "$PGD" && chmod 755 "$PGD"
PORT=$(free_port)
pg_stop() { su postgres -s /bin/sh -c "$PGBIN/pg_ctl -D $PGD/data -m immediate stop" >/dev/null 2>&1; }
trap 'pg_stop; rm -rf "$PGD"; _t_cleanup' EXIT
su postgres -s /bin/sh -c "$PGBIN/initdb -D $PGD/data -A trust -U postgres --no-sync" >"$PGD/init.log" 2>&1 &&
	su postgres -s /bin/sh -c "$PGBIN/pg_ctl -D $PGD/data -o '-k $PGD -p $PORT -c listen_addresses= -c fsync=off' -l $PGD/pg.log -w start" >/dev/null 2>&1 &&
	pgbench -h "$PGD" -p "$PORT" -U postgres -i -s 1 -q postgres >init.out 2>&1
ok "a server of our own, initialized for pgbench" [ $? = 0 ] || diag "$(tail -5 "$PGD/init.log" "$PGD/pg.log" init.out)"

B=(pgbench -h "$PGD" -p "$PORT" -U postgres -c 4 -j 2 -t 50 -S postgres)
BB=("$PGBIN/pgbench" -h "$PGD" -p "$PORT" -U postgres -c 4 -j 2 -t 50 -S postgres)
done200() { [ "$RC" = 0 ] && grep -q '^number of transactions actually processed: 200/200' run.out; }

# --- locks
spool_run locks -o lk.trace -- "${B[@]}"
ok "locks: exit 0, 200 transactions" done200 || show_run
report_json lk.trace
pq=$(json report.json "len([l for l in d['locks'] if l['name'].startswith('libpq.so') and l['acquisitions'] > 0])")
num_cmp "${pq:-0}" -ge 1 "locks: libpq's locks are listed, named by their library"
bar=$(json report.json "sum((l.get('barrier') or {}).get('waits', 0) for l in d['locks'])")
diag "locks: ${pq:-?} libpq locks used, ${bar:-?} barrier waits"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe (the program itself: through the wrapper, the exec'd one is not probed)
spool_run probe -o pr.trace -e 'func:libpq.so*:PQsendQuery' -e 'block:libpq.so*:PQconsumeInput' \
	-e sys:io -- "${BB[@]}"
ok "probe func:, block: on libpq, sys:io: exit 0, 200 transactions" done200 || show_run
"$SPOOL" report --functions --json pr.trace >fn.json 2>/dev/null
sq=$(json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'PQsendQuery')")
diag "probe: PQsendQuery ${sq:-?} calls (200 transactions, and pgbench's own set-up queries)"
num_cmp "${sq:-0}" -ge 200 "probe: PQsendQuery once a transaction at least"
num_cmp "${sq:-999}" -le 220 "probe: ... and not many more"
"$SPOOL" report --coverage --json pr.trace >cov.json 2>/dev/null
hit=$(json cov.json "sum(f['blocks_hit'] for f in d['functions'] if f['name'] == 'PQconsumeInput')")
num_cmp "${hit:-0}" -ge 2 "probe block:: PQconsumeInput's blocks counted (${hit:-?} hit)"
"$SPOOL" report --sys --json pr.trace >sys.json 2>/dev/null
sw=$(json sys.json "sum(r['calls'] for t in d['threads'] for r in t['io'] if r['dir'] == 'write' and r['kind'] == 'socket')")
num_cmp "${sw:-0}" -ge 200 "probe sys:io: a socket write (or more) per transaction (${sw:-?})"

# --- path: the stripped program's functions from its .eh_frame
spool_run path -o pa.trace -w path.txt -- "${BB[@]}"
ok "path: exit 0, 200 transactions" done200 || show_run
nent=$(grep -c '^ *[0-9]' path.txt)
num_cmp "$nent" -ge 100 "path: the program's function entries ($nent)"
like "$(awk '{print $3}' path.txt | sort -u)" "T1/" "path: both of its threads' entries"

# --- record and replay, through the wrapper
rr_corpus pgbench serial -- "${B[@]}"
rr_corpus pgbench sync -- "${B[@]}"
# the server gone, a replay still prints the recorded run's figures
pg_stop
spool_run replay -q "$T_DIR/corpus/pgbench.serial/rec.trace"
ok "replay with the server stopped: exit 0, the recorded run's output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out $T_DIR/corpus/pgbench.serial/rec.out" || show_run
su postgres -s /bin/sh -c "$PGBIN/pg_ctl -D $PGD/data -o '-k $PGD -p $PORT -c listen_addresses= -c fsync=off' -l $PGD/pg.log -w start" >/dev/null 2>&1

# --- snapshots and --goto (pgbench's threads wait in the kernel, on their
# sockets, where none is taken: a run may have none)
spool_run record --snap-period 5 -o snap.trace -- "${BB[@]}"
ok "record --snap-period 5: exit 0, 200 transactions" done200 || show_run
cp run.out snaprec.out
"$SPOOL" info snap.trace >sinfo.txt 2>&1
ev=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' sinfo.txt | head -n 1)
if [ -z "$ev" ]; then
	skip 1 "no snapshot taken: $(grep snapshot run.err)"
else
	spool_run replay -o g.trace --goto "$ev" snap.trace
	ok "replay --goto $ev: exit 0, started from the snapshot, the recording's tail" \
		bash -c "[ $RC = 0 ] && grep -q '^spool: started from snapshot [0-9]* at schedule event $ev' run.err && tail -c \$(stat -c %s run.out) snaprec.out | cmp -s - run.out" || show_run
fi

# --- attach: 2 clients, 100 transactions a second for 4 s
"$PGBIN/pgbench" -h "$PGD" -p "$PORT" -U postgres -c 2 -j 2 -T 4 -R 100 -S postgres >att.out 2>att.err &
ppid=$!
sleep 1
spool_run probe -p "$ppid" -d 2s -o at.trace -e 'func:libpq.so*:PQsendQuery' -e sys:io
ok "probe -p: attached, detached after 2 s, exit 0" \
	bash -c "[ $RC = 0 ] && grep -q 'attached to pid $ppid' run.err && grep -q 'detached, its code restored' run.err" || show_run
"$SPOOL" report --functions --json at.trace >at.json 2>/dev/null
n=$(json at.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'PQsendQuery')")
num_cmp "${n:-0}" -ge 100 "probe -p: the transactions of the 2 s attached are seen (${n:-?} of about 200)"
wait "$ppid"
ok "probe -p: pgbench ran on and ended as usual, no failed transaction" \
	bash -c "[ $? = 0 ] && grep -q '^number of failed transactions: 0 ' att.out" || diag "$(cat att.out att.err)"

# --- report, export
"$SPOOL" export --perfetto -w pr.pftrace pr.trace >/dev/null 2>exp.err
ok "export --perfetto of the probe trace: exit 0, a file" bash -c "[ $? = 0 ] && [ -s pr.pftrace ]" ||
	diag "$(cat exp.err)"
done_testing
