#!/bin/bash
# SPDX-License-Identifier: MIT
# 60-replay-untrusted-env.t - a recording of Debian's sqlite3 whose
# environ someone edited to hold LD_PRELOAD=evil.so and LD_LIBRARY_PATH
# (issue 12: `spool replay` ran the program with the trace's environment,
# so the trace's author ran their code). The replay takes the loader
# variables from spool's own environment: evil.so's constructor does not
# run, spool names what it dropped, and sqlite3's replayed output is the
# recorded one. With --trust-env (the user's explicit choice) it runs: the
# check above could fail.
. "$(dirname "$0")/../lib.sh"
need_progs sqlite3 gcc
plan 9

cat >evil.c <<'C'
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void evil(void)
{
	int fd = open("EVIL_RAN", O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (fd >= 0)
		close(fd);
}
C
gcc -shared -fPIC -o evil.so evil.c || exit 1
cat >q.sql <<'SQL'
create table t(a, b);
insert into t values (1, 'one'), (2, 'two'), (3, 'three');
select sum(a), group_concat(b, '+') from t;
SQL
umask 022 # a user's usual mask: the recording must be private anyway
RUN_STDIN=q.sql spool_run record -q -o r.trace -- sqlite3 :memory:
is_rc 0 "sqlite3 recorded"
cp run.out rec.out
# (the recording holds the environment and every byte sqlite3 read)
bad=$(find r.trace \( -type d ! -perm 700 \) -o \( -type f ! -perm 600 \) | head -n 3)
is "$bad" "" "the recording is private: directories 0700, files 0600"
"$REAL_PY" - r.trace/.spool/environ "$T_DIR/evil.so" "$T_DIR" <<'PY'
import sys
path, so, libdir = sys.argv[1:4]
env = [e for e in open(path, "rb").read().split(b"\0") if e and not e.startswith((b"LD_PRELOAD=", b"LD_LIBRARY_PATH="))]
env += [b"LD_PRELOAD=" + so.encode(), b"LD_LIBRARY_PATH=" + libdir.encode()]
open(path, "wb").write(b"\0".join(env) + b"\0")
PY
spool_run replay -o rep.trace r.trace
is_rc 0 "the replay of the edited recording exits 0"
ok "evil.so did not run" test ! -e EVIL_RAN
like "$ERR" 'LD_PRELOAD' "spool names LD_PRELOAD as not taken from the trace"
like "$ERR" 'LD_LIBRARY_PATH' "and LD_LIBRARY_PATH"
ok "the replayed output is the recorded one" cmp -s run.out rec.out

spool_run replay -q --trust-env -o rep.trace r.trace
ok "with --trust-env evil.so runs (the user chose it)" test -e EVIL_RAN || show_run
ok "and the output is still the recorded one" cmp -s run.out rec.out
done_testing
