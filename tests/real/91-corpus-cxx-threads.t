#!/bin/bash
# SPDX-License-Identifier: MIT
# 91-corpus-cxx-threads.t - the record/replay corpus: a C++ program built
# here with g++ (tests/real/data/corpus_threads.cpp: std::thread,
# std::mutex, std::shared_mutex, std::condition_variable, a result file
# through std::ofstream), 8 threads and 50,000 work items, recorded in
# serial, serial --chaos and sync mode, 3 replays each. Then an OpenMP
# program (tests/real/data/corpus_omp.c, gcc -fopenmp: libgomp, whose
# barriers and locks are its own futexes, made with its own syscall
# instruction): serial mode emulates those waits (a real one kept the run
# token in the kernel: "record stuck"); sync mode does not order them and
# its replays gave another thread assignment without a report, so the
# replay refuses a sync recording.
. "$(dirname "$0")/lib.sh"
need_progs g++ gcc
plan 10

g++ -O2 -pthread -o cxx_threads "$REPO/tests/real/data/corpus_threads.cpp" 2>gxx.err ||
	diag "g++ failed:" "$(cat gxx.err)"
rr_corpus cxx-threads serial -- "$T_DIR/cxx_threads" 8 50000
rr_corpus cxx-threads-chaos serial --rec-opts --chaos -- "$T_DIR/cxx_threads" 8 50000
rr_corpus cxx-threads sync -- "$T_DIR/cxx_threads" 8 50000

gcc -O2 -fopenmp -o omp_loop "$REPO/tests/real/data/corpus_omp.c" 2>gcc.err ||
	diag "gcc -fopenmp failed:" "$(cat gcc.err)"
rr_corpus openmp serial -- "$T_DIR/omp_loop"
rr_corpus openmp sync --may-diverge "libgomp's locks are its own futexes" -- "$T_DIR/omp_loop"
done_testing
