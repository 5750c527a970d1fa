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
#   - spool-ccopt (LLVM) is built only with ARM64_LLVM_ROOT (below): the
#     host's spool cc cross-compiles for the board (doc/arm64.md)
#   - the man pages are not built: the host's build has them, the same on
#     every architecture
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
OBJCOPY := $(CROSS)objcopy
ARCH_DIR := src/arch/aarch64
# libstdc++.so (the demangler) sits in the root's gcc directory, which the
# cross gcc does not search.
ARCH_HOST_LIBS := $(addprefix -L,$(wildcard $(ARM64_ROOT)/usr/lib/gcc/aarch64-linux-gnu/*))
ARCH_AGENT_OUT := src/agent/agent_probe.c src/agent/agent_probe_hot.c \
	src/agent/agent_probe_live.c src/agent/agent_probe_ra.c
ARCH_AGENT_SRCS := src/arch/aarch64/a64_agent_probe.c src/arch/aarch64/a64_agent_probe_hot.c \
	src/arch/aarch64/a64_agent_brk.c src/arch/aarch64/a64_agent_sig.c src/arch/aarch64/a64_agent_ra.c \
	src/arch/aarch64/a64_agent_cpuid.c src/arch/aarch64/a64_agent_sve.c
ARCH_HOST_OUT := $(wildcard src/arch/aarch64/a64_agent*.c)
# (x86 assembly, or x86 system call numbers in inline asm)
ARCH_PROGS_OUT := $(addprefix tests/progs/,probe_unwind.c probe_bench.c probe_calls.c thread_churn.c \
	probe_data.c probe_harm.c probe_step.c probe_live.c probe_sigtrap.c probe_tails.c rr_rawsys.c rr_tgkill.c \
	rr_cpuid.c)
ARCH_NO_MAN := 1

# spool-ccopt for the board, optional: ARM64_LLVM_ROOT is a root holding
# Debian's libllvm14:arm64 (scripts/arm64-root.sh --llvm makes
# $(ARM64_ROOT)-llvm, used when it is there). The optimizer uses only the
# LLVM-C API, whose headers (the host's llvm-14-dev) are the same on every
# architecture; it links the root's libLLVM-14.so.1, whose own libraries
# (libz3, libxml2, ...) are in that root too. Without it, spool cc on the
# board says to compile on the host (SPOOL_NO_CCOPT, src/cmd/cc.c).
ifdef ARM64_LLVM_ROOT
ifeq ($(wildcard $(ARM64_LLVM_ROOT)/usr/lib/aarch64-linux-gnu/libLLVM-14.so.1),)
$(error ARCH=aarch64: no libLLVM-14.so.1 in ARM64_LLVM_ROOT=$(ARM64_LLVM_ROOT) (scripts/arm64-root.sh --llvm))
endif
else ifneq ($(ARM64_ROOT),)
ARM64_LLVM_ROOT := $(patsubst %/usr/lib/aarch64-linux-gnu/libLLVM-14.so.1,%,\
	$(wildcard $(ARM64_ROOT)-llvm/usr/lib/aarch64-linux-gnu/libLLVM-14.so.1))
endif
ifneq ($(ARM64_LLVM_ROOT),)
ARCH_CCOPT_LDLIBS := $(ARM64_LLVM_ROOT)/usr/lib/aarch64-linux-gnu/libLLVM-14.so.1 \
	-Wl,-rpath-link,$(ARM64_LLVM_ROOT)/usr/lib/aarch64-linux-gnu:$(ARM64_LLVM_ROOT)/lib/aarch64-linux-gnu
else
ARCH_NO_CCOPT := 1
ARCH_HOST_DEFS := -DSPOOL_NO_CCOPT
endif

ifneq ($(ARM64_ROOT),)
ifeq ($(wildcard $(ARM64_ROOT)/usr/include/libelf.h),)
$(error ARCH=aarch64: no arm64 root at $(ARM64_ROOT) (run scripts/arm64-root.sh, or set ARM64_ROOT))
endif
endif
