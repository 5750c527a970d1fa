#!/bin/bash
# SPDX-License-Identifier: MIT
# 340-path-object-blanks.t - spool replay --path reads a path whose object
# column holds C++ lock names with blanks (issue 17): "lock:(anonymous
# namespace)::mtx", "lock:Acc<int, char>::m" (tests/progs/cxx/
# path_blanks.cpp). The reader took the object for the last word, so the
# function became "__gthread_mutex_lock(pthread_mutex_t*) lock:(anonymous"
# and the object "namespace)::mtx" in what spool said of a path the replay
# did not follow, or of one naming other objects.
. "$(dirname "$0")/lib.sh"
plan 9
if ! command -v g++ >/dev/null; then
	skip 9 "no g++"
	done_testing
	exit 0
fi
g++ -g -O0 -finstrument-functions -pthread -o path_blanks "$REPO/tests/progs/cxx/path_blanks.cpp" 2>cc.err
ok "the C++ program builds with -finstrument-functions" test -x path_blanks || diag "$(cat cc.err)"
native="$(./path_blanks 3)"

spool_run record -q -o rec -- ./path_blanks 3
is "$RC:$OUT" "0:$native" "spool record: the program's output"
spool_run replay -q --record-path -o rp rec
is "$RC:$OUT" "0:$native" "spool replay --record-path: the same"
"$SPOOL" path --show-exits -w p.txt rp 2>/dev/null
like "$(grep -c 'lock:(anonymous namespace)::mtx$' p.txt):$(grep -c 'lock:Acc<int, char>::m$' p.txt)" \
	"^[1-9][0-9]*:[1-9][0-9]*$" "the path's object column names both locks, blanks included"

spool_run replay --path p.txt rec
is "$RC:$OUT" "0:$native" "spool replay --path of that path: the program's output"
unlike "$ERR" "other objects" "  every call touched the objects the path says"

# The same path naming another object: the warning names both as written.
sed 's/lock:(anonymous namespace)::mtx$/lock:(anonymous namespace)::other/' p.txt >o.txt
spool_run replay --path o.txt rec
like "$ERR" "touched other objects than o.txt says \\(first: line [0-9]+: lock:\\(anonymous namespace\\)::other, the replay: lock:\\(anonymous namespace\\)::mtx\\)" \
	"a path naming another lock: the warning names the path's and the replay's, whole"

# One record left out: the replay does not follow; spool names the call.
n=$(grep -n 'lock:(anonymous namespace)::mtx$' p.txt | head -n 1 | cut -d: -f1)
sed "${n}d" p.txt >d.txt
spool_run replay --stuck-ms 500 --path d.txt rec
is "$RC" 3 "a path with a record left out: the replay diverges (exit 3)"
like "$ERR" "d.txt line $n: the path has T[0-9]+ call [^ ]+ here; the replay did not follow it: its call [0-9]+ is T[0-9]+ call __gthread_mutex_lock\\(pthread_mutex_t\\*\\)(\$|\\n)" \
	"  spool names the replay's call: the function alone, not the object's first word"

done_testing
