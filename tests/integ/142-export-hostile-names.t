#!/bin/bash
# SPDX-License-Identifier: MIT
# 142-export-hostile-names.t - names in a trace are untrusted bytes (a
# thread's comm, a function of the probes file), and an export is read by
# other programs: the Perfetto trace wrote them raw into protobuf string
# fields (protoc: "String field ... contains invalid UTF-8 data"; Perfetto's
# UI mangles them) and the flame graph SVG let invalid UTF-8 through (not a
# valid XML document: a browser shows an error, not the graph). A crafted
# trace (tests/integ/trace_craft.py) names its thread "\xff\x1b[2..." and a
# probed function "harm\xff ESC[2J U+202E leaf" with a cut UTF-8 sequence at
# its end; both exports must be valid UTF-8, the SVG a well-formed XML
# document, and the names shown as spool prints them (\xNN).
. "$(dirname "$0")/lib.sh"
# trace_craft.py edits format 1's layout: these traces are written in it
# (format 1 is still read: doc/trace-format.md, "Versions")
export SPOOL_TRACE_FORMAT=1
plan 9

spool_run probe -q -o fl.trace -e 'func:harm_leaf*' -- "$PROGS/probe_harm" 50
is_rc 0 "a probe trace of probe_harm"
n=$(python3 "$REPO/tests/integ/trace_craft.py" u32 fl.trace 2 16 0x325b1bff)
num_cmp "${n:-0}" -ge 1 "crafted: its thread's name starts with ff 1b 5b 32"
python3 - <<'PY'
p = 'fl.trace/.spool/probes'
d = open(p, 'rb').read()
open(p, 'wb').write(d.replace(b'harm_leaf_i3', b'harm\xff\x1b[2J\xe2\x80\xaeleaf\xe2\x82'))
PY
ok "crafted: a function of the probes file holds a byte that is not UTF-8, ESC and U+202E" \
	grep -qF 'leaf' fl.trace/.spool/probes

spool_run export --flamegraph -w fl.svg fl.trace
is_rc 0 "spool export --flamegraph of the crafted trace"
ok "  the SVG is valid UTF-8 and well-formed XML" python3 -c '
import sys, xml.etree.ElementTree as E
d = open("fl.svg", "rb").read()
d.decode("utf-8")
E.fromstring(d)'
ok "  the function is named as spool prints it (\\xNN)" \
	grep -qF 'harm\xff\x1b[2J\xe2\x80\xaeleaf\xe2\x82' fl.svg

spool_run export --perfetto -w fl.pftrace fl.trace
is_rc 0 "spool export --perfetto of the crafted trace"
ok "  none of the crafted bytes is in the file" python3 -c '
d = open("fl.pftrace", "rb").read()
raise SystemExit(b"\xff\x1b[2" in d or b"\x1b[2J" in d or b"\xe2\x80\xae" in d)'
PROTO_DIR="$REPO/tests/data/perfetto"
if command -v protoc >/dev/null && [ -f "$PROTO_DIR/trace.proto" ]; then
	protoc -I"$PROTO_DIR" --decode=perfetto.protos.Trace trace.proto <fl.pftrace >pf.txt 2>pf.err
	ok "  protoc decodes it without an invalid UTF-8 string, names escaped" \
		sh -c '! grep -q "invalid UTF-8" pf.err && grep -qF "harm\\\\xff\\\\x1b[2J" pf.txt &&
			grep -qF "thread_name: \"\\\\xff\\\\x1b[2" pf.txt' ||
		diag "$(head -n 5 pf.err)" "$(grep -i name pf.txt | sort -u | head -n 8)"
else
	skip 1 "protoc or tests/data/perfetto/trace.proto missing"
fi
done_testing
