// SPDX-License-Identifier: MIT
/*
 * probe_libvars.c - target of tests/integ/84-probe-libs.t: variable,
 * assertion and time probes inside a shared library, in launch and attach
 * mode. One file, two halves: built with -DPROBE_LIBVARS_LIB it is the
 * library (lib_compute() and its global lib_total), with
 * -DPROBE_LIBVARS_MAIN the program that calls it; built as is (the
 * Makefile's tests/progs rule) it is both in one program.
 *
 * lib_compute(k) computes an int, a long and a double from k, adds the
 * double to the global, and prints them all with the precision spool's
 * report uses, so the values the probes read can be compared with these
 * lines.
 *
 * usage: probe_libvars N              N calls, then exit
 *        probe_libvars N STOPFILE     call every 20 ms until STOPFILE exists
 *                                     (at least N calls; for attach mode)
 * The program half built with -DPROBE_LIBVARS_NOLINK (not linked with the
 * library) loads it with dlopen from $PROBE_LIBVARS_DLOPEN first.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if !defined(PROBE_LIBVARS_LIB) && !defined(PROBE_LIBVARS_MAIN)
#define PROBE_LIBVARS_LIB
#define PROBE_LIBVARS_MAIN
#endif

int lib_compute(int k, double scale);

#ifdef PROBE_LIBVARS_LIB
double lib_total; /* a global of the library, read at its address + the load bias */

__attribute__((noinline)) int lib_compute(int k, double scale)
{
	int i = k * 7 + 3;
	long l = (long)k * 1000003L - 5;
	double d = scale * k + 0.25;

	lib_total += d;
	printf("k=%d i=%d l=%ld d=%.17g total=%.17g\n", k, i, l, d, lib_total);
	fflush(stdout);
	return i;
}
#endif

#ifdef PROBE_LIBVARS_MAIN
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5;
	const char *stop = argc > 2 ? argv[2] : NULL;
	struct timespec nap = {0, 20 * 1000 * 1000};
#ifdef PROBE_LIBVARS_NOLINK
	int (*fn)(int, double) = NULL;
#else
	int (*fn)(int, double) = lib_compute;
#endif
	long sum = 0;

	if (!fn) {
		const char *path = getenv("PROBE_LIBVARS_DLOPEN");
		void *h = path ? dlopen(path, RTLD_NOW) : NULL;

		fn = h ? (int (*)(int, double))dlsym(h, "lib_compute") : NULL;
		if (!fn) {
			fprintf(stderr, "no lib_compute: %s\n", path ? dlerror() : "no library");
			return 1;
		}
	}
	for (int k = 0; k < n || (stop && access(stop, F_OK) != 0); k++) {
		sum += fn(k, 1.5);
		if (stop)
			nanosleep(&nap, NULL);
	}
	printf("sum=%ld\n", sum);
	return 0;
}
#endif
