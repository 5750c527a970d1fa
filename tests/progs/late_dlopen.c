// SPDX-License-Identifier: MIT
/*
 * late_dlopen.c - a program that loads a library only when told to, for
 * spool probe -p on libraries loaded after the attach (tests/integ/291):
 * prints "ready", waits for the file GO, then dlopens LIB, prints
 * "loaded", calls its function FN (no arguments, returning a pointer, like
 * zlibVersion) about once a millisecond until the file STOP exists, prints
 * "calls=N" (how many) and exits 0.
 *
 * Usage: late_dlopen GO STOP LIB FN
 */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static void late_wait(const char *path)
{
	struct timespec ts = {0, 20 * 1000 * 1000};

	for (int i = 0; i < 3000 && access(path, F_OK); i++)
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	struct timespec ms = {0, 1000 * 1000};
	const char *(*fn)(void);
	long n = 0;
	void *h;

	if (argc != 5) {
		fprintf(stderr, "usage: late_dlopen GO STOP LIB FN\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	late_wait(argv[1]);
	h = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "late_dlopen: %s\n", dlerror());
		return 1;
	}
	fn = (const char *(*)(void))dlsym(h, argv[4]);
	if (!fn) {
		fprintf(stderr, "late_dlopen: %s\n", dlerror());
		return 1;
	}
	printf("loaded\n");
	fflush(stdout);
	while (access(argv[2], F_OK)) {
		if (!fn())
			return 1;
		n++;
		nanosleep(&ms, NULL);
	}
	printf("calls=%ld\n", n);
	return 0;
}
