// SPDX-License-Identifier: GPL-2.0
/*
 * Per-cpu rings: the sampling interrupt (hrtimer or perf overflow, hard
 * irq or NMI) is the single producer of its cpu's ring, the sync the single
 * consumer; head and tail are published with release/acquire, so neither
 * side takes a lock. A full ring drops the sample and counts it.
 */
#include <linux/file.h>
#include <linux/hardirq.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "backtrace.h"
#include "cpu_buffer.h"

DEFINE_PER_CPU(struct op_cpu, op_cpus);

/* 0 leaves every pc to the sync, as the old driver did: for comparison. */
static bool irq_resolve = true;
module_param(irq_resolve, bool, 0444);
MODULE_PARM_DESC(irq_resolve, "1 (default): resolve user pcs to their mapping in the sampling interrupt when mmap_lock is free; 0: only at the sync, up to 100 ms later (an munmap in between loses or misattributes samples)");
atomic_long_t op_refs_held = ATOMIC_LONG_INIT(0); /* task + mm references */

int op_cpu_buffers_alloc(void)
{
	unsigned long n = roundup_pow_of_two(op_cpu_buffer_size);
	int cpu;

	for_each_possible_cpu(cpu) {
		struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

		cb->ring = kvcalloc(n, sizeof(struct op_entry),
				    GFP_KERNEL | __GFP_NOWARN);
		if (!cb->ring)
			return -ENOMEM;
		cb->mask = n - 1;
		cb->head = cb->tail = 0;
		cb->sample_received = 0;
		cb->sample_lost_overflow = 0;
		cb->sample_lost_no_regs = 0;
		cb->timer_overrun = 0;
	}
	return 0;
}

void op_cpu_buffers_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

		kvfree(cb->ring);
		cb->ring = NULL;
	}
}

void op_cpu_buffers_start(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

		cb->last_task = NULL;
		cb->last_mm = NULL;
	}
}

/* op_mutex held, sampling stopped. */
void op_cpu_buffers_drop_contexts(void)
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
}

/* Drop the references a context entry carried (process context). */
void op_ctx_put(struct task_struct *task, struct mm_struct *mm)
{
	if (task) {
		put_task_struct(task);
		atomic_long_dec(&op_refs_held);
	}
	if (mm) {
		mmput(mm);
		atomic_long_dec(&op_refs_held);
	}
}

/* Drop the file reference of an OPE_VMA entry (process context). */
void op_file_put(struct file *file)
{
	fput(file);
	atomic_long_dec(&op_refs_held);
}

/*
 * Resolve a user pc now, while its mapping is certainly there: the sync
 * runs up to 100 ms later, when a munmap (dlclose, a JIT freeing code,
 * exit) may have removed it or put another file at the same address.
 * Only a trylock: if the task is changing its mappings right now, the sync
 * resolves the pc instead. Not in NMI (hardware counters), and not on
 * PREEMPT_RT, where mmap_lock is a sleeping lock even for a trylock; BPF's
 * stack maps take mmap_lock the same way in interrupt context.
 */
static void resolve_in_interrupt(struct op_entry *e, struct mm_struct *mm)
{
#ifndef CONFIG_PREEMPT_RT
	struct vm_area_struct *vma;

	if (in_nmi() || !mmap_read_trylock(mm))
		return;
	vma = find_vma(mm, e->pc);
	if (vma && e->pc >= vma->vm_start) {
		e->flags |= OPE_VMA;
		if (vma->vm_file) {
			e->file = get_file(vma->vm_file);
			atomic_long_inc(&op_refs_held);
			e->start = (vma->vm_pgoff << PAGE_SHIFT) + e->pc - vma->vm_start;
		} else {
			e->start = vma->vm_start;
			e->end = vma->vm_end;
		}
	}
	mmap_read_unlock(mm);
#endif
}

/*
 * Put one sample into this cpu's ring (hardirq), with its backtrace when
 * op_backtrace_depth > 0: the frames go into the slots after the sample's,
 * and head moves past all of them at once, so the sync sees the sample
 * with its whole backtrace or not at all.
 */
void op_add_sample(struct op_cpu *cb, struct pt_regs *regs, unsigned int event)
{
	struct task_struct *task = current;
	struct mm_struct *mm = task->mm;
	bool kernel = !user_mode(regs);
	unsigned long head = cb->head, used;
	unsigned int depth = READ_ONCE(op_backtrace_depth);
	struct op_entry *e;
	int frames = 0;

	if (kernel ? !op_counters[event].kernel : !op_counters[event].user)
		return;
	cb->sample_received++;
	used = head - smp_load_acquire(&cb->tail);
	if (used > cb->mask) {
		cb->sample_lost_overflow++;
		return;
	}
	if (depth) {
		frames = op_backtrace(cb, regs, kernel, head + 1,
				      cb->mask - used, depth);
		if (frames < 0) {
			cb->sample_lost_overflow++;
			return;
		}
	}
	e = &cb->ring[head & cb->mask];
	e->pc = instruction_pointer(regs);
	e->event = event;
	e->flags = (kernel ? OPE_KERNEL : 0) | (depth ? OPE_TRACE : 0);
	e->task = NULL;
	e->mm = NULL;
	e->file = NULL;
	if (!kernel && mm && irq_resolve)
		resolve_in_interrupt(e, mm);
	if (task != cb->last_task || mm != cb->last_mm) {
		e->flags |= OPE_CTX;
		get_task_struct(task);
		atomic_long_inc(&op_refs_held);
		e->task = task;
		if (mm && mmget_not_zero(mm)) {
			atomic_long_inc(&op_refs_held);
			e->mm = mm;
		}
		cb->last_task = task;
		cb->last_mm = mm;
	}
	smp_store_release(&cb->head, head + 1 + frames);
}
