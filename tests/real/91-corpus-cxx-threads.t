#!/bin/bash
# SPDX-License-Identifier: MIT
# 91-corpus-cxx-threads.t - the record/replay corpus: a C++ program built
# here with g++ (tests/real/data/corpus_threads.cpp: std::thread,
# std::mutex, std::shared_mutex, std::condition_variable, a result file
# through std::ofstream), 8 threads and 50,000 work items, recorded in
# serial, serial --chaos and sync mode, 3 replays each.
. "$(dirname "$0")/lib.sh"
need_progs g++
plan 6

g++ -O2 -pthread -o cxx_threads "$REPO/tests/real/data/corpus_threads.cpp" 2>gxx.err ||
	diag "g++ failed:" "$(cat gxx.err)"
rr_corpus cxx-threads serial -- "$T_DIR/cxx_threads" 8 50000
rr_corpus cxx-threads-chaos serial --rec-opts --chaos -- "$T_DIR/cxx_threads" 8 50000
rr_corpus cxx-threads sync -- "$T_DIR/cxx_threads" 8 50000
done_testing
