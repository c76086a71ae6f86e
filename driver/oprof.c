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

struct op_counter counters[OP_NR_COUNTERS] = {
	{ .enabled = 1, .event = 0, .count = 1000000, .kernel = 1, .user = 1 },
};

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

		if (cb->cur_task)
			put_task_struct(cb->cur_task);
		if (cb->cur_mm)
			mmput(cb->cur_mm);
		cb->cur_task = NULL;
		cb->cur_mm = NULL;
		cb->last_task = NULL;
		cb->last_mm = NULL;
	}
	stream_reset();
}

int op_start(void)
{
	int cpu;

	if (!counters[0].enabled)
		return -EINVAL;
	for_each_possible_cpu(cpu) {
		struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

		cb->last_task = NULL;
		cb->last_mm = NULL;
	}
	op_dump = false;
	op_stopped = false;
	op_enabled = true;
	op_timer_start();
	schedule_delayed_work(&sync_work, HZ / 10);
	return 0;
}

/* Stop sampling, sync everything, drop the references. op_mutex held. */
void op_stop(void)
{
	if (!op_enabled)
		return;
	op_timer_stop();
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
	op_timer_init();
	err = op_module_notify_init();
	if (err)
		return err;
	err = oprofilefs_register();
	if (err) {
		op_module_notify_exit();
		return err;
	}
	pr_info("oprofile: timer mode, oprofilefs registered\n");
	return 0;
}

static void __exit oprofile_exit(void)
{
	oprofilefs_unregister();
	op_module_notify_exit();
	cancel_delayed_work_sync(&sync_work);
}

module_init(oprofile_init);
module_exit(oprofile_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("oprofile-ng oprofilefs driver");
