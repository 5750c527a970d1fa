#!/bin/bash
# SPDX-License-Identifier: MIT
# 368-masked-recording-replays.t - a recording made with signals blocked
# and ignored (`nohup spool record ...`, a parent that blocks every signal
# before the exec) replays exactly from a shell that has neither, and the
# other way round. The starting mask and ignored signals were not recorded:
# the replay's program inherited spool replay's, so it saw another mask
# (pthread_sigmask and sigaction are not recorded inputs) and died of a
# SIGHUP it had survived ignored, and the replay said "the program used
# something spool does not record ... or its arguments differ". The
# recording keeps them (.spool/record sig_blocked=, sig_ignored=), spool
# info shows them, and a replay starts the program with them; serial and
# sync mode.
. "$(dirname "$0")/lib.sh"
plan 19

P="$PROGS/trust20_sigstart"
# masked CMD...: CMD started with every signal blocked and SIGHUP, SIGINT
# and SIGUSR1 ignored (set after timeout, whose child gets its caught
# signals back to the default)
masked() {
	timeout -k 10 "$T_TIMEOUT" perl -MPOSIX -e '
		my $s = POSIX::SigSet->new(); $s->fillset();
		sigprocmask(SIG_SETMASK, $s) or die "sigprocmask: $!";
		$SIG{$_} = "IGNORE" for qw(HUP INT USR1);
		exec @ARGV or die "exec: $!";' -- "$@"
}
# clean CMD...: CMD started with no signal blocked nor ignored, whatever
# the shell that runs the test has (a background job ignores SIGINT)
clean() {
	timeout -k 10 "$T_TIMEOUT" perl -MPOSIX -e '
		sigprocmask(SIG_SETMASK, POSIX::SigSet->new()) or die "sigprocmask: $!";
		$SIG{$_} = "DEFAULT" for grep { !/^(KILL|STOP|__WARN__|__DIE__)$/ } keys %SIG;
		exec @ARGV or die "exec: $!";' -- "$@"
}
# run HOW CMD...: run.out, run.err, RC
run() {
	"$@" </dev/null >run.out 2>run.err
	RC=$?
	check_sanitizer run.err "$*"
}

masked "$P" >masked.out 2>masked.err
MRC=$?
clean "$P" >clean.out 2>clean.err
CRC=$?
is "$MRC:$(head -n 1 masked.out)" \
	"0:main: HUP=blocked,ignored INT=blocked,ignored USR1=blocked,ignored USR2=blocked TERM=blocked" \
	"alone, started masked: the program sees them blocked and ignored, survives SIGHUP"
is "$CRC:$(head -n 1 clean.out)" "129:main: HUP=open INT=open USR1=open USR2=open TERM=open" \
	"  started clean: none, and SIGHUP kills it (129)"

for mode in serial sync; do
	run masked "$SPOOL" record -q --mode "$mode" -o "m-$mode.trace" -- "$P"
	is_rc 0 "$mode: spool record started masked: the program exits 0"
	ok "  its output is the same as alone" cmp -s run.out masked.out
	run clean "$SPOOL" info "m-$mode.trace"
	like "$(grep '^signals at the start' run.out)" \
		"^signals at the start: blocked all; ignored HUP,INT,USR1 " \
		"  spool info shows the mask and ignored signals it started with"
	run clean "$SPOOL" replay -o "mr-$mode.trace" "m-$mode.trace"
	is_rc 0 "  spool replay from a clean shell: exits 0, as recorded"
	ok "  with the recorded output, byte for byte" cmp -s run.out masked.out
	like "$(cat run.err)" "the program starts as recorded with signals blocked: all; ignored: HUP,INT,USR1" \
		"  and says it starts the program with them"
	# the other way round: recorded clean, replayed from a nohup'd,
	# masked spool: SIGHUP kills the program as in the recording
	run clean "$SPOOL" record -q --mode "$mode" -o "c-$mode.trace" -- "$P"
	is "$RC" 129 "$mode: recorded clean, SIGHUP ends the program (129)"
	# (a replay of a killed recording stops where it ends: status 3)
	run clean "$SPOOL" replay -q -o "cc-$mode.trace" "c-$mode.trace"
	CCRC=$RC
	run masked "$SPOOL" replay -q -o "cr-$mode.trace" "c-$mode.trace"
	is "$RC:$(cmp -s run.out clean.out && echo same):$(grep -c 'recorded run was killed' run.err)" \
		"$CCRC:same:1" \
		"  replayed from a masked spool: the same output and status as from a clean one"
done

# a recording without them (an older spool): said, and replayed as before
sed -i '/^sig_blocked=/d' m-serial.trace/.spool/record
run clean "$SPOOL" info m-serial.trace
like "$(grep '^signals at the start' run.out)" "not recorded" \
	"a recording without the lines: spool info says they were not recorded"
done_testing
