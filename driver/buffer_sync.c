// SPDX-License-Identifier: GPL-2.0
/*
 * The sync: in process context, under op_mutex, every HZ/10 and on dump
 * and disable, it empties the per-cpu rings into the event buffer. Kernel
 * pcs stay raw; user pcs become (cookie, file offset) through the sampled
 * mm's mappings. It writes only the switches the decoder needs (cpu, task,
 * kernel/user, cookie), tracking what the decoder knows, and writes every
 * record whole or not at all, counting what does not fit. A sample with a
 * backtrace is TRACE_BEGIN, the sample, then its frames: kernel frames raw,
 * user frames resolved like user samples (an unresolvable one ends the
 * chain and counts as bt_lost_no_mapping).
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
unsigned long st_bt_lost_no_mapping;
unsigned long st_samples_emitted, st_syncs;
unsigned long lost_reported[OP_LOST_CATEGORY_MAX];

/* The decoder's state as far as the words already in the buffer go. */
struct stream_state {
	long cpu;                       /* -1: unknown */
	struct task_struct *task;       /* NULL: unknown */
	int mode;                       /* -1 unknown, 0 user, 1 kernel */
	unsigned long cookie;
	bool cookie_known;
};
static struct stream_state ss;

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
	rec_put(c->anon ? OP_CODE_ANON_DEF : OP_CODE_COOKIE_DEF);
	rec_put(c->id);
	if (c->anon) {
		rec_put(c->tgid);
		rec_put(c->start);
		rec_put(c->end);
	}
	rec_put(c->len);
	for (i = 0; i < nw; i++) {
		unsigned long w = 0;

		memcpy(&w, c->name + i * sizeof(w),
		       min(sizeof(w), c->len - i * sizeof(w)));
		rec_put(w);
	}
}

/* The switches that make the decoder's mode and cookie what a pair
 * needs; n is the state the record leads to. */
static void rec_mode(struct stream_state *n, bool kernel)
{
	if (n->mode != kernel) {
		rec_put(OP_ESCAPE_CODE);
		rec_put(kernel ? OP_CODE_KERNEL_ENTER : OP_CODE_USER_ENTER);
		n->mode = kernel;
	}
}

