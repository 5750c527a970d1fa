#!/bin/bash
# SPDX-License-Identifier: MIT
# 387-dlclose-names.t - a library the program dlopens and dlcloses before
# it ends stays named in its trace. Debian's 7z loads its codecs from 7z.so
# and unloads it at exit: the maps the trace kept were the last ones read,
# at the exit, without 7z.so, so every lock its threads made was "mutex#8"
# and the callers of its probed functions were bare addresses. The
# collector now keeps, with each new maps text, the file lines of the one
# before that it no longer maps (src/collect/maps_keep.c).
#
# The program here: dlopens plug.so, whose plug_run makes a mutex (on the
# heap: named by its init site) and locks it from two threads (plug_work),
# sleeps 300 ms (the collector looks at the maps every 50 ms or so),
# dlcloses it and exits.
. "$(dirname "$0")/lib.sh"

need_cc
plan 8

cat >plug.c <<'EOF2'
#include <pthread.h>
#include <stdlib.h>
static pthread_mutex_t *plug_mu;
static long plug_n;
__attribute__((noinline)) void plug_work(void)
{
	pthread_mutex_lock(plug_mu);
	plug_n++;
	pthread_mutex_unlock(plug_mu);
}
static void *plug_thread(void *a)
{
	for (int i = 0; i < 100; i++)
		plug_work();
	return a;
}
long plug_run(void)
{
	pthread_t t;

	/* on the heap: no variable names it, its init site does */
	plug_mu = malloc(sizeof(*plug_mu));
	pthread_mutex_init(plug_mu, NULL);
	pthread_create(&t, NULL, plug_thread, NULL);
	plug_thread(NULL);
	pthread_join(t, NULL);
	pthread_mutex_destroy(plug_mu);
	free(plug_mu);
	return plug_n;
}
EOF2
cat >host.c <<'EOF2'
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
int main(int argc, char **argv)
{
	struct timespec ts = {0, 300 * 1000 * 1000};
	void *h = dlopen(argv[1], RTLD_NOW);
	long (*run)(void);

	if (!h || !(run = (long (*)(void))dlsym(h, "plug_run")))
		return 2;
	printf("plug_run: %ld\n", run());
	nanosleep(&ts, NULL);
	dlclose(h);
	return 0;
}
EOF2
"$CC" -shared -fPIC -O1 -pthread -o plug.so plug.c || diag "plug.so does not build"
"$CC" -O1 -o host host.c -ldl || diag "host does not build"
PLUG="$PWD/plug.so"

spool_run locks -o lk.trace -- ./host "$PLUG"
is "$RC/$OUT" "0/plug_run: 200" "locks: the program ran as alone (exit 0, 200 increments)"
report_json lk.trace
names=$(json report.json "[l['name'] for l in d['locks'] if l['acquisitions'] == 200]")
like "$names" "^plug_run\\+0x[0-9a-f]+#[0-9]+\$" \
	"locks: the mutex plug.so made is named by its init site, plug_run (not mutex#N)"
like "$(cat lk.trace/.spool/proc/*.maps)" "plug\\.so" \
	"  the trace's maps of the process still hold plug.so, which it unloaded"
"$SPOOL" report lk.trace >rep.txt 2>&1
like "$(cat rep.txt)" "plug_run\\+0x[0-9a-f]+#[0-9]+ +mutex +200 " "  the text report names it so too"

spool_run probe -o pr.trace -e "func:$PLUG:plug_work" -- ./host "$PLUG"
is "$RC/$OUT" "0/plug_run: 200" "probe: the program ran as alone"
"$SPOOL" report --functions --json pr.trace >fn.json 2>/dev/null
is "$(json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'plug_work')")" 200 \
	"probe: plug_work was called 200 times"
"$SPOOL" report --functions pr.trace >fn.txt 2>&1
like "$(cat fn.txt)" "<- plug_thread +[0-9]+" "  its callers are named (plug_thread), not addresses"
unlike "$(cat fn.txt)" "<- 0x" "  and none is a bare address"
done_testing
