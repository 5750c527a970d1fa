#!/bin/bash
# SPDX-License-Identifier: MIT
# 55-replay-untrusted.t - a recording from someone else cannot make spool
# replay (or spool path, which replays it) run their code or write outside
# the trace: LD_PRELOAD and the other loader variables in its environ are
# not used unless --trust-env says so (and spool names them); a link planted
# where the replay image is written, or a .spool directory that is a link,
# is not written through; object numbers beyond what the recording holds
# are refused before they size anything; a recording made by another user
# names the binary, command line and directory before anything runs.
. "$(dirname "$0")/lib.sh"
# trace_craft.py edits format 1's layout: these traces are written in it
# (format 1 is still read: doc/trace-format.md, "Versions")
export SPOOL_TRACE_FORMAT=1

plan 22

spool_run record -q -o rec -- "$PROGS/lockcount" 2 100
is_rc 0 "a small recording"

# --- loader variables in the recorded environment -----------------------
EVIL=/nonexistent/spool-evil.so
cp -a rec env.trace
printf 'LD_PRELOAD=%s\0TZDIR=/nonexistent/tz\0' "$EVIL" >>env.trace/.spool/environ
spool_run replay -q -o r1.out env.trace
is "$OUT" "total=200" "environ with LD_PRELOAD: the program runs as recorded"
unlike "$ERR" "ld\\.so|spool-evil" "  the trace's LD_PRELOAD is not given to it"
like "$ERR" "not taken from the recorded environment.*LD_PRELOAD, TZDIR" \
	"  and spool names the variables it did not take"
spool_run replay -q --trust-env -o r2.out env.trace
like "$ERR" "ld\\.so.*spool-evil\\.so" "--trust-env: the recorded LD_PRELOAD is used"
spool_run path env.trace
unlike "$ERR" "ld\\.so|spool-evil" "spool path of that recording: not given LD_PRELOAD either"
like "$ERR" "not taken from the recorded environment.*LD_PRELOAD" "  and says so"

# --- the replay image's temporary file is a planted link ----------------
cp -a rec img.trace
echo "user data" >victim
# exec keeps the shell's pid: the link is where spool's temporary file goes
timeout -k 5 60 bash -c 'ln -s "$PWD/victim" img.trace/.spool/replay.img.$$.tmp
	exec "$1" replay -q -o r3.out img.trace' _ "$SPOOL" >run.out 2>run.err
RC=$?
check_sanitizer run.err "spool replay img.trace"
is "$RC" 0 "a link at .spool/replay.img.PID.tmp: the replay runs"
is "$(cat victim)" "user data" "  the file it names is not written"

# a link as the image itself: not read as one, replaced by a real image
cp -a rec img2.trace
echo "more user data" >victim2
ln -s "$PWD/victim2" img2.trace/.spool/replay.img
spool_run replay -q -o r4.out img2.trace
is_rc 0 "a link at .spool/replay.img: the replay runs"
is "$(cat victim2)" "more user data" "  the file it names is unchanged"
ok "  and the link was replaced by the image, not followed" \
	test -f img2.trace/.spool/replay.img -a ! -L img2.trace/.spool/replay.img

# --- the trace's .spool directory is a link to another directory --------
mkdir elsewhere
cp -a rec/.spool/. elsewhere/
cp -a rec dirlink.trace
rm -rf dirlink.trace/.spool
ln -s "$PWD/elsewhere" dirlink.trace/.spool
spool_run replay -q -o r5.out dirlink.trace
num_cmp "$RC" -ne 0 ".spool is a link: spool replay refuses the recording"
ok "  and writes nothing where the link points" test ! -e elsewhere/replay.img

# --- object numbers that would size the replay's tables ----------------
# Every schedule record but the token's switches (op 32) names object
# 16777200: before the bound, the replay of this 24 KB recording took
# 500 MB and wrote a 134 MB replay image.
cp -a rec objs.trace
python3 "$REPO/tests/integ/trace_craft.py" u32 objs.trace 6 8 0xfffff0 16 32 >/dev/null
spool_run replay -q -o r7.out objs.trace
num_cmp "$RC" -ne 0 "object number 16777200 in a small recording: refused"
like "$ERR" "bad object number 16777200" "  saying why"
ok "  and no replay image is written for it" test ! -e objs.trace/.spool/replay.img

# --- a recording made by another user ------------------------------------
cp -a rec other.trace
if chown 4242 other.trace/.spool/record 2>/dev/null; then
	spool_run replay -q -o r6.out other.trace
	is_rc 0 "a recording by uid 4242: the replay runs"
	like "$ERR" "recorded by another user \\(uid 4242\\)" "  spool says whose it is"
	like "$ERR" "binary: $PROGS/lockcount \\(build id [0-9a-f]+" "  names the binary"
	like "$ERR" "command line: '.*lockcount' '2' '100'" "  and the command line"
	like "$ERR" "working directory: " "  and the directory"
else
	skip 5 "chown needs root: cannot make a recording of another user"
fi

done_testing
