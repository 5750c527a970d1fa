#!/bin/bash
# SPDX-License-Identifier: MIT
# 114-node-probe-builtins.t - spool probe -e 'func:*' on Debian's node (a
# 99 MB executable, about 77,000 functions, V8 and libuv linked in) running
# work on libuv's thread pool (tests/real/data/node-pool.js).
# Pins a bug found that way: node died of SIGSEGV under `spool probe -e
# 'func:*'` and `spool path`, even for `node -e 0`. V8 links its builtins
# into node's .text (Builtins_*, the "embedded blob") and, with short
# builtin calls (node 20's default), copies the whole blob next to its JIT
# code when it starts and calls the copy: a probe's jmp rel32 was copied
# with it and jumped into nothing. spool now leaves that range alone and
# says why (probe_elf.c, probe_find_copied); a spec that names only
# builtins is refused before the program runs. doc/probe.md "Limits".
. "$(dirname "$0")/lib.sh"
need_progs node

plan 10

JS="$REPO/tests/real/data/node-pool.js"
node "$JS" >native.out
is "$?:$(wc -l <native.out)" "0:10" "node alone: exit 0, 10 result lines"

# --- every function of the executable ---
spool_run probe -q -o all.trace -e 'func:*' -- node "$JS"
ok "func:* on node: exit 0 with node's own output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out native.out" || show_run
like "$ERR" "V8's embedded builtins \\(Builtins_\\*\\).*they are not probed" \
	"  spool says V8's builtins are not probed, and why"
like "$ERR" "[1-9][0-9]* of [1-9][0-9]* probes placed, 0 events lost" "  the other probes are placed"

# --- only builtins: refused before node runs ---
spool_run probe -q -o b.trace -e 'func:Builtins_*' -- node "$JS"
is "$RC:$OUT" "1:" "func:Builtins_* alone: exit 1, node not run"
like "$ERR" "'func:Builtins_\\*' matches only functions of .*node that are not probed" \
	"  the error names the spec"

# --- libuv's functions, two runs: the counts that do not depend on timing ---
for i in 1 2; do
	spool_run probe -q -o uv$i.trace -e 'func:uv_*' -- node "$JS"
	ok "func:uv_* run $i: exit 0 with node's own output" \
		bash -c "[ $RC = 0 ] && cmp -s run.out native.out" || show_run
	"$SPOOL" report --functions --json uv$i.trace >uv$i.json 2>/dev/null
done
calls() {
	json "$1" "sum(f['calls'] for f in d['functions'] if f['name'] == '$2')"
}
q1=$(calls uv1.json uv_queue_work) q2=$(calls uv2.json uv_queue_work)
t1=$(calls uv1.json uv_thread_create_ex) t2=$(calls uv2.json uv_thread_create_ex)
diag "uv_queue_work: $q1 and $q2 calls; uv_thread_create_ex: $t1 and $t2"
ok "uv_queue_work (work handed to the pool) counted alike in both runs, not 0" \
	test "${q1:-0}" -gt 0 -a "$q1" = "$q2"
ok "uv_thread_create_ex (the pool's threads) counted alike in both runs, not 0" \
	test "${t1:-0}" -gt 0 -a "$t1" = "$t2"

done_testing
