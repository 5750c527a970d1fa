#!/bin/bash
# SPDX-License-Identifier: MIT
# 97-sigwait.t - signals accepted without a handler under record/replay
# (doc/record.md, "Signals"): a server-style signal thread waits in
# sigwait, sigwaitinfo, sigtimedwait, a read of a signalfd, ppoll,
# pselect, epoll_pwait or epoll_pwait2 (with a mask that lets a handled
# SIGALRM in; the last three also through syscall()), or in rt_sigtimedwait
# made through syscall() or with its own syscall instruction, while two
# workers count under a mutex. SIGUSR1 comes from
# outside, SIGUSR2 from a worker's kill(getpid()), SIGRTMIN with a value
# from a worker's pthread_sigqueue; the signal thread prints the shared
# count at each one (so the output depends on how the threads ran).
# In both modes: the recording ends (in serial mode the waiting thread gave
# the run token up: the workers reach the rounds that send their signals),
# the siginfo fields are right, and three replays to which no signal is
# sent print the recorded output byte for byte. At the end the program
# unblocks SIGUSR2: a real one a replay left pending would kill it (and its
# kill(getpid()) must reach the replaying process, whose getpid returns the
# recorded pid). Two more replays get SIGUSR1 from outside, which changes
# nothing.
. "$(dirname "$0")/lib.sh"

HOWS="sigwait sigwaitinfo sigtimedwait signalfd ppoll pselect epoll_pwait epoll_pwait2
syscall-ppoll syscall-pselect6 syscall-epoll_pwait syscall asm"
plan 85

PROG="$PROGS/rr_sigwait"

# want_output HOW FILE: what the recorded run must show
want_output() {
	local out
	out="$(tr '\n' ' ' <"$2")"
	case "$out" in
	*"SIGUSR1 2 at count "*) ;;
	*) return 1 ;;
	esac
	case "$out" in
	*"kill(getpid(), 0) = 0 "*"unblocked, still running"*) ;;
	*) return 1 ;;
	esac
	# sigwait gives no siginfo
	if [ "$1" != sigwait ]; then
		case "$out" in
		*"SIGUSR2 1 (code 0, from this process 1)"*"SIGRTMIN 1 (code -1, value 42)"* | \
			*"SIGRTMIN 1 (code -1, value 42)"*"SIGUSR2 1 (code 0, from this process 1)"*) ;;
		*) return 1 ;;
		esac
	fi
	case "$1" in
	ppoll | pselect | epoll_pwait | epoll_pwait2 | syscall-*p*)
		case "$out" in
		*"alarm handler ran, the wait returned EINTR"*) ;;
		*) return 1 ;;
		esac
		;;
	esac
	return 0
}

for mode in serial sync; do
	for how in $HOWS; do
		tr="$how-$mode"
		timeout -k 10 120 "$SPOOL" record --mode "$mode" -o "$tr.trace" -- "$PROG" "$how" 2 \
			>"$tr.rec.out" 2>"$tr.rec.err" &
		sp=$!
		wait_ready "$tr.rec.out"
		usr1_until_exit "$sp"
		wait "$sp"
		RC=$?
		cp "$tr.rec.err" run.err
		cp "$tr.rec.out" run.out
		check_sanitizer run.err "spool record ($tr)"
		is_rc 0 "$mode, $how: the program records"
		if want_output "$how" "$tr.rec.out"; then
			pass "$mode, $how: it got the signals from outside and from its threads (siginfo right)"
		else
			fail "$mode, $how: it got the signals from outside and from its threads (siginfo right)"
			show_run
		fi
		replays_same 3 0 "$tr.rec.out" -o "$tr.rep.trace" "$tr.trace"
		is "$SAME" 3 "$mode, $how: three replays, sent no signal, print the recorded output"
	done
done

# Raw calls: counted and named by spool record.
like "$(cat syscall-serial.rec.err)" 'input system calls through syscall\(\) \(rt_sigtimedwait\): recorded like the named calls' \
	"syscall(SYS_rt_sigtimedwait): record names it as recorded"
for call in ppoll pselect6 epoll_pwait; do
	like "$(cat "syscall-$call-sync.rec.err")" "input system calls through syscall\\(\\) \\($call\\): recorded like the named calls" \
		"syscall(SYS_$call): record names it as recorded"
done
like "$(cat asm-sync.rec.err)" 'with its own syscall instruction \(rt_sigtimedwait [0-9]+\): recorded like the named calls' \
	"a raw rt_sigtimedwait instruction: record names it as recorded"

# Signals sent to a replay change nothing: its waits return the recorded
# signals, and the real ones stay blocked, then are dropped.
for tr in sigwait-serial signalfd-sync; do
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -o "$tr.rep2.trace" "$tr.trace" \
		>run.out 2>run.err &
	rp=$!
	wait_ready run.out
	usr1_until_exit "$rp"
	wait "$rp"
	RC=$?
	check_sanitizer run.err "spool replay ($tr)"
	if [ "$RC" = 0 ] && cmp -s run.out "$tr.rec.out"; then
		pass "$tr: a replay sent SIGUSR1 from outside prints the recorded output"
	else
		fail "$tr: a replay sent SIGUSR1 from outside prints the recorded output"
		show_run
		diag "$(diff "$tr.rec.out" run.out | head -n 20)"
	fi
done

done_testing
