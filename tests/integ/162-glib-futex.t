#!/bin/bash
# SPDX-License-Identifier: MIT
# 162-glib-futex.t - locks that are not pthread locks (issue 17): a GLib
# program (GThreadPool workers on a contended GMutex, a GCond, a
# GAsyncQueue) used to get "locks: none used": GLib's locks are futexes
# called through syscall(SYS_futex). spool reports each futex word as a
# lock-like object of type futex: its waits with wait time, the threads that
# waited and that woke, and (wait site, wake site) pairs; the text says what
# cannot be known (no hold time); JSON, Perfetto and Chrome have them.
. "$(dirname "$0")/lib.sh"
plan 14
if ! pkg-config --exists glib-2.0 2>/dev/null; then
	skip 14 "no libglib2.0-dev (scripts/deps.sh)"
	done_testing
	exit 0
fi
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -g -O1 -fno-omit-frame-pointer -o pool "$REPO/tests/progs/glib/pool.c" \
	$(pkg-config --cflags --libs glib-2.0) 2>cc.err
ok "the GLib thread-pool program builds" test -x pool || diag "$(cat cc.err)"

# Contention is a matter of scheduling: try a few runs for stats_lock waits.
for try in 1 2 3 4 5; do
	spool_run locks -o g.trace -- ./pool 24
	report_json g.trace
	w=$(json report.json '[l["futex"]["waits"] for l in d["locks"] if l["name"] == "stats_lock"] or [0]')
	[ "${w:-0}" -gt 0 ] && break
done
is "$RC" 0 "spool locks of the GLib program"
unlike "$(cat run.err)" "none used" "  not 'none used'"
spool_run report g.trace
like "$OUT" "locks: no pthread mutex, rwlock, spinlock or semaphore used; [0-9]+ futex(es)? below" \
	"  the report says the locks are futexes"
like "$OUT" "an uncontended lock or unlock never" "  and what cannot be known about them"
like "$OUT" "(^|\n)  stats_lock +[1-9]" "  the contended GMutex stats_lock is listed with its waits"
report_json g.trace
is "$(json report.json '[l["type"] for l in d["locks"] if l["name"] == "stats_lock"][0]')" futex \
	"  JSON: stats_lock is a futex"
num_cmp "$(json report.json '[l["futex"]["waiters"] for l in d["locks"] if l["name"] == "stats_lock"][0]')" -ge 1 \
	"  with waiters"
num_cmp "$(json report.json '[l["futex"]["wakers"] for l in d["locks"] if l["name"] == "stats_lock"][0]')" -ge 1 \
	"  and wakers"
num_cmp "$(json report.json '[l["futex"]["wait"]["total_ns"] for l in d["locks"] if l["name"] == "stats_lock"][0]')" -gt 0 \
	"  and a wait time"
like "$(json report.json '[s["holder_site"] for l in d["locks"] if l["name"] == "stats_lock" for s in l["sites"]]')" \
	"worker\\+0x[0-9a-f]+ \\(pool.c:[0-9]+\\)" "  its call sites: the waker is the worker's unlock (pool.c)"
num_cmp "$(json report.json 'sum(t["futex_wait_ns"] for t in d["threads"])')" -gt 0 \
	"  threads: futex wait time"

spool_run export --chrome -w g.json g.trace
like "$(cat g.json 2>/dev/null)" '"wait futex stats_lock"' \
	"Chrome export: futex waits on the timeline, named as the lock report names them"
spool_run export --perfetto -w g.pftrace g.trace
like "$(tr -d '\0' <g.pftrace 2>/dev/null)" "futex stats_lock" "Perfetto export: the futex tracks"
done_testing
