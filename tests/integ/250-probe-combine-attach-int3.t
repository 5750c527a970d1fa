#!/bin/bash
# SPDX-License-Identifier: MIT
# 250-probe-combine-attach-int3.t - probes of different kinds at one point
# combine (the second runs in the first's out-of-line code) when the first
# is an int3 (live_callfirst's ret: no jump fits), and in attach mode
# (spool probe -p), where live_callfirst's entry is an int3 too. What a user
# checks: --list says where the second runs, nothing is refused, the values
# read are the program's (live_work(x, 7) returns 3x + 7, live_callfirst(x)
# 5x + 1), as many as the calls; attached, the code is as before after the
# detach. A probe added to a point a placed probe holds (add while
# attached) is refused with what to do instead.
. "$(dirname "$0")/lib.sh"

live_prog
plan 20

# values TRACE FUNC MUL ADD: "calls C args A rets R bad B" for FUNC: its
# calls, the values of its first argument and of its return, and how many
# returns are not MUL * x + ADD for an x read (bad).
values() {
	"$SPOOL" report --functions --json "$1" >fn.json 2>/dev/null
	"$SPOOL" report --vars --json --limit 0 "$1" >vars.json 2>/dev/null
	python3 - "$2" "$3" "$4" <<'PY'
import json, sys
fn, mul, add = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
calls = sum(f["calls"] for f in json.load(open("fn.json"))["functions"] if f["name"] == fn)
args, rets = [], []
for v in json.load(open("vars.json"))["vars"]:
    if v.get("function") != fn:
        continue
    vals = [int(p["value"]) for p in v["values"]]
    if v["name"] == "return":
        rets += vals
    elif v["name"] in ("x", "arg1"):
        args += vals
xs = set(args)
bad = sum(1 for r in rets if (r - add) % mul or (r - add) // mul not in xs)
print("calls %d args %d rets %d bad %d" % (calls, len(args), len(rets), bad))
PY
}

# --- an int3 first, launch mode ------------------------------------------------
spool_run probe --list -e func:live_callfirst -e 'args:live_callfirst:long->long' "$PROG"
like "$OUT" "live_callfirst +exit +int3 +\\+0x5 +ret" "--list: live_callfirst's exit is an int3 at its ret"
like "$OUT" "var +shared +\\+0x5 +ret +runs in probe [0-9]+'s int3 slot \\(exit int3 of func:live_callfirst\\)" \
	"  the return value is read in that int3's slot"
unlike "$ERR$OUT" "another probe|cannot also|skipped" "  nothing is refused"

for order in func-args args-func; do
	if [ "$order" = func-args ]; then
		specs=(-e func:live_callfirst -e 'args:live_callfirst:long->long')
	else
		specs=(-e 'args:live_callfirst:long->long' -e func:live_callfirst)
	fi
	rm -f stop.now
	(sleep 1; touch stop.now) &
	spool_run probe -o "$order.trace" "${specs[@]}" -- "$PROG" stop.now
	wait
	is "$RC:$(tr '\n' '|' <<<"$OUT")" "0:ready|done check ok|" "$order: the program runs as unprobed"
	unlike "$ERR" "another probe|cannot also|skipped|not timed" "  nothing is refused"
	v=$(values "$order.trace" live_callfirst 5 1)
	like "$v" "^calls ([1-9][0-9]*) args \\1 rets \\1 bad 0$" \
		"  every call timed, its argument and return value read, each return 5x + 1 ($v)"
done

# --- attach mode: a jump and an int3 first --------------------------------------
live_start "$PROG"
live_checks <<'PY'
before = code_snapshot(pid)
s = Spool(spool, pid, COMBINED + ["-o", "att.trace"])
l = parse_list(s.cmd("list"))
check(len(l) == 8 and all(p["state"] == "enabled" for p in l.values()),
      "attached: the 8 probes of func: and args: of both functions are placed", l)
ok, a, b = grows(s, min(l))
check(ok, "  they count", a, b)
# (a combined probe is disabled and enabled alone: tests/integ/265)
check(s.cmd("detach")[-1] == "ok detaching", "  detach")
rc, rest = s.close()
err = open("spool.err").read()
check(rc == 0 and "another probe" not in err and "cannot also" not in err,
      "  spool exits 0 and refused nothing", rc, err)
diff = same_code(before, pid)
check(not diff, "  every code byte is what it was before the attach", diff)
PY
live_stop
# (a call in flight at the attach or the detach has one side only)
v=$(values att.trace live_work 3 7)
like "$v" "^calls [1-9][0-9]* args [1-9][0-9]* rets [1-9][0-9]* bad 0$" \
	"attached: live_work's x and return read by the func: probe's trampoline ($v)"
v=$(values att.trace live_callfirst 5 1)
like "$v" "^calls [1-9][0-9]* args [1-9][0-9]* rets [1-9][0-9]* bad 0$" \
	"attached: live_callfirst's arg1 and return read in the int3 slots ($v)"

# --- added while attached, where a placed probe is --------------------------------
live_start "$PROG"
live_checks <<'PY'
s = Spool(spool, pid, ["-e", "func:live_work", "-o", "add.trace"])
r = s.cmd("add args:live_work")
check(s.cmd("detach")[-1] == "ok detaching", "add args:live_work over a placed func: probe, detach", r)
rc, rest = s.close()
err = open("spool.err").read()
check("already placed in the running program" in err and
      "attach again with both specs (-e 'func:live_work' -e ...)" in err,
      "  its entry is refused: spool says the placed probe is not rewritten, and what to do", err)
PY
live_stop
done_testing
