// SPDX-License-Identifier: MIT
/*
 * rr_spawn - children started without fork (tests/integ/135-rr-spawn.t):
 * posix_spawnp (glibc's is a clone(CLONE_VM|CLONE_VFORK) and an exec),
 * system() and popen() (glibc spawns those internally), each running a
 * shell that prints its pid and the time. The parent prints what it
 * learned (the spawned pid, the statuses, what popen read).
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(void)
{
	char *args[] = {"sh", "-c", "echo spawned $$ at $(date +%s.%N); exit 7", NULL};
	char line[256];
	pid_t pid;
	int st, rc;
	FILE *f;

	rc = posix_spawnp(&pid, "sh", NULL, NULL, args, environ);
	if (rc) {
		printf("posix_spawnp failed: %d\n", rc);
		return 1;
	}
	if (waitpid(pid, &st, 0) != pid)
		return 2;
	printf("posix_spawnp started %d, exited %d\n", (int)pid, WEXITSTATUS(st));
	fflush(stdout);
	rc = system("echo system $$ at $(date +%s.%N)");
	printf("system returned %d\n", rc);
	fflush(stdout);
	f = popen("echo popen $$; date +%s.%N", "r");
	if (!f)
		return 3;
	while (fgets(line, sizeof(line), f))
		printf("popen read: %s", line);
	printf("pclose returned %d\n", pclose(f));
	return 0;
}
