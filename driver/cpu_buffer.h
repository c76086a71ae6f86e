/* SPDX-License-Identifier: GPL-2.0 */
/* Per-cpu rings (cpu_buffer.c): the sampling interrupt's side. */
#ifndef OP_CPU_BUFFER_H
#define OP_CPU_BUFFER_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "oprof.h"

/*
 * One ring entry, written by the cpu's sampling interrupt: a sample, or
 * (OPE_FRAME) one caller pc of the sample before it. A sample taken with
 * op_backtrace_depth > 0 has OPE_TRACE and is followed by its frames, nearest
 * caller first; they are published together with it.
 */
enum { OPE_KERNEL = 1, OPE_CTX = 2, OPE_TRACE = 4, OPE_FRAME = 8, OPE_VMA = 16 };
struct op_entry {
	unsigned long pc;
	unsigned int event;
	unsigned int flags;
	struct task_struct *task;       /* OPE_CTX: a reference */
	struct mm_struct *mm;           /* OPE_CTX: a reference, or NULL */
	/*
	 * OPE_VMA: a user sample resolved in the interrupt (cpu_buffer.c), so
	 * an munmap before the sync cannot lose or misattribute it: file is
	 * a reference to the mapped file and start the pc's file offset, or
	 * (file NULL) [start, end) is the anonymous region the pc was in.
	 */
	struct file *file;
	unsigned long start, end;
};

struct op_cpu {
	/* ring: producer = this cpu's sampling interrupt, consumer = the sync */
	struct op_entry *ring;
	unsigned long head;             /* next to write (producer) */
	unsigned long tail;             /* next to read (consumer) */
	unsigned long mask;
	struct hrtimer timer;           /* timer mode */
	bool running;                   /* the sampling interrupt may sample */
	/* producer's view of the context (pointers only, no references) */
	struct task_struct *last_task;
	struct mm_struct *last_mm;
	/* statistics, written on this cpu only */
	unsigned long sample_received;
	unsigned long sample_lost_overflow;
	unsigned long sample_lost_no_regs;
	unsigned long timer_overrun;    /* clock periods that passed without a tick */
	u64 last_tick_ns[OP_NR_COUNTERS]; /* counter mode: CPU_CLOCK's last tick */
	/* consumer: the newest context, holding its references */
	struct task_struct *cur_task;
	struct mm_struct *cur_mm;
	unsigned long cur_app_cookie;
};
DECLARE_PER_CPU(struct op_cpu, op_cpus);

extern atomic_long_t op_refs_held;     /* task, mm and file references */

static inline size_t op_cpu_entry_size(void)
{
	return sizeof(struct op_entry);
}

/* The rings of op_cpu_buffer_size entries, empty, their stats zero. */
int op_cpu_buffers_alloc(void);
void op_cpu_buffers_free(void);
/* A new sampling run: the next sample of each cpu carries its context. */
void op_cpu_buffers_start(void);
/* Drop the consumers' context references (sampling stopped). */
void op_cpu_buffers_drop_contexts(void);

void op_add_sample(struct op_cpu *cb, struct pt_regs *regs, unsigned int event);
void op_ctx_put(struct task_struct *task, struct mm_struct *mm);
void op_file_put(struct file *file);

#endif
