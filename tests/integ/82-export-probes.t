#!/bin/bash
# SPDX-License-Identifier: MIT
# 82-export-probes.t - spool export of a probe trace (spool probe -e
# func:...): one function slice per call, named by the function, in both the
# Perfetto and the Chrome export; as many slices of each function as the
# program counts itself; slices nest legally on each thread (a child begins
# after and ends before its parent), and recursion shows as nesting.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_calls"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 12

PROTO_DIR="$REPO/tests/data/perfetto"
N=300

spool_run probe -q -e 'func:probe_*' -- "$PROG" "$N"
is_rc 0 "spool probe runs probe_calls $N"
native="$(echo "$OUT" | sort)"
fib_calls="$(echo "$native" | awk '$1 == "probe_fib" { print $2 }')"
like "$fib_calls" '^[0-9]+$' "the program prints its own count of probe_fib calls"

# --- Perfetto ---------------------------------------------------------------
spool_run export --perfetto -w out.pftrace spool.trace
is_rc 0 "export --perfetto of a probe trace exits 0"
if command -v protoc >/dev/null && [ -f "$PROTO_DIR/trace.proto" ]; then
	protoc -I"$PROTO_DIR" --decode=perfetto.protos.Trace trace.proto <out.pftrace >pf.txt 2>pf.err
	is "$?" 0 "  protoc decodes it as perfetto.protos.Trace"
	# Replay the packets: per track a stack of open slices; BEGIN pushes,
	# END pops, timestamps never go back on a track; a function slice's
	# track is a child of a thread track.
	python3 - pf.txt >pf.check <<'PY'
import re, sys
packets, cur, stack = [], None, []
for line in open(sys.argv[1]):
    s = line.strip()
    if s == 'packet {':
        cur = {}
        stack = ['packet']
        continue
    if cur is None:
        continue
    if s.endswith('{'):
        stack.append(s[:-1].strip())
        continue
    if s == '}':
        stack.pop()
        if not stack:
            packets.append(cur)
            cur = None
        continue
    m = re.match(r'(\w+): (.*)', s)
    if m and len(stack) <= 3 and stack[-1] != 'debug_annotations':
        cur.setdefault('/'.join(stack[1:] + [m.group(1)]), m.group(2).strip('"'))
threads, func_tracks = set(), {}
for p in packets:
    if 'track_descriptor/thread/tid' in p:
        threads.add(p['track_descriptor/uuid'])
for p in packets:
    if p.get('track_descriptor/name') == 'functions':
        func_tracks[p['track_descriptor/uuid']] = p.get('track_descriptor/parent_uuid')
counts, open_, last, errors = {}, {}, {}, []
fib_in_fib, max_depth = 0, 0
for p in packets:
    t = p.get('track_event/track_uuid')
    if t not in func_tracks:
        continue
    ts = int(p['timestamp'])
    if ts < last.get(t, 0):
        errors.append('time goes back on track %s' % t)
    last[t] = ts
    st = open_.setdefault(t, [])
    if p['track_event/type'] == 'TYPE_SLICE_BEGIN':
        name = p['track_event/name']
        if p.get('track_event/categories') != 'func':
            errors.append('slice %s on a function track is not cat func' % name)
        counts[name] = counts.get(name, 0) + 1
        if name == 'probe_fib' and st and st[-1][0] == 'probe_fib':
            fib_in_fib += 1
        st.append((name, ts))
        max_depth = max(max_depth, len(st))
    elif p['track_event/type'] == 'TYPE_SLICE_END':
        if not st:
            errors.append('end without a begin on track %s' % t)
        else:
            st.pop()
for t, st in open_.items():
    if st:
        errors.append('%d slices never end on track %s' % (len(st), t))
orphans = [t for t, parent in func_tracks.items() if parent not in threads]
for n in sorted(counts):
    print('count', n, counts[n])
print('fib_in_fib', fib_in_fib)
print('max_depth', max_depth)
print('func_tracks', len(func_tracks))
print('orphans', len(orphans))
print('errors', len(errors), '; '.join(errors[:3]))
PY
	got="$(awk '$1 == "count" { print $2, $3 }' pf.check)"
	is "$got" "$native" "  slices per function equal the program's own call counts"
	is "$(awk '$1 == "errors" { print $2 }' pf.check)" 0 \
		"  slices nest on every function track: ends match begins, time never goes back"
	is "$(awk '$1 == "fib_in_fib" { print $2 }' pf.check)" "$((fib_calls - 1))" \
		"  every recursive probe_fib slice is inside its caller's probe_fib slice"
	is "$(awk '$1 == "func_tracks" { print $2 }' pf.check)" 2 \
		"  one function track for each of the two threads"
	is "$(awk '$1 == "orphans" { print $2 }' pf.check)" 0 \
		"  each function track is a child of its thread's track"
	[ "$(awk '$1 == "errors" { print $2 }' pf.check)" = 0 ] || diag "$(cat pf.check)"
else
	skip 6 "protoc or tests/data/perfetto/trace.proto missing"
fi

# --- Chrome JSON --------------------------------------------------------------
spool_run export --chrome -w out.json spool.trace
is_rc 0 "export --chrome of a probe trace exits 0"
got="$(python3 - out.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
X = [e for e in d["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "func"]
counts = {}
for e in X:
    counts[e["name"]] = counts.get(e["name"], 0) + 1
for n in sorted(counts):
    print(n, counts[n])
PY
)"
is "$got" "$native" "  Chrome: func slices per function equal the program's own counts"
nest="$(python3 - out.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
X = [e for e in d["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "func"]
bad = 0
by_tid = {}
for e in X:
    b, f = round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)
    by_tid.setdefault(e["tid"], []).append((b, -f, f))
for evs in by_tid.values():
    evs.sort()
    st = []
    for b, _, f in evs:
        # Pop the slices that ended before this one begins (one that ends
        # where this begins is done unless this one is empty).
        while st and (st[-1] < b or (st[-1] == b and f > b)):
            st.pop()
        if st and f > st[-1]:
            bad += 1
        st.append(f)
print(bad)
PY
)"
is "$nest" 0 "  Chrome: no function slice partly overlaps another on its thread"

done_testing
