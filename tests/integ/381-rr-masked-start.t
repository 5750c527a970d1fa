#!/bin/bash
# SPDX-License-Identifier: MIT
# 381-rr-masked-start.t - spool record and spool replay started with every
# signal blocked (by their parent, before the exec: the program inherits
# the mask). Syscall user dispatch turned each raw call into a SIGSYS that
# the kernel found blocked, so it killed the program at its first one:
# even `spool record -- /bin/echo hi` ended with status 159 (SIGSYS) and
# no word of why. The agent now keeps SIGSYS out of the kernel's mask from
# the start, and blocked in the program's view (main's and its threads'),
# as when the program blocks it itself (tests/integ/137).
. "$(dirname "$0")/lib.sh"
plan 8

P="$PROGS/rr_masked_start"
echo "the first line" >in.txt
# blocked CMD...: CMD run with every signal blocked
blocked() {
	perl -MPOSIX -e '
		my $s = POSIX::SigSet->new(); $s->fillset();
		sigprocmask(SIG_BLOCK, $s) or die "sigprocmask: $!";
		exec @ARGV or die "exec: $!";' -- "$@"
}

blocked "$P" in.txt >native.out 2>&1
like "$(cat native.out)" "^main: SIGSYS blocked 1, SIGUSR1 blocked 1" "the program alone sees every signal blocked"

spool_run_blocked() {
	blocked timeout -k 10 "$T_TIMEOUT" "$SPOOL" "$@" </dev/null >run.out 2>run.err
	RC=$?
	OUT="$(cat run.out)"
	ERR="$(cat run.err)"
	check_sanitizer run.err "spool $*"
}

spool_run_blocked record -q -o rec.trace -- "$P" in.txt
is_rc 0 "spool record started with every signal blocked: the program exits 0 (not SIGSYS)"
is "$OUT" "$(cat native.out)" "  its output is the same as alone (its own view: both blocked, in main and its thread)"
ok "  the trace is made" test -f rec.trace/metadata

spool_run_blocked replay -q -o rep.trace rec.trace
is_rc 0 "spool replay started with every signal blocked: the replay exits 0"
is "$OUT" "$(cat native.out)" "  with the recorded output"

# spool's own signals (SIGINT, SIGTERM, SIGCHLD) are blocked too: it still
# sees its program end, and says nothing is wrong
spool_run_blocked record -q -o bin.trace -- /bin/echo hi
is_rc 0 "spool record -- /bin/echo hi, every signal blocked: exits 0"
is "$OUT" "hi" "  and echo's output is there"
done_testing
