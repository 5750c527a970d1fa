#!/bin/bash
# SPDX-License-Identifier: MIT
# 69-rawsys.t - system calls a program makes with its own `syscall`
# instruction (inline assembly), not through libc: spool record catches them
# with syscall user dispatch, records the inputs (getrandom, read of a file,
# clock_gettime, getpid) like the named calls so that a replay prints the
# recorded values byte for byte after the file changed (serial and sync),
# says how many it saw, keeps the counts in the record side file, and the
# calls it cannot emulate in its SIGSYS handler still work: a raw fork and
# exec, a raw vfork and exec, a raw clone of a thread on its own stack (whose
# recording record says a replay refuses), a
# handler returning through its own raw rt_sigreturn, and a libc fork and
# exec. The rdtsc of the executable is reported by a static scan, and so
# are its syscall instructions when dispatch is off (SPOOL_NO_DISPATCH=1).
. "$(dirname "$0")/lib.sh"

plan 26

RAW="$PROGS/rr_rawsys"

# Syscall user dispatch: Linux 5.11 and later.
kv="$(uname -r)"
if [ "${kv%%.*}" -lt 5 ] || { [ "${kv%%.*}" = 5 ] && [ "$(echo "$kv" | cut -d. -f2)" -lt 11 ]; }; then
	skip 26 "kernel $kv has no syscall user dispatch"
	exit 0
fi

rawsys() {
	local mode="$1"
	printf 'hello raw %s\n' "$mode" >in.txt
	spool_run record --mode "$mode" -o "raw-$mode.trace" -- "$RAW" in.txt
	is_rc 0 "$mode: rr_rawsys records"
	cp run.err "raw-$mode.rec.err"
	like "$ERR" 'made 4 system calls with its own syscall instruction \(getrandom 1, read 1, clock_gettime 1, getpid 1\): recorded like the named calls' \
		"$mode: record reports the raw calls with their counts"
	like "$(cat "raw-$mode.trace/.spool/record")" $'raw_dispatch=on\nraw_syscalls=4\nraw_calls=getrandom 1, read 1, clock_gettime 1, getpid 1' \
		"$mode: the record side file keeps the counts"
	cp run.out "raw-$mode.rec.out"
	printf 'CHANGED\n' >in.txt
	spool_run replay -q -o "raw-$mode.rep.trace" "raw-$mode.trace"
	if [ "$RC" = 0 ] && cmp -s run.out "raw-$mode.rec.out" &&
		grep -q "hello raw $mode" run.out && grep -q '^random [0-9a-f]\{16\}$' run.out; then
		pass "$mode: the replay gives the recorded random bytes, file contents, clock and pid"
	else
		fail "$mode: the replay gives the recorded random bytes, file contents, clock and pid"
		diag "recorded:" "$(cat "raw-$mode.rec.out")"
		show_run
	fi
}
rawsys serial
rawsys sync

# A second native run reads other random bytes: the replay's are not luck.
printf 'x\n' >in.txt
"$RAW" in.txt >native1.out
"$RAW" in.txt >native2.out
if ! cmp -s native1.out native2.out; then
	pass "two native runs differ (random bytes, clock)"
else
	fail "two native runs differ (random bytes, clock)"
fi

# --- the time stamp counter: found in the executable, reported ---------------
like "$(cat raw-serial.rec.err)" 'reads the time stamp counter itself \(1 in the executable: rdtsc at (tsc|main)\+0x[0-9a-f]+\): those values are not recorded' \
	"the rdtsc of the executable is reported"
spool_run record -o direct.trace -- "$PROGS/rr_direct" in.txt
unlike "$ERR" 'time stamp counter|own syscall instruction' \
	"a program without rdtsc or raw calls gets neither warning"

# --- without dispatch: the static scan says where the raw calls are ----------
SPOOL_NO_DISPATCH=1 spool_run record -o nodisp.trace -- "$RAW" in.txt
is_rc 0 "without dispatch the program still runs"
like "$ERR" 'syscall user dispatch is not available \(Operation canceled\): the program.s own system call instructions are not seen and their inputs not recorded.* \([0-9]+ in the executable: syscall at rawsys_vfork_exec\+0x[0-9a-f]+' \
	"... and record lists the executable's syscall instructions by symbol"
unlike "$ERR" 'made [0-9]+ system calls with its own' "... and counts none"

# --- calls the handler cannot emulate ----------------------------------------
spool_run record -o fork.trace -- "$RAW" --fork /bin/echo forked child
is_rc 0 "a raw fork + raw execve under record exits 0"
is "$OUT" $'forked child\nchild exited 0' "... and the exec'd child ran"

spool_run record -o vfork.trace -- "$RAW" --vfork /bin/echo vforked child
is_rc 0 "a raw vfork + raw execve under record exits 0"
is "$OUT" $'vforked child\nchild exited 0' "... and the exec'd child ran"

# (record keeps no thread state for it: it says a replay refuses the
# recording and exits 5, the program's own output unchanged; 298)
spool_run record -o thread.trace -- "$RAW" --thread
like "$RC $(grep -c 'spool replay refuses this recording' run.err)" "^5 1$" \
	"a raw clone of a thread on its own stack under record: exit 5, a replay refused, saying why"
is "$OUT" $'raw thread says hello\nraw thread done' "... and the thread ran"

spool_run record -o sigret.trace -- "$RAW" --sigreturn
is_rc 0 "handlers returning through the program's own rt_sigreturn (record)"
spool_run replay -q -o sigret.rep.trace sigret.trace
is "$RC:$OUT" "0:handled 3 signals" "... and in its replay"

spool_run record -o forker.trace -- "$PROGS/forker" exec /bin/echo from exec
is_rc 0 "forker (libc fork + exec) records under dispatch"
like "$OUT" $'from exec\nparent=1000' "... and the exec'd program ran"

# A program that resets SIGSYS to its default (daemons reset every signal)
# keeps working: the agent keeps its handler and the program's disposition.
spool_run record -o dfl.trace -- "$RAW" --sigsys-dfl
is_rc 0 "a program that resets SIGSYS, then makes a raw call, records"
is "$OUT" "alive 1" "... and runs to its end"
