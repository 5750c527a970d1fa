#!/bin/bash
# SPDX-License-Identifier: MIT
# 156-gdbus-thread-names.t - a real Debian program that names its threads
# after they start (issue 13): gdbus (libglib2.0-bin) calling the bus of a
# private session, as 133 does. GLib's g_thread_new names each thread with
# pthread_setname_np from inside it, once it runs: GLib's worker thread is
# "gmain", GDBus's "gdbus"; spool registers a thread the agent's
# pthread_create starts before its body runs, so every thread had the
# program's name "gdbus" in the report and the exports before. Now the
# JSON report and the Chrome export name the worker "gmain" (the text
# report's threads table lists the threads that took a lock: gmain took
# none in this run).
. "$(dirname "$0")/lib.sh"
need_progs gdbus dbus-run-session
plan 5

timeout -k 10 "$T_TIMEOUT" dbus-run-session -- "$SPOOL" locks -o g.trace -- \
	gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
	--method org.freedesktop.DBus.ListNames >run.out 2>run.err
rc=$?
check_sanitizer run.err "spool locks -- gdbus call"
is "$rc" 0 "dbus-run-session -- spool locks -- gdbus call: exit 0" || diag "$(tail -n 5 run.err)"
like "$(cat run.out)" "'org\\.freedesktop\\.DBus'" "  gdbus printed the bus's names"

"$SPOOL" report --locks --json g.trace >report.json 2>r.err
check_sanitizer r.err "spool report --locks --json"
names=$("$REAL_PY" -c 'import json
d = json.load(open("report.json"))
print("\n".join(sorted(t["name"] for t in d["threads"])))' 2>/dev/null)
like "$names" "^gmain$" "report --json: GLib's worker thread is named gmain" || diag "$names"
unlike "$(cat r.err run.err)" "unknown event id" "  the trace reads without a problem"

timeout -k 10 "$T_TIMEOUT" "$SPOOL" export --chrome -w g.json g.trace >/dev/null 2>e.err
check_sanitizer e.err "spool export --chrome"
like "$(cat g.json 2>/dev/null)" '"name":"thread_name"[^}]*"gmain"' \
	"Chrome export: a thread_name record names the worker gmain"
done_testing
