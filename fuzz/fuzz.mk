# SPDX-License-Identifier: MIT
# fuzz.mk - libFuzzer harnesses of every parser of untrusted input (included
# from the Makefile; doc/fuzzing.md says what each covers and how to use them).
#
#   make fuzz                  build them (clang-14, -fsanitize=fuzzer,address,undefined)
#   make fuzz FUZZ_TIME=600    build, then fuzz each for FUZZ_TIME seconds, printing totals
#   make fuzz-check            run each over its corpus for FUZZ_CHECK_TIME seconds
#                              (make check does: a crash found once stays fixed)
#
# The host sources the harnesses need are compiled again into $(FUZZ_O) with
# the fuzzer's instrumentation and linked from an archive, so each harness
# pulls in only what it reaches. src/util/log.c is left out: the harnesses
# link quiet stand-ins (fuzz/fuzz_common.c).

FUZZ_CC ?= clang-14
FUZZ_O ?= build-fuzz
FUZZ_TIME ?= 0
FUZZ_CHECK_TIME ?= 1
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -Wno-unused-parameter -Wno-self-assign -D_GNU_SOURCE \
	-fno-strict-aliasing -fno-omit-frame-pointer -Isrc $(FUZZ_SAN)

FUZZ_HARNESSES := reader locks funcs coverage vars path export rrlog decode probe stream plancache snap
# What the harnesses reach: no collector, no agent, no session.
FUZZ_LIB_SRCS := $(wildcard src/trace/*.c src/analyze/*.c src/util/*.c src/probe/*.c \
	src/arch/x86_64/*.c) src/replay/rr_log.c src/replay/rr_img.c src/replay/rr_scan.c src/replay/rr_tree.c src/replay/rr_snap_list.c src/replay/rr_snap_compose.c src/replay/rr_snap_body.c src/replay/rr_refuse.c src/collect/run_ident.c \
	src/cmd/decode.c src/cmd/info.c src/cmd/loss.c src/cmd/run_opts_own.c src/cmd/trace_arg.c fuzz/fuzz_common.c
FUZZ_LIB_SRCS := $(filter-out src/util/log.c src/analyze/path_probes.c src/probe/probe_session.c \
	src/probe/probe_attach.c src/probe/sysprobe.c,$(FUZZ_LIB_SRCS))
FUZZ_LIB_OBJS := $(FUZZ_LIB_SRCS:%.c=$(FUZZ_O)/%.o)
FUZZ_LIB := $(FUZZ_O)/libspool-fuzz.a
FUZZ_BINS := $(FUZZ_HARNESSES:%=$(FUZZ_O)/fuzz_%)

$(FUZZ_O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(FUZZ_O)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_LIB) fuzz/fuzz.h
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(HOST_LDLIBS)

fuzz-bins: $(FUZZ_BINS)

fuzz: fuzz-bins
	@if [ "$(FUZZ_TIME)" != 0 ]; then \
		scripts/fuzz-run.sh $(FUZZ_O) $(FUZZ_TIME) $(FUZZ_HARNESSES); fi

fuzz-check: fuzz-bins
	scripts/fuzz-run.sh --check $(FUZZ_O) $(FUZZ_CHECK_TIME) $(FUZZ_HARNESSES)

.PHONY: fuzz fuzz-bins fuzz-check
-include $(shell find $(FUZZ_O) -name '*.d' 2>/dev/null)
