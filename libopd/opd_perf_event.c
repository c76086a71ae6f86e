/*
 * events/ events as perf attributes; see opd_perf_event.h.
 */
#include <linux/perf_event.h>
#include <string.h>

#include "op_cpu_type.h"
#include "op_events.h"
#include "op_message.h"
#include "opd_offcpu.h"
#include "opd_perf_event.h"

/*
 * The timer cpu type's events are the software clocks (code 0 CPU_CLOCK,
 * 1 TASK_CLOCK; count in ns); a hardware event is raw: event select bits
 * 0-7, unit mask 8-15, and AMD's extended event select bits 8-11 at 32-35.
 */
int opd_perf_event(struct opd_config const *cfg, struct opd_event const *e,
		   struct perf_source_event *pe)
{
	memset(pe, 0, sizeof(*pe));
	if (op_event_is_off_cpu(e->name))
		return opd_offcpu_event(pe, e->count);
	if (cfg->cpu_type == CPU_TIMER_INT) {
		pe->type = PERF_TYPE_SOFTWARE;
		if (e->code == 0)
			pe->config = PERF_COUNT_SW_CPU_CLOCK;
		else if (e->code == 1)
			pe->config = PERF_COUNT_SW_TASK_CLOCK;
		else
			return op_error("event %s (code %#x) of cpu type 'timer' has no perf software clock",
					e->name, e->code);
	} else {
		pe->type = PERF_TYPE_RAW;
		pe->config = (e->code & 0xffu) | ((uint64_t)(e->unit_mask & 0xffu) << 8) |
			((uint64_t)(e->code & 0xf00u) << 24);
	}
	pe->period = e->count;
	pe->kernel = e->kernel;
	pe->user = e->user;
	pe->name = e->name;
	return 0;
}
