// SPDX-License-Identifier: GPL-2.0
/*
 * oprofile-ng's kernel driver for Linux 6.1: the oprofilefs filesystem
 * (mounted at /dev/oprofile), sampling into per-cpu lock-free rings, and a
 * periodic sync in process context that turns the samples into the
 * escape-coded event stream of libop/op_stream.h, which read() on
 * /dev/oprofile/buffer returns. oprof.h maps the files and the contexts.
 *
 * This file: the configuration, starting and stopping, buffer setup and
 * teardown, and the module's init and exit.
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "oprof.h"

unsigned long buffer_size = 131072;
unsigned long buffer_watershed = 32768;
unsigned long cpu_buffer_size = 8192;
unsigned long backtrace_depth;
unsigned long pointer_size = sizeof(void *);

struct op_counter counters[OP_NR_COUNTERS];
struct op_mode op_mode;

/*
 * Mode selection. Counter mode (perf_int.c) is the default; timer=1 forces
 * timer mode (timer_int.c), as OProfile's oprofile.timer=1 did. In counter
 * mode hw_counters=-1 looks for an Intel architectural PMU, 0 forces the
 * software clocks, N > 0 claims N raw counters (cpu_type i386/arch_perfmon)
 * whatever was found: without a PMU, enable then fails with ENOENT.
 */
static bool timer;
module_param(timer, bool, 0444);
MODULE_PARM_DESC(timer, "1: timer mode, a per-cpu hrtimer with one counter 0/ (default 0: counter mode, kernel perf counters)");
static int hw_counters = -1;
module_param(hw_counters, int, 0444);
MODULE_PARM_DESC(hw_counters, "counter mode: -1 detect the PMU (default), 0 software clocks (cpu_type timer), N>0 assume N raw hardware counters (cpu_type i386/arch_perfmon)");

DEFINE_MUTEX(op_mutex);
bool op_setup;
bool op_enabled;
bool op_dump;
bool op_stopped;

/* Drop every context reference the consumers hold. op_mutex held. */
static void drop_contexts(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

		op_ctx_put(cb->cur_task, cb->cur_mm);
		cb->cur_task = NULL;
		cb->cur_mm = NULL;
		cb->last_task = NULL;
		cb->last_mm = NULL;
	}
	stream_reset();
}

/* The mode, the counter dirs and their ranges, and the counters' defaults. */
static void op_mode_init(void)
{
	unsigned int n, hw = timer ? 0 : hw_counters < 0 ? op_perf_detect() : hw_counters;

	op_mode.timer = timer;
	op_mode.raw = !timer && hw > 0;
	if (op_mode.raw) {
		op_mode.cpu_type = "i386/arch_perfmon";
		op_mode.nr_counters = min_t(unsigned int, hw, OP_NR_COUNTERS);
		op_mode.event_max = 0xff;
		op_mode.unit_mask_max = 0xff;
		op_mode.count_min = OP_MIN_RAW_COUNT;
		op_mode.count_max = LONG_MAX;   /* perf refuses bit 63 */
	} else {
		op_mode.cpu_type = "timer";
		/* libop/op_cpu_type.c: four counters for cpu_type timer */
		op_mode.nr_counters = timer ? 1 : 4;
		op_mode.event_max = timer ? OP_EVENT_CPU_CLOCK : OP_EVENT_TASK_CLOCK;
		op_mode.unit_mask_max = 0;
		op_mode.count_min = OP_MIN_PERIOD_NS;
		op_mode.count_max = NSEC_PER_SEC;
	}
	for (n = 0; n < OP_NR_COUNTERS; n++) {
		counters[n] = (struct op_counter){
			.enabled = n == 0,
			.event = op_mode.raw ? 0x3c : OP_EVENT_CPU_CLOCK, /* CPU_CLK_UNHALTED */
			.count = 1000000, .kernel = 1, .user = 1,
		};
	}
}

