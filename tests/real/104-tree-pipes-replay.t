#!/bin/bash
# SPDX-License-Identifier: MIT
# 104-tree-pipes-replay.t - Debian programs that talk through pipes, as
# process trees, recorded in serial mode and replayed (issue 13):
# - python3's subprocess feeding 20,000 numbers to `sort -rn` and reading
#   its output back (communicate: poll, os.write, os.read), then running a
#   shell that prints and execs cat on its stdin; sort reads the pipe
#   through stdio (fread) and writes its result through stdio (fwrite):
#   3 replays print the recorded lines, and sort replayed alone (--pid),
#   whose writer and reader do not run, reads its recorded input and ends;
# - git writing its log into a pipe to sort and head
#   (`sh -c 'git log --format=%s | sort -r | head -n 2'`): 3 replays, and
#   git replayed alone ends with the recorded status.
. "$(dirname "$0")/lib.sh"
need_progs git sort sh
plan 9

cat >sub.py <<'EOF'
import subprocess
p = subprocess.Popen(["sort", "-rn"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
out, _ = p.communicate("".join("%d\n" % i for i in range(1, 20001)).encode())
print(out.decode().splitlines()[:3], p.returncode, flush=True)
q = subprocess.run(["sh", "-c", "printf 'from sh %s\\n' 1 2; exec cat"], input=b"cat line\n")
print("done", q.returncode)
EOF
spool_run record -q -o py.trace -- "$REAL_PY" sub.py
is_rc 0 "python3 running sort and a shell through pipes records (exit 0)"
cp run.out py.out
is "$OUT" "$("$REAL_PY" sub.py)" "  and prints what it prints alone"
replays_same 3 0 py.out -q py.trace
is "$SAME" 3 "3 replays print the recorded lines"
spool_run info py.trace
spid=$(awk '$5 == "exec" && $6 ~ /\/sort$/ { print $2 }' run.out | head -n 1)
ok "spool info names sort" test -n "$spid"
spool_run replay -q --pid "${spid:-0}" py.trace
is_rc 0 "sort replayed alone (its writer and its reader do not run) ends, exit 0"

git init -q repo
for i in 1 2 3 4 5; do
	echo "$i" >"repo/f$i"
	git -C repo add "f$i"
	git -C repo -c user.name=t -c user.email=t@example.com commit -qm "commit number $i"
done
cd repo || exit 1
CMD='git log --format=%s | sort -r | head -n 2'
spool_run record -q -o ../git.trace -- sh -c "$CMD"
is_rc 0 "git log into sort and head records (exit 0)"
cp run.out ../git.out
is "$OUT" "$(sh -c "$CMD")" "  and prints what it prints alone"
replays_same 3 0 ../git.out -q ../git.trace
is "$SAME" 3 "3 replays print the recorded lines"
spool_run info ../git.trace
gpid=$(awk '$5 == "exec" && $6 ~ /\/git$/ { print $2 }' run.out | head -n 1)
spool_run replay -q --pid "${gpid:-0}" ../git.trace
is_rc 0 "git replayed alone (its reader does not run) ends, exit 0"
done_testing
