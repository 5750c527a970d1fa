#!/bin/bash
# SPDX-License-Identifier: MIT
# 95-trace-untrusted.t - crafted traces, as from a bug report or a CI
# artifact: a side file that is a link to a secret file is not printed;
# a FIFO as the metadata, a stream, a side file or a binary named in a maps
# file, and /dev/zero as the probes file, end every command with an error
# instead of hanging it; a stream named stream_4294967295 does not crash
# spool export; lock indices, lock table indices and call depths written
# as huge numbers in an 18 KB trace do not make spool report --locks or
# spool path take gigabytes, nor does a huge probe id in the probes side
# file (max RSS measured with /usr/bin/time).
. "$(dirname "$0")/lib.sh"
# trace_craft.py edits format 1's layout: these traces are written in it
# (format 1 is still read: doc/trace-format.md, "Versions")
export SPOOL_TRACE_FORMAT=1

plan 32

CRAFT="python3 $REPO/tests/integ/trace_craft.py"
# A crafted trace must end a command quickly: a hang is a failure.
HANG=20

spool_run locks -q -o lk -- "$PROGS/lockcount" 2 100
is_rc 0 "a small lock trace"

# crafted NAME: a fresh copy of the lock trace.
crafted() {
	rm -rf "$1"
	cp -a lk "$1"
}

# ends DESC: the last spool_run ended by itself (no timeout, no crash)
# with a non-zero status.
ends() {
	if [ "$RC" != 124 ] && [ "$RC" != 137 ] && [ "$RC" -lt 128 ] && [ "$RC" != 0 ]; then
		pass "$1"
	else
		fail "$1"
		diag "status $RC (124: it hung until the timeout)" "$ERR"
	fi
}

