# SPDX-License-Identifier: MIT
# arm64.mk - the aarch64 checks (included by the Makefile; doc/arm64.md):
#   check-arm64        cross-builds build-aarch64/ (make ARCH=aarch64) and runs
#                      tests/arm64/*.t: spool's aarch64 build under qemu-user on
#                      the cross-built tests/progs, and the host's spool on the
#                      traces it wrote; 273, 276, 277, 278 and 285 boot Debian's arm64 kernel under
#                      qemu-system-aarch64 (scripts/arm64-vm.sh setup, once)
#   check-arm64-quick  the part CI runs: the same build, the ring stress test,
#                      the lock profiler and serial and sync record/replay
#                      (tests/arm64/quick/)
# Both need the arm64 root (scripts/arm64-root.sh; scripts/deps.sh --arm64).
#
# ring_stress (tests/arm64/ring_stress.c) is built for both: the host's for
# the native run, build-aarch64's for the weak memory model.

ARM64_O ?= build-aarch64

$(O)/tests/ring_stress: tests/arm64/ring_stress.c $(HOST_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Isrc -o $@ $< $(HOST_LIB_OBJS) $(HOST_LDLIBS)

ring-stress: $(O)/tests/ring_stress
# built with the unit tests, so make check (and its ASan pass) runs it
# natively: tests/integ/199-ring-stress.t
unit-bins: $(O)/tests/ring_stress

arm64-build:
	$(MAKE) all progs ring-stress
	$(MAKE) ARCH=aarch64 all progs ring-stress

check-arm64: arm64-build
	scripts/arm64-vm.sh setup
	SPOOL_BUILD=$(CURDIR)/build SPOOL_A64=$(CURDIR)/$(ARM64_O) prove -r --timer tests/arm64/

check-arm64-quick: arm64-build
	SPOOL_BUILD=$(CURDIR)/build SPOOL_A64=$(CURDIR)/$(ARM64_O) prove --timer tests/arm64/quick/

.PHONY: ring-stress arm64-build check-arm64 check-arm64-quick
