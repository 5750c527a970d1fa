#!/bin/bash
# SPDX-License-Identifier: MIT
# 95-corpus-glib.t - the record/replay corpus: a GLib program built here
# (tests/real/data/corpus_glib.c: a GThreadPool of 3 workers, GMutex, GCond,
# GAsyncQueue, GHashTable, a result file), recorded in serial and in sync
# mode, 3 replays each. GLib's GMutex and GCond are its own futexes, made
# through syscall(), not pthread's: serial mode emulates those waits as
# yields (a real one kept the run token in the kernel: "record stuck");
# sync mode does not order them (as a data race), so each sync replay must
# be identical or stop at a reported divergence.
. "$(dirname "$0")/lib.sh"
need_progs gcc pkg-config
if ! pkg-config --exists glib-2.0; then
	echo "1..0 # SKIP glib-2.0 development files not installed (scripts/deps.sh --real)"
	exit 0
fi
plan 4

# shellcheck disable=SC2046 # pkg-config's flags are words
gcc -O2 -o glib_pool "$REPO/tests/real/data/corpus_glib.c" $(pkg-config --cflags --libs glib-2.0) \
	2>gcc.err || diag "gcc failed:" "$(cat gcc.err)"
rr_corpus glib-pool serial -- "$T_DIR/glib_pool" 400
rr_corpus glib-pool sync --may-diverge "GLib's locks are its own futexes" -- "$T_DIR/glib_pool" 400
done_testing
