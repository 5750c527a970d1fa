#!/bin/bash
# SPDX-License-Identifier: MIT
# 122-sock-names-replay.t - name resolution and the addresses that come
# with data (rr_sockself names): getaddrinfo of "localhost" (glibc reads
# /etc/hosts, asks the kernel over netlink) and of a name that does not
# exist (glibc asks DNS), getnameinfo, a UDP datagram with its sender's
# address (recvfrom), three more at once (sendmmsg, recvmmsg), a descriptor passed over a socketpair (recvmsg with
# SCM_RIGHTS, the descriptor made to exist in the replay), an AF_UNIX
# socket bound to a path and unlinked (the replay binds the path too, so
# the unlink finds the file; nobody can connect: no listen). Recorded in
# serial and in sync mode, 3 replays each with the recorded output; under
# strace the recording asks DNS and the replay makes no network socket: the
# names come from the recording (doc/record.md; a lookup that needed no
# network, localhost here, is made again by the replay, and the recorded
# answer is the one returned).
. "$(dirname "$0")/lib.sh"

plan 9

for mode in serial sync; do
	spool_run record --mode "$mode" -o "$mode.trace" -- "$PROGS/rr_sockself" names
	cp run.out "rec.$mode.out"
	is_rc 0 "$mode: the recorded program ends well"
	like "$(tr '\n' ' ' <<<"$OUT")" 'localhost is .*unlink the socket file: 0' "$mode: it resolved localhost, bound a path" ||
		diag "$OUT"
	replays_same 3 0 "rec.$mode.out" -o rp.trace "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 print the recorded names, addresses and descriptor"
done

"$SPOOL" replay --dump-schedule serial.trace >sched.txt 2>/dev/null
calls=$(awk '$1 == "input" { for (i = 1; i < NF; i++) if ($i == "call") print $(i + 1) }' sched.txt |
	sort -un | tr '\n' ' ')
like " $calls" ' 32 .* 39 40 41 42 43 44 ' \
	"the recording has socketpair, the recvfrom address, the recvmsg control data, getaddrinfo, getnameinfo, recvmmsg, sendmmsg"

# (LeakSanitizer cannot run under ptrace: no leak check in the ASan pass there.)
if command -v strace >/dev/null; then
	ASAN_OPTIONS=detect_leaks=0 timeout -k 10 "$T_TIMEOUT" strace -f -qq -e trace=network -o rec.st \
		"$SPOOL" record -o st.trace -- "$PROGS/rr_sockself" names >/dev/null 2>&1
	ASAN_OPTIONS=detect_leaks=0 timeout -k 10 "$T_TIMEOUT" strace -f -qq -e trace=network -o rep.st \
		"$SPOOL" replay -o rp.trace st.trace >st.out 2>st.err
	RC=$?
	like "$(cat rec.st)" 'connect\(.*htons\(53\)' "the recording asked DNS for the name that does not exist (strace)"
	is "$RC:$(grep -E 'AF_INET|AF_INET6' rep.st)" "0:" \
		"the replay ends well without asking DNS or making any network socket"
else
	skip 2 "strace is not installed"
fi
done_testing
