// SPDX-License-Identifier: MIT
/*
 * nopersona.c - run a command under a seccomp filter that refuses
 * personality(2) with EPERM except for the query personality(0xffffffff),
 * as a container's default seccomp profile does for ADDR_NO_RANDOMIZE: the
 * tests of a recording made (or replayed) with address-space randomization
 * that spool cannot turn off (tests/integ/118-record-aslr.t).
 *
 * usage: nopersona COMMAND [ARGS...]
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_personality, 0, 3),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (argc < 2) {
		fprintf(stderr, "usage: nopersona COMMAND [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("nopersona: seccomp");
		return 2;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
