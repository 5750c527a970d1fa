// SPDX-License-Identifier: MIT
/*
 * rr_splice.c - the calls where the kernel moves bytes between two
 * descriptors (tests/integ/246-rr-splice.t): a child writes a line into a
 * pipe; the parent tee's it into a second pipe (the first keeps it),
 * splices it from the first pipe into a third, reads the second and the
 * third, sendfile's a file (argv[1]) to its stdout with an offset
 * pointer, and copy_file_range's it into argv[2]. Replayed with --pid of
 * the parent, no child runs: each call must come from the log, not wait
 * for a writer.
 * Prints what each call returned and what was read.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char line[] = "a line from the child\n";
	int p[2], q[2], s[2], in, out, st = 0;
	char a[64] = "", b[64] = "";
	ssize_t t, sp, ra, rb, sf, cp;
	off_t off = 2;
	loff_t oi = 0;
	pid_t c;

	if (argc < 3 || pipe(p) || pipe(q) || pipe(s))
		return 2;
	printf("parent %d starts\n", (int)getpid());
	fflush(stdout);
	c = fork();
	if (c == 0) {
		close(p[0]);
		if (write(p[1], line, sizeof(line) - 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	t = tee(p[0], q[1], 64, 0);
	sp = splice(p[0], NULL, s[1], NULL, 64, 0);
	ra = read(q[0], a, sizeof(a) - 1);
	rb = read(s[0], b, sizeof(b) - 1);
	printf("tee %zd splice %zd\nread tee'd: %s", t, sp, ra > 0 ? a : "(nothing)\n");
	printf("read spliced: %s", rb > 0 ? b : "(nothing)\n");
	fflush(stdout);
	in = open(argv[1], O_RDONLY);
	sf = sendfile(1, in, &off, 12);
	printf("\nsendfile %zd offset %ld\n", sf, (long)off);
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cp = copy_file_range(in, &oi, out, NULL, 1 << 20, 0);
	printf("copy_file_range %zd offset %ld\n", cp, (long)oi);
	waitpid(c, &st, 0);
	printf("child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
