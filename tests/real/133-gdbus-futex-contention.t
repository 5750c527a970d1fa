#!/bin/bash
# SPDX-License-Identifier: MIT
# 133-gdbus-futex-contention.t - a real Debian GLib program with threads
# that wait on each other, under spool locks (issue 17): gdbus (from
# libglib2.0-bin) calling the bus of a private session (dbus-run-session:
# a dbus-daemon that ends with the command, on a unix socket). Its main
# thread sends the call and sleeps on a GCond until GDBus's worker thread
# has the reply; GLib's GMutex and GCond are futexes called through
# syscall(SYS_futex), which spool used to miss ("locks: none used"). The
# report must give that a contention profile, labelled as futexes with what
# cannot be known (no acquisitions or hold times): waits, wait time, the
# threads that waited and that woke, the (waiter, waker) call sites in
# GLib/GIO, the threads' futex wait time, and the waits on the Chrome
# export's timeline. 96 has gio (one thread: wakes only); 162 our own
# GThreadPool program. The waits are the kernel's: a run where the worker
# was quicker than the main thread's sleep has none, so up to 3 runs are
# tried; no timing is asserted.
. "$(dirname "$0")/lib.sh"
need_progs gdbus dbus-run-session
plan 12

gdbus_call() { # TRACE: spool locks of one gdbus call to the bus itself
	timeout -k 10 "$T_TIMEOUT" dbus-run-session -- "$SPOOL" locks -o "$1" -- \
		gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
		--method org.freedesktop.DBus.ListNames >run.out 2>run.err
}
# fjson EXPR: EXPR over the futex objects f of report.json (d: the document)
fjson() {
	"$REAL_PY" -c 'import json, sys
d = json.load(open("report.json")); f = [l for l in d["locks"] if l["type"] == "futex"]
print(eval(sys.argv[1]))' "$1" 2>/dev/null
}

for try in 1 2 3; do
	rm -rf g.trace
	gdbus_call g.trace
	rc=$?
	"$SPOOL" report --locks --json g.trace >report.json 2>r.err
	[ "$(fjson 'sum(l["futex"]["waits"] for l in f)')" -gt 0 ] 2>/dev/null && break
done
check_sanitizer run.err "spool locks -- gdbus call"
is "$rc" 0 "dbus-run-session -- spool locks -- gdbus call: exit 0" || diag "$(tail -n 5 run.err)"
like "$(cat run.out)" "'org\\.freedesktop\\.DBus'" "  gdbus printed the bus's names"
unlike "$(cat run.err)" "none used|none seen" "  the report does not say 'none used'"
like "$(cat run.err)" "futexes \\(waits and wakes made through syscall\\(SYS_futex\\)" \
	"  its futexes have their table, labelled"
like "$(cat run.err)" "acquisitions and hold times cannot be known" "  which says what cannot be known"
diag "run $try: $(fjson 'len(f)') futexes, $(fjson 'sum(l["futex"]["waits"] for l in f)') waits"
num_cmp "$(fjson 'sum(l["futex"]["waits"] for l in f)')" -ge 1 \
	"JSON: the main thread's waits for the worker are counted"
num_cmp "$(fjson 'len([l for l in f if l["futex"]["waits"] and l["futex"]["waiters"] >= 1 and l["futex"]["wakers"] >= 1 and l["futex"]["wait"]["total_ns"] > 0])')" -ge 1 \
	"  a futex waited on has its waiters, its wakers and a wait time"
num_cmp "$(fjson 'len({t["index"] for t in d["threads"]})')" -ge 2 "  gdbus ran more than one thread"
num_cmp "$(fjson 'len([t for t in d["threads"] if t["futex_wait_ns"] > 0])')" -ge 1 \
	"  threads: one has futex wait time"
sites=$(fjson '"\n".join("%s <- %s" % (s["waiter_site"], s["holder_site"]) for l in f for s in l["sites"])')
num_cmp "$(grep -c . <<<"$sites")" -ge 1 "  call-site pairs of the futexes (waiter <- waker)"
like "$sites" "(libglib-2\\.0|libgio-2\\.0|g_[a-z_]+\\+0x)" "  in GLib or GIO" || diag "$sites"

timeout -k 10 "$T_TIMEOUT" "$SPOOL" export --chrome -w g.json g.trace >/dev/null 2>e.err
check_sanitizer e.err "spool export --chrome"
like "$(cat g.json 2>/dev/null)" '"wait futex ' "Chrome export: the futex waits on the timeline"
done_testing
