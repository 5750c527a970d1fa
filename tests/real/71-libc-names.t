#!/bin/bash
# SPDX-License-Identifier: MIT
# 71-libc-names.t - `spool probe -e func:libc.so.6:pthread_mutex_lock`
# as a user types it, on Debian's pigz. With libc6-dbg installed, spool
# reads libc's symbols from its debug file, where glibc's exported names
# carry their version (pthread_mutex_lock@@GLIBC_2.2.5) and the plain
# name is not there: spool said the spec "matches no function" and
# exited 1, though pigz calls pthread_mutex_lock thousands of times (it
# named the function ___pthread_mutex_lock, a local alias, under
# func:libc.so.6:*). Without the debug file the exported names are read
# from .dynsym and the spec works: the test is skipped then.
. "$(dirname "$0")/lib.sh"
need_progs pigz
libc=$(ldd "$(command -v pigz)" | awk '$1 == "libc.so.6" { print $3 }')
bid=$(readelf -n "$libc" 2>/dev/null | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
if [ ! -f "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ]; then
	echo "1..0 # SKIP libc's debug file is not installed (libc6-dbg)"
	exit 0
fi
plan 4

seq 1 300000 >data
pigz -p 2 -c data >native.gz
spool_run probe -o p.trace -e 'func:libc.so.6:pthread_mutex_lock' -e 'func:libc.so.6:pthread_cond_wait' \
	-- pigz -p 2 -c data
is_rc 0 "spool probe of libc's pthread_mutex_lock and pthread_cond_wait exits 0"
ok "pigz's output is the native one" cmp -s run.out native.gz
like "$ERR" '^pthread_mutex_lock +[1-9]' "the report counts pthread_mutex_lock under its name"
like "$ERR" '^pthread_cond_wait +[1-9]' "and pthread_cond_wait"
done_testing
