// SPDX-License-Identifier: MIT
/*
 * agent_probe.h - the agent's dynamic-probe runtime (agent_probe.c): one
 * entry point, called from the constructor once the process is recording.
 */
#ifndef SPOOL_AGENT_AGENT_PROBE_H
#define SPOOL_AGENT_AGENT_PROBE_H

/* Patch the probes spool put in the SHM_EXT_PROBES area. Before main. */
void agent_probe_init(void);

#endif
