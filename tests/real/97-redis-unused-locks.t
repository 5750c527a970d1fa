#!/bin/bash
# SPDX-License-Identifier: MIT
# 97-redis-unused-locks.t - Debian's redis-server under spool locks (issue
# 17): openssl's libcrypto creates rwlocks (CRYPTO_THREAD_lock_new) that the
# run never takes, and the lock report listed them all with 0
# acquisitions. Now the text report leaves out locks initialized and never
# used and says how many; --all lists them; JSON has every lock.
. "$(dirname "$0")/lib.sh"
need_progs redis-server redis-cli
plan 6

port=$(free_port)
timeout -k 10 "$T_TIMEOUT" "$SPOOL" locks -o l.trace -- redis-server --port "$port" --save '' \
	>run.out 2>run.err &
pid=$!
for ((i = 0; i < 100; i++)); do
	redis-cli -p "$port" ping >/dev/null 2>&1 && break
	sleep 0.1
done
reply="$(redis-cli -p "$port" set k 1)"
redis-cli -p "$port" shutdown >/dev/null 2>&1
wait $pid
rc=$?
check_sanitizer run.err "spool locks -- redis-server"
is "$rc $reply" "0 OK" "redis-server under spool locks served a SET and shut down" || diag "$(tail -n 5 run.err)"

timeout -k 10 "$T_TIMEOUT" "$SPOOL" report --limit 0 l.trace >r.txt 2>r.err
zero_rows() { grep -cE "^  .* (mutex|rwlock|spin|sem) +0 " "$1"; }
is "$(zero_rows r.txt)" 0 "the report lists no lock with 0 acquisitions"
like "$(cat r.txt)" "\\([0-9]+ more initialized and never used: --all shows them\\)" \
	"  and says how many it left out"
timeout -k 10 "$T_TIMEOUT" "$SPOOL" report --all --limit 0 l.trace >a.txt 2>a.err
num_cmp "$(zero_rows a.txt)" -ge 1 "report --all lists them"
like "$(grep -E ' rwlock +0 ' a.txt)" "CRYPTO_THREAD_lock_new" "  openssl's rwlocks among them"
timeout -k 10 "$T_TIMEOUT" "$SPOOL" report --json l.trace >r.json 2>/dev/null
n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len([l for l in d["locks"] if l["acquisitions"] == 0 and l["type"] == "rwlock"]))' r.json)
num_cmp "${n:-0}" -ge 1 "JSON has every lock, the unused rwlocks too"
done_testing
