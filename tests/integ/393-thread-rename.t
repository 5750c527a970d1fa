#!/bin/bash
# SPDX-License-Identifier: MIT
# 393-thread-rename.t - a thread named after its start keeps its new name in
# the lock report (text and JSON) and in the Chrome and Perfetto exports
# (issue 13): tests/progs/tname names a worker from inside
# (pthread_setname_np(pthread_self())), another from the main thread
# (pthread_setname_np(th)) and the main thread itself with
# prctl(PR_SET_NAME), twice; every thread ran (and was registered under the
# program's name) before. The spool:thread_name records (trace-format.md)
# are read in format 2 with ring packets (the default), in the records mode
# and in format 1. Before, every thread was "tname" everywhere.
. "$(dirname "$0")/lib.sh"

P="$PROGS/tname"
plan 16
want=$'tn-by-main\ntn-main-renamed\ntn-self-named'
names='"\n".join(sorted(t["name"] for t in d["threads"]))'

spool_run locks -q -- "$P" 5
is_rc 0 "spool locks of tname"
report_json spool.trace
is "$(json report.json "$names")" "$want" "report --json: each thread's last name"
spool_run report --locks spool.trace
is "$(sed -n '/^threads:/,/^$/p' run.out | awk 'NR > 2 && NF {print $2}' | sort)" "$want" \
	"report (text): the threads table has the last names"
unlike "$ERR" "unknown event id" "  the trace reads without a problem"
spool_run info spool.trace
like "$OUT" "lost: 0 events" "spool info: nothing lost"

spool_run export --chrome -w out.json spool.trace
is_rc 0 "export --chrome exits 0"
# the last thread_name record of each tid, as a viewer keeps it
last='sorted({e["tid"]: e["args"]["name"] for e in d["traceEvents"] if e.get("ph") == "M" and e.get("name") == "thread_name" and e["tid"] < (1 << 30)}.values())'
is "$(json out.json "\"\\n\".join($last)")" "$want" "  Chrome: each thread's last thread_name is its new name"
spool_run export --perfetto -w out.pftrace spool.trace
is_rc 0 "export --perfetto exits 0"
if command -v protoc >/dev/null && [ -f "$REPO/tests/data/perfetto/trace.proto" ]; then
	protoc -I"$REPO/tests/data/perfetto" --decode=perfetto.protos.Trace trace.proto \
		<out.pftrace >pf.txt 2>pf.err
	# the descriptors of one track in order: the new name comes after the old
	is "$(sed -n 's/.*thread_name: "\(.*\)"/\1/p' pf.txt | tail -n 3 | sort)" "$want" \
		"  Perfetto: the thread tracks are described again with the new names"
else
	skip 1 "protoc or tests/data/perfetto/trace.proto missing"
fi
if command -v babeltrace2 >/dev/null; then
	babeltrace2 spool.trace >bt.txt 2>bt.err
	like "$(grep 'spool:thread_name:' bt.txt)" 'tid = [0-9]+, pid = [0-9]+, name = "tn-by-main"' \
		"  babeltrace2 reads spool:thread_name from the metadata"
else
	skip 1 "babeltrace2 not installed"
fi

# the other writers: the collector encodes records (records mode), format 1
for mode in SPOOL_RING_PACKETS=0 SPOOL_TRACE_FORMAT=1; do
	rm -rf spool.trace
	env "$mode" "$SPOOL" locks -q -- "$P" 5 >run.out 2>run.err
	is "$?" 0 "$mode: spool locks of tname"
	report_json spool.trace
	is "$(json report.json "$names")" "$want" "  $mode: each thread's last name"
	unlike "$ERR" "unknown event id" "  $mode: the trace reads without a problem"
done

done_testing
