// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug while sampling: a dynamic cpuhp state (CPUHP_AP_ONLINE_DYN,
 * whose callbacks run on the cpu itself, in its hotplug thread) hands each
 * cpu coming online or going offline to the sampling mode: timer mode
 * starts or cancels the cpu's own hrtimer, counter mode creates or
 * releases its counters. Sampling stopped, they do nothing. The modes set
 * and clear "sampling" under cpus_read_lock, so a callback never sees
 * start or stop half done (and never takes op_mutex: start and stop take
 * cpus_read_lock under it).
 */
#include <linux/cpuhotplug.h>

#include "cpu_hotplug.h"
#include "oprof.h"
#include "perf_int.h"
#include "timer_int.h"

static int hp_state;

static int op_cpu_online(unsigned int cpu)
{
	return op_mode.timer ? op_timer_cpu_online(cpu) : op_perf_cpu_online(cpu);
}

static int op_cpu_offline(unsigned int cpu)
{
	return op_mode.timer ? op_timer_cpu_offline(cpu) : op_perf_cpu_offline(cpu);
}

int op_hotplug_init(void)
{
	int state = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "oprofile:online",
					      op_cpu_online, op_cpu_offline);

	if (state < 0)
		return state;
	hp_state = state;
	return 0;
}

void op_hotplug_exit(void)
{
	cpuhp_remove_state_nocalls(hp_state);
}
