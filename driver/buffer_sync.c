// SPDX-License-Identifier: GPL-2.0
/*
 * The sync: in process context, under op_mutex, every HZ/10 and on dump
 * and disable, it empties the per-cpu rings into the event buffer. Kernel
 * pcs stay raw; user pcs become (cookie, file offset) through the sampled
 * mm's mappings. It writes only the switches the decoder needs (cpu, task,
 * kernel/user, cookie), tracking what the decoder knows, and writes every
 * record whole or not at all, counting what does not fit.
 */
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "oprof.h"

struct delayed_work sync_work;
unsigned long st_lost_no_mm, st_lost_no_mapping, st_event_lost_overflow;
unsigned long st_samples_emitted, st_syncs;
unsigned long lost_reported[OP_LOST_CATEGORY_MAX];

/* The decoder's state as far as the words already in the buffer go. */
static struct {
	long cpu;                       /* -1: unknown */
	struct task_struct *task;       /* NULL: unknown */
	int mode;                       /* -1 unknown, 0 user, 1 kernel */
	unsigned long cookie;
	bool cookie_known;
} ss;

void stream_reset(void)
{
	ss.cpu = -1;
	ss.task = NULL;
	ss.mode = -1;
	ss.cookie_known = false;
}

/* A record being built; added to the event buffer whole. */
unsigned long *rec;
static unsigned long rec_len;

static void rec_put(unsigned long w)
{
	if (rec_len < REC_MAX)
		rec[rec_len++] = w;
}

static void rec_def(struct op_cookie *c)
{
	unsigned long i, nw = DIV_ROUND_UP(c->len, sizeof(unsigned long));

	rec_put(OP_ESCAPE_CODE);
	rec_put(OP_CODE_COOKIE_DEF);
	rec_put(c->id);
	rec_put(c->len);
	for (i = 0; i < nw; i++) {
		unsigned long w = 0;

		memcpy(&w, c->name + i * sizeof(w),
		       min(sizeof(w), c->len - i * sizeof(w)));
		rec_put(w);
	}
}

static unsigned long app_cookie_of(struct mm_struct *mm, struct op_cookie **def)
{
	struct file *exe;
	struct op_cookie *c = NULL;

	*def = NULL;
	if (!mm)
		return OP_NO_COOKIE;
	rcu_read_lock();
	exe = rcu_dereference(mm->exe_file);
	if (exe && !atomic_long_inc_not_zero(&exe->f_count))
		exe = NULL;
	rcu_read_unlock();
	if (!exe)
		return OP_NO_COOKIE;
	c = cookie_get(&exe->f_path);
	fput(exe);
	if (!c)
		return OP_NO_COOKIE;
	if (!c->defined)
		*def = c;
	return c->id;
}

static unsigned long stat_total_overflow(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&op_cpus, cpu)->sample_lost_overflow);
	return sum;
}

/* Send in-band (ESC LOST category count) the losses not sent yet. A LOST
 * record does not change the decoder's state. */
static void report_losses(void)
{
	unsigned long now[OP_LOST_CATEGORY_MAX] = { 0 };
	int cat;

	now[OP_LOST_OVERFLOW] = stat_total_overflow();
	now[OP_LOST_NO_MM] = st_lost_no_mm;
	now[OP_LOST_NO_MAPPING] = st_lost_no_mapping;
	now[OP_LOST_EVENT_OVERFLOW] = st_event_lost_overflow;
	for (cat = 1; cat < OP_LOST_CATEGORY_MAX; cat++) {
		unsigned long w[4] = { OP_ESCAPE_CODE, OP_CODE_LOST, cat,
			now[cat] - lost_reported[cat] };

		if (w[3] && ebuf_add(w, 4))
			lost_reported[cat] = now[cat];
	}
}