static void rec_cookie(struct stream_state *n, unsigned long cookie)
{
	if (!n->cookie_known || n->cookie != cookie) {
		rec_put(OP_ESCAPE_CODE);
		rec_put(OP_CODE_COOKIE_SWITCH);
		rec_put(cookie);
		n->cookie = cookie;
		n->cookie_known = true;
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

/* The name /proc/PID/maps gives an anonymous region. */
static char const *anon_name(struct mm_struct *mm, struct vm_area_struct *vma)
{
	if (vma->vm_ops && vma->vm_ops->name) {
		char const *name = vma->vm_ops->name(vma);

		if (name)
			return name;    /* special mappings: [vdso], [vvar] */
	}
	if (vma->vm_start <= mm->brk && vma->vm_end >= mm->start_brk)
		return "[heap]";
	if (vma->vm_start <= mm->start_stack && vma->vm_end >= mm->start_stack)
		return "[stack]";
	return "//anon";
}

/*
 * A user sample the interrupt resolved (OPE_VMA; the file's cookie, if it
 * had one, is fc) as (cookie, offset). An anonymous region is named now if
 * it is still there (mm's mmap_lock held, or mm NULL), else "//anon".
 * 0, or OP_LOST_NO_MAPPING.
 */
static int resolve_sampled(struct op_entry const *e, struct op_cookie *fc,
			   struct mm_struct *mm, pid_t tgid, unsigned long *pc,
			   struct op_cookie **c)
{
	struct vm_area_struct *vma;
	char const *name = "//anon";

	if (e->file) {
		*c = fc;
		*pc = e->start;
		return fc ? 0 : OP_LOST_NO_MAPPING;
	}
	vma = mm ? find_vma(mm, e->pc) : NULL;
	if (vma && vma->vm_start == e->start && vma->vm_end == e->end)
		name = anon_name(mm, vma);
	*c = anon_cookie_get(tgid, e->start, e->end, name);
	*pc = e->pc - e->start;
	return *c ? 0 : OP_LOST_NO_MAPPING;
}

/*
 * A user pc of mm (mmap_lock held) as (cookie, offset): *c is the cookie
 * of the mapped file (offset in the file) or of tgid's anonymous region
 * (offset from its start). 0, or OP_LOST_NO_MAPPING.
 */
static int resolve_user(struct mm_struct *mm, pid_t tgid, unsigned long *pc,
			struct op_cookie **c)
{
	struct vm_area_struct *vma = find_vma(mm, *pc);

	*c = NULL;
	if (!vma || *pc < vma->vm_start)
		return OP_LOST_NO_MAPPING;
	if (!vma->vm_file) {
		*c = anon_cookie_get(tgid, vma->vm_start, vma->vm_end,
				     anon_name(mm, vma));
		if (!*c)
			return OP_LOST_NO_MAPPING;
		*pc -= vma->vm_start;
		return 0;
	}
	*c = cookie_get(&vma->vm_file->f_path);
	if (!*c)
		return OP_LOST_NO_MAPPING;
	*pc = (vma->vm_pgoff << PAGE_SHIFT) + *pc - vma->vm_start;
	return 0;
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
	now[OP_LOST_BT_NO_MAPPING] = st_bt_lost_no_mapping;
	for (cat = 1; cat < OP_LOST_CATEGORY_MAX; cat++) {
		unsigned long w[4] = { OP_ESCAPE_CODE, OP_CODE_LOST, cat,
			now[cat] - lost_reported[cat] };

		if (w[3] && ebuf_add(w, 4))
			lost_reported[cat] = now[cat];
	}
}

/* One backtrace frame of the sample being synced. */
struct bt_frame {
	unsigned long pc;               /* raw kernel pc, or file offset */
	struct op_cookie *c;            /* user frames: NULL = anonymous */
	bool kernel;
};
static struct bt_frame bt[OP_MAX_DEPTH];

/*
 * Copy the frames at *tail (published with the sample before them) out of
 * the ring, moving *tail past them; returns how many.
 */
static unsigned int take_frames(struct op_cpu *cb, unsigned long *tail,
				unsigned long head)
{
	unsigned int n = 0;

	for (; *tail != head; ++*tail) {
		struct op_entry const *f = &cb->ring[*tail & cb->mask];

		if (!(f->flags & OPE_FRAME))
			break;
		if (n < OP_MAX_DEPTH) {
			bt[n].pc = f->pc;
			bt[n].kernel = f->flags & OPE_KERNEL;
			bt[n].c = NULL;
			n++;
		}
	}
	return n;
}

/*
 * Resolve the user frames (mmap_lock of mm held). The first one that does
 * not resolve ends the chain and is counted (bt_lost_no_mapping). Returns
 * the frames kept.
 */
static unsigned int resolve_frames(struct mm_struct *mm, pid_t tgid, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (bt[i].kernel)
			continue;
		if (!mm || resolve_user(mm, tgid, &bt[i].pc, &bt[i].c)) {
			st_bt_lost_no_mapping++;
			return i;
		}
	}
	return n;
}

/*
 * Define, each in a record of its own, the frames' cookies not yet
 * defined in the stream (except those the sample's record defines
 * itself). false when the event buffer is full.
 */
static bool define_frame_cookies(unsigned int n, struct op_cookie const *in_rec1,
				 struct op_cookie const *in_rec2)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct op_cookie *c = bt[i].c;

		if (!c || c->defined || c == in_rec1 || c == in_rec2)
			continue;
		rec_len = 0;
		rec_def(c);
		if (!ebuf_add(rec, rec_len))
			return false;
		c->defined = true;
	}
	return true;
}

