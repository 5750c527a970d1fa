#!/bin/bash
# SPDX-License-Identifier: MIT
# 79-probe-sys.t - system probes (spool probe -e sys:cpu/io/mem, spool report
# --sys) and flame graphs of probe traces (spool export --folded /
# --flamegraph). I/O counts must equal the calls and bytes the test program
# makes by construction; a thread that burns 200 ms of CPU must be reported
# with about that; allocator calls, bytes, frees and live bytes of two
# threads must equal what the program counts itself, and pigz must run
# unchanged with its allocator counted; the folded stacks must hold the known call structure
# with the program's own call counts; the SVG must be well-formed XML.
. "$(dirname "$0")/lib.sh"

SYSPROG="$PROGS/probe_sys"
CALLS="$PROGS/probe_calls"
MALLOC="$PROGS/probe_malloc"
if [ ! -x "$SYSPROG" ] || [ ! -x "$CALLS" ] || [ ! -x "$MALLOC" ]; then
	echo "1..0 # SKIP test programs are not built"
	exit 0
fi
plan 25

# --- system probes ---------------------------------------------------------
spool_run probe -q -e sys:cpu -e sys:io -e sys:mem -- "$SYSPROG" 37 123 out.bin
is_rc 0 "spool probe -e sys:... runs the program and exits with its status"
burn="$(sed -n 's/^burn_ns //p' <<<"$OUT")"
is "$(stat -c %s out.bin)" $((37 * 123)) "the program wrote its file"

spool_run report --sys --json spool.trace
is_rc 0 "spool report --sys reads the trace"
JSON="$OUT"
io() { # io DIR KIND -> "calls bytes" summed over threads
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
c = b = 0
for t in d["threads"]:
    for x in t["io"]:
        if x["dir"] == sys.argv[2] and x["kind"] == sys.argv[3]:
            c += x["calls"]; b += x["bytes"]
print(c, b)' "$JSON" "$1" "$2"
}
is "$(io write file)" "37 $((37 * 123))" "pwrite to a file: 37 calls, 37 x 123 bytes"
is "$(io write socket)" "3 30" "send on a socket: 3 calls, 30 bytes"
is "$(io read socket)" "3 30" "recv on a socket: 3 calls, 30 bytes"
is "$(io read pipe)" "2 10" "readv from a pipe: 2 calls, 10 bytes"
is "$(io write pipe)" "1 10" "write to a pipe: 1 call, 10 bytes"

cpu="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
# the burning thread: not the main thread (tid != pid), no I/O of its own
t = [t for t in d["threads"] if t["tid"] != t["pid"] and not t["io"]]
print(len(t), t[0]["cpu_ns"] if t else 0, t[0]["cpu_source"] if t else "-")' "$JSON")"
read -r nburn cpu_ns cpu_src <<<"$cpu"
is "$nburn $cpu_src" "1 exit" "the second thread's CPU time was taken when it ended"
num_cmp "$cpu_ns" -ge "${burn:-0}" "its CPU time is at least what it measured itself ($burn ns)"
num_cmp "$cpu_ns" -le $((${burn:-0} + 100000000)) "and within 100 ms of it ($cpu_ns ns)"
# each thread's pid is the process's, the main thread's tid the same
# (a freed ring's pid is 0: the report takes its last thread's from the
# thread's sys slot)
is "$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
pids = set(t["pid"] for t in d["threads"])
print(len(pids), sum(t["tid"] == t["pid"] for t in d["threads"]))' "$JSON")" "1 1" \
	"every thread names the program's pid, and one is its main thread (tid = pid)"

rss="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
r = d["rss"]
print(len(r), int(all(0 < x["min_bytes"] <= x["final_bytes"] <= x["max_bytes"] for x in r)))' "$JSON")"
is "$rss" "1 1" "one process's RSS sampled: 0 < min <= final <= max"

