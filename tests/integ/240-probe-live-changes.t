#!/bin/bash
# SPDX-License-Identifier: MIT
# 240-probe-live-changes.t - spool probe -p PID --commands records in the
# trace when a probe was disabled, enabled, added, deleted, and an add
# whose points placed probes already cover (the "probe_changes" side
# file): spool report --functions lists them in order, with their probe
# ids, functions and times, in text and in JSON.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_live"
if [ ! -x "$PROG" ] || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP $PROG is not built (x86-64 only), or no python3"
	exit 0
fi
plan 8

rm -f stop.now
"$PROG" stop.now >prog.out &
PID=$!
wait_for ready prog.out 15

python3 - "$SPOOL" "$PID" "$REPO/tests/integ" >checks.out 2>checks.err <<'PY'
import sys, time
sys.path.insert(0, sys.argv[3])
from probe_live import Spool, parse_list

spool, pid = sys.argv[1], int(sys.argv[2])

def check(ok, desc, *why):
    print(("PASS\t" if ok else "FAIL\t") + desc + "".join("\t" + str(w) for w in why), flush=True)

s = Spool(spool, pid, ["--exits", "patch", "-e", "func:live_work", "-o", "t.trace"])
time.sleep(0.3)
r = [s.cmd("disable 1")[-1]]
time.sleep(0.2)
r.append(s.cmd("enable 1")[-1])
r.append(s.cmd("add func:live_callfirst")[-1])
time.sleep(0.2)
cov = s.cmd("add block:live_callfirst")
r.append(cov[-1])
r.append(s.cmd("delete 3")[-1])
r.append(s.cmd("detach")[-1])
rc, rest = s.close()
check(rc == 0 and r[0] == "ok disabled 1" and r[1] == "ok enabled 1" and r[2].startswith("ok added")
      and r[4] == "ok deleted 1", "the commands ran", r, rc)
print("COVERED\t" + cov[-1], flush=True)
PY
while IFS=$'\t' read -r res desc why; do
	case "$res" in
	PASS) pass "$desc" ;;
	FAIL) fail "$desc"; diag "$why" ;;
	COVERED) covered="$desc" ;;
	esac
done <checks.out
[ -s checks.err ] && diag "$(cat checks.err)" "$(cat spool.err 2>/dev/null)"
touch stop.now
wait "$PID"

spool_run report --functions --json t.trace
is_rc 0 "spool report --functions --json reads the trace"
echo "$OUT" >r.json
changes="$(json r.json '" ".join("%s:%s:%s:%s" % (c["change"], c["id"], c["probe"], c.get("function", c.get("spec"))) for c in d["probe_changes"])')"
# block:live_callfirst: its one block starts where the entry probe's window is
# (counted there: an add whose points are covered) or is placed after it
case "$covered" in
error:*) want_cov=" covered:0:-:block:live_callfirst" ;;
*) want_cov="" ;;
esac
got="$(echo "$changes" | sed -E 's/ add:[0-9]+:(block|point):live_callfirst//g')"
is "$got" "disable:1:entry:live_work enable:1:entry:live_work add:3:entry:live_callfirst add:4:exit:live_callfirst$want_cov delete:3:entry:live_callfirst" \
	"the changes in order: disable, enable, add (entry and exit), ${want_cov:+an add its points covered, }delete"
is "$(json r.json 'all(d["probe_changes"][i]["time_ns"] <= d["probe_changes"][i + 1]["time_ns"] for i in range(len(d["probe_changes"]) - 1))')" 1 \
	"their times go forward"
is "$(json r.json 'all(c["since_start_ns"] > 0 for c in d["probe_changes"])')" 1 \
	"they come after the trace's first event"
spool_run report --functions t.trace
like "$OUT" 'probes changed while attached' "the text report has the section"
like "$OUT" 'disable +1 +entry +live_work' "... with the disable of probe 1"
like "$OUT" 'delete +3 +entry +live_callfirst' "... and the delete of probe 3"

done_testing
