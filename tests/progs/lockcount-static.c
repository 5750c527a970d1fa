// SPDX-License-Identifier: MIT
/*
 * lockcount-static - the lockcount workload linked statically (the Makefile
 * adds -static to every program whose name contains "-static"). A static
 * program resolves pthread_mutex_lock inside itself, so LD_PRELOAD cannot
 * interpose it: `spool locks` must refuse it with a message instead of
 * producing an empty, misleading report.
 */
#include "lockcount.c"