# --- allocator (sys:mem) ----------------------------------------------------
spool_run probe -q -e sys:mem -- "$MALLOC" 300
is_rc 0 "spool probe -e sys:mem runs a program that allocates in two threads"
native="$(grep '^thread ' <<<"$OUT" | sort)"
is "$(wc -l <<<"$native")" 2 "the program prints its own counts for its two threads"
spool_run report --sys --json spool.trace
JSON="$OUT"
got="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
want = [l.split() for l in sys.argv[2].splitlines()]
for w in want:
    t = [t for t in d["threads"] if str(t["tid"]) == w[1]]
    m = t[0].get("mem", {}) if t else {}
    print("thread", w[1], m.get("alloc_calls"), m.get("alloc_bytes"), m.get("frees"), m.get("live_bytes"))
' "$JSON" "$native" | sort)"
is "$got" "$native" "per thread: allocating calls, bytes asked, frees and live bytes equal the program's own"
heap="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
h = d["heap"]
workers = sum(int(l.split()[5]) for l in sys.argv[2].splitlines())
calls = sum(t.get("mem", {}).get("alloc_calls", 0) for t in d["threads"])
print(len(h), int(h[0]["live_bytes"] >= workers), int(h[0]["alloc_calls"] == calls))' "$JSON" "$native")"
is "$heap" "1 1 1" "the process's heap: live bytes at exit include the threads' kept blocks, calls sum up"
spool_run report --sys spool.trace
like "$OUT" 'bytes live at exit' "the text report gives live bytes at exit"

if command -v pigz >/dev/null; then
	head -c 3000000 "$SPOOL" >in.bin
	pigz -p 2 -c in.bin >native.gz
	spool_run probe -q -e sys:mem -- pigz -p 2 -c in.bin
	cmp -s run.out native.gz
	is "$RC $?" "0 0" "pigz -p 2 under sys:mem: same exit status, same compressed bytes"
else
	skip 1 "pigz is not installed"
fi

spool_run probe -e sys:disk -- "$SYSPROG" 1 1 out.bin
is_rc 2 "an unknown sys: probe is a usage error"

# --- flame graphs ----------------------------------------------------------
spool_run probe -q -e 'func:probe_*' -e 'func:main' -- "$CALLS" 50
native="$OUT"
spool_run export --folded --weight calls -w calls.folded spool.trace
got="$(python3 -c '
import sys
lines = {}
for l in open("calls.folded"):
    stack, n = l.rsplit(" ", 1)
    lines[stack] = int(n)
fib = sum(n for s, n in lines.items() if s.split(";")[-1] == "probe_fib")
nested = sum(n for s, n in lines.items() if s.startswith("main;probe_fib;probe_fib"))
print(lines.get("main", 0), lines.get("main;probe_leaf_add", 0), lines.get("probe_leaf_add", 0),
      lines.get("main;probe_tiny", 0), lines.get("main;probe_twice", 0),
      lines.get("probe_twice", 0), lines.get("main;probe_fib", 0), fib, nested)')"
want_fib="$(sed -n 's/^probe_fib //p' <<<"$native")"
is "$got" "1 50 50 50 1 1 1 $want_fib $((want_fib - 1))" \
	"folded stacks: main's callees and the worker's, recursion nested, the program's call counts"

spool_run export --folded spool.trace -w time.folded
like "$(cat time.folded)" '^main;probe_fib;probe_fib [0-9]+$' "--weight time: self ns per context"

spool_run export --flamegraph --weight calls --title 'probe <calls> & more' -o calls.svg spool.trace
is_rc 0 "spool export --flamegraph writes an SVG"
svg="$(python3 -c '
import sys, xml.etree.ElementTree as E
root = E.parse("calls.svg").getroot()
ns = "{http://www.w3.org/2000/svg}"
titles = " ".join(t.text or "" for t in root.iter(ns + "title"))
texts = " ".join(t.text or "" for t in root.iter(ns + "text"))
print(root.tag == ns + "svg", all(n in titles for n in ("main", "probe_fib", "probe_leaf_add", "probe_tiny", "probe_twice")), "probe <calls> & more" in texts)' 2>&1)"
is "$svg" "True True True" "the SVG parses as XML, names every probed function, escapes its title"

spool_run locks -q -o locks.trace -- "$CALLS" 5
spool_run export --folded -w none.folded locks.trace
is "$RC $([ -e none.folded ] && echo left || echo gone)" "1 gone" \
	"a trace without function probes: exit 1, no file left behind"

done_testing
