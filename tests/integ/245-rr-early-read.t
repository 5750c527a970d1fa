#!/bin/bash
# SPDX-License-Identifier: MIT
# 245-rr-early-read.t - reads and getrandom calls in a library's
# constructor, which runs before the preloaded agent's: read of
# /dev/urandom, getrandom, and syscall(SYS_getrandom) (jemalloc reads /proc
# and /sys through syscall(SYS_read) there). The recording keeps them
# (.spool/early_io) and a serial and a sync replay give them back, so the
# program prints the recorded random bytes; without it every replay printed
# its own. A damaged early_io (hostile input) is said, and the program runs
# with real reads, without a crash.
. "$(dirname "$0")/lib.sh"

need_cc
plan 10

cat >early.c <<'SRC'
#include <fcntl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>
unsigned char early_dev[16], early_rnd[8], early_sys[8];
long early_got[3];
__attribute__((constructor)) static void early_init(void)
{
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd >= 0) {
		early_got[0] = read(fd, early_dev, sizeof(early_dev));
		close(fd);
	}
	early_got[1] = getrandom(early_rnd, sizeof(early_rnd), 0);
	early_got[2] = syscall(SYS_getrandom, early_sys, sizeof(early_sys), 0);
}
SRC
cat >main.c <<'SRC'
#include <stdio.h>
extern unsigned char early_dev[16], early_rnd[8], early_sys[8];
extern long early_got[3];
static void hex(const char *what, const unsigned char *p, int n, long got)
{
	printf("%s %ld ", what, got);
	for (int i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}
int main(void)
{
	hex("read", early_dev, 16, early_got[0]);
	hex("getrandom", early_rnd, 8, early_got[1]);
	hex("syscall", early_sys, 8, early_got[2]);
	return 0;
}
SRC
early_prog_build

reads_kept() {
	ok "$1: the trace keeps the constructor's reads (.spool/early_io)" \
		test -s "$1.trace/.spool/early_io"
}
for mode in serial sync; do
	early_rr "$mode" "the recorded random bytes" reads_kept
done
# the bytes are the recorded ones, not a constant: two recordings differ
spool_run record -q -o again.trace -- ./early_prog
ok "two recordings read other random bytes" bash -c '! cmp -s run.out serial.rec.out' 

# hostile input: an entry count far too large
printf '\377\377\0\0' | dd of=serial.trace/.spool/early_io bs=1 seek=0 conv=notrunc 2>/dev/null
spool_run replay -q serial.trace
unlike "$ERR" 'AddressSanitizer|runtime error|Segmentation' "a damaged early_io: no crash"
like "$ERR" 'early_io is damaged' "a damaged early_io is said"
# (the program reads for real, prints other bytes than recorded, and the
# replay stops at that write: 372)
like "$ERR" "the write's bytes differ from the recorded ones" \
	"a damaged early_io: the program ran (with real reads) and its other output stopped the replay"
done_testing
