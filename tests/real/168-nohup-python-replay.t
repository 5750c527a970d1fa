#!/bin/bash
# SPDX-License-Identifier: MIT
# 168-nohup-python-replay.t - Debian's python3 (two threads) recorded
# under `nohup` with every signal blocked by its parent, then replayed from
# a shell that has neither: python asks for its signal mask and SIGHUP's
# disposition (not recorded inputs) and sends itself SIGHUP. The replay
# started python with spool replay's own mask and dispositions, so python
# saw another state, died of the SIGHUP and the replay diverged; now the
# recording keeps both and the replay starts python with them
# (tests/integ/368). Serial and sync mode.
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY" nohup perl
plan 7

cat >sig.py <<'PY'
import os, signal, threading
def show(who):
    b = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    print(who, "blocked:", signal.SIGHUP in b, signal.SIGUSR1 in b,
          "hup ignored:", signal.getsignal(signal.SIGHUP) == signal.SIG_IGN, flush=True)
show("main")
t = threading.Thread(target=show, args=("thread",))
t.start()
t.join()
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGHUP])
os.kill(os.getpid(), signal.SIGHUP)
print("survived SIGHUP", flush=True)
PY
# masked CMD...: CMD with every signal blocked, under nohup (SIGHUP ignored)
masked() {
	timeout -k 10 120 perl -MPOSIX -e '
		my $s = POSIX::SigSet->new(); $s->fillset();
		sigprocmask(SIG_SETMASK, $s) or die "sigprocmask: $!";
		exec @ARGV or die "exec: $!";' -- nohup "$@"
}
# clean CMD...: CMD with no signal blocked nor ignored
clean() {
	timeout -k 10 120 perl -MPOSIX -e '
		sigprocmask(SIG_SETMASK, POSIX::SigSet->new()) or die "sigprocmask: $!";
		$SIG{$_} = "DEFAULT" for grep { !/^(KILL|STOP|__WARN__|__DIE__)$/ } keys %SIG;
		exec @ARGV or die "exec: $!";' -- "$@"
}

masked "$REAL_PY" sig.py >native.out 2>native.err </dev/null
is "$?:$(tr '\n' ' ' <native.out)" \
	"0:main blocked: True True hup ignored: True thread blocked: True True hup ignored: True survived SIGHUP " \
	"python3 alone under nohup, every signal blocked: sees it, survives SIGHUP"

for mode in serial sync; do
	masked "$SPOOL" record -q --mode "$mode" -o "$mode.trace" -- "$REAL_PY" sig.py \
		>run.out 2>run.err </dev/null
	RC=$?
	is "$RC:$(cmp -s run.out native.out && echo same)" "0:same" \
		"$mode: nohup spool record, every signal blocked: python's own output and status" ||
		diag "$(cat run.err)"
	clean "$SPOOL" replay -q -o "$mode-rep.trace" "$mode.trace" >rep.out 2>rep.err </dev/null
	RC=$?
	is "$RC:$(cmp -s rep.out native.out && echo same)" "0:same" \
		"  spool replay from a clean shell: the recorded output and status" ||
		diag "$(cat rep.err)"
	clean "$SPOOL" info "$mode.trace" >info.out 2>&1
	like "$(grep '^signals at the start' info.out)" "blocked all; ignored HUP " \
		"  spool info says what python started with"
done
done_testing
