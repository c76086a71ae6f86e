/*
 * End to end with two events on every cpu (cpu-clock every 1 ms,
 * task-clock every 0.5 ms): the second event's records go into the
 * first's ring (PERF_EVENT_IOC_SET_OUTPUT) and every sample must carry
 * the right event index, found from its sample id.
 */
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>

#include "check.h"
#include "perf_run.h"
#include "sample_count.h"

int main(void)
{
	struct perf_source_event ev[2] = {
		{ .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		  .period = 1000000, .kernel = true, .user = true,
		  .name = "cpu-clock" },
		{ .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		  .period = 500000, .kernel = true, .user = true,
		  .name = "task-clock" },
	};
	size_t count[3] = { 0 }, in[3] = { 0 };
	unsigned long hs, he;
	char bin[PATH_MAX];
	struct perf_run r;
	int rc;
	pid_t pid;

	if (perf_run_workload_func("hot_main", "hot_main_loop", bin, &hs, &he))
		return 1;
	rc = perf_run_start_events(&r, ev, 2, 0);
	if (rc)
		return rc;
	pid = perf_run_spawn((char *[]){ bin, "1.0", NULL });
	check(perf_run_wait(&r, &pid, 1) == 0, "the workloads ran");
	check(perf_run_stop(&r) == 0, "stream decodes with no errors");
	tally_report(&r.tally, "events");
	for (size_t i = 0; i < r.tally.nr; i++) {
		struct tally_sample const *s = &r.tally.s[i];
		unsigned long e = s->event < 2 ? s->event : 2;

		if (s->tgid != (unsigned long)pid)
			continue;
		count[e]++;
		in[e] += !s->in_kernel && s->pc >= hs && s->pc < he;
	}
	check(count[2] == 0, "no sample has an event index above 1");
	check(count[0] >= 300 && in[0] >= count[0] * 0.9,
	      "cpu-clock: %zu/%zu samples in hot_main_loop", in[0],
	      count[0]);
	check(count[1] >= 600 && in[1] >= count[1] * 0.9,
	      "task-clock: %zu/%zu samples in hot_main_loop", in[1],
	      count[1]);
	check(count[1] > count[0] * 1.4 && count[1] < count[0] * 2.8,
	      "task-clock at twice the rate: %zu vs %zu samples",
	      count[1], count[0]);
	perf_run_free(&r);
	return check_done();
}
