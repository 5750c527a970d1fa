# SPDX-License-Identifier: MIT
# aarch64.mk - `make ARCH=aarch64`: cross-build spool, the agent, the
# progress library and tests/progs for 64-bit Arm into build-aarch64/
# (included by the Makefile before O is set; doc/arm64.md).
#
# The compiler is Debian's cross gcc (gcc-aarch64-linux-gnu); headers and
# libraries (libc, libelf, libdw, libzstd) come from an arm64 Debian root
# made by scripts/arm64-root.sh (ARM64_ROOT). What differs from x86-64:
#   - no Zydis: it decodes x86 only; src/arch/aarch64/a64_noprobe.c stands
#     in for src/arch/x86_64/, and function probes are planned by
#     a64_plan.c and a64_insn.c (doc/arm64.md, "Dynamic probes on aarch64")
#   - the agent's dynamic-probe runtime (agent_probe*.c: x86 traps,
#     registers, xsave) is replaced by src/arch/aarch64/a64_agent_probe*.c
#   - spool-ccopt (LLVM) and the man pages are not built: the host's own
#     build has them, and both are the same on every architecture
#   - tests/progs written in x86 assembly are left out (ARCH_PROGS_OUT)

# On an aarch64 machine itself (a board building natively): its own gcc and
# libraries, no root unless ARM64_ROOT is given.
ifeq ($(shell uname -m),aarch64)
CROSS ?=
ARM64_ROOT ?=
else
CROSS ?= aarch64-linux-gnu-
ARM64_ROOT ?= /var/cache/spool-arm64
endif
O ?= build-aarch64
CC := $(CROSS)gcc $(if $(ARM64_ROOT),--sysroot=$(ARM64_ROOT))
ARCH_DIR := src/arch/aarch64
# libstdc++.so (the demangler) sits in the root's gcc directory, which the
# cross gcc does not search.
ARCH_HOST_LIBS := $(addprefix -L,$(wildcard $(ARM64_ROOT)/usr/lib/gcc/aarch64-linux-gnu/*))
ARCH_AGENT_OUT := src/agent/agent_probe.c src/agent/agent_probe_hot.c src/agent/agent_probe_got.c \
	src/agent/agent_probe_live.c src/agent/agent_probe_ra.c src/agent/agent_probe_gotwrap.c
ARCH_AGENT_SRCS := src/arch/aarch64/a64_agent_probe.c src/arch/aarch64/a64_agent_probe_hot.c
ARCH_HOST_OUT := $(wildcard src/arch/aarch64/a64_agent*.c) \
	src/probe/probe_attach.c src/replay/gdbsrv_inf.c src/replay/gdbsrv_regs.c \
	src/replay/gdbsrv_fork.c
# (x86 assembly, or x86 system call numbers in inline asm)
ARCH_PROGS_OUT := $(addprefix tests/progs/,probe_unwind.c probe_bench.c probe_calls.c \
	probe_data.c probe_harm.c probe_step.c probe_live.c probe_sigtrap.c probe_tails.c rr_rawsys.c rr_tgkill.c)
ARCH_NO_CCOPT := 1
ARCH_NO_MAN := 1

ifneq ($(ARM64_ROOT),)
ifeq ($(wildcard $(ARM64_ROOT)/usr/include/libelf.h),)
$(error ARCH=aarch64: no arm64 root at $(ARM64_ROOT) (run scripts/arm64-root.sh, or set ARM64_ROOT))
endif
endif
