#!/bin/bash
# SPDX-License-Identifier: MIT
# 238-probe-list-block-offset.t - spool probe --list with func: and block:
# of the same functions: a block whose start a function entry's jump covers
# is counted after that window, and --list shows that offset with the
# instruction at it (it showed the block's start, +0x0, with the
# instruction at +0x7), naming the block's start in the last column. Every
# block line's instruction is objdump's at the offset shown; the counts
# are unchanged.
. "$(dirname "$0")/lib.sh"

if ! command -v cc >/dev/null || ! command -v objdump >/dev/null; then
	echo "1..0 # SKIP needs cc and objdump"
	exit 0
fi
plan 6

cat >m.c <<'C'
int g;
int main(int c, char **v)
{
	for (int i = 0; i < c * 3; i++)
		g += i;
	return (g + (v != 0)) & 1;
}
C
cc -O0 -o m m.c

# check BIN: every block line's instruction mnemonic equals objdump's at
# the offset --list shows; prints the mismatches
check() {
	objdump -d -M intel --no-show-raw-insn "$1" >dis.txt
	python3 - "$1" <<'PY'
import re, subprocess, sys
binf = sys.argv[1]
syms = {}
for l in subprocess.run(["nm", binf], capture_output=True, text=True).stdout.splitlines():
    p = l.split()
    if len(p) == 3:
        syms[p[2]] = int(p[0], 16)
dis = {}
for l in open("dis.txt"):
    m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", l)
    if m:
        dis[int(m.group(1), 16)] = m.group(2)
bad = []
for l in open("list.txt"):
    p = l.split()
    if len(p) < 5 or p[1] != "block" or not p[3].startswith("+0x"):
        continue
    a = syms.get(p[0], None)
    if a is None:
        continue
    at = a + int(p[3][1:], 16)
    if dis.get(at) != p[4]:
        bad.append("%s %s: list says %s, objdump %s" % (p[0], p[3], p[4], dis.get(at)))
print("\n".join(bad))
PY
}

spool_run probe --list -e 'func:main' -e 'block:main' ./m
cp run.out list.txt
is_rc 0 "--list of func:main and block:main"
like "$OUT" '^main +block +jump +\+0x[1-9a-f][0-9a-f]* .*the block at \+0x0 \(its start is in probe 1' \
	"the block at main+0x0 is shown where it is counted, naming the block's start"
is "$(check ./m)" "" "every block line's instruction is the one at its offset (objdump)"

spool_run probe -q -e 'func:main' -e 'block:main' -- ./m a b
is_rc "$(./m a b; echo $?)" "the program's exit status"
spool_run report --coverage spool.trace
like "$OUT" 'main' "the coverage report names main"

PROG="$PROGS/probe_calls"
if [ -x "$PROG" ]; then
	spool_run probe --list -e 'func:probe_*' -e 'block:probe_*' "$PROG"
	cp run.out list.txt
	is "$(check "$PROG")" "" "probe_calls (-O2): every block line's instruction is the one at its offset"
else
	skip "probe_calls is not built" 1
fi

done_testing
