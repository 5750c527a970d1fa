# SPDX-License-Identifier: MIT
# cc.mk - build rules of spool-ccopt, the trace optimizer of `spool cc`
# (included by the Makefile). The only part of spool that links LLVM: the
# LLVM-C API of LLVM 14 (Debian llvm-14-dev), found with llvm-config-14.

LLVM_CONFIG ?= llvm-config-14
CCOPT := $(O)/spool-ccopt
# outfile.c: the --table file is written beside its destination, renamed
# when whole (and log.c, which it reports through, with escape.c).
CCOPT_SRCS := $(wildcard src/cc/*.c) src/util/outfile.c src/util/log.c src/util/escape.c
CCOPT_OBJS := $(CCOPT_SRCS:%.c=$(O)/cc-obj/%.o)
# llvm-config's cflags carry -D_GNU_SOURCE and the __STDC_* macros; we keep
# our own warning flags and only take the include directory and defines.
CCOPT_CFLAGS := $(CFLAGS_COMMON) -Isrc $(shell $(LLVM_CONFIG) --cflags 2>/dev/null | \
	sed 's/-D_GNU_SOURCE//') $(EXTRA_CFLAGS)
CCOPT_LDLIBS := $(shell $(LLVM_CONFIG) --ldflags 2>/dev/null) \
	$(shell $(LLVM_CONFIG) --libs core analysis bitreader bitwriter transformutils 2>/dev/null)
# A cross build links the target's libLLVM (src/arch/aarch64/aarch64.mk).
ifdef ARCH_CCOPT_LDLIBS
CCOPT_LDLIBS := $(ARCH_CCOPT_LDLIBS)
endif

$(O)/cc-obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CCOPT_CFLAGS) -MMD -MP -c $< -o $@

$(CCOPT): $(CCOPT_OBJS)
	$(CC) $(CCOPT_CFLAGS) -o $@ $^ $(CCOPT_LDLIBS)

ifndef ARCH_NO_CCOPT
all: $(CCOPT)
endif

# spool cc finds the optimizer in PREFIX/lib/spool and the header in
# PREFIX/include (both relative to PREFIX/bin/spool).
install: install-cc
install-cc: $(CCOPT)
	install -d $(DESTDIR)$(PREFIX)/lib/spool $(DESTDIR)$(PREFIX)/include/spool
	install -m 755 $(CCOPT) $(DESTDIR)$(PREFIX)/lib/spool/spool-ccopt
	install -m 644 include/spool/trace.h $(DESTDIR)$(PREFIX)/include/spool/trace.h
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	sed 's|@PREFIX@|$(PREFIX)|' src/cc/spool.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/spool.pc

.PHONY: install-cc

# make bench also measures what spool cc saves: it runs bench/cc.sh with
# every other bench/<feature>.sh (Makefile). bench-cc runs it alone.
bench-cc: all progs
	bench/cc.sh $(O)

.PHONY: bench-cc
