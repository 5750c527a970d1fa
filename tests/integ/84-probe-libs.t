#!/bin/bash
# SPDX-License-Identifier: MIT
# 84-probe-libs.t - variable, assertion and time probes inside a shared
# library (var:TYPE:NAME@LIB:FUNC:exit ...), in launch mode and in attach
# mode (spool probe -p PID).
#
# The library and its program are built here from tests/progs/probe_libvars.c
# (tests/progs builds programs only): lib_compute(k) prints the int, long and
# double it computes and the library's global total; the values spool reads
# at its exit must be exactly the printed ones. Attach mode: the program
# calls lib_compute every 20 ms until a stop file appears; every value read
# while attached must be one the program printed for the same k.
. "$(dirname "$0")/lib.sh"

if ! command -v gcc >/dev/null || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP gcc/python3 are not installed"
	exit 0
fi
plan 14

cp "$REPO/tests/progs/probe_libvars.c" plv.c
ok "the library (-O0 and -O2) and its program build" sh -c '
	gcc -O0 -g -fPIC -shared -DPROBE_LIBVARS_LIB -o libpvars.so plv.c &&
	mkdir -p o2 && gcc -O2 -g -fPIC -shared -DPROBE_LIBVARS_LIB -o o2/libpvars.so plv.c &&
	gcc -O0 -g -DPROBE_LIBVARS_MAIN -o plv plv.c -L. -lpvars -Wl,-rpath,"$PWD"'

LIB=libpvars.so
N=5
# values of the vars report (JSON on stdin) as the program's lines
# "k=.. i=.. l=.. d=.. total=.."
vars_as_lines() {
	python3 -c '
import json, sys
v = {x["name"]: x["values"] for x in json.load(sys.stdin)["vars"]}
for j in range(len(v["k"])):
    print("k=%s i=%s l=%s d=%s total=%s" % tuple(v[n][j]["value"] for n in ("k", "i", "l", "d", "lib_total")))
'
}
SPECS=(-e "var:int:k@$LIB:lib_compute:exit" -e "var:int:i@$LIB:lib_compute:exit"
	-e "var:long:l@$LIB:lib_compute:exit" -e "var:double:d@$LIB:lib_compute:exit"
	-e "var:auto:lib_total@libpv*:lib_compute:exit")

# --- launch mode, -O0 ------------------------------------------------------------
native="$(./plv $N)"
spool_run probe -q "${SPECS[@]}" -- ./plv $N
is_rc 0 "variable probes in a library: the program runs"
is "$OUT" "$native" "... its output is unchanged"
like "$(cat spool.trace/.spool/vars)" 'double lib_total lib_compute exit 1 \[0x[0-9a-f]+\]' \
	"the library's global is read at its address (plus the library's load bias)"
spool_run report --vars --json spool.trace
got="$(vars_as_lines <run.out)"
is "$got" "$(printf '%s\n' "$native" | grep '^k=')" \
	"int, long, double locals and the library's global read as the program printed them"

# --- assertions and time probes in the library -----------------------------------
spool_run probe -q -e "assert:k < 2@$LIB:lib_compute" -e "time:$LIB:lib_compute" -- ./plv $N
is_rc 0 "assert: and time: in a library"
spool_run report --vars --json spool.trace
got="$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a=d["asserts"][0]; t=d["times"][0]; print(a["true"], a["false"], a["first_failure"]["values"], t["count"])' run.out)"
is "$got" "2 $((N - 2)) k=2 $N" "k < 2 holds twice and first fails at k=2; time: sees $N calls"

# --- -O2: the parameters in registers at the entry -------------------------------
LD_LIBRARY_PATH="$PWD/o2" spool_run probe -q -e "var:int:k@$LIB:lib_compute" \
	-e "var:double:scale@$LIB:lib_compute" -- ./plv $N
is_rc 0 "-O2 library: variable probes at the entry"
spool_run report --vars --json spool.trace
got="$(python3 -c 'import json,sys; v={x["name"]:x for x in json.load(open(sys.argv[1]))["vars"]}; print(" ".join(p["value"] for p in v["k"]["values"]), "/", " ".join(sorted(set(p["value"] for p in v["scale"]["values"]))))' run.out)"
is "$got" "$(seq -s ' ' 0 $((N - 1))) / 1.5" "-O2 library: k and scale read as passed"

# --- bad specs -------------------------------------------------------------------
spool_run probe -e "var:int:nosuch@$LIB:lib_compute" -- ./plv 1
like "$ERR" "no variable 'nosuch' in lib_compute" "a variable the library's function lacks is named"
spool_run probe -e "var:int:k@$LIB:no_such_fn" -- ./plv 1
like "$ERR" "no function no_such_fn in the libraries matching" "a function the library lacks is named"

# --- attach mode -----------------------------------------------------------------
wait_line() {
	local i
	for i in $(seq 1 100); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
rm -f stop.now
./plv 3 stop.now >prog.out &
PID=$!
wait_line prog.out
spool_run probe -q -p "$PID" "${SPECS[@]}" --duration 700ms
is_rc 0 "attach mode: variable probes in a library"
touch stop.now
wait "$PID"
is "$?" 0 "... the program runs on and exits normally"
spool_run report --vars --json spool.trace
vars_as_lines <run.out >read.txt
n="$(wc -l <read.txt)"
missing="$(grep -vxFf prog.out read.txt | head -3)"
if [ "$n" -ge 5 ] && [ -z "$missing" ]; then
	pass "attach mode: $n hits, every value read is one the program printed"
else
	fail "attach mode: every value read is one the program printed"
	diag "hits: $n" "not printed: $missing"
fi

done_testing
