// SPDX-License-Identifier: MIT
/*
 * rr_popen.c - stdio streams with tables of their own
 * (tests/integ/247-rr-popen.t): a popen'ed command's output read with
 * fgets, a line written to a popen'ed "cat" (serial mode records stdio's
 * writes), and an fopencookie stream whose read function, the program's
 * own code, reads a pipe with read(). Prints what it read and pclose's
 * statuses: the command's output is random (od of /dev/urandom), so a
 * replay that ran the command again would print other bytes.
 */
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static ssize_t cookie_read(void *c, char *buf, size_t n)
{
	return read(*(int *)c, buf, n);
}

int main(void)
{
	cookie_io_functions_t io = {.read = cookie_read};
	char line[256];
	int p[2], st;
	FILE *f;

	printf("parent %d starts\n", (int)getpid());
	fflush(stdout);
	f = popen("od -An -tx1 -N8 /dev/urandom; echo second line", "r");
	if (!f)
		return 2;
	while (fgets(line, sizeof(line), f))
		printf("popen read:%s", line);
	st = pclose(f);
	printf("pclose %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	fflush(stdout);

	f = popen("cat", "w");
	if (!f)
		return 2;
	fprintf(f, "a line through popen's cat\n");
	st = pclose(f);
	printf("pclose %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);

	if (pipe(p) || write(p[1], "cookie bytes\n", 13) != 13)
		return 2;
	close(p[1]);
	f = fopencookie(&p[0], "r", io);
	if (!f)
		return 2;
	while (fgets(line, sizeof(line), f))
		printf("cookie read:%s", line);
	fclose(f);
	return 0;
}