static void sync_cpu(int cpu)
{
	struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);
	unsigned long head = smp_load_acquire(&cb->head);

	while (cb->tail != head) {
		unsigned long tail = cb->tail;
		struct op_entry e = cb->ring[tail++ & cb->mask];
		struct op_cookie *def_app = NULL, *def = NULL, *c = NULL, *fc = NULL;
		unsigned long pc = e.pc, cookie = OP_NO_COOKIE;
		bool kernel = e.flags & OPE_KERNEL;
		bool user_frames = false;
		struct stream_state n;
		unsigned int nbt = 0, i;
		int lost = 0;

		if (e.flags & OPE_TRACE)
			nbt = take_frames(cb, &tail, head);
		smp_store_release(&cb->tail, tail);
		if ((e.flags & OPE_VMA) && e.file) {
			fc = cookie_get(&e.file->f_path);
			op_file_put(e.file);
		}
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
		for (i = 0; i < nbt && !user_frames; i++)
			user_frames = !bt[i].kernel;
		if (!kernel || user_frames) {
			struct mm_struct *mm = cb->cur_mm;
			pid_t tgid = task_tgid_nr(cb->cur_task);
			/* looking a pc up needs the mm's lock: the user frames',
			 * and the sample's own unless the interrupt resolved it
			 * to a file (an anonymous region is named from its VMA) */
			bool in_file = (e.flags & OPE_VMA) && e.file;
			struct mm_struct *locked = mm && (user_frames || (!kernel && !in_file)) ?
				mm : NULL;

			if (locked)
				mmap_read_lock(locked);
			if (kernel)
				lost = 0;
			else if (e.flags & OPE_VMA)
				lost = resolve_sampled(&e, fc, locked, tgid, &pc, &c);
			else
				lost = mm ? resolve_user(mm, tgid, &pc, &c) : OP_LOST_NO_MM;
			if (!lost)
				nbt = resolve_frames(locked, tgid, nbt);
			if (locked)
				mmap_read_unlock(locked);
			if (c) {
				cookie = c->id;
				if (!c->defined && c != def_app)
					def = c;
			}
		}
		if (lost) {
			if (lost == OP_LOST_NO_MM)
				st_lost_no_mm++;
			else
				st_lost_no_mapping++;
			continue;
		}
		if (!define_frame_cookies(nbt, def_app, def)) {
			st_event_lost_overflow++;
			continue;
		}
		/*
		 * Build the whole record: the switches the decoder needs, then
		 * the pair, then the frames (pc, 0) with the mode and cookie
		 * switches between them; n is the state it leads to.
		 */
		n = ss;
		rec_len = 0;
		if (n.cpu != cpu) {
			rec_put(OP_ESCAPE_CODE);
			rec_put(OP_CODE_CPU_SWITCH);
			rec_put(cpu);
			n.cpu = cpu;
			n.task = NULL;
			n.mode = -1;
			n.cookie_known = false;
		}
		if (def_app)
			rec_def(def_app);
		if (def)
			rec_def(def);
		if (n.task != cb->cur_task) {
			rec_put(OP_ESCAPE_CODE);
			rec_put(OP_CODE_CTX_SWITCH);
			rec_put(task_pid_nr(cb->cur_task));
			rec_put(cb->cur_app_cookie);
			rec_put(OP_ESCAPE_CODE);
			rec_put(OP_CODE_CTX_TGID);
			rec_put(task_tgid_nr(cb->cur_task));
			n.task = cb->cur_task;
			n.cookie_known = false;
		}
		/* every sample of a traced stream begins a trace, even one
		 * without frames: the decoder takes pairs after a sample as
		 * its frames until an escape ends the trace */
		if (e.flags & OPE_TRACE) {
			rec_put(OP_ESCAPE_CODE);
			rec_put(OP_CODE_TRACE_BEGIN);
		}
		rec_mode(&n, kernel);
		if (!kernel)
			rec_cookie(&n, cookie);
		rec_put(pc);
		rec_put(e.event);
		for (i = 0; i < nbt; i++) {
			rec_mode(&n, bt[i].kernel);
			if (!bt[i].kernel)
				rec_cookie(&n, bt[i].c ? bt[i].c->id : OP_NO_COOKIE);
			rec_put(bt[i].pc);
			rec_put(0);
		}
		if (!ebuf_add(rec, rec_len)) {
			st_event_lost_overflow++;
			continue;       /* decoder state unchanged: nothing written */
		}
		if (def_app)
			def_app->defined = true;
		if (def)
			def->defined = true;
		ss = n;
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
