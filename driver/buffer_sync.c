// SPDX-License-Identifier: GPL-2.0
/*
 * The sync: in process context, under op_mutex, every HZ/10 and on dump
 * and disable, it empties the per-cpu rings into the event buffer. Kernel
 * pcs stay raw; user pcs become (cookie, file offset) through the sampled
 * mm's mappings. Each sample is taken from its ring, resolved, then
 * encoded (sync_encode.h: only the switches the decoder needs, tracking
 * what it knows) into a record that goes into the event buffer whole or
 * not at all, counting what does not fit. A sample with a backtrace is
 * TRACE_BEGIN, the sample, then its frames: kernel frames raw, user frames
 * resolved like user samples (an unresolvable one ends the chain and
 * counts as bt_lost_no_mapping).
 */
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "buffer_sync.h"
#include "cookies.h"
#include "cpu_buffer.h"
#include "event_buffer.h"
#include "module_notify.h"
#include "oprof.h"
#include "sync_encode.h"

#define REC_MAX OP_SYNC_MAX_RECORD(OP_MAX_DEPTH)

static struct delayed_work sync_work;
/* The decoder's state as far as the words already in the buffer go. */
static struct op_sync_state ss;
/* A record being built; added to the event buffer whole. */
static unsigned long *rec;
/* The losses already sent in-band, by category. */
static unsigned long lost_reported[OP_LOST_CATEGORY_MAX];

void op_sync_reset_stream(void)
{
	op_sync_reset(&ss);
}

int op_sync_alloc(void)
{
	rec = kvmalloc_array(REC_MAX, sizeof(unsigned long), GFP_KERNEL);
	if (!rec)
		return -ENOMEM;
	memset(lost_reported, 0, sizeof(lost_reported));
	op_sync_reset_stream();
	return 0;
}

void op_sync_free(void)
{
	kvfree(rec);
	rec = NULL;
}

static struct op_stream_out rec_out(void)
{
	return (struct op_stream_out){ rec, 0, REC_MAX };
}

/* false: the event buffer had no room (or the record did not fit rec) */
static bool add_record(struct op_stream_out const *o)
{
	return !op_out_overflowed(o) && op_event_buffer_add(o->w, o->len);
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
	c = op_cookie_get(&exe->f_path);
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
	*c = op_anon_cookie_get(tgid, e->start, e->end, name);
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
		*c = op_anon_cookie_get(tgid, vma->vm_start, vma->vm_end,
				     anon_name(mm, vma));
		if (!*c)
			return OP_LOST_NO_MAPPING;
		*pc -= vma->vm_start;
		return 0;
	}
	*c = op_cookie_get(&vma->vm_file->f_path);
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
	int cat;

	for (cat = 1; cat < OP_LOST_CATEGORY_MAX; cat++) {
		unsigned long w[OP_WORDS_LOST], now = op_stats.lost[cat];
		struct op_stream_out o = { w, 0, OP_WORDS_LOST };

		if (cat == OP_LOST_OVERFLOW)
			now = stat_total_overflow();
		if (now == lost_reported[cat])
			continue;
		op_put_lost(&o, cat, now - lost_reported[cat]);
		if (add_record(&o))
			lost_reported[cat] = now;
	}
}

/* One sample taken from a ring, and what the sync made of it. */
struct sync_sample {
	struct op_entry e;
	unsigned int nr_frames;         /* in bt[] */
	struct op_cookie *fc;           /* OPE_VMA in a file: the file's cookie */
	struct op_cookie *c;            /* a user sample's cookie */
	struct op_cookie *def_app, *def; /* the cookies its record defines */
	unsigned long pc;               /* raw kernel pc, or offset under c */
	int lost;                       /* 0, or the enum op_lost_category */
};

/* The frames of the sample being synced, and their cookies (user frames). */
static struct op_sync_frame bt[OP_MAX_DEPTH];
static struct op_cookie *bt_cookie[OP_MAX_DEPTH];

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
			bt[n].cookie = OP_NO_COOKIE;
			bt_cookie[n] = NULL;
			n++;
		}
	}
	return n;
}

