// SPDX-License-Identifier: MIT
/*
 * dlopen_many.c - a program with a long /proc/self/maps (like x264 with its
 * 137 libraries): it dlopens every library named on its command line, then
 * calls many_lock_fn() of the first one, which takes a lock that lives in
 * that library. Its locks must still be symbolized, however long the maps
 * text is (tests/integ/43-many-libs.t). The first library loaded is the
 * one called: it is mapped highest, so its lines come last in the maps
 * text, where a cut would fall. Prints "loaded=N".
 *
 * Usage: dlopen_many LIB.so...
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void (*fn)(void) = NULL;
	int n = 0;

	for (int i = 1; i < argc; i++) {
		void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);

		if (!h) {
			fprintf(stderr, "dlopen_many: %s\n", dlerror());
			return 1;
		}
		if (!fn)
			fn = (void (*)(void))dlsym(h, "many_lock_fn");
		n++;
	}
	if (fn)
		fn();
	printf("loaded=%d\n", n);
	return 0;
}
