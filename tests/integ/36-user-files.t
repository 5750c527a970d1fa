#!/bin/bash
# SPDX-License-Identifier: MIT
# 36-user-files.t - spool never destroys the user's files. -o DIR replaces
# only a trace spool wrote (a source directory, a plain file, a symbolic
# link, a trace with the user's notes in it are refused and left as they
# were; so is a DIR.old that is not a spool trace, and a replay's -o that
# would displace the recording it reads); exports and spool path -o
# write beside their destination and rename on success, so a failure keeps
# the old file and a FIFO or a device node is written in place, never
# removed; traces are private (0700 directories, 0600 files).
. "$(dirname "$0")/lib.sh"

plan 46

umask 022

# --- -o DIR ----------------------------------------------------------------

mkdir proj
echo 'int main(void) { return 0; }' >proj/main.c
spool_run locks -q -o proj -- "$PROGS/lockcount" 1 10
num_cmp "$RC" -ne 0 "-o on a source directory is refused"
like "$ERR" "proj is a directory that is not a spool trace \(it holds 'main.c'\)" \
	"  spool says what is there"
is "$OUT" "" "  and does not run the program for nothing"
spool_run locks -q -o proj -- "$PROGS/lockcount" 1 10
is "$(cat proj/main.c 2>/dev/null)" 'int main(void) { return 0; }' \
	"-o on a source directory, twice, leaves it untouched"
ok "  and makes no proj.old" test ! -e proj.old

echo 'my notes' >notes
spool_run locks -q -o notes -- "$PROGS/lockcount" 1 10
num_cmp "$RC" -ne 0 "-o on a plain file is refused"
is "$(cat notes)" "my notes" "  the file keeps its content"
# spool probe says so before it plans (which says how many probes it placed)
spool_run probe -o notes -e func:main -- "$PROGS/lockcount" 1 10
is "$RC" 1 "probe -o on a plain file is refused (exit 1)"
like "$(head -n 1 <<<"$ERR")" "^spool: error: notes is a regular file" "  before planning: the refusal is its first line"

spool_run locks -q -o t -- "$PROGS/lockcount" 1 10
is_rc 0 "a new trace goes where nothing was"
ln -s t link
spool_run locks -q -o link -- "$PROGS/lockcount" 1 20
like "$ERR" "link is a symbolic link" "-o on a symbolic link to a trace is refused"
ok "  the link and the trace stay" test -L link -a -f t/metadata -a ! -e link.old

echo 'why it hangs' >t/notes.txt
spool_run locks -q -o t -- "$PROGS/lockcount" 1 20
like "$ERR" "t is a spool trace that also holds 'notes.txt'" \
	"-o on a trace holding the user's notes is refused"
is "$(cat t/notes.txt)" "why it hangs" "  the notes stay"
rm t/notes.txt

mkdir t.old
echo 'keep me' >t.old/keep.c
spool_run locks -q -o t -- "$PROGS/lockcount" 1 20
like "$ERR" "t.old is a directory that is not a spool trace" \
	"a DIR.old that is not a spool trace is not removed"
is "$(cat t.old/keep.c)" "keep me" "  its files stay"
ok "  and the trace at DIR stays" test -f t/metadata
rm -r t.old

spool_run locks -q -o t/ -- "$PROGS/lockcount" 1 20
is_rc 0 "-o DIR/ over a spool trace exits 0"
ok "  the previous trace is kept beside it as t.old, not t/.old" \
	test -f t.old/metadata -a ! -e t/.old
spool_run locks -q -o t -- "$PROGS/lockcount" 1 30
is_rc 0 "a third run replaces t.old, a spool trace"
report_json t.old
is "$(lock_stat report.json shared_lock "$F_ACQ")" 20 "  t.old is now the second run's"

mkdir empty
spool_run locks -q -o empty -- "$PROGS/lockcount" 1 10
is_rc 0 "an empty directory takes the trace"
ok "  the trace is there" test -f empty/metadata

# --- modes -----------------------------------------------------------------

spool_run record -q -o rec -- "$PROGS/lockcount" 2 10
is_rc 0 "spool record under umask 022 exits 0"
is "$(stat -c %a rec)" 700 "  the record trace directory is 0700"
is "$(find rec -type d ! -perm 700 | head -n 3)" "" "  every directory in it is 0700"
is "$(find rec -type f ! -perm 600 | head -n 3)" "" "  every file in it is 0600"
num_cmp "$(find rec -type f | wc -l)" -ge 5 "  (it has files: metadata, streams, side files)"

# A replay's trace (-o) must not take the place of the recording it reads.
spool_run replay -q -o rec rec
is_rc 2 "spool replay -o REC REC is refused"
ok "  the recording stays where it was" test -f rec/.spool/record -a ! -e rec.old
spool_run record -q -o r2 -- "$PROGS/lockcount" 2 10
spool_run record -q -o r2 -- "$PROGS/lockcount" 2 10
echo first >r2.old/.spool/which
spool_run replay -q -o r2 r2.old
is_rc 2 "spool replay -o REC REC.old is refused"
is "$(cat r2.old/.spool/which 2>/dev/null)" first "  the older recording stays"

# --- exports ---------------------------------------------------------------

# A lock trace has no function calls: --folded fails on it.
echo 'old flame' >flame.folded
spool_run export --folded -w flame.folded t
num_cmp "$RC" -ne 0 "export --folded of a trace without probes fails"
is "$(cat flame.folded 2>/dev/null)" "old flame" "  a failing export keeps the old file"
is "$(ls -A | grep -c '^\.flame\.folded\.')" 0 "  and leaves no temporary file"

mkfifo fifo
timeout 20 cat fifo >fifo.got &
spool_run export --folded -w fifo t
wait
ok "export -w FIFO that fails keeps the FIFO" test -p fifo

timeout 20 cat fifo >fifo.got &
spool_run export --chrome -w fifo t
wait
is_rc 0 "export --chrome -w FIFO exits 0"
like "$(head -c 200 fifo.got)" "traceEvents" "  the JSON went through the FIFO"
ok "  which is still a FIFO" test -p fifo

if [ "$(id -u)" = 0 ] && mknod null c 1 3 2>/dev/null && echo x >null 2>/dev/null; then
	spool_run export --folded -w null t
	ok "export -w a character device that fails keeps the device node" test -c null
else
	skip 1 "mknod needs root and a filesystem that allows devices"
fi

echo 'old json' >out.json
chmod 640 out.json
ln -s out.json out-link.json
spool_run export --chrome -w out-link.json t
is_rc 0 "export --chrome through a symbolic link exits 0"
ok "  the link stays a link" test -L out-link.json
like "$(head -c 200 out.json)" "traceEvents" "  the file it points to has the export"
is "$(stat -c %a out.json)" 640 "  with the mode the old file had"

# --- spool path -o -----------------------------------------------------------

echo 'old path' >path.txt
mkdir not-a-trace
spool_run path -o path.txt not-a-trace
num_cmp "$RC" -ne 0 "spool path of a directory that is not a trace fails"
is "$(cat path.txt)" "old path" "  path -o with bad input keeps the file"

done_testing