# --- links ----------------------------------------------------------------
echo "SECRET-$$-not-for-spool" >secret
crafted link.trace
rm link.trace/.spool/proc/*.cmdline 2>/dev/null
ln -sf "$PWD/secret" link.trace/.spool/summary
spool_run info link.trace
unlike "$OUT$ERR" "SECRET-$$" "summary -> a secret file: spool info does not print it"
like "$ERR" "summary.*symbolic link" "  and says the link was not followed"

# terminal escape sequences in a side file spool info prints
crafted esc.trace
printf 'note=\033]0;pwned\007\033[31mred\n' >>esc.trace/.spool/summary
spool_run info esc.trace
if grep -q $'\033' run.out; then
	fail "escape sequences in the summary: spool info does not send them to the terminal"
else
	pass "escape sequences in the summary: spool info does not send them to the terminal"
fi

crafted meta-link.trace
mv meta-link.trace/metadata real-metadata
ln -s "$PWD/real-metadata" meta-link.trace/metadata
spool_run info meta-link.trace
num_cmp "$RC" -ne 0 "metadata -> a file outside: not read"
like "$ERR" "metadata.*symbolic link" "  naming the metadata file"

# --- FIFOs and devices ----------------------------------------------------
crafted fifo-meta.trace
rm fifo-meta.trace/metadata
mkfifo fifo-meta.trace/metadata
T_TIMEOUT=$HANG spool_run info fifo-meta.trace
ends "a FIFO as the metadata: spool info ends with an error"
like "$ERR" "metadata.*not a regular file" "  naming it"

crafted fifo-stream.trace
stream=$(cd fifo-stream.trace && ls stream_* | head -n 1)
rm "fifo-stream.trace/$stream"
mkfifo "fifo-stream.trace/$stream"
T_TIMEOUT=$HANG spool_run report --locks fifo-stream.trace
ends "a FIFO as $stream: spool report ends with an error"
like "$ERR" "$stream.*not a regular file" "  naming it"

crafted fifo-side.trace
rm -f fifo-side.trace/.spool/summary
mkfifo fifo-side.trace/.spool/summary
T_TIMEOUT=$HANG spool_run info fifo-side.trace
is "$RC" 0 "a FIFO as the summary side file: spool info ends"
like "$ERR" "summary.*not a regular file" "  and says it was not read"

crafted fifo-maps.trace
mkfifo fifo-binary
sed -i "s|$PROGS/lockcount|$PWD/fifo-binary|" fifo-maps.trace/.spool/proc/*.maps
T_TIMEOUT=$HANG spool_run report --locks fifo-maps.trace
is "$RC" 0 "a FIFO named as a binary in the maps: spool report ends"
like "$ERR" "fifo-binary.*not a regular file" "  and says why its addresses stay raw"

crafted zero.trace
ln -s /dev/zero zero.trace/.spool/probes
T_TIMEOUT=$HANG spool_run report zero.trace
is "$RC" 0 ".spool/probes -> /dev/zero: spool report ends"
like "$OUT" "lockcount_lock|Locks|locks" "  with the lock report"

# --- a stream number past what spool writes -------------------------------
crafted bigstream.trace
mv "bigstream.trace/$stream" bigstream.trace/stream_4294967295
T_TIMEOUT=$HANG spool_run export --perfetto -w big.pftrace bigstream.trace
ok "stream_4294967295: spool export does not crash" test "$RC" -lt 128
like "$ERR" "stream_4294967295.*not read" "  it names the stream it did not read"

# --- numbers that would size tables ---------------------------------------
# max_rss_kb ARGS...: run spool, its maximum resident set in KiB in RSS
# (empty when /usr/bin/time is missing); status in RC, stderr in ERR.
max_rss_kb() {
	RSS=
	if [ ! -x /usr/bin/time ]; then
		return
	fi
	/usr/bin/time -f %M -o rss.txt timeout -k 5 "$HANG" "$SPOOL" "$@" >run.out 2>run.err
	RC=$?
	ERR="$(cat run.err)"
	check_sanitizer run.err "spool $*"
	RSS=$(tail -n 1 rss.txt)
}
# 64 MiB: the normal build takes 3 MiB on these traces, the ASan build
# 12 MiB; before the bounds, report --locks took 130 MiB to 3 GiB on the
# first trace below (more when the lock-order graph has edges).
RSS_MAX=65536

crafted bigidx.trace
$CRAFT word bigidx.trace 1 obj 0xffffff >/dev/null
$CRAFT word bigidx.trace 3 obj 0xffffff >/dev/null
size=$(du -sb --apparent-size bigidx.trace | cut -f1)
max_rss_kb report --locks bigidx.trace
if [ -n "$RSS" ]; then
	num_cmp "$RSS" -lt "$RSS_MAX" "lock index 16777215 in a ${size}-byte trace: report --locks uses ${RSS} KiB"
	like "$ERR" "malformed record" "  and says the records were skipped"
else
	skip 2 "/usr/bin/time is not installed"
fi

spool_run path -q -t pt -- "$PROGS/path_prodcons-finst"
cp -a pt deep.trace
$CRAFT u32 deep.trace 8 16 0x100000 >/dev/null  # every call at depth 2^20
$CRAFT word deep.trace 3 obj 0x7ffffff0 >/dev/null # lock table index 2^31
size=$(du -sb --apparent-size deep.trace | cut -f1)
max_rss_kb path deep.trace
if [ -n "$RSS" ]; then
	num_cmp "$RSS" -lt "$RSS_MAX" "call depth 2^20, lock index 2^31 in a ${size}-byte trace: spool path uses ${RSS} KiB"
	unlike "$ERR" "Cannot allocate memory|out of memory" "  and asks for no impossible allocation"
else
	skip 2 "/usr/bin/time is not installed"
fi

# a probes side file whose one extra line says probe 16777000: before the
# bound, report --functions took 70 MiB and spool path 530 MiB
spool_run probe -q -o pr -e 'func:*' -- "$PROGS/lockcount" 2 100
is_rc 0 "a small probe trace"
printf '16777000 entry jump - 0x1000 evil\n' >>pr/.spool/probes
size=$(du -sb --apparent-size pr | cut -f1)
for cmd in "report --functions" path; do
	# shellcheck disable=SC2086 # the command is two words
	max_rss_kb $cmd pr
	if [ -n "$RSS" ]; then
		num_cmp "$RSS" -lt "$RSS_MAX" "probe id 16777000 in a ${size}-byte trace: spool $cmd uses ${RSS} KiB"
	else
		skip 1 "/usr/bin/time is not installed"
	fi
done

# 100,000 functions in the probes file, 1000 threads calling: the function
# report kept a counter per function for every thread (400 KB a thread)
# and found each function by a linear search (23 s before this bound).
# The ASan build only runs a smaller one (it does not measure memory, and
# the big one takes it 10 s).
if [ "$SPOOL_ASAN" = 1 ]; then NFN=10000 NTH=100; else NFN=100000 NTH=1000; fi
python3 -c '
import sys
with open(sys.argv[1], "a") as f:
    for i in range(1000, 1000 + int(sys.argv[2])):
        f.write("%d entry jump - 0x%x f%d\n" % (i, 0x100000 + i, i))
' pr/.spool/probes "$NFN"
$CRAFT clone pr 1 "$NTH"
size=$(du -sb --apparent-size pr | cut -f1)
if [ "$SPOOL_ASAN" = 1 ]; then
	spool_run report --functions pr
	is_rc 0 "$NFN functions, $NTH threads (${size} bytes): spool report --functions"
else
	(
		ulimit -v 262144
		exec timeout -k 5 "$HANG" "$SPOOL" report --functions pr >run.out 2>run.err
	)
	RC=$?
	ERR="$(cat run.err)"
	is "$RC" 0 "$NFN functions, $NTH threads (${size} bytes): report --functions fits in 256 MiB" || diag "$ERR"
fi
# stream_1's call, and one in each copy (stream_2 was one of them)
like "$(cat run.out)" "worker +$((NTH + 1)) " "  and counts the $((NTH + 1)) calls of worker"

# stream ids that are not dense (no stream_1, a stream_9): report --vars
# looked the 9 up as a position and crashed, report --functions dropped
# that thread's calls
spool_run probe -q -o tp -e 'time:worker' -- "$PROGS/lockcount" 3 100
is_rc 0 "a probe trace of 4 threads"
$CRAFT renumber tp 1 9
spool_run report --vars tp
like "$OUT" "time:worker +3 " "no stream_1, a stream_9: spool report --vars counts the 3 calls"
spool_run report --functions tp
like "$OUT" "worker +3 " "  and spool report --functions too"

# a variable probe's records claiming 65535 variables each, in 301 streams:
# the report reserved 1 MiB per stream for them before the first arrived
# (address space, measured with ulimit -v: the ASan build reserves
# terabytes of shadow, so only the normal build is measured)
spool_run probe -q -o pv -e 'var:int:i@compute:exit' -- "$PROGS/probe_vars" 50 5
is_rc 0 "a variable probe trace"
$CRAFT u32 pv 9 16 0xffff0000 >/dev/null # ret_ip: index 0 of 65535
$CRAFT clone pv 0 300
size=$(du -sb --apparent-size pv | cut -f1)
if [ "$SPOOL_ASAN" = 1 ]; then
	skip 1 "address space is not measurable under AddressSanitizer"
else
	(
		ulimit -v 262144
		exec "$SPOOL" report --vars pv >run.out 2>run.err
	)
	RC=$?
	ERR="$(cat run.err)"
	is "$RC" 0 "hits claiming 65535 variables in a ${size}-byte trace: report --vars fits in 256 MiB of address space" || diag "$ERR"
fi

done_testing
