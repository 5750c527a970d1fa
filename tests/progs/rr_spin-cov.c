// SPDX-License-Identifier: MIT
/*
 * rr_spin-cov.c - rr_spin.c built with -fsanitize-coverage=trace-pc and
 * linked with libspool-progress.so (names ending in -cov, see the
 * Makefile): its spin loop has progress points.
 */
#include "rr_spin.c"
