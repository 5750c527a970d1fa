#!/bin/bash
# SPDX-License-Identifier: MIT
# 96-glib-futex.t - a real Debian GLib program under spool locks (issue
# 17): gio (libglib2.0-bin) copying 40 files. GLib's locks and
# conditions are futexes called through syscall(SYS_futex), which spool
# used to miss entirely ("locks: none used"): now its futex words are
# reported as objects of type futex (GCond's broadcasts in g_once_init_leave
# wake one every time a GType is registered), and GLib's pthread-based
# locks (GRWLock, GRecMutex) as before. No timing is asserted.
. "$(dirname "$0")/lib.sh"
need_progs gio
plan 6

mkdir -p src dst
for i in $(seq 1 40); do head -c 2000 /dev/urandom >"src/f$i"; done
timeout -k 10 "$T_TIMEOUT" "$SPOOL" locks -o g.trace -- gio copy -p src/f* dst >run.out 2>run.err
rc=$?
check_sanitizer run.err "spool locks -- gio copy"
is "$rc" 0 "spool locks -- gio copy: exit 0" || diag "$(tail -n 5 run.err)"
is "$(find dst -type f | wc -l)" 40 "  gio copied the files"
unlike "$(cat run.err)" "none used|none seen" "  the report does not say 'none used'"
timeout -k 10 "$T_TIMEOUT" "$SPOOL" report --locks --json g.trace >r.json 2>r.err
check_sanitizer r.err "spool report --locks --json"
nf=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len([l for l in d["locks"] if l["type"] == "futex"]))' r.json)
num_cmp "${nf:-0}" -ge 1 "  JSON: at least one futex object"
nw=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(l["futex"]["wakes"] for l in d["locks"] if l["type"] == "futex"))' r.json)
num_cmp "${nw:-0}" -ge 1 "  with its wakes counted"
like "$(cat run.err)" "g_once_init_leave|libglib-2\\.0\\.so" "  named by a GLib site"
done_testing
