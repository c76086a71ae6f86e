/*
 * An events/ event as a perf_events attribute: what the daemon's perf
 * source adapter (opd_source.c) and operf both sample with.
 */
#ifndef OPD_PERF_EVENT_H
#define OPD_PERF_EVENT_H

#include "opd_core.h"
#include "opd_perf.h"

/*
 * Fill pe for event e of cfg's cpu type (pe->name points into e).
 * 0, or -1 with a message naming the event when perf has no match.
 */
int opd_perf_event(struct opd_config const *cfg, struct opd_event const *e,
		   struct perf_source_event *pe);

#endif /* OPD_PERF_EVENT_H */
