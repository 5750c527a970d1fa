#!/bin/bash
# SPDX-License-Identifier: MIT
# 221-probe-list-insn.t - the instruction `spool probe --list` shows for a
# probe is the one at that address, as objdump disassembles it.
#
# Planning decodes every instruction of a probed function but formats the
# text of only those it shows (x86_insn_text), from the bytes kept with the
# decoded instruction. For every probe of tests/progs/probe_pages.c (-O2:
# entries, exits, every block of main), the mnemonic must be objdump's at
# function + offset (the conditional-jump aliases taken as one), and an
# absolute address in the text (a branch target, a RIP-relative operand)
# must be the one objdump names there. The report's function calls are the
# same whether or not --list was asked first (planning keeps no state).
. "$(dirname "$0")/lib.sh"

if ! command -v gcc >/dev/null || ! command -v objdump >/dev/null ||
	! command -v python3 >/dev/null; then
	echo "1..0 # SKIP gcc/objdump/python3 are not installed"
	exit 0
fi
plan 5

ok "the test program builds (gcc -O2 -g)" gcc -O2 -g -o pp "$REPO/tests/progs/probe_pages.c"
spool_run probe --list -e 'func:f*' -e 'block:main' ./pp
is "$RC" 0 "--list: exit status 0"
cp run.out list.txt
objdump -d -M intel --no-show-raw-insn pp >dis.txt
nm pp >syms.txt

cat >cmp.py <<'PY'
import re, sys
syms = {}
for l in open("syms.txt"):
    p = l.split()
    if len(p) == 3 and p[1] in "tT":
        syms[p[2]] = int(p[0], 16)
dis = {}
for l in open("dis.txt"):
    m = re.match(r"\s+([0-9a-f]+):\s+(.*)$", l)
    if m:
        dis[int(m.group(1), 16)] = m.group(2)
alias = {"je": "jz", "jne": "jnz", "ja": "jnbe", "jae": "jnb", "jc": "jb", "jnae": "jb",
         "jna": "jbe", "jg": "jnle", "jge": "jnl", "jnge": "jl", "jng": "jle"}
def mnem(t):
    w = t.split()
    while w and w[0] in ("bnd", "notrack", "rep", "repz", "repe", "lock"):
        w = w[1:]
    w = w[0] if w else ""
    return alias.get(w, w)
lines = open("list.txt").read().splitlines()
hdr = lines[0]
c_ins = hdr.index("instruction")
n, bad = 0, []
for l in lines[1:]:
    p = l.split()
    if len(p) < 5 or not p[3].startswith("+0x") or p[0] not in syms:
        continue
    text = re.split(r"\s{2,}", l[c_ins:].strip())[0]  # a long one overflows its column
    if text.startswith("("):
        continue  # (return address): no instruction
    addr = syms[p[0]] + int(p[3][1:], 16)
    want = dis.get(addr)
    n += 1
    if want is None:
        bad.append("%s %s: no instruction at 0x%x in objdump" % (p[0], p[3], addr))
        continue
    if mnem(text) != mnem(want):
        bad.append("%s %s: '%s' against objdump's '%s'" % (p[0], p[3], text, want))
    for a in re.findall(r"0x([0-9A-Fa-f]{9,})", text):
        t = "%x" % int(a, 16)
        if not re.search(r"(^|[\s#])%s\b" % t, want.lower()):
            bad.append("%s %s: address %s in '%s', objdump: '%s'" % (p[0], p[3], t, text, want))
print(n)
for b in bad[:10]:
    print(b)
PY
res="$(python3 cmp.py)"
n="$(echo "$res" | head -n 1)"
num_cmp "${n:-0}" -ge 20 "--list shows an instruction for at least 20 probes"
is "$(echo "$res" | tail -n +2)" "" "each is objdump's instruction at its address (${n:-0} compared)"
like "$(grep -c 'jmp 0x\|lea .*\[0x' list.txt)" '^[1-9]' "some show an absolute target (branch or RIP-relative)"
