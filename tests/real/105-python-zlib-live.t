#!/bin/bash
# SPDX-License-Identifier: MIT
# 105-python-zlib-live.t - Debian's python3 compressing and checksumming in
# a loop (its zlib module calls Debian's libz.so.1), probed by an attached
# `spool probe -p PID --commands` that changes its probes while it runs:
# crc32's entry disabled (its hits stop) and enabled again (they grow),
# deflate's probes added and deleted, adler32's blocks added. python3
# prints what it prints alone, and after the detach every byte of its
# code, libz's included, is what it was before spool attached.
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY"
plan 14

cat >loop.py <<'PY'
import os, sys, time, zlib
data = bytes(range(256)) * 64
want = (zlib.crc32(data), zlib.compress(data, 6))
bad = 0
print("ready", flush=True)
while True:
    if (zlib.crc32(data), zlib.compress(data, 6)) != want:
        bad += 1
    if zlib.decompress(want[1]) != data:
        bad += 1
    if os.path.exists(sys.argv[1]):
        break
    time.sleep(0.002)
print("done", "ok" if not bad else "BAD %d" % bad, want[0], len(want[1]))
PY
: >stop.native
"$REAL_PY" loop.py stop.native >native.out
rm -f stop.now
"$REAL_PY" loop.py stop.now >prog.out &
pid=$!
wait_ready prog.out

"$REAL_PY" - "$SPOOL" "$pid" "$REPO/tests/integ" >checks.out 2>checks.err <<'PY'
import sys, time
sys.path.insert(0, sys.argv[3])
from probe_live import Spool, parse_list, code_snapshot, same_code

spool, pid = sys.argv[1], int(sys.argv[2])

def check(ok, desc, *why):
    print(("PASS\t" if ok else "FAIL\t") + desc + "".join("\t" + str(w) for w in why), flush=True)

def hits(s, ids):
    l = parse_list(s.cmd("list"))
    return sum(l[i]["hits"] or 0 for i in ids)

def grows(s, ids):
    a = hits(s, ids)
    for _ in range(60):
        time.sleep(0.2)
        b = hits(s, ids)
        if b > a:
            return True, a, b
    return False, a, b

before = code_snapshot(pid)
s = Spool(spool, pid, ["-e", "func:libz.so*:crc32", "-o", "t.trace"])
l = parse_list(s.cmd("list"))
crc = [i for i in l if l[i]["function"] == "crc32"]
entry = [i for i in crc if l[i]["op"] == "entry"]
check(len(entry) == 1, "crc32's entry probe is listed", l)
ok, a, b = grows(s, entry)
check(ok, "... and counts python's zlib.crc32 calls", a, b)
s.cmd("disable %d" % entry[0])
a = hits(s, entry)
time.sleep(0.5)
b = hits(s, entry)
check(a == b, "disabled, crc32's entry records nothing", a, b)
s.cmd("enable %d" % entry[0])
ok, a, b = grows(s, entry)
check(ok, "enabled, it counts again", a, b)

r = s.cmd("add func:libz.so*:deflate")
d = sorted(parse_list(r))
check(r[-1].startswith("ok added") and d, "add func:libz.so*:deflate while python runs", r)
ok, a, b = grows(s, d)
check(ok, "... deflate's probes count", a, b)
r = s.cmd("delete " + " ".join(str(i) for i in d))
check(r[-1] == "ok deleted %d" % len(d), "delete them", r)
a = hits(s, d)
time.sleep(0.5)
b = hits(s, d)
check(a == b, "... deleted, they record nothing", a, b)

r = s.cmd("add block:libz.so*:adler32")
bl = sorted(parse_list(r))
ok, a, b = grows(s, bl) if bl else (False, 0, 0)
check(r[-1].startswith("ok added") and ok, "add block:libz.so*:adler32: its blocks count", r[-1], a, b)
check(s.cmd("detach")[-1] == "ok detaching", "detach")
rc, rest = s.close()
check(rc == 0, "spool exits 0", rc)
diff = same_code(before, pid)
check(not diff, "every code byte of python3 and its libraries (libz too) is as before", diff)
PY
while IFS=$'\t' read -r res desc why; do
	if [ "$res" = PASS ]; then pass "$desc"; else fail "$desc"; diag "$why"; fi
done <checks.out
[ -s checks.err ] && diag "$(cat checks.err)" "$(cat spool.err 2>/dev/null)"
touch stop.now
wait "$pid"
is "$?" 0 "python3 exits 0"
ok "it printed what it prints alone" cmp -s prog.out native.out
done_testing
