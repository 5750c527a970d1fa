#!/bin/bash
# SPDX-License-Identifier: MIT
# 99-netdb-replay.t - Debian programs that look names up with the older
# calls, recorded whole (src/agent/agent_rr_hostent.c): `getent hosts
# localhost` (gethostbyname2), `getent services ssh http 53/udp`
# (getservbyname, getservbyport), `getent services` and `getent hosts`
# (every entry: getservent, gethostent), perl's gethostbyname, gethostbyaddr,
# getservbyname and getservbyport, and python3's socket.gethostbyname_ex,
# gethostbyaddr (gethostbyname_r, gethostbyaddr_r) in 4 threads,
# getservbyname and getservbyport. Each recorded in serial and in sync
# mode, then replayed 3 times where /etc/hosts and /etc/services say
# something else (bind mounts in a mount namespace of the replay's own):
# every replay exits 0 with the recorded output, where each program alone
# prints the other files' answers.
. "$(dirname "$0")/lib.sh"
need_progs getent perl "$REAL_PY" unshare
plan 25

export LC_ALL=C
cat >netdb.py <<'PY'
import socket, threading
print(socket.gethostbyname_ex("localhost"))
print(socket.gethostbyaddr("127.0.0.1"))
print(socket.getservbyname("http", "tcp"), socket.getservbyport(22, "tcp"))
out = {}
def look(i):
    out[i] = socket.gethostbyname_ex("localhost")
ts = [threading.Thread(target=look, args=(i,)) for i in range(4)]
for t in ts: t.start()
for t in ts: t.join()
print(sorted(out.items()))
PY
cat >netdb.pl <<'PL'
my @h = gethostbyname("localhost");
print "gethostbyname: $h[0] $h[2] $h[3] ", join(" ", map { join(".", unpack("C4", $_)) } @h[4..$#h]), "\n";
my @a = gethostbyaddr(pack("C4", 127, 0, 0, 1), 2);
print "gethostbyaddr: $a[0]\n";
my @s = getservbyname("http", "tcp");
print "getservbyname: $s[0] [$s[1]] $s[2] $s[3]\n";
my @p = getservbyport(22, "tcp");
print "getservbyport: $p[0] $p[2]\n";
PL
printf '127.0.0.9 localhost\n::1 localhost\n127.0.0.1 elsewhere\n' >hosts.other
printf 'http 8080/tcp web\nssh 2222/tcp\ndomain 5353/udp\n' >services.other
elsewhere() {
	unshare -m sh -c 'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/services && shift 2 && exec "$@"' \
		sh "$T_DIR/hosts.other" "$T_DIR/services.other" "$@"
}
if ! elsewhere true 2>/dev/null; then
	echo "1..0 # SKIP no mount namespace here (unshare -m): the replays could not see other files"
	exit 0
fi

names=(hosts services allservices allhosts perl py)
cmd_hosts=(getent hosts localhost)
cmd_services=(getent services ssh http 53/udp)
cmd_allservices=(getent services)
cmd_allhosts=(getent hosts)
cmd_perl=(perl netdb.pl)
cmd_py=("$REAL_PY" netdb.py)
for p in "${names[@]}"; do
	eval "cmd=(\"\${cmd_$p[@]}\")"
	"${cmd[@]}" >"$p.native" 2>&1
	elsewhere "${cmd[@]}" >"$p.other" 2>&1
	for mode in serial sync; do
		spool_run record -q --mode "$mode" -o "$p.$mode" -- "${cmd[@]}"
		cp run.out "$p.$mode.out"
		if [ "$RC" != 0 ] || ! cmp -s run.out "$p.native"; then
			fail "$p $mode: recorded (exit 0) with the program's own output"
			show_run
			skip 1 "$p $mode: not recorded"
			continue
		fi
		pass "$p $mode: recorded (exit 0) with the program's own output"
		same=0
		for i in 1 2 3; do
			elsewhere "$SPOOL" replay -q -o rp "$p.$mode" >rep.out 2>rep.err
			rc=$?
			if [ "$rc" = 0 ] && cmp -s rep.out "$p.$mode.out"; then
				same=$((same + 1))
			else
				diag "$p $mode replay $i: exit $rc" "$(diff "$p.$mode.out" rep.out | head)" "$(tail -n 5 rep.err)"
			fi
		done
		is "$same" 3 "$p $mode: 3 replays of 3 with other /etc/hosts and /etc/services print the recorded answers"
	done
done
ok "each program alone prints the other files' answers (so the checks above can fail)" \
	test -n "$(diff hosts.native hosts.other)" -a -n "$(diff services.native services.other)" \
	-a -n "$(diff allservices.native allservices.other)" -a -n "$(diff allhosts.native allhosts.other)" \
	-a -n "$(diff perl.native perl.other)" -a -n "$(diff py.native py.other)"
done_testing
