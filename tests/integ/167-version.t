#!/bin/bash
# SPDX-License-Identifier: MIT
# 167-version.t - spool --version (and -V) prints the version and the trace
# format version it reads and writes: the one a trace it writes carries in
# its metadata (spool_format_version), which that same spool reads back.
. "$(dirname "$0")/lib.sh"

plan 8

spool_run --version
is_rc 0 "spool --version exits 0"
like "$(head -n 1 <<<"$OUT")" '^spool [0-9]+\.[0-9]+\.[0-9]+' "  its first line is 'spool X.Y.Z'"
fmt=$(sed -nE 's/^trace format: (writes )?version ([0-9]+).*/\2/p' <<<"$OUT")
like "$fmt" '^[0-9]+$' "  it names the trace format version"
like "$OUT" "read" "  and says it is read"
like "$OUT" "written|writes" "  and written"
v_out=$OUT

spool_run -V
is "$OUT" "$v_out" "spool -V prints the same"

spool_run locks -q -o t -- "$PROGS/lockcount" 1 1
in_trace=$(sed -nE 's/.*spool_format_version = ([0-9]+);.*/\1/p' t/metadata)
is "$in_trace" "$fmt" "a trace it writes carries format version $fmt"
spool_run info t
is_rc 0 "  and it reads that trace"
done_testing
