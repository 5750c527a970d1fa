#!/bin/bash
# SPDX-License-Identifier: MIT
# 119-replay-identity.t - a replay runs the program as it was recorded: the
# file the recording ran under the name it was called by (argv[0], a link
# to the binary here, as redis-server is a link to redis-check-rdb), its
# arguments, umask, resource limits and personality, whatever the replaying
# shell has; `spool replay` without TRACE replays ./spool.trace.
. "$(dirname "$0")/lib.sh"

plan 13

mkdir bin
ln -s "$PROGS/rr_layout" bin/rr_alias

# Recorded through the link, found in PATH, with its own umask and limits:
# a descriptor limit and a stack limit big enough to move the mappings
# (the kernel leaves a gap of the stack limit, at least 128 MiB, below the
# stack).
(
	umask 077
	ulimit -Sn 500
	ulimit -Ss 300000
	PATH="$PWD/bin:$PATH" timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q -- rr_alias one two \
		>rec.out 2>rec.err
)
rc=$?
check_sanitizer rec.err "spool record"
like "$rc $(head -n 2 rec.out | tr '\n' ' ')" "^0 argv0 rr_alias argc 3 umask 077 nofile 500 " \
	"recorded through a link, with umask 077 and 500 descriptors" || diag "$(cat rec.err)"
ok "the recording keeps the file it ran (the link), not only the binary behind it" \
	grep -qx "path=$PWD/bin/rr_alias" spool.trace/.spool/record
like "$(grep -E '^(umask|rlimit_nofile|rlimit_stack)=' spool.trace/.spool/record | tr '\n' ' ')" \
	'^umask=077 rlimit_stack=307200000:[0-9a-z]+ rlimit_nofile=500:' \
	"... its umask and limits"

# Replayed from a shell with another umask and the default limits, without
# naming the trace (./spool.trace), and without the link in PATH.
umask 022
spool_run replay -q
is "$RC" 0 "spool replay without TRACE replays ./spool.trace" || show_run
is "$(head -n 1 run.out)" "argv0 rr_alias argc 3" "the replay's argv[0] is the recorded one, not the binary's path"
is "$(sed -n 2p run.out)" "$(sed -n 2p rec.out)" "the recorded umask, descriptor limit and personality"
ok "the whole output is the recording's (the stack limit's mappings included)" cmp -s rec.out run.out ||
	diag "$(diff rec.out run.out)"

# A program started by a relative name runs from the recorded directory
# under that name, wherever the replay is started.
(cd bin && timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q -o ../rel.trace -- ./rr_alias >../rel.rec.out 2>&1)
spool_run replay -q rel.trace
is "$RC $(cat run.out)" "0 $(cat rel.rec.out)" \
	"recorded as ./rr_alias in bin/, replayed from elsewhere: the recorded output"

# `spool replay -- PROG ARGS`: the recorded trace, another command line.
spool_run replay -q -- "$PROGS/rr_layout" one two
is "$RC $(head -n 1 run.out)" "0 argv0 $PROGS/rr_layout argc 3" \
	"spool replay -- PROG ARGS replays ./spool.trace with that command line"

# A trace is untrusted: a personality flag that is not about the layout
# (READ_IMPLIES_EXEC: every readable page executable) is not taken from it.
sed -i 's/^personality=0x40000$/personality=0x440000/' spool.trace/.spool/record
spool_run replay -q spool.trace
like "$ERR" "personality flags 0x400000 not taken from the recording" \
	"a recorded READ_IMPLIES_EXEC is not taken, and said"
is "$(sed -n 2p run.out)" "$(sed -n 2p rec.out)" "... the program runs with ADDR_NO_RANDOMIZE only"

# A spool.trace that is not there is said as for TRACE.
mkdir elsewhere
(cd elsewhere && timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q >../run.out 2>../run.err)
rc=$?
like "$rc $(cat run.err)" "^1 .*recording 'spool.trace' does not exist" \
	"without TRACE and without ./spool.trace: the usual message"

# The link gone: the replay names the file it cannot run.
rm bin/rr_alias
spool_run replay -q spool.trace
like "$RC $ERR" "^1 .*rr_alias: no such file \(the recorded binary is gone\)" \
	"the recorded file gone: said, nothing run"

done_testing
