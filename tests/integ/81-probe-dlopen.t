#!/bin/bash
# SPDX-License-Identifier: MIT
# 81-probe-dlopen.t - spool probe on a library the program loads later with
# dlopen (func:LIB:GLOB, LIB a path or a name found through LD_LIBRARY_PATH):
# the probes are placed when the library is loaded, while a second thread
# runs, and the calls counted equal the library's own counts, per thread
# too, including a 3-byte function (an int3 probe). A library that is never
# found on disk is an error.
. "$(dirname "$0")/lib.sh"

if ! command -v cc >/dev/null; then
	echo "1..0 # SKIP no C compiler"
	exit 0
fi
plan 11

cat >lib.c <<'EOF'
long dl_ncalls_work, dl_ncalls_tiny;
int dl_tiny(int x) { return x; } /* mov; ret: too short for a jump */
__attribute__((noinline)) long dl_work(long x)
{
	long s = 0;

	__atomic_fetch_add(&dl_ncalls_work, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < x % 7 + 3; i++)
		s += i * x;
	if (x & 1) {
		__atomic_fetch_add(&dl_ncalls_tiny, 1, __ATOMIC_RELAXED);
		s += dl_tiny((int)x);
	}
	return s;
}
EOF
cat >main.c <<'EOF'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static long (*work)(long);
static volatile int go;
static long n;
/* Runs before and during the dlopen: the patching happens with two threads. */
static void *thr(void *a)
{
	long s = 0;

	while (!go)
		s++;
	for (long i = 0; i < n; i++)
		s += work(i);
	return (void *)s;
}
int main(int argc, char **argv)
{
	pthread_t t;
	void *h;
	long s = 0;

	n = atol(argv[2]);
	pthread_create(&t, NULL, thr, NULL);
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 2;
	}
	work = (long (*)(long))dlsym(h, "dl_work");
	go = 1;
	for (long i = 0; i < n; i++)
		s += work(i * 3);
	pthread_join(t, NULL);
	printf("dl_tiny %ld\ndl_work %ld\n", *(long *)dlsym(h, "dl_ncalls_tiny"),
	       *(long *)dlsym(h, "dl_ncalls_work"));
	return s == -1 ? 3 : 0;
}
EOF
cc -O1 -g -shared -fPIC -Wl,-soname,libspooldlt.so -o libspooldlt.so lib.c &&
	cc -O1 -g -o dlmain main.c -lpthread -ldl || { fail "building the test program"; exit 1; }

# (not -q: -q prints the summary line only, not the note on the library)
spool_run probe -e "func:$T_DIR/libspooldlt.so:dl_*" -- ./dlmain "$T_DIR/libspooldlt.so" 2000
is_rc 0 "spool probe runs a program that dlopens the probed library"
native="$(./dlmain "$T_DIR/libspooldlt.so" 2000)"
is "$OUT" "$native" "the program's output is unchanged"
like "$(cat run.err)" 'not loaded at startup' "spool says the library is probed when loaded"
like "$(cat run.err)" ' 4 of 4 probes placed' "every probe of the dlopened library is placed"

spool_run report --functions --json spool.trace
is_rc 0 "spool report --functions reads the trace"
JSON="$OUT"
got="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
for f in sorted(d["functions"], key=lambda f: f["name"]):
    print(f["name"], f["calls"])
' "$JSON")"
is "$got" "$native" "calls equal the library's own counts (a jump and an int3 probe, 2 threads)"
unpaired="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(sum(f["no_exit"] for f in d["functions"]) + d["unmatched_exits"])
' "$JSON")"
is "$unpaired" 0 "every entry has its exit"
threads="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
f = [f for f in d["functions"] if f["name"] == "dl_work"][0]
print(len(f["threads"]))
' "$JSON")"
is "$threads" 2 "dl_work ran on both threads"

# --- a name found through LD_LIBRARY_PATH --------------------------------
LD_LIBRARY_PATH="$T_DIR" spool_run probe -q -e 'func:libspooldlt*:dl_work' -- ./dlmain libspooldlt.so 500
is_rc 0 "a library glob is resolved through LD_LIBRARY_PATH"
spool_run report --functions --json spool.trace
got="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(" ".join("%s=%d" % (f["name"], f["calls"]) for f in d["functions"]))
' "$OUT")"
want="$(LD_LIBRARY_PATH="$T_DIR" ./dlmain libspooldlt.so 500 | sed -n 's/^dl_work /dl_work=/p')"
is "$got" "$want" "calls of the dlopened library, found by name"

# --- nothing on disk ---------------------------------------------------------
spool_run probe -q -e 'func:libnosuchlib-spool*:f' -- ./dlmain "$T_DIR/libspooldlt.so" 1
is_rc 1 "a library found neither loaded nor on disk is an error"
