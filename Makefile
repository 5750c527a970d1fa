# SPDX-License-Identifier: MIT
# spool build. GNU Make. Targets: all (default), check, check-real, bench, demo,
# install, install-target (only what a board needs), asan (host tools with
# AddressSanitizer + UBSan), fuzz (libFuzzer harnesses, fuzz/fuzz.mk), man,
# dist, deb, check-dist (pkg/pkg.mk), format, clean.
#
# check-real runs tests/real/ (real Debian programs, doc: README.md); check
# runs its quick part, tests/real/quick/, with the integration tests
# (scripts/run-integ.sh).
#
# Sources are found by wildcard so adding a file to a module needs no edit
# here: src/main.c, src/cmd, src/util, src/trace, src/collect and src/analyze
# make the host tool; src/agent and src/common make the preloaded agent.

PREFIX ?= /usr/local
CC ?= gcc
OBJCOPY ?= objcopy
# ARCH=aarch64 cross-builds for 64-bit Arm into build-aarch64/ (doc/arm64.md);
# the default is the machine's own.
ARCH ?= $(shell uname -m)
ARCH_DIR := src/arch/x86_64
ARCH_HOST_LIBS := -lZydis
# The agent's part of src/arch/x86_64/ (the CPU's half of agent_rr_cpuid.c).
ARCH_AGENT_SRCS := src/arch/x86_64/x86_agent_cpuid.c
ARCH_HOST_OUT := src/arch/x86_64/x86_agent_cpuid.c
ifeq ($(ARCH),aarch64)
include src/arch/aarch64/aarch64.mk
endif
O ?= build
CFLAGS_COMMON := -std=gnu11 -g -O2 -Wall -Wextra -Werror -Wno-unused-parameter \
	-D_GNU_SOURCE -fno-strict-aliasing
HOST_CFLAGS := $(CFLAGS_COMMON) -Isrc -fno-omit-frame-pointer $(ARCH_HOST_DEFS) $(EXTRA_CFLAGS)
# -lstdc++: __cxa_demangle, the demangler of the C++ ABI g++ emits (src/util/demangle.c).
HOST_LDLIBS := -ldw -lelf -lzstd $(ARCH_HOST_LIBS) -lpthread -lm -lstdc++
# The agent: hidden visibility, exports only what agent.map lists, no
# undefined symbols, initial-exec TLS (see DESIGN.md, rules for the agent).
AGENT_CFLAGS := $(CFLAGS_COMMON) -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	-fno-omit-frame-pointer -fno-stack-protector
AGENT_LDFLAGS := -shared -Wl,--no-undefined -Wl,--version-script=src/agent/agent.map \
	-Wl,-z,now -Wl,-z,relro
AGENT_LDLIBS := -ldl -lpthread