/*
 * Take the next sample and its frames out of cb's ring, and make the
 * context its entry carries the consumer's (dropping the old references).
 */
static void take_sample(struct op_cpu *cb, int cpu, unsigned long head,
			struct sync_sample *x)
{
	unsigned long tail = cb->tail;

	memset(x, 0, sizeof(*x));
	x->e = cb->ring[tail++ & cb->mask];
	x->pc = x->e.pc;
	if (x->e.flags & OPE_TRACE)
		x->nr_frames = take_frames(cb, &tail, head);
	smp_store_release(&cb->tail, tail);
	if ((x->e.flags & OPE_VMA) && x->e.file) {
		x->fc = op_cookie_get(&x->e.file->f_path);
		op_file_put(x->e.file);
	}
	if (x->e.flags & OPE_CTX) {
		op_ctx_put(cb->cur_task, cb->cur_mm);
		cb->cur_task = x->e.task;
		cb->cur_mm = x->e.mm;
		cb->cur_app_cookie = app_cookie_of(x->e.mm, &x->def_app);
		/* the app cookie may differ (exec) */
		op_sync_new_context(&ss, cpu, x->e.task);
	}
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
		if (!mm || resolve_user(mm, tgid, &bt[i].pc, &bt_cookie[i])) {
			op_stats.lost[OP_LOST_BT_NO_MAPPING]++;
			return i;
		}
		bt[i].cookie = bt_cookie[i]->id;
	}
	return n;
}

/*
 * Resolve the sample's user pc and its user frames to (cookie, offset),
 * taking the mm's lock only when a lookup needs it; x->lost says why not.
 */
static void resolve_sample(struct op_cpu *cb, struct sync_sample *x)
{
	bool kernel = x->e.flags & OPE_KERNEL;
	bool user_frames = false;
	struct mm_struct *mm = cb->cur_mm, *locked;
	pid_t tgid = task_tgid_nr(cb->cur_task);
	/* looking a pc up needs the mm's lock: the user frames', and the
	 * sample's own unless the interrupt resolved it to a file (an
	 * anonymous region is named from its VMA) */
	bool in_file = (x->e.flags & OPE_VMA) && x->e.file;
	unsigned int i;

	for (i = 0; i < x->nr_frames && !user_frames; i++)
		user_frames = !bt[i].kernel;
	if (kernel && !user_frames)
		return;
	locked = mm && (user_frames || (!kernel && !in_file)) ? mm : NULL;
	if (locked)
		mmap_read_lock(locked);
	if (kernel)
		x->lost = 0;
	else if (x->e.flags & OPE_VMA)
		x->lost = resolve_sampled(&x->e, x->fc, locked, tgid, &x->pc, &x->c);
	else
		x->lost = mm ? resolve_user(mm, tgid, &x->pc, &x->c) : OP_LOST_NO_MM;
	if (!x->lost)
		x->nr_frames = resolve_frames(locked, tgid, x->nr_frames);
	if (locked)
		mmap_read_unlock(locked);
	if (x->c && !x->c->defined && x->c != x->def_app)
		x->def = x->c;
}

/*
 * Define, each in a record of its own, the frames' cookies not yet
 * defined in the stream (except those the sample's record defines
 * itself). false when the event buffer is full.
 */
static bool define_frame_cookies(struct sync_sample const *x)
{
	unsigned int i;

	for (i = 0; i < x->nr_frames; i++) {
		struct op_cookie *c = bt_cookie[i];
		struct op_stream_out o = rec_out();
		struct op_stream_def d;

		if (!c || c->defined || c == x->def_app || c == x->def)
			continue;
		d = op_cookie_def(c);
		op_put_def(&o, &d);
		if (!add_record(&o))
			return false;
		c->defined = true;
	}
	return true;
}

/* The record of a resolved sample into the event buffer, or its loss
 * counted; the decoder state moves only when the record got in. */
