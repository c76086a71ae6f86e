// SPDX-License-Identifier: GPL-2.0
/*
 * Counter mode: one pinned kernel perf counter per enabled counter N/ and
 * online cpu, overflowing every N/count; its handler samples the
 * interrupted pc as event N. The handler runs in hard irq for the software
 * clocks (perf's hrtimer) and in NMI for hardware counters; op_add_sample()
 * takes no lock, so either is fine.
 *
 * What N/event means depends on the PMU found at load time:
 *  - an Intel architectural PMU (cpu_type "i386/arch_perfmon"): a raw
 *    event, PERF_TYPE_RAW config = event | unit_mask << 8, one N/ per
 *    general-purpose counter;
 *  - none usable (VMs without a vPMU, TCG, AMD, hybrid cores): cpu_type
 *    "timer" with four software clock counters, event 0 CPU_CLOCK and
 *    event 1 TASK_CLOCK, count = period in ns (events/timer/events).
 */
#define pr_fmt(fmt) "oprofile: " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/math64.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#include <asm/perf_event.h>
#endif

#include "cpu_buffer.h"
#include "perf_int.h"

/* The live counters, [cpu * OP_NR_COUNTERS + N]; NULL when not created. */
static struct perf_event **pev;

/* General-purpose counters of an Intel architectural PMU, or 0. */
int op_perf_detect(void)
{
#ifdef CONFIG_X86
	struct x86_pmu_capability cap;

	/* Hybrid parts have one PMU per core type: no single description.
	 * AMD's PMU does not take the Intel event codes of arch_perfmon. */
	if (!boot_cpu_has(X86_FEATURE_ARCH_PERFMON) ||
	    boot_cpu_has(X86_FEATURE_HYBRID_CPU))
		return 0;
	perf_get_x86_pmu_capability(&cap);
	if (cap.version > 0 && cap.num_counters_gp > 0)
		return cap.num_counters_gp;
#endif
	return 0;
}

int op_perf_init(void)
{
	pev = kcalloc(nr_cpu_ids * OP_NR_COUNTERS, sizeof(*pev), GFP_KERNEL);
	return pev ? 0 : -ENOMEM;
}

void op_perf_exit(void)
{
	kfree(pev);
	pev = NULL;
}

/*
 * perf's cpu clock skips the periods its hrtimer fired too late for (a
 * starved virtual cpu, long irq-off sections) without saying so; count
 * them as timer mode does (timer_overrun), from the gap between ticks.
 * The clock ticks in idle too, so a gap is never just an idle cpu.
 */
static void op_perf_count_gap(struct op_cpu *cb, unsigned int n)
{
	u64 now = local_clock(), last = cb->last_tick_ns[n];
	u64 period = op_counters[n].count;

	cb->last_tick_ns[n] = now;
	if (last && now - last > period + period / 2)
		cb->timer_overrun += div64_u64(now - last, period) - 1;
}

static void op_perf_overflow(struct perf_event *event, struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	struct op_cpu *cb = this_cpu_ptr(&op_cpus);
	unsigned int n = (unsigned long)event->overflow_handler_context;

	if (!READ_ONCE(cb->running))
		return;                 /* op_perf_start() has not finished */
	if (!op_mode.raw && op_counters[n].event == OP_EVENT_CPU_CLOCK)
		op_perf_count_gap(cb, n);
	if (regs)
		op_add_sample(cb, regs, n);
	else
		cb->sample_lost_no_regs++;
}

static void op_perf_attr(struct perf_event_attr *attr, struct op_counter const *c)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (op_mode.raw) {
		attr->type = PERF_TYPE_RAW;
		attr->config = c->event | c->unit_mask << 8;
	} else {
		attr->type = PERF_TYPE_SOFTWARE;
		if (c->event == OP_EVENT_TASK_CLOCK) {
			attr->config = PERF_COUNT_SW_TASK_CLOCK;
			/* a cpu-wide task clock would tick in idle too */
			attr->exclude_idle = 1;
		} else {
			attr->config = PERF_COUNT_SW_CPU_CLOCK;
		}
	}
	attr->sample_period = c->count;
	attr->pinned = 1;
	attr->disabled = 1;             /* enabled once all exist */
	attr->exclude_kernel = !c->kernel;
	attr->exclude_user = !c->user;
}

/* Sampling: set and cleared under cpus_read_lock, so that the hotplug
 * callbacks (which run with the hotplug lock held) see it settled; they
 * touch pev only while it is set. */
