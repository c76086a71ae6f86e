// SPDX-License-Identifier: GPL-2.0
/*
 * oprofile-ng's kernel driver for Linux 6.1: the oprofilefs filesystem
 * (mounted at /dev/oprofile), sampling into per-cpu lock-free rings, and a
 * periodic sync in process context that turns the samples into the
 * escape-coded event stream of libop/op_stream.h, which read() on
 * /dev/oprofile/buffer returns. oprof.h maps the files and the contexts.
 *
 * This file: the configuration, starting and stopping, buffer setup and
 * teardown (each unit allocates and resets its own), and the module's
 * init and exit.
 */
#define pr_fmt(fmt) "oprofile: " fmt

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/string.h>

#include "buffer_sync.h"
#include "cookies.h"
#include "cpu_buffer.h"
#include "cpu_hotplug.h"
#include "event_buffer.h"
#include "module_notify.h"
#include "oprof.h"
#include "oprofilefs.h"
#include "perf_int.h"
#include "timer_int.h"

unsigned long op_buffer_size = 131072;
unsigned long op_buffer_watershed = 32768;
unsigned long op_cpu_buffer_size = 8192;
unsigned long op_backtrace_depth;
unsigned long op_pointer_size = sizeof(void *);

struct op_counter op_counters[OP_NR_COUNTERS];
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
struct op_stats op_stats;

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
		op_counters[n] = (struct op_counter){
			.enabled = n == 0,
			.event = op_mode.raw ? 0x3c : OP_EVENT_CPU_CLOCK, /* CPU_CLK_UNHALTED */
			.count = 1000000, .kernel = 1, .user = 1,
		};
	}
}

int op_start(void)
{
	unsigned int n, enabled = 0;
	int err;

	for (n = 0; n < op_mode.nr_counters; n++)
		enabled += !!op_counters[n].enabled;
	if (!enabled)
		return -EINVAL;
	op_cpu_buffers_start();
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
	op_sync_schedule();
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
	op_sync_cancel();
	op_sync();
	op_cpu_buffers_drop_contexts();
	op_sync_reset_stream();
	wake_up_interruptible(&op_buffer_wait);
}

void op_free_buffers(void)
{
	op_cpu_buffers_free();
	op_event_buffer_free();
	op_sync_free();
	op_cookies_free();
}

static void op_stats_reset(void)
{
	memset(op_stats.lost, 0, sizeof(op_stats.lost));
	op_stats.samples_emitted = 0;
	op_stats.syncs = 0;
	op_stats.cookies = 0;
	op_stats.cookies_freed = 0;
	op_stats.cookies_forgotten = 0;
	atomic_long_set(&op_stats.module_loads, 0);
}

/* Every buffer, empty, and the stats zero: at buffer open. */
int op_alloc_buffers(void)
{
	int err = op_event_buffer_alloc();

	if (!err)
		err = op_sync_alloc();
	if (!err)
		err = op_cookies_alloc();
	if (!err)
		err = op_cpu_buffers_alloc();
	if (err) {
		op_free_buffers();
		return err;
	}
	op_stats_reset();
	return 0;
}

static int __init oprofile_init(void)
{
	int err;

	op_sync_init();
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
	err = op_hotplug_init();
	if (err)
		goto fail_notify;
	err = op_fs_register();
	if (err)
		goto fail_hotplug;
	if (op_mode.timer)
		pr_info("timer mode (hrtimer), oprofilefs registered\n");
	else
		pr_info("counter mode, cpu_type %s, %u %s counters, oprofilefs registered\n",
			op_mode.cpu_type, op_mode.nr_counters,
			op_mode.raw ? "raw hardware" : "software clock");
	return 0;
fail_hotplug:
	op_hotplug_exit();
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

	op_fs_unregister();
	op_hotplug_exit();
	op_module_notify_exit();
	op_sync_cancel_wait();
	if (!op_mode.timer)
		op_perf_exit();
	/* buffer is closed (the fs was unmounted): nothing may be held */
	held = atomic_long_read(&op_refs_held);
	if (held)
		pr_err("leak: %ld task/mm references still held at unload\n", held);
}

module_init(oprofile_init);
module_exit(oprofile_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("oprofile-ng oprofilefs driver");
