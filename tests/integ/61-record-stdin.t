#!/bin/bash
# SPDX-License-Identifier: MIT
# 61-record-stdin.t - spool record keeps the program's stdin and spool replay
# gives it back: a program that reads stdin with stdio (whose reads no
# interposer sees) replays from a file that has changed since, from a pipe
# that is gone, from /dev/null; every run of --until-fail reads the same
# stdin; a real program (sqlite3 reading a script) replays its output.
. "$(dirname "$0")/lib.sh"

plan 18

STDIO="$PROGS/rr_stdio"

# --- a regular file: kept as it was, given back as a regular file -------
seq 1 20000 >in.txt
touch -d '2020-01-02 03:04:05' in.txt
RUN_STDIN=in.txt spool_run record -o file.trace -- "$STDIO"
is_rc 0 "record with stdin from a file"
cp run.out file.rec.out
like "$OUT" '^stdin file lines 20000 ' "the recorded run read the whole file"
ok "the trace keeps the stdin" cmp -s in.txt file.trace/.spool/stdin
is "$(stat -c %Y file.trace/.spool/stdin)" "$(stat -c %Y in.txt)" \
	"... with the file's mtime (pigz writes it into its output)"
echo "changed" >in.txt
spool_run replay -o file.rep.trace file.trace
is_rc 0 "replay with the file changed since"
ok "... reads the recorded stdin: the same output, stdin still a regular file" \
	cmp -s run.out file.rec.out

# --- a pipe: teed, given back as a pipe ------------------------------------
seq 1 30000 | timeout 60 "$SPOOL" record --mode sync -o pipe.trace -- "$STDIO" \
	>pipe.rec.out 2>pipe.err
RC=$?
is "$RC" 0 "record with stdin from a pipe (sync mode)"
like "$(cat pipe.rec.out)" '^stdin pipe lines 30000 ' "the program read the whole pipe"
is "$(cat pipe.trace/.spool/stdin.kind)" "pipe" "the trace says stdin was a pipe"
spool_run replay -o pipe.rep.trace pipe.trace
ok "the replay gets the same bytes through a pipe, after the writer is gone" \
	cmp -s run.out pipe.rec.out

# An endless producer: only what the program read is kept.
yes | timeout 60 "$SPOOL" record -q -o yes.trace -- head -c 100000 >yes.out 2>yes.err
is "$(wc -c <yes.out)" 100000 "record with an endless pipe on stdin ends with the program"
num_cmp "$(stat -c %s yes.trace/.spool/stdin)" -lt 10000000 "... and keeps a bounded stdin"

# --- /dev/null -----------------------------------------------------------
RUN_STDIN=/dev/null spool_run record -o null.trace -- "$STDIO"
cp run.out null.rec.out
RUN_STDIN=in.txt spool_run replay -o null.rep.trace null.trace
ok "stdin /dev/null replays as /dev/null, whatever the replay's stdin" \
	cmp -s run.out null.rec.out

# --- --until-fail: every run reads the same stdin ------------------------
echo 0 >count
cat >check.sh <<'SH'
n=$(($(cat count) + 1)); echo $n >count; [ $n -lt 3 ]
SH
seq 1 5000 | timeout 120 "$SPOOL" record --until-fail 5 --check-cmd "sh check.sh" \
	-o until.trace -- "$STDIO" >until.out 2>until.err
like "$(cat until.err)" 'run 3 failed' "--until-fail keeps run 3 (its check fails)"
like "$(cat until.out)" '^stdin pipe lines 5000 ' "run 3 read the whole stdin the first run read"

# --- a real program reading with stdio: sqlite3 ----------------------------
cat >q.sql <<'SQL'
create table t(a integer, b text);
with recursive c(x) as (select 1 union all select x+1 from c where x<3000)
  insert into t select x, hex(randomblob(8)) from c;
select count(*), sum(a), count(distinct b) from t;
select random() <> 0;
SQL
RUN_STDIN=q.sql spool_run record -o sql.trace -- sqlite3 :memory:
is_rc 0 "sqlite3 reading a script on stdin records"
cp run.out sql.rec.out
rm q.sql
spool_run replay -o sql.rep.trace sql.trace
is_rc 0 "sqlite3 replays with the script gone"
ok "... and prints what the recorded run printed" cmp -s run.out sql.rec.out

done_testing
