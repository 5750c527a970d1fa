// SPDX-License-Identifier: MIT
/*
 * rr_refuse.h - whether spool replay refuses a recording, and why, from
 * its "record" side file alone: spool replay says it and stops, spool info
 * says it beside the recording's mode, so a user learns it before trying.
 */
#ifndef SPOOL_REPLAY_RR_REFUSE_H
#define SPOOL_REPLAY_RR_REFUSE_H

#include <stddef.h>

#include "rr_log.h"

/* 1 with the reason in why (a sentence without the trace's name), or 0:
 * the recording can be replayed as far as its side file tells. */
int rr_refuse_reason(const struct rr_info *info, char *why, size_t len);

#endif
