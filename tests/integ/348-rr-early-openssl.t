#!/bin/bash
# SPDX-License-Identifier: MIT
# 348-rr-early-openssl.t - what Debian's dig does in libisc's constructor,
# before the preloaded agent's (OpenSSL's random generator seeded there;
# tests/real/144-dig-all.t): it reads openssl.cnf in 4096-byte reads
# (more than the recording keeps of early reads), notes its pid and the
# time, then takes entropy (getentropy: getrandom calls). Each early call
# is replayed in its place: a read whose bytes did not fit is made for
# real, and no longer takes the next read's record (the next 4096-byte read
# got the file's 44-byte tail, and every later early call was real: the
# seed too); getpid and time give the recorded values (a replay's own pid
# and later clock made OpenSSL reseed: dig's replay called getentropy where
# its recording had not, and diverged). main prints what the constructor
# got: serial and sync replays print the recording's.
. "$(dirname "$0")/lib.sh"

need_cc
plan 7

head -c 20000 /dev/urandom | od -An -tx1 | head -c 14000 >conf.txt
cat >early.c <<'SRC'
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
unsigned long early_sum;
long early_bytes, early_reads;
long early_pid, early_time;
unsigned char early_seed[24];
int early_ent;
__attribute__((constructor)) static void early_init(void)
{
	char buf[4096];
	long n;
	int fd = open("conf.txt", O_RDONLY);

	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0) {
		early_reads++;
		early_bytes += n;
		for (long i = 0; i < n; i++)
			early_sum = early_sum * 31 + (unsigned char)buf[i];
	}
	if (fd >= 0)
		close(fd);
	early_pid = getpid();
	early_time = time(NULL);
	early_ent = getentropy(early_seed, sizeof(early_seed));
}
SRC
cat >main.c <<'SRC'
#include <stdio.h>
#include <unistd.h>
extern unsigned long early_sum;
extern long early_bytes, early_reads, early_pid, early_time;
extern unsigned char early_seed[24];
extern int early_ent;
int main(void)
{
	printf("conf %ld bytes in %ld reads, sum %lx\n", early_bytes, early_reads, early_sum);
	printf("pid %s, time %ld\n", early_pid == getpid() ? "the same later" : "another later", early_time);
	printf("entropy %d ", early_ent);
	for (int i = 0; i < 24; i++)
		printf("%02x", early_seed[i]);
	printf("\n");
	return 0;
}
SRC
early_prog_build
./early_prog >native.out
like "$(cat native.out)" '^conf 14000 bytes in 4 reads' "without spool: the constructor reads the whole file"

kept() {
	ok "$1: recorded, and spool says some early reads did not fit" \
		grep -q 'made before the agent started did not fit' "$1.rec.err"
}
for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- ./early_prog
	cp run.err "$mode.rec.err"
	is "$RC $(head -n 1 run.out)" "0 $(head -n 1 native.out)" "$mode: recorded, the file read whole"
	cp run.out "$mode.rec.out"
	kept "$mode"
	sleep 1 # a replay's own clock is a second later
	replays_same 2 0 "$mode.rec.out" -q "$mode.trace"
	is "$SAME" 2 "$mode: 2 replays print the recording's file sum, pid, time and entropy"
done
done_testing
