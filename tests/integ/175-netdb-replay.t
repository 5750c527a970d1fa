#!/bin/bash
# SPDX-License-Identifier: MIT
# 175-netdb-replay.t - the older name lookups and the resolver, recorded
# whole (src/agent/agent_rr_hostent.c, agent_rr_resolv.c): rr_netdb hosts
# (gethostbyname, gethostbyname2, gethostbyaddr and their _r forms, one with
# a buffer too small, a name that does not exist, one lookup in a second
# thread, getservbyname, getservbyport and their _r forms) and rr_netdb res
# (res_query, res_search, res_mkquery with its random id, res_send).
# Recorded in serial and in sync mode, 3 replays each print the recorded
# answers. Then the replays run where /etc/hosts and /etc/services say
# something else (bind mounts in a mount namespace of their own): they
# still print the recorded answers, where the program alone prints the new
# ones. Under strace the recording asks DNS and the replay makes no
# network socket.
. "$(dirname "$0")/lib.sh"

plan 13

P="$PROGS/rr_netdb"
for mode in serial sync; do
	spool_run record --mode "$mode" -o "hosts.$mode" -- "$P" hosts
	cp run.out "hosts.$mode.out"
	like "$RC:$(tr '\n' ' ' <run.out)" "^0:gethostbyname localhost: name localhost.*gethostbyname_r \(8 bytes\): rc 34.*getservbyname http: http 80/tcp" \
		"$mode: hosts: recorded (exit 0), the lookups answered" || show_run
	replays_same 3 0 "hosts.$mode.out" -o rp "hosts.$mode"
	is "$SAME" 3 "$mode: hosts: 3 replays of 3 print the recorded answers"
	spool_run record --mode "$mode" -o "res.$mode" -- "$P" res
	cp run.out "res.$mode.out"
	like "$RC:$(tr '\n' ' ' <run.out)" "^0:res_query nosuchhost.invalid: .*res_mkquery: [0-9]+ bytes, id" \
		"$mode: res: recorded (exit 0)" || show_run
	replays_same 3 0 "res.$mode.out" -o rp "res.$mode"
	is "$SAME" 3 "$mode: res: 3 replays of 3 print the recorded answers and query id"
done

"$SPOOL" replay --dump-schedule hosts.serial >sched.txt 2>/dev/null
calls=$(awk '$1 == "input" { for (i = 1; i < NF; i++) if ($i == "call") print $(i + 1) }' sched.txt |
	sort -un | tr '\n' ' ')
like " $calls" ' 80 81 ' "the recording has the host and service lookups (calls 80, 81)"

# Other files in a mount namespace of the replay's own.
printf '127.0.0.9 localhost\n::1 localhost\n' >hosts.other
printf 'http 8080/tcp www\nssh 2222/tcp\nsmtp 2525/tcp\n' >services.other
elsewhere() {
	unshare -m sh -c 'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/services && shift 2 && exec "$@"' \
		sh "$T_DIR/hosts.other" "$T_DIR/services.other" "$@"
}
if elsewhere true 2>/dev/null; then
	elsewhere "$P" hosts >other.native 2>&1
	like "$(tr '\n' ' ' <other.native)" "addr 127.0.0.9 .*getservbyname http: http 8080/tcp" \
		"the program alone reads the other files (so the next checks can fail)" ||
		diag "$(cat other.native)"
	for mode in serial sync; do
		elsewhere "$SPOOL" replay -o rp "hosts.$mode" >other.$mode.out 2>other.$mode.err
		RC=$?
		ok "$mode: a replay with another /etc/hosts and /etc/services prints the recorded answers" \
			test "$RC" = 0 -a -z "$(diff "hosts.$mode.out" "other.$mode.out")" ||
			diag "exit $RC" "$(diff "hosts.$mode.out" "other.$mode.out" | head)" "$(tail -5 "other.$mode.err")"
	done
else
	skip 3 "no mount namespace here (unshare -m)"
fi

# (LeakSanitizer cannot run under ptrace: no leak check in the ASan pass there.)
if command -v strace >/dev/null; then
	ASAN_OPTIONS=detect_leaks=0 timeout -k 10 "$T_TIMEOUT" strace -f -qq -e trace=network -o rec.st \
		"$SPOOL" record -o st.trace -- "$P" res >/dev/null 2>&1
	ASAN_OPTIONS=detect_leaks=0 timeout -k 10 "$T_TIMEOUT" strace -f -qq -e trace=network -o rep.st \
		"$SPOOL" replay -o rp st.trace >/dev/null 2>&1
	RC=$?
	if grep -q 'htons(53)' rec.st; then
		is "$RC:$(grep -E 'AF_INET|AF_INET6' rep.st)" "0:" \
			"the replay ends well without asking DNS or making any network socket (strace)"
	else
		skip 1 "the recording did not reach a DNS server here (strace shows no port 53)"
	fi
else
	skip 1 "strace is not installed"
fi
done_testing
