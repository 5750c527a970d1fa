#!/bin/bash
# SPDX-License-Identifier: MIT
# 205-sysroot.t - spool report/export/info/path --sysroot DIR: a trace's files
# looked up inside DIR (the board's root, or a copy of its files) and used
# for names only when their build id is the one the trace recorded. The
# program runs from this test's directory and is then moved into a root, so
# only the root can name it: the same build names its functions and locks,
# another build is refused (said once, addresses printed raw, never the
# other build's names), a root holding only the separate debug file
# (usr/lib/debug/.build-id) names it, and a hostile trace whose path climbs
# out of the root ("/..") does not reach a file outside it.
. "$(dirname "$0")/lib.sh"

plan 21

mkdir -p bin
cp "$PROGS/lockcount" bin/lockcount
spool_run locks -q -o t.trace -- "$T_DIR/bin/lockcount" 2 100
is_rc 0 "spool locks runs the program from the test's directory"
spool_run probe -q -e 'func:worker' -o p.trace -- "$T_DIR/bin/lockcount" 2 10
is_rc 0 "spool probe runs it too"
root="$T_DIR/root"
mkdir -p "$root$T_DIR/bin"
mv bin/lockcount "$root$T_DIR/bin/lockcount"

spool_run report --locks t.trace
unlike "$OUT" 'worker' "without --sysroot the moved program is not named (the control)"

spool_run report --locks --sysroot "$root" t.trace
is_rc 0 "report --sysroot ROOT exits 0"
like "$OUT" 'worker\+0x[0-9a-f]+#[0-9]+ ' "  the locks are named by their init sites, from the root's copy"
like "$OUT" 'shared_lock' "  the global lock is named"
report_json --sysroot "$root" t.trace
like "$(json report.json '"\n".join(l["init_site"] or "" for l in d["locks"])')" \
	'^worker\+0x[0-9a-f]+ \(lockcount\.c:[0-9]+\)' "  and their init sites have lines (JSON)"

spool_run info --sysroot "$root" t.trace
like "$OUT" "$T_DIR/bin/lockcount: same build" "info --sysroot says the root holds the run's build"
spool_run path p.trace
unlike "$OUT" ' worker ' "spool path without --sysroot cannot name the probed function (the control)"
spool_run path --sysroot "$root" p.trace
like "$OUT" 'T1/[0-9]+ +worker ' "spool path --sysroot names it from the root's copy"

spool_run export --chrome -w t.json --sysroot "$root" t.trace
is_rc 0 "export --sysroot ROOT exits 0"
like "$(cat t.json)" 'worker\+0x[0-9a-f]+ \(lockcount\.c:' "  the export names the locks' sites"

# --- another build at the same path: refused, not misnamed ---
cp "$PROGS/rr_bank" "$root$T_DIR/bin/lockcount"
spool_run report --locks --sysroot "$root" t.trace
like "$ERR" 'another build' "another build in the root is refused, saying why"
is "$(grep -c 'another build' run.err)" 1 "  said once"
unlike "$OUT" 'shared_lock|worker|main|bank|transfer' "  no name from the other build"
like "$OUT" '(^|\n)  mutex#[0-9]+ ' "  the locks are named by type and index"
spool_run info --sysroot "$root" t.trace
like "$OUT" "$T_DIR/bin/lockcount: ANOTHER BUILD" "info --sysroot says so too"

# --- only the separate debug file in the root ---
id="$(grep " $T_DIR/bin/lockcount\$" t.trace/.spool/proc/*.buildids | head -n 1 | sed 's/^[^:]*://; s/ .*//')"
root2="$T_DIR/root2"
mkdir -p "$root2/usr/lib/debug/.build-id/${id:0:2}"
objcopy --only-keep-debug "$PROGS/lockcount" "$root2/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
spool_run report --locks --sysroot "$root2" t.trace
like "$OUT" 'worker\+0x[0-9a-f]+' "a root with only the debug file of the run's build names the program"

# --- a hostile trace: its path climbs out of the root ---
cp "$PROGS/lockcount" "$T_DIR/outside"
mkdir -p "$T_DIR/jail"
sed -i "s| $T_DIR/bin/lockcount\$| /../outside|" t.trace/.spool/proc/*.maps t.trace/.spool/proc/*.buildids
spool_run report --locks --sysroot "$T_DIR/jail" t.trace
unlike "$OUT" 'worker|shared_lock' "a trace's path with '..' does not reach a file outside the root"
like "$ERR" '/../outside: not in the sysroot' "  it is looked up inside the root, and not found"

spool_run report --locks --sysroot "$T_DIR/nonexistent" t.trace
is_rc 2 "--sysroot naming no directory is a usage error"

done_testing
