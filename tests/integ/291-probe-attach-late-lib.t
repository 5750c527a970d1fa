#!/bin/bash
# SPDX-License-Identifier: MIT
# 291-probe-attach-late-lib.t - spool probe -p on a library the program
# loads after the attach (tests/progs/late_dlopen: dlopens libz when told,
# then calls zlibVersion about once a millisecond). In attach mode the
# agent is loaded by spool, not preloaded, so nothing follows the program's
# dlopen: a spec on a library not loaded yet now fails saying so (it said
# "probed if the program dlopens it", which never happened, then "no probe
# could be placed"). A session attached with --commands before the dlopen
# probes the library with an `add` once it is loaded (the maps are read
# again for it; it used to look only in the libraries of the attach), and
# an attach after the dlopen finds it by its soname. The counts are at most
# the program's own number of calls.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/late_dlopen"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
if ! ldconfig -p 2>/dev/null | grep -q 'libz\.so\.1 '; then
	echo "1..0 # SKIP no libz.so.1 to dlopen"
	exit 0
fi
plan 15

# calls TRACE: zlibVersion's calls in the trace's report (empty: none)
calls() {
	"$SPOOL" report --functions --json "$1" >calls.json 2>/dev/null
	json calls.json 'sum(f["calls"] for f in d["functions"] if f["name"] == "zlibVersion")'
}

# 1. a spec on the library before the dlopen; then an attach after it
rm -f go1 stop1
"$PROG" go1 stop1 libz.so.1 zlibVersion >prog1.out &
P1=$!
wait_ready prog1.out
spool_run probe -p "$P1" -e 'func:libz.so.1:zlib*' --duration 300ms -o before.trace
is_rc 1 "a spec on a library not loaded yet fails"
like "$ERR" "pid $P1 has no library matching 'libz.so.1' loaded: not probed" \
	"  saying the library is not loaded in the process, so not probed"
like "$ERR" "attach once it is loaded, or attach with --commands and \`add\` the spec then" \
	"  and what to do"
unlike "$ERR" "probed if the program dlopens it" "  no promise of probing it at a dlopen"
touch go1
wait_for loaded prog1.out 15
spool_run probe -p "$P1" -e 'func:libz.so.1:zlibVersion' --duration 500ms -o after.trace
is_rc 0 "an attach after the dlopen, the library named by its soname"
unlike "$ERR" "not loaded" "  the library is found loaded"
c1="$(calls after.trace)"
num_cmp "${c1:-0}" -gt 0 "  zlibVersion's calls are counted (${c1:-none})"
touch stop1
wait "$P1"
is "$?" 0 "the program runs on and exits normally"
t1="$(sed -n 's/^calls=//p' prog1.out)"
num_cmp "${c1:-0}" -le "${t1:-0}" "  no more calls counted than the program made (${t1:-none})"

# 2. attached with --commands before the dlopen, `add` once it is loaded
rm -f go2 stop2
"$PROG" go2 stop2 libz.so.1 zlibVersion >prog2.out &
P2=$!
wait_ready prog2.out
mkfifo cmds
timeout -k 10 60 "$SPOOL" probe -p "$P2" --commands -o added.trace <cmds >cmd.out 2>cmd.err &
SP=$!
exec 3>cmds
wait_for 'commands on stdin' cmd.err 15
touch go2
wait_for loaded prog2.out 15
echo "add func:libz.so.1:zlibVersion" >&3
sleep 1
echo list >&3
sleep 0.2
echo detach >&3
exec 3>&-
wait "$SP"
is "$?" 0 "spool probe -p --commands, attached before the dlopen: detached normally"
like "$(cat cmd.out)" 'ok added 2 probes' "an add of the library loaded after the attach places its 2 probes"
hits="$(awk '$1 == 1 && $6 == "zlibVersion" { h = $8 } END { print h + 0 }' cmd.out)"
num_cmp "$hits" -gt 0 "  its entry counts hits while attached ($hits)"
c2="$(calls added.trace)"
num_cmp "${c2:-0}" -gt 0 "  the trace holds zlibVersion's calls (${c2:-none})"
touch stop2
wait "$P2"
is "$?" 0 "the program runs on and exits normally"
t2="$(sed -n 's/^calls=//p' prog2.out)"
num_cmp "${c2:-0}" -le "${t2:-0}" "  no more calls counted than the program made (${t2:-none})"

done_testing