static bool perf_active;

static void op_perf_release_cpu(int cpu)
{
	unsigned int n;

	for (n = 0; n < OP_NR_COUNTERS; n++) {
		struct perf_event **e = &pev[cpu * OP_NR_COUNTERS + n];

		if (*e)
			perf_event_release_kernel(*e);
		*e = NULL;
	}
}

/* Create cpu's counters of every enabled N/, disabled. */
static int op_perf_create_cpu(int cpu)
{
	struct perf_event_attr attr;
	struct perf_event *e;
	unsigned int n;

	for (n = 0; n < op_mode.nr_counters; n++) {
		if (!op_counters[n].enabled)
			continue;
		op_perf_attr(&attr, &op_counters[n]);
		e = perf_event_create_kernel_counter(&attr, cpu, NULL, op_perf_overflow,
						     (void *)(unsigned long)n);
		if (IS_ERR(e)) {
			pr_info("counter %u (event %#lx) on cpu %d: error %ld\n",
				n, op_counters[n].event, cpu, PTR_ERR(e));
			return PTR_ERR(e);
		}
		pev[cpu * OP_NR_COUNTERS + n] = e;
	}
	return 0;
}

/* Enable cpu's counters; -EBUSY: a pinned hardware counter found no free
 * counter (it went into error state). */
static int op_perf_enable_cpu(int cpu)
{
	unsigned int n;

	for (n = 0; n < OP_NR_COUNTERS; n++)
		if (pev[cpu * OP_NR_COUNTERS + n])
			perf_event_enable(pev[cpu * OP_NR_COUNTERS + n]);
	for (n = 0; n < OP_NR_COUNTERS; n++) {
		struct perf_event *e = pev[cpu * OP_NR_COUNTERS + n];

		if (e && READ_ONCE(e->state) == PERF_EVENT_STATE_ERROR) {
			pr_info("counter %u (event %#lx) on cpu %d: no free hardware counter\n",
				n, op_counters[n].event, cpu);
			return -EBUSY;
		}
	}
	return 0;
}

static void op_perf_run_cpu(int cpu)
{
	struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

	memset(cb->last_tick_ns, 0, sizeof(cb->last_tick_ns));
	WRITE_ONCE(cb->running, true);
}

/* Stop sampling, release every counter created. */
void op_perf_stop(void)
{
	int cpu;

	cpus_read_lock();
	perf_active = false;
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&op_cpus, cpu)->running, false);
	cpus_read_unlock();
	/* the hotplug callbacks leave pev alone now */
	for_each_possible_cpu(cpu)
		op_perf_release_cpu(cpu);
}

/*
 * Create the counters of every enabled N/ on every online cpu, disabled,
 * then enable them all; the handlers take samples only once every counter
 * is counting (op_cpu.running). A failure on any cpu releases what was
 * created and returns its error (-EBUSY: a pinned hardware counter found
 * no free counter), and no sample was taken.
 */
int op_perf_start(void)
{
	int cpu, err = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		err = op_perf_create_cpu(cpu);
		if (err)
			break;
	}
	for_each_online_cpu(cpu) {
		if (err)
			break;
		err = op_perf_enable_cpu(cpu);
	}
	if (!err) {
		for_each_online_cpu(cpu)
			op_perf_run_cpu(cpu);
		perf_active = true;
	}
	cpus_read_unlock();
	if (err)
		op_perf_stop();
	return err;
}

/*
 * Hotplug, on cpu (its hotplug thread), the hotplug lock held: a cpu
 * coming back gets its counters again, one going away loses them (perf
 * would detach them and never put them back). A failure leaves that cpu
 * unsampled, logged: a cpu coming online is not refused for it.
 */
int op_perf_cpu_online(unsigned int cpu)
{
	if (!perf_active)
		return 0;
	if (op_perf_create_cpu(cpu) || op_perf_enable_cpu(cpu)) {
		op_perf_release_cpu(cpu);
		pr_info("cpu %u came online: not sampled until the next enable\n", cpu);
		return 0;
	}
	op_perf_run_cpu(cpu);
	return 0;
}

int op_perf_cpu_offline(unsigned int cpu)
{
	if (!perf_active)
		return 0;
	WRITE_ONCE(per_cpu_ptr(&op_cpus, cpu)->running, false);
	op_perf_release_cpu(cpu);
	return 0;
}
