#!/bin/bash
# SPDX-License-Identifier: MIT
# 276-probe-live-add-retaddr.t - spool probe -p PID --commands: `add` of a
# function whose exit goes through the return address (live_leaf: `lea;
# ret`, no 5-byte window at its ret) while the program runs. Its calls are
# counted, and after the detach every code byte is what it was before the
# attach and the program goes on calling live_leaf to its normal end.
# Before, the batch's commit wrote the exit (which has no bytes of its own)
# as a jump over the entry's first byte, and the detach put a 0 there: the
# program died of SIGSEGV at its next call of live_leaf.
. "$(dirname "$0")/lib.sh"

live_prog
plan 8

live_start "$PROG"

live_checks <<'PY'
before = code_snapshot(pid)
s = Spool(spool, pid, ["-e", "func:live_work", "-o", "t.trace"])
r = s.cmd("add func:live_leaf")
l = parse_list(r)
ids = sorted(l)
check(r[-1].startswith("ok added 2 probes") and len(ids) == 2
      and l[ids[0]]["function"] == "live_leaf" and l[ids[1]]["method"] == "retaddr",
      "add func:live_leaf: its entry and its exit through the return address", r)
ok, a, b = grows(s, ids[0])
check(ok, "... its calls are counted", a, b)
after_add = code_snapshot(pid)
check(after_add != before, "... its entry is patched in the program's code")
check(s.cmd("detach")[-1] == "ok detaching", "detach")
rc, rest = s.close()
check(rc == 0, "spool exits 0 after the detach", rc)
diff = same_code(before, pid)
check(not diff, "after the detach every code byte is what it was before the attach", diff)
time.sleep(0.3) # live_leaf called again, hundreds of times
check(os.path.exists("/proc/%d" % pid), "the program still runs after the detach")
PY

live_stop