static void encode_sample(struct op_cpu *cb, int cpu, struct sync_sample *x)
{
	struct op_stream_def def_app, def;
	struct op_sync_sample s = {
		.cpu = cpu,
		.task = cb->cur_task,
		.tid = task_pid_nr(cb->cur_task),
		.tgid = task_tgid_nr(cb->cur_task),
		.app_cookie = cb->cur_app_cookie,
		.trace = x->e.flags & OPE_TRACE,
		.kernel = x->e.flags & OPE_KERNEL,
		.cookie = x->c ? x->c->id : OP_NO_COOKIE,
		.pc = x->pc,
		.event = x->e.event,
		.frames = bt,
		.nr_frames = x->nr_frames,
	};
	struct op_sync_state n = ss;
	struct op_stream_out o = rec_out();

	if (x->lost) {
		op_stats.lost[x->lost]++;
		return;
	}
	if (!define_frame_cookies(x)) {
		op_stats.lost[OP_LOST_EVENT_OVERFLOW]++;
		return;
	}
	if (x->def_app) {
		def_app = op_cookie_def(x->def_app);
		s.def_app = &def_app;
	}
	if (x->def) {
		def = op_cookie_def(x->def);
		s.def = &def;
	}
	op_sync_encode(&n, &o, &s);
	if (!add_record(&o)) {
		op_stats.lost[OP_LOST_EVENT_OVERFLOW]++;
		return;         /* decoder state unchanged: nothing written */
	}
	if (x->def_app)
		x->def_app->defined = true;
	if (x->def)
		x->def->defined = true;
	ss = n;
	op_stats.samples_emitted++;
}

static void sync_cpu(int cpu)
{
	struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);
	unsigned long head = smp_load_acquire(&cb->head);

	while (cb->tail != head) {
		struct sync_sample x;

		take_sample(cb, cpu, head, &x);
		if (!cb->cur_task)
			continue;       /* cannot happen: the first entry has a ctx */
		resolve_sample(cb, &x);
		encode_sample(cb, cpu, &x);
	}
}

/* Modules loaded since the last sync: where each is, then MODULE_LOADED.
 * A module record does not change the decoder's state. */
static void sync_modules(void)
{
	struct op_modload *m, *n;
	LIST_HEAD(todo);

	op_modloads_take(&todo);
	list_for_each_entry_safe(m, n, &todo, list) {
		struct op_stream_out o = rec_out();

		op_put_kernel_image(&o, m->start, m->end, m->name, strlen(m->name));
		op_put_escape(&o, OP_CODE_MODULE_LOADED);
		add_record(&o);
		list_del(&m->list);
		kfree(m);
	}
}

/* ESC COOKIE_FORGET for c, freed by op_cookies_expire; false: no room. */
static bool forget_cookie(struct op_cookie const *c)
{
	struct op_stream_out o = rec_out();
	struct op_sync_state st = ss;

	op_put_cookie_forget(&st.s, &o, c->id);
	if (!add_record(&o))
		return false;
	ss = st;
	op_stats.cookies_forgotten++;
	return true;
}

void op_sync(void)
{
	int cpu;

	if (!op_setup)
		return;
	op_stats.syncs++;
	sync_modules();
	report_losses();
	for_each_possible_cpu(cpu)
		sync_cpu(cpu);
	report_losses();
	op_cookies_expire(forget_cookie);
}

static void sync_work_fn(struct work_struct *w)
{
	mutex_lock(&op_mutex);
	op_sync();
	if (op_enabled)
		op_sync_schedule();
	mutex_unlock(&op_mutex);
}

void op_sync_init(void)
{
	INIT_DELAYED_WORK(&sync_work, sync_work_fn);
}

void op_sync_schedule(void)
{
	schedule_delayed_work(&sync_work, HZ / 10);
}

void op_sync_cancel(void)
{
	cancel_delayed_work(&sync_work);
}

void op_sync_cancel_wait(void)
{
	cancel_delayed_work_sync(&sync_work);
}
