#!/bin/bash
# SPDX-License-Identifier: MIT
# 296-lock-names-same.t - a lock has one name in every command (issue 17):
# the lock report (text and JSON), spool path's object column (text and
# JSON), the Chrome and the Perfetto export of the same trace all call
# lockcount's global mutex "shared_lock" and each thread's own heap mutex
# "worker+0x..#N" (its init site's function and offset, # its lock index);
# an export's track, which has no type column, puts the type before it
# ("mutex shared_lock"), as path puts "lock:".
# Before, the lock report named a heap lock by its init site with file and
# line, spool path by "lock:0x55..." and the exports by "mutex 0x55.. site".
. "$(dirname "$0")/lib.sh"

P="$PROGS/lockcount"
plan 12

spool_run path -w p.txt -- "$P" 2 3
is_rc 0 "spool path of lockcount (2 threads)"
# the lock names of the path's object column, sorted
path_names=$(grep -v '^#' p.txt | awk '{print $5}' | tr ',' '\n' | sed -n 's/^lock://p' | sort -u)
is "$(grep -c '^shared_lock$' <<<"$path_names")" 1 "path: the global mutex is lock:shared_lock"
heap=$(grep -E '^worker\+0x[0-9a-f]+#[0-9]+$' <<<"$path_names")
is "$(wc -l <<<"$heap")" 2 "path: the 2 threads' own mutexes are lock:worker+0x..#N" "$path_names"
unlike "$path_names" "^0x" "  no lock named by its address"

spool_run report --locks spool.trace
rep_text=$OUT
report_json spool.trace
rep_names=$(json report.json '"\n".join(sorted(l["name"] for l in d["locks"] if l["acquisitions"]))')
is "$rep_names" "$path_names" "report --locks --json: the same names as path"
for n in $path_names; do
	grep -qE "^  $(sed 's/[+.]/\\&/g' <<<"$n") " <<<"$rep_text" || miss+="$n "
done
is "${miss:-}" "" "report --locks (text): a row for each name path gave"
is "$(json report.json '"\n".join(sorted(l["name"] for l in d["locks"] if l["acquisitions"] and l["name"] != "shared_lock"))')" \
	"$(json report.json '"\n".join(sorted("%s#%d" % (l["init_site"].split(" (")[0], l["index"]) for l in d["locks"] if l["acquisitions"] and l["name"] != "shared_lock"))')" \
	"  a heap lock's name is its init site's function and offset, # its index"

spool_run path --json spool.trace
pj=$(json run.out '"\n".join(sorted({o[5:] for r in d["records"] for o in r["objects"] if o.startswith("lock:")}))')
is "$pj" "$path_names" "path --json: the same names"

spool_run export --chrome -w c.json spool.trace
is_rc 0 "export --chrome"
ch=$(json c.json '"\n".join(sorted({e["args"]["name"] for e in (d["traceEvents"] if isinstance(d, dict) else d) if e.get("ph") == "M" and e.get("name") == "thread_name"}))')
# a track has no type column: "mutex NAME"
for n in $path_names; do grep -qxF "mutex $n" <<<"$ch" || cmiss+="$n "; done
is "${cmiss:-}" "" "Chrome export: a lock track named by each of them (after its type)" "$ch"

spool_run export --perfetto -w f.pftrace spool.trace
is_rc 0 "export --perfetto"
for n in $path_names; do grep -qaF "mutex $n" f.pftrace || pmiss+="$n "; done
is "${pmiss:-}" "" "Perfetto export: each name is in the trace"
done_testing