HOST_SRCS := src/main.c $(wildcard src/cmd/*.c src/util/*.c src/trace/*.c src/collect/*.c src/analyze/*.c \
	src/replay/*.c src/probe/*.c $(ARCH_DIR)/*.c)
HOST_SRCS := $(filter-out $(ARCH_HOST_OUT),$(HOST_SRCS))
HOST_LIB_SRCS := $(filter-out src/main.c,$(HOST_SRCS))
AGENT_SRCS := $(filter-out $(ARCH_AGENT_OUT),$(wildcard src/agent/*.c src/common/*.c)) \
	$(ARCH_AGENT_SRCS)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
PROG_SRCS := $(filter-out $(ARCH_PROGS_OUT),$(wildcard tests/progs/*.c))

HOST_OBJS := $(HOST_SRCS:%.c=$(O)/%.o)
HOST_LIB_OBJS := $(HOST_LIB_SRCS:%.c=$(O)/%.o)
AGENT_OBJS := $(AGENT_SRCS:%.c=$(O)/agent-obj/%.o)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/unit/%)
PROG_BINS := $(PROG_SRCS:tests/progs/%.c=$(O)/tests/progs/%)

SPOOL := $(O)/spool
AGENT := $(O)/libspool-agent.so
# No-op coverage callbacks: progress points of serial record/replay (doc/record.md).
PROGRESS := $(O)/libspool-progress.so

all: $(SPOOL) $(AGENT) $(PROGRESS)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(O)/agent-obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(AGENT_CFLAGS) -MMD -MP -c $< -o $@

$(SPOOL): $(HOST_OBJS)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

# The agent's exported interposers are entered through stubs that zero the
# stack the agent used below the program's frames while recording or
# replaying (scripts/agent-stubs.sh, $(ARCH_DIR)/agent_stub.h): the C
# objects are linked into one relocatable object whose exported definitions
# objcopy renames spool_i_NAME, and the stubs take the exported names.
# (one run makes both files: the .syms is the .S's by-product)
$(O)/agent-stubs.S: src/agent/agent.map scripts/agent-stubs.sh
	@mkdir -p $(dir $@)
	scripts/agent-stubs.sh src/agent/agent.map $(O)/agent-stubs.S $(O)/agent-stubs.syms

$(O)/agent-stubs.syms: $(O)/agent-stubs.S ;

$(O)/agent-stubs.o: $(O)/agent-stubs.S $(ARCH_DIR)/agent_stub.h
	$(CC) $(AGENT_CFLAGS) -I$(ARCH_DIR) -c $< -o $@

$(O)/agent-impl.o: $(AGENT_OBJS) $(O)/agent-stubs.syms
	$(CC) -nostdlib -r -o $@.r $(AGENT_OBJS)
	$(OBJCOPY) --redefine-syms=$(O)/agent-stubs.syms $@.r $@
	@rm -f $@.r

$(AGENT): $(O)/agent-impl.o $(O)/agent-stubs.o src/agent/agent.map
	$(CC) $(AGENT_CFLAGS) $(AGENT_LDFLAGS) -o $@ $(O)/agent-impl.o $(O)/agent-stubs.o $(AGENT_LDLIBS)

$(PROGRESS): $(wildcard src/progress/*.c)
	$(CC) $(CFLAGS_COMMON) -fPIC -shared -fvisibility=hidden -o $@ $^

$(O)/tests/unit/%: tests/unit/%.c $(HOST_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Isrc -o $@ $< $(HOST_LIB_OBJS) -lcmocka $(HOST_LDLIBS)

# Test programs: built the way a user builds, with frame pointers so
# --stacks has something to walk. Names ending in -static are linked
# statically on purpose (the refusal test); names ending in -finst are built
# with -finstrument-functions (spool path), names ending in -cov with
# -fsanitize-coverage=trace-pc and libspool-progress.so (serial record).
# -MMD: a program rebuilds when a header of tests/progs it includes changes.
PROG_COV = -fsanitize-coverage=trace-pc -L$(O) -Wl,-rpath,$(abspath $(O)) -lspool-progress
$(O)/tests/progs/%: tests/progs/%.c | $(PROGRESS)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE -Wall -Wextra -Werror -MMD -MP \
		$(if $(findstring -static,$*),-static) \
		$(if $(findstring -finst,$*),-finstrument-functions) -o $@ $< \
		$(if $(findstring -cov,$*),$(PROG_COV)) -lpthread -lm

progs: $(PROG_BINS)

deps:
	@scripts/deps.sh

# AddressSanitizer + UBSan build of the host tool and unit tests (the agent
# is never built with sanitizers: it runs inside other programs).
asan:
	$(MAKE) O=build-asan EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
		build-asan/spool build-asan/libspool-agent.so unit-bins

unit-bins: $(UNIT_BINS)

check: deps
	$(MAKE) all progs unit-bins
	$(MAKE) asan
	scripts/run-unit.sh $(O) build-asan
	scripts/run-integ.sh $(O) build-asan
	$(MAKE) fuzz-check

# What make check leaves out: the integration tests too slow for it
# (tests/integ/SLOW says which and why) in both builds, and the ASan pass of
# those tests/integ/ASAN-LATER names (make check runs them against the normal
# build only).
check-slow: deps
	$(MAKE) all progs unit-bins
	$(MAKE) asan
	SPOOL_INTEG=slow scripts/run-integ.sh $(O) build-asan

# Real programs from Debian under every command (tests/real/, quick part
# included); installs them first (scripts/deps.sh --real).
check-real:
	scripts/deps.sh --real
	$(MAKE) all progs
	SPOOL_BUILD=$(CURDIR)/$(O) prove -r --timer tests/real/

# bench/run.sh is the lock profiler's; every feature adds its own
# bench/<feature>.sh (build dir as $1, ratios printed, nothing asserted).
bench: all progs
	bench/run.sh $(O)
	@for b in bench/*.sh; do [ "$$b" = bench/run.sh ] && continue; \
		echo "== $$b"; bash "$$b" $(O) || echo "bench: $$b failed"; done

demo: deps
	$(MAKE) all progs
	scripts/demo.sh $(O)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/spool $(DESTDIR)$(PREFIX)/share/doc/spool
	install -m 755 $(SPOOL) $(DESTDIR)$(PREFIX)/bin/spool
	install -m 755 $(AGENT) $(DESTDIR)$(PREFIX)/lib/spool/libspool-agent.so
	install -m 755 $(PROGRESS) $(DESTDIR)$(PREFIX)/lib/spool/libspool-progress.so
	install -m 644 README.md doc/*.md $(DESTDIR)$(PREFIX)/share/doc/spool/

# install-target: only what runs on the board (doc/arm64.md), for ARCH=aarch64
# or the machine's own: spool, the agent and the progress library, where spool
# finds them (PREFIX/lib/spool beside PREFIX/bin). No man pages, docs, spool
# cc, headers or gdb script: a board with little storage gets none of them.
install-target: $(SPOOL) $(AGENT) $(PROGRESS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/spool
	install -m 755 $(SPOOL) $(DESTDIR)$(PREFIX)/bin/spool
	install -m 755 $(AGENT) $(DESTDIR)$(PREFIX)/lib/spool/libspool-agent.so
	install -m 755 $(PROGRESS) $(DESTDIR)$(PREFIX)/lib/spool/libspool-progress.so

format:
	clang-format -i $$(find src tests include -name '*.[ch]')

clean:
	rm -rf build build-asan build-fuzz build-aarch64

include src/cc/cc.mk
include src/replay/gdb.mk
include fuzz/fuzz.mk
include pkg/pkg.mk
include tests/arm64/arm64.mk

.PHONY: all check check-slow check-real bench demo install install-target format clean deps asan unit-bins progs
-include $(shell find $(O) -name '*.d' 2>/dev/null)