int op_start(void)
{
	unsigned int n, enabled = 0;
	int cpu, err;

	for (n = 0; n < op_mode.nr_counters; n++)
		enabled += !!counters[n].enabled;
	if (!enabled)
		return -EINVAL;
	for_each_possible_cpu(cpu) {
		struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

		cb->last_task = NULL;
		cb->last_mm = NULL;
	}
	if (op_mode.timer) {
		op_timer_start();
	} else {
		/* all counters or none: on an error nothing samples */
		err = op_perf_start();
		if (err)
			return err;
	}
	op_dump = false;
	op_stopped = false;
	op_enabled = true;
	schedule_delayed_work(&sync_work, HZ / 10);
	return 0;
}

/* Stop sampling, sync everything, drop the references. op_mutex held. */
void op_stop(void)
{
	if (!op_enabled)
		return;
	if (op_mode.timer)
		op_timer_stop();
	else
		op_perf_stop();
	op_enabled = false;
	op_stopped = true;
	/* a running sync_work_fn waits for op_mutex and does not re-arm */
	cancel_delayed_work(&sync_work);
	op_sync();
	drop_contexts();
	wake_up_interruptible(&buffer_wait);
}

void op_free_buffers(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

		kvfree(cb->ring);
		cb->ring = NULL;
	}
	vfree(ebuf);
	ebuf = NULL;
	kvfree(rec);
	rec = NULL;
	free_page((unsigned long)path_page);
	path_page = NULL;
	cookies_free();
}

int op_alloc_buffers(void)
{
	unsigned long n = roundup_pow_of_two(cpu_buffer_size);
	int cpu;

	ebuf_size = buffer_size;
	ebuf_head = ebuf_tail = 0;
	ebuf = vmalloc(array_size(ebuf_size, sizeof(unsigned long)));
	rec = kvmalloc_array(REC_MAX, sizeof(unsigned long), GFP_KERNEL);
	path_page = (char *)__get_free_page(GFP_KERNEL);
	if (!ebuf || !rec || !path_page)
		goto fail;
	for_each_possible_cpu(cpu) {
		struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

		cb->ring = kvcalloc(n, sizeof(struct op_entry), GFP_KERNEL);
		if (!cb->ring)
			goto fail;
		cb->mask = n - 1;
		cb->head = cb->tail = 0;
		cb->sample_received = 0;
		cb->sample_lost_overflow = 0;
		cb->sample_lost_no_regs = 0;
		cb->timer_overrun = 0;
	}
	st_lost_no_mm = st_lost_no_mapping = st_event_lost_overflow = 0;
	st_bt_lost_no_mapping = 0;
	st_samples_emitted = st_syncs = st_cookies = 0;
	memset(lost_reported, 0, sizeof(lost_reported));
	atomic_long_set(&st_module_loads, 0);
	stream_reset();
	return 0;
fail:
	op_free_buffers();
	return -ENOMEM;
}

static int __init oprofile_init(void)
{
	int err;

	INIT_DELAYED_WORK(&sync_work, sync_work_fn);
	op_mode_init();
	if (op_mode.timer) {
		op_timer_init();
	} else {
		err = op_perf_init();
		if (err)
			return err;
	}
	err = op_module_notify_init();
	if (err)
		goto fail_perf;
	err = oprofilefs_register();
	if (err)
		goto fail_notify;
	if (op_mode.timer)
		pr_info("oprofile: timer mode (hrtimer), oprofilefs registered\n");
	else
		pr_info("oprofile: counter mode, cpu_type %s, %u %s counters, oprofilefs registered\n",
			op_mode.cpu_type, op_mode.nr_counters,
			op_mode.raw ? "raw hardware" : "software clock");
	return 0;
fail_notify:
	op_module_notify_exit();
fail_perf:
	if (!op_mode.timer)
		op_perf_exit();
	return err;
}

static void __exit oprofile_exit(void)
{
	long held;

	oprofilefs_unregister();
	op_module_notify_exit();
	cancel_delayed_work_sync(&sync_work);
	if (!op_mode.timer)
		op_perf_exit();
	/* buffer is closed (the fs was unmounted): nothing may be held */
	held = atomic_long_read(&op_refs_held);
	if (held)
		pr_err("oprofile: leak: %ld task/mm references still held at unload\n", held);
}

module_init(oprofile_init);
module_exit(oprofile_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("oprofile-ng oprofilefs driver");
