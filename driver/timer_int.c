// SPDX-License-Identifier: GPL-2.0
/*
 * Timer mode (cpu_type "timer"): a per-cpu hrtimer, pinned and expiring in
 * hard interrupt context, samples the interrupted pc every 0/count ns.
 * CPU hotplug (cpu_hotplug.c): a cpu going offline cancels its timer
 * before the kernel would migrate it (it would then sample another cpu
 * under this one's name); one coming online starts its own.
 */
#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/smp.h>
#include <asm/irq_regs.h>

#include "compat.h"
#include "cpu_buffer.h"
#include "timer_int.h"

static enum hrtimer_restart op_timer_fn(struct hrtimer *t)
{
	struct op_cpu *cb = container_of(t, struct op_cpu, timer);
	struct pt_regs *regs = get_irq_regs();
	u64 periods;

	if (!READ_ONCE(cb->running))
		return HRTIMER_NORESTART;
	if (regs)
		op_add_sample(cb, regs, 0);
	else
		cb->sample_lost_no_regs++;
	/* more than one period gone: ticks the cpu could not take (a busy
	 * hypervisor host, long irq-off sections); counted, not sampled */
	periods = hrtimer_forward_now(t, ns_to_ktime(op_counters[0].count));
	if (periods > 1)
		cb->timer_overrun += periods - 1;
	return HRTIMER_RESTART;
}

/* Sampling: set and cleared under cpus_read_lock, so that the hotplug
 * callbacks (which run with the hotplug lock held) see it settled. */
static bool timer_active;

/* Start cpu's timer; runs on cpu. */
static void op_timer_start_on(int cpu)
{
	struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

	WRITE_ONCE(cb->running, true);
	hrtimer_start(&cb->timer, ns_to_ktime(op_counters[0].count),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void op_timer_start_cpu(void *unused)
{
	op_timer_start_on(smp_processor_id());
}

static void op_timer_stop_cpu(int cpu)
{
	struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

	WRITE_ONCE(cb->running, false);
	hrtimer_cancel(&cb->timer);
}

void op_timer_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

		op_hrtimer_init(&cb->timer, op_timer_fn, CLOCK_MONOTONIC,
				HRTIMER_MODE_REL_HARD);
	}
}

void op_timer_start(void)
{
	cpus_read_lock();
	timer_active = true;
	on_each_cpu(op_timer_start_cpu, NULL, 1);
	cpus_read_unlock();
}

void op_timer_stop(void)
{
	int cpu;

	cpus_read_lock();
	timer_active = false;
	for_each_possible_cpu(cpu)
		op_timer_stop_cpu(cpu);
	cpus_read_unlock();
}

/* Hotplug, on cpu (its hotplug thread), the hotplug lock held. */
int op_timer_cpu_online(unsigned int cpu)
{
	if (timer_active)
		op_timer_start_on(cpu);
	return 0;
}

int op_timer_cpu_offline(unsigned int cpu)
{
	op_timer_stop_cpu(cpu);
	return 0;
}