static void sync_cpu(int cpu)
{
	struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);
	unsigned long head = smp_load_acquire(&cb->head);

	while (cb->tail != head) {
		struct op_entry e = cb->ring[cb->tail & cb->mask];
		struct op_cookie *def_app = NULL, *def = NULL;
		unsigned long pc = e.pc, cookie = OP_NO_COOKIE;
		bool kernel = e.flags & OPE_KERNEL;
		int lost = 0;

		smp_store_release(&cb->tail, cb->tail + 1);
		if (e.flags & OPE_CTX) {
			op_ctx_put(cb->cur_task, cb->cur_mm);
			cb->cur_task = e.task;
			cb->cur_mm = e.mm;
			cb->cur_app_cookie = app_cookie_of(e.mm, &def_app);
			if (ss.cpu == cpu && ss.task == e.task)
				ss.task = NULL; /* app cookie may differ (exec) */
		}
		if (!cb->cur_task)
			continue;       /* cannot happen: the first entry has a ctx */
		if (!kernel) {
			struct mm_struct *mm = cb->cur_mm;
			struct vm_area_struct *vma;

			if (!mm) {
				lost = OP_LOST_NO_MM;
			} else {
				mmap_read_lock(mm);
				vma = find_vma(mm, pc);
				if (!vma || pc < vma->vm_start) {
					lost = OP_LOST_NO_MAPPING;
				} else if (vma->vm_file) {
					struct op_cookie *c = cookie_get(&vma->vm_file->f_path);

					if (!c) {
						lost = OP_LOST_NO_MAPPING;
					} else {
						cookie = c->id;
						if (!c->defined && c != def_app)
							def = c;
						pc = (vma->vm_pgoff << PAGE_SHIFT) + pc - vma->vm_start;
					}
				}
				mmap_read_unlock(mm);
			}
		}
		if (lost) {
			if (lost == OP_LOST_NO_MM)
				st_lost_no_mm++;
			else
				st_lost_no_mapping++;
			continue;
		}
		/* Build the whole record: switches the decoder needs, then the pair. */
		rec_len = 0;
		if (ss.cpu != cpu) {
			rec_put(OP_ESCAPE_CODE);
			rec_put(OP_CODE_CPU_SWITCH);
			rec_put(cpu);
		}
		if (def_app)
			rec_def(def_app);
		if (def)
			rec_def(def);
		if (ss.cpu != cpu || ss.task != cb->cur_task) {
			rec_put(OP_ESCAPE_CODE);
			rec_put(OP_CODE_CTX_SWITCH);
			rec_put(task_pid_nr(cb->cur_task));
			rec_put(cb->cur_app_cookie);
			rec_put(OP_ESCAPE_CODE);
			rec_put(OP_CODE_CTX_TGID);
			rec_put(task_tgid_nr(cb->cur_task));
		}
		if (ss.cpu != cpu || ss.mode != kernel) {
			rec_put(OP_ESCAPE_CODE);
			rec_put(kernel ? OP_CODE_KERNEL_ENTER : OP_CODE_USER_ENTER);
		}
		if (!kernel && (ss.cpu != cpu || ss.task != cb->cur_task ||
				!ss.cookie_known || ss.cookie != cookie)) {
			rec_put(OP_ESCAPE_CODE);
			rec_put(OP_CODE_COOKIE_SWITCH);
			rec_put(cookie);
		}
		rec_put(pc);
		rec_put(e.event);
		if (!ebuf_add(rec, rec_len)) {
			st_event_lost_overflow++;
			continue;       /* decoder state unchanged: nothing written */
		}
		if (def_app)
			def_app->defined = true;
		if (def)
			def->defined = true;
		if (ss.cpu != cpu || ss.task != cb->cur_task)
			ss.cookie_known = false;
		ss.cpu = cpu;
		ss.task = cb->cur_task;
		ss.mode = kernel;
		if (!kernel) {
			ss.cookie = cookie;
			ss.cookie_known = true;
		}
		st_samples_emitted++;
	}
}

static void sync_modules(void)
{
	struct op_modload *m, *n;
	LIST_HEAD(todo);

	op_modloads_take(&todo);
	list_for_each_entry_safe(m, n, &todo, list) {
		size_t len = strlen(m->name), i, nw = DIV_ROUND_UP(len, sizeof(long));

		rec_len = 0;
		rec_put(OP_ESCAPE_CODE);
		rec_put(OP_CODE_KERNEL_IMAGE);
		rec_put(m->start);
		rec_put(m->end);
		rec_put(len);
		for (i = 0; i < nw; i++) {
			unsigned long w = 0;

			memcpy(&w, m->name + i * sizeof(w), min(sizeof(w), len - i * sizeof(w)));
			rec_put(w);
		}
		rec_put(OP_ESCAPE_CODE);
		rec_put(OP_CODE_MODULE_LOADED);
		/* a module record does not change the decoder's state */
		ebuf_add(rec, rec_len);
		list_del(&m->list);
		kfree(m);
	}
}

/* Move everything in the cpu rings to the event buffer. op_mutex held. */
void op_sync(void)
{
	int cpu;

	if (!op_setup)
		return;
	st_syncs++;
	sync_modules();
	report_losses();
	for_each_possible_cpu(cpu)
		sync_cpu(cpu);
	report_losses();
}

void sync_work_fn(struct work_struct *w)
{
	mutex_lock(&op_mutex);
	op_sync();
	if (op_enabled)
		schedule_delayed_work(&sync_work, HZ / 10);
	mutex_unlock(&op_mutex);
}
