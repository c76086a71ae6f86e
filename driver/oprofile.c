// SPDX-License-Identifier: GPL-2.0
/*
 * oprofile-ng's kernel driver for Linux 6.1: the oprofilefs filesystem
 * (mounted at /dev/oprofile), timer-mode sampling (a per-cpu hrtimer) into
 * per-cpu single-producer rings, and a periodic sync in process context
 * that turns the samples into the escape-coded event stream of
 * libop/op_stream.h, which read() on /dev/oprofile/buffer returns.
 *
 * Locking and contexts:
 *  - The hrtimer callback (hardirq) is the only producer of its cpu's ring.
 *    It takes task and mm references (atomic increments) when the context
 *    changes; it never sleeps, never takes mmap_lock.
 *  - Everything else runs under op_mutex in process context: the sync
 *    (delayed work every HZ/10, and on dump/disable), read(), the control
 *    files, open/release of buffer. The sync is the only consumer of the
 *    rings; it drops the references (put_task_struct, mmput) and resolves
 *    user pcs with find_vma under mmap_read_lock.
 *  - Cookies: our own table of pinned struct paths (dcookies are gone);
 *    each is defined in-band (OP_CODE_COOKIE_DEF) before its first use in
 *    a stream, and listed in /dev/oprofile/cookies.
 */
#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/path.h>
#include <linux/poll.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <asm/irq_regs.h>

#include "op_stream.h"

#define OPROFILEFS_MAGIC 0x6f70726f
#define OP_NR_COUNTERS 1          /* timer mode: one hrtimer per cpu */
#define OP_MIN_PERIOD_NS 10000UL  /* as events/timer/events' minimum */
#define OP_MAX_PATH_WORDS (PATH_MAX / sizeof(unsigned long) + 1)

/* ---------------------------------------------------------------- config */

static unsigned long buffer_size = 131072;      /* event buffer, words */
static unsigned long buffer_watershed = 32768;  /* wake the reader this close to full */
static unsigned long cpu_buffer_size = 8192;    /* per-cpu ring, entries */
static unsigned long backtrace_depth;           /* accepted: 0 only */
static unsigned long pointer_size = sizeof(void *);

struct op_counter {
	unsigned long enabled, event, count, unit_mask, kernel, user;
};
static struct op_counter counters[OP_NR_COUNTERS] = {
	{ .enabled = 1, .event = 0, .count = 1000000, .kernel = 1, .user = 1 },
};

/* ----------------------------------------------------------------- state */

static DEFINE_MUTEX(op_mutex);          /* everything but the irq path */
static unsigned long buffer_opened;     /* bit 0: buffer has its one reader */
static bool op_setup;                   /* buffers allocated (buffer open) */
static bool op_enabled;                 /* sampling */
static bool op_dump;                    /* a dump asked the reader to wake */
static bool op_stopped;                 /* sampling ran and stopped: read() may end */
static DECLARE_WAIT_QUEUE_HEAD(buffer_wait);
static struct delayed_work sync_work;

/* One ring entry, written by the cpu's hrtimer. */
enum { OPE_KERNEL = 1, OPE_CTX = 2 };
struct op_entry {
	unsigned long pc;
	unsigned int event;
	unsigned int flags;
	struct task_struct *task;       /* OPE_CTX: a reference */
	struct mm_struct *mm;           /* OPE_CTX: a reference, or NULL */
};

struct op_cpu {
	/* ring: producer = this cpu's hrtimer, consumer = the sync */
	struct op_entry *ring;
	unsigned long head;             /* next to write (producer) */
	unsigned long tail;             /* next to read (consumer) */
	unsigned long mask;
	struct hrtimer timer;
	bool running;
	/* producer's view of the context (pointers only, no references) */
	struct task_struct *last_task;
	struct mm_struct *last_mm;
	/* statistics, written on this cpu only */
	unsigned long sample_received;
	unsigned long sample_lost_overflow;
	unsigned long sample_lost_no_regs;
	/* consumer: the newest context, holding its references */
	struct task_struct *cur_task;
	struct mm_struct *cur_mm;
	unsigned long cur_app_cookie;
	struct op_stat_file { unsigned long (*fn)(long); long cpu; } st[3];
};
static DEFINE_PER_CPU(struct op_cpu, op_cpus);

/* Global statistics (under op_mutex, or atomic). */
static unsigned long st_lost_no_mm, st_lost_no_mapping, st_event_lost_overflow;
static unsigned long st_samples_emitted, st_syncs, st_cookies;
static atomic_long_t st_module_loads = ATOMIC_LONG_INIT(0);
static unsigned long lost_reported[OP_LOST_CATEGORY_MAX]; /* sent in-band */

/* ---------------------------------------------------------- event buffer */

static unsigned long *ebuf;     /* ring of buffer_size words */
static unsigned long ebuf_size, ebuf_head, ebuf_tail; /* head - tail words used */

static unsigned long ebuf_used(void)
{
	return ebuf_head - ebuf_tail;
}

/* Add a whole record or nothing (so the decoder never sees half of one).
 * The caller counts what a failure loses. */
static bool ebuf_add(unsigned long const *w, unsigned long n)
{
	unsigned long i;

	if (!ebuf || ebuf_size - ebuf_used() < n)
		return false;
	for (i = 0; i < n; i++)
		ebuf[(ebuf_head + i) % ebuf_size] = w[i];
	ebuf_head += n;
	if (ebuf_used() >= ebuf_size - min(buffer_watershed, ebuf_size))
		wake_up_interruptible(&buffer_wait);
	return true;
}

static bool ebuf_ready(void)
{
	return op_dump || op_stopped ||
		ebuf_used() >= ebuf_size - min(buffer_watershed, ebuf_size);
}

/* --------------------------------------------------------------- cookies */

struct op_cookie {
	struct list_head list;
	struct path path;
	unsigned long id;
	char *name;
	size_t len;
	bool defined;                   /* defined in the current stream */
};
static LIST_HEAD(cookies);
static unsigned long next_cookie_id = 1;
static char *path_page;

/* The cookie of path, created (pinning the path) on first use. 0: no memory. */
static struct op_cookie *cookie_get(const struct path *p)
{
	struct op_cookie *c;
	char *s;

	list_for_each_entry(c, &cookies, list)
		if (c->path.dentry == p->dentry && c->path.mnt == p->mnt)
			return c;
	s = d_path(p, path_page, PAGE_SIZE);
	if (IS_ERR(s))
		return NULL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->name = kstrdup(s, GFP_KERNEL);
	if (!c->name) {
		kfree(c);
		return NULL;
	}
	c->len = strlen(c->name);
	c->path = *p;
	path_get(&c->path);
	c->id = next_cookie_id++;
	list_add(&c->list, &cookies);
	st_cookies++;
	return c;
}

static void cookies_free(void)
{
	struct op_cookie *c, *n;

	list_for_each_entry_safe(c, n, &cookies, list) {
		list_del(&c->list);
		path_put(&c->path);
		kfree(c->name);
		kfree(c);
	}
	next_cookie_id = 1;
}

/* -------------------------------------------------------------- sampling */

/* Put one entry into this cpu's ring (hardirq). */
static void op_add_sample(struct op_cpu *cb, struct pt_regs *regs, unsigned int event)
{
	struct task_struct *task = current;
	struct mm_struct *mm = task->mm;
	bool kernel = !user_mode(regs);
	unsigned long head = cb->head;
	struct op_entry *e;

	if (kernel ? !counters[event].kernel : !counters[event].user)
		return;
	cb->sample_received++;
	if (head - smp_load_acquire(&cb->tail) > cb->mask) {
		cb->sample_lost_overflow++;
		return;
	}
	e = &cb->ring[head & cb->mask];
	e->pc = instruction_pointer(regs);
	e->event = event;
	e->flags = kernel ? OPE_KERNEL : 0;
	e->task = NULL;
	e->mm = NULL;
	if (task != cb->last_task || mm != cb->last_mm) {
		e->flags |= OPE_CTX;
		get_task_struct(task);
		e->task = task;
		if (mm && mmget_not_zero(mm))
			e->mm = mm;
		cb->last_task = task;
		cb->last_mm = mm;
	}
	smp_store_release(&cb->head, head + 1);
}

static enum hrtimer_restart op_timer_fn(struct hrtimer *t)
{
	struct op_cpu *cb = container_of(t, struct op_cpu, timer);
	struct pt_regs *regs = get_irq_regs();

	if (!READ_ONCE(cb->running))
		return HRTIMER_NORESTART;
	if (regs)
		op_add_sample(cb, regs, 0);
	else
		cb->sample_lost_no_regs++;
	hrtimer_forward_now(t, ns_to_ktime(counters[0].count));
	return HRTIMER_RESTART;
}

static void op_timer_start_cpu(void *unused)
{
	struct op_cpu *cb = this_cpu_ptr(&op_cpus);

	WRITE_ONCE(cb->running, true);
	hrtimer_start(&cb->timer, ns_to_ktime(counters[0].count),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/* ------------------------------------------------------------------ sync */

/* The decoder's state as far as the words already in the buffer go. */
static struct {
	long cpu;                       /* -1: unknown */
	struct task_struct *task;       /* NULL: unknown */
	int mode;                       /* -1 unknown, 0 user, 1 kernel */
	unsigned long cookie;
	bool cookie_known;
} ss;

static void stream_reset(void)
{
	ss.cpu = -1;
	ss.task = NULL;
	ss.mode = -1;
	ss.cookie_known = false;
}

/* A record being built; added to the event buffer whole. */
static unsigned long *rec;
static unsigned long rec_len;
#define REC_MAX (4 * OP_MAX_PATH_WORDS + 64)

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
			if (cb->cur_task)
				put_task_struct(cb->cur_task);
			if (cb->cur_mm)
				mmput(cb->cur_mm);
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

/* Modules loaded while profiling, waiting for the next sync. */
struct op_modload {
	struct list_head list;
	unsigned long start, end;
	char name[MODULE_NAME_LEN];
};
static LIST_HEAD(modloads);
static DEFINE_SPINLOCK(modloads_lock);

static void sync_modules(void)
{
	struct op_modload *m, *n;
	LIST_HEAD(todo);

	spin_lock(&modloads_lock);
	list_splice_init(&modloads, &todo);
	spin_unlock(&modloads_lock);
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
static void op_sync(void)
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

static void sync_work_fn(struct work_struct *w)
{
	mutex_lock(&op_mutex);
	op_sync();
	if (op_enabled)
		schedule_delayed_work(&sync_work, HZ / 10);
	mutex_unlock(&op_mutex);
}

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

static int op_start(void)
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
	cpus_read_lock();
	on_each_cpu(op_timer_start_cpu, NULL, 1);
	cpus_read_unlock();
	schedule_delayed_work(&sync_work, HZ / 10);
	return 0;
}

/* Stop sampling, sync everything, drop the references. op_mutex held. */
static void op_stop(void)
{
	int cpu;

	if (!op_enabled)
		return;
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&op_cpus, cpu)->running, false);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&op_cpus, cpu)->timer);
	op_enabled = false;
	op_stopped = true;
	/* a running sync_work_fn waits for op_mutex and does not re-arm */
	cancel_delayed_work(&sync_work);
	op_sync();
	drop_contexts();
	wake_up_interruptible(&buffer_wait);
}

/* -------------------------------------------------------- module notifier */

static int op_module_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct module *mod = data;
	struct op_modload *m;

	if (val != MODULE_STATE_COMING || !READ_ONCE(op_enabled))
		return NOTIFY_DONE;
	atomic_long_inc(&st_module_loads);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return NOTIFY_DONE;
	m->start = (unsigned long)mod->core_layout.base;
	m->end = m->start + mod->core_layout.size;
	strscpy(m->name, mod->name, sizeof(m->name));
	spin_lock(&modloads_lock);
	list_add_tail(&m->list, &modloads);
	spin_unlock(&modloads_lock);
	return NOTIFY_DONE;
}

static struct notifier_block op_module_nb = {
	.notifier_call = op_module_notify,
};

/* --------------------------------------------------- setup and teardown */

static void op_free_buffers(void)
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

static int op_alloc_buffers(void)
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
	st_samples_emitted = st_syncs = st_cookies = 0;
	memset(lost_reported, 0, sizeof(lost_reported));
	atomic_long_set(&st_module_loads, 0);
	stream_reset();
	return 0;
fail:
	op_free_buffers();
	return -ENOMEM;
}

/* ------------------------------------------------------ /dev/oprofile/buffer */

static int buffer_open(struct inode *inode, struct file *file)
{
	int err;

	if (!perfmon_capable())
		return -EPERM;
	if (test_and_set_bit_lock(0, &buffer_opened))
		return -EBUSY;
	mutex_lock(&op_mutex);
	err = op_alloc_buffers();
	if (!err) {
		op_setup = true;
		op_stopped = false;
		op_dump = false;
	}
	mutex_unlock(&op_mutex);
	if (err) {
		clear_bit_unlock(0, &buffer_opened);
		return err;
	}
	return nonseekable_open(inode, file);
}

static int buffer_release(struct inode *inode, struct file *file)
{
	mutex_lock(&op_mutex);
	op_stop();
	op_setup = false;
	op_free_buffers();
	mutex_unlock(&op_mutex);
	cancel_delayed_work_sync(&sync_work);
	clear_bit_unlock(0, &buffer_opened);
	return 0;
}

/*
 * Whole words, as many as fit in count (count must hold at least one).
 * Blocks (unless O_NONBLOCK: -EAGAIN) until there are words and the buffer
 * is within buffer_watershed of full, or dump was written, or sampling
 * stopped (a non-blocking read returns whatever there is). 0 (end of file)
 * once sampling was enabled and then disabled, and everything was read;
 * before the first enable a read waits.
 */
static ssize_t buffer_read(struct file *file, char __user *buf, size_t count, loff_t *off)
{
	unsigned long n, done = 0;
	ssize_t ret;

	if (count < sizeof(unsigned long))
		return -EINVAL;
	for (;;) {
		mutex_lock(&op_mutex);
		if (ebuf_used() && (ebuf_ready() || (file->f_flags & O_NONBLOCK)))
			break;
		if (op_stopped && !ebuf_used()) {
			mutex_unlock(&op_mutex);
			return 0;
		}
		mutex_unlock(&op_mutex);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(buffer_wait, READ_ONCE(op_dump) ||
					     READ_ONCE(op_stopped) ||
					     ebuf_used() >= ebuf_size - min(buffer_watershed, ebuf_size)))
			return -ERESTARTSYS;
	}
	n = min_t(unsigned long, count / sizeof(unsigned long), ebuf_used());
	ret = 0;
	while (done < n) {
		unsigned long at = ebuf_tail % ebuf_size;
		unsigned long chunk = min(n - done, ebuf_size - at);

		if (copy_to_user(buf + done * sizeof(long), ebuf + at, chunk * sizeof(long))) {
			ret = -EFAULT;
			break;
		}
		done += chunk;
		ebuf_tail += chunk;
	}
	if (!ebuf_used())
		op_dump = false;
	mutex_unlock(&op_mutex);
	return done ? (ssize_t)(done * sizeof(long)) : ret;
}

static __poll_t buffer_poll(struct file *file, poll_table *wait)
{
	__poll_t mask = 0;

	poll_wait(file, &buffer_wait, wait);
	mutex_lock(&op_mutex);
	if (ebuf_used() && ebuf_ready())
		mask |= EPOLLIN | EPOLLRDNORM;
	else if (op_stopped && !ebuf_used())
		mask |= EPOLLIN | EPOLLRDNORM; /* end of file */
	mutex_unlock(&op_mutex);
	return mask;
}

static const struct file_operations buffer_fops = {
	.owner = THIS_MODULE,
	.open = buffer_open,
	.release = buffer_release,
	.read = buffer_read,
	.poll = buffer_poll,
	.llseek = no_llseek,
};

/* ------------------------------------------------------------ text files */

static ssize_t read_ulong(unsigned long v, char __user *buf, size_t count, loff_t *off)
{
	char tmp[24];
	int len = scnprintf(tmp, sizeof(tmp), "%lu\n", v);

	return simple_read_from_buffer(buf, count, off, tmp, len);
}

/* A configuration number: range-checked, refused while sampling. */
struct op_ulong {
	unsigned long *val;
	unsigned long min, max;
	bool ro;
};

static ssize_t ulong_read(struct file *file, char __user *buf, size_t count, loff_t *off)
{
	struct op_ulong *u = file->f_inode->i_private;

	return read_ulong(READ_ONCE(*u->val), buf, count, off);
}

static ssize_t ulong_write(struct file *file, char const __user *buf, size_t count, loff_t *off)
{
	struct op_ulong *u = file->f_inode->i_private;
	unsigned long v;
	int err;

	if (u->ro)
		return -EPERM;
	if (*off)
		return -EINVAL;
	err = kstrtoul_from_user(buf, count, 0, &v);
	if (err)
		return -EINVAL;
	if (v < u->min || v > u->max)
		return -EINVAL;
	mutex_lock(&op_mutex);
	/* buffer sizes are fixed while buffer is open, counters while sampling */
	if (op_enabled || (op_setup && (u->val == &buffer_size ||
					u->val == &cpu_buffer_size))) {
		mutex_unlock(&op_mutex);
		return -EBUSY;
	}
	*u->val = v;
	mutex_unlock(&op_mutex);
	return count;
}

static const struct file_operations ulong_fops = {
	.open = simple_open,
	.read = ulong_read,
	.write = ulong_write,
	.llseek = default_llseek,
};

static ssize_t enable_read(struct file *file, char __user *buf, size_t count, loff_t *off)
{
	return read_ulong(READ_ONCE(op_enabled), buf, count, off);
}

static ssize_t enable_write(struct file *file, char const __user *buf, size_t count, loff_t *off)
{
	unsigned long v;
	int err = 0;

	if (*off)
		return -EINVAL;
	if (kstrtoul_from_user(buf, count, 0, &v) || v > 1)
		return -EINVAL;
	mutex_lock(&op_mutex);
	if (v && !op_setup)
		err = -EINVAL;          /* open buffer first */
	else if (v && !op_enabled)
		err = op_start();
	else if (!v)
		op_stop();
	mutex_unlock(&op_mutex);
	return err ? err : count;
}

static const struct file_operations enable_fops = {
	.read = enable_read,
	.write = enable_write,
	.llseek = default_llseek,
};

static ssize_t dump_write(struct file *file, char const __user *buf, size_t count, loff_t *off)
{
	mutex_lock(&op_mutex);
	if (op_setup) {
		op_sync();
		op_dump = true;
		wake_up_interruptible(&buffer_wait);
	}
	mutex_unlock(&op_mutex);
	return count;
}

static const struct file_operations dump_fops = {
	.write = dump_write,
	.llseek = noop_llseek,
};

static ssize_t cpu_type_read(struct file *file, char __user *buf, size_t count, loff_t *off)
{
	return simple_read_from_buffer(buf, count, off, "timer", 5);
}

static const struct file_operations cpu_type_fops = {
	.read = cpu_type_read,
	.llseek = default_llseek,
};

/* Read-only counters: i_private is a function computing the value. */

static ssize_t stat_read(struct file *file, char __user *buf, size_t count, loff_t *off)
{
	struct op_stat_file *s = file->f_inode->i_private;

	return read_ulong(s->fn(s->cpu), buf, count, off);
}

static const struct file_operations stat_fops = {
	.open = simple_open,
	.read = stat_read,
	.llseek = default_llseek,
};

#define PERCPU_STAT(field) \
static unsigned long stat_##field(long cpu) \
{ \
	unsigned long sum = 0; \
	int c; \
	if (cpu >= 0) \
		return READ_ONCE(per_cpu_ptr(&op_cpus, cpu)->field); \
	for_each_possible_cpu(c) \
		sum += READ_ONCE(per_cpu_ptr(&op_cpus, c)->field); \
	return sum; \
}
PERCPU_STAT(sample_received)
PERCPU_STAT(sample_lost_overflow)
PERCPU_STAT(sample_lost_no_regs)

#define GLOBAL_STAT(name, expr) \
static unsigned long stat_##name(long cpu) { return (expr); }
GLOBAL_STAT(no_mm, READ_ONCE(st_lost_no_mm))
GLOBAL_STAT(no_mapping, READ_ONCE(st_lost_no_mapping))
GLOBAL_STAT(event_overflow, READ_ONCE(st_event_lost_overflow))
GLOBAL_STAT(emitted, READ_ONCE(st_samples_emitted))
GLOBAL_STAT(syncs, READ_ONCE(st_syncs))
GLOBAL_STAT(ncookies, READ_ONCE(st_cookies))
GLOBAL_STAT(modules, atomic_long_read(&st_module_loads))

static int cookies_show(struct seq_file *m, void *v)
{
	struct op_cookie *c;

	mutex_lock(&op_mutex);
	list_for_each_entry(c, &cookies, list)
		seq_printf(m, "%lu %s\n", c->id, c->name);
	mutex_unlock(&op_mutex);
	return 0;
}

static int cookies_open(struct inode *inode, struct file *file)
{
	return single_open(file, cookies_show, NULL);
}

static const struct file_operations cookies_fops = {
	.open = cookies_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ------------------------------------------------------------ oprofilefs */

static struct inode *opfs_inode(struct super_block *sb, umode_t mode)
{
	struct inode *inode = new_inode(sb);

	if (inode) {
		inode->i_ino = get_next_ino();
		inode->i_mode = mode;
		inode->i_atime = inode->i_mtime = inode->i_ctime = current_time(inode);
	}
	return inode;
}

static struct dentry *opfs_add(struct dentry *parent, char const *name, umode_t mode,
			       const struct file_operations *fops, void *priv)
{
	struct dentry *d;
	struct inode *inode;

	inode_lock(d_inode(parent));
	d = d_alloc_name(parent, name);
	if (!d)
		goto out;
	inode = opfs_inode(parent->d_sb, mode);
	if (!inode) {
		dput(d);
		d = NULL;
		goto out;
	}
	if (S_ISDIR(mode)) {
		inode->i_op = &simple_dir_inode_operations;
		inode->i_fop = &simple_dir_operations;
		inc_nlink(inode);
		inc_nlink(d_inode(parent));
	} else {
		inode->i_fop = fops;
		inode->i_private = priv;
	}
	d_add(d, inode);
out:
	inode_unlock(d_inode(parent));
	return d;
}

static int opfs_file(struct dentry *dir, char const *name, umode_t perm,
		     const struct file_operations *fops, void *priv)
{
	return opfs_add(dir, name, S_IFREG | perm, fops, priv) ? 0 : -ENOMEM;
}

/* Objects the files point at: static, they outlive any superblock. */
static struct op_ulong u_buffer_size = { &buffer_size, 1024, 1UL << 26 };
static struct op_ulong u_watershed = { &buffer_watershed, 0, 1UL << 26 };
static struct op_ulong u_cpu_buffer_size = { &cpu_buffer_size, 64, 1UL << 20 };
static struct op_ulong u_backtrace = { &backtrace_depth, 0, 0 };
static struct op_ulong u_pointer = { &pointer_size, 0, ~0UL, true };
static struct op_ulong u_ctr[OP_NR_COUNTERS][6];

static struct op_stat_file s_global[] = {
	{ stat_sample_received, -1 }, { stat_sample_lost_overflow, -1 },
	{ stat_no_mm, -1 }, { stat_no_mapping, -1 }, { stat_event_overflow, -1 },
	{ stat_emitted, -1 }, { stat_syncs, -1 }, { stat_ncookies, -1 },
	{ stat_modules, -1 }, { stat_sample_lost_no_regs, -1 },
};
static char const *const s_global_names[] = {
	"sample_received", "sample_lost_overflow", "sample_lost_no_mm",
	"sample_lost_no_mapping", "event_lost_overflow", "sample_emitted",
	"syncs", "cookies", "module_loads", "sample_lost_no_regs",
};

static int opfs_create_files(struct dentry *root)
{
	static char const *const cnames[6] = { "enabled", "event", "count",
		"unit_mask", "kernel", "user" };
	struct dentry *d, *stats;
	int err = 0, i, j, cpu;
	char name[16];

	err |= opfs_file(root, "enable", 0644, &enable_fops, NULL);
	err |= opfs_file(root, "dump", 0666, &dump_fops, NULL);
	err |= opfs_file(root, "buffer", 0400, &buffer_fops, NULL);
	err |= opfs_file(root, "buffer_size", 0644, &ulong_fops, &u_buffer_size);
	err |= opfs_file(root, "buffer_watershed", 0644, &ulong_fops, &u_watershed);
	err |= opfs_file(root, "cpu_buffer_size", 0644, &ulong_fops, &u_cpu_buffer_size);
	err |= opfs_file(root, "backtrace_depth", 0644, &ulong_fops, &u_backtrace);
	err |= opfs_file(root, "pointer_size", 0444, &ulong_fops, &u_pointer);
	err |= opfs_file(root, "cpu_type", 0444, &cpu_type_fops, NULL);
	err |= opfs_file(root, "cookies", 0444, &cookies_fops, NULL);
	for (i = 0; i < OP_NR_COUNTERS; i++) {
		unsigned long *v = &counters[i].enabled;

		snprintf(name, sizeof(name), "%d", i);
		d = opfs_add(root, name, S_IFDIR | 0755, NULL, NULL);
		if (!d)
			return -ENOMEM;
		for (j = 0; j < 6; j++) {
			struct op_ulong *u = &u_ctr[i][j];

			u->val = v + j;
			u->min = 0;
			u->max = 1;                             /* enabled, kernel, user */
			if (j == 1 || j == 3)
				u->max = 0;                     /* event 0 CPU_CLOCK, no unit mask */
			if (j == 2) {
				u->min = OP_MIN_PERIOD_NS;      /* count: period in ns */
				u->max = NSEC_PER_SEC;
			}
			err |= opfs_file(d, cnames[j], 0644, &ulong_fops, u);
		}
	}
	stats = opfs_add(root, "stats", S_IFDIR | 0755, NULL, NULL);
	if (!stats)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(s_global); i++)
		err |= opfs_file(stats, s_global_names[i], 0444, &stat_fops, &s_global[i]);
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "cpu%d", cpu);
		d = opfs_add(stats, name, S_IFDIR | 0755, NULL, NULL);
		if (!d)
			return -ENOMEM;
		struct op_stat_file *sf = per_cpu_ptr(&op_cpus, cpu)->st;

		sf[0] = (struct op_stat_file){ stat_sample_received, cpu };
		sf[1] = (struct op_stat_file){ stat_sample_lost_overflow, cpu };
		sf[2] = (struct op_stat_file){ stat_sample_lost_no_regs, cpu };
		err |= opfs_file(d, "sample_received", 0444, &stat_fops, &sf[0]);
		err |= opfs_file(d, "sample_lost_overflow", 0444, &stat_fops, &sf[1]);
		err |= opfs_file(d, "sample_lost_no_regs", 0444, &stat_fops, &sf[2]);
	}
	return err ? -ENOMEM : 0;
}

static const struct super_operations opfs_super_ops = {
	.statfs = simple_statfs,
	.drop_inode = generic_delete_inode,
};

static int opfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct inode *root;

	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = OPROFILEFS_MAGIC;
	sb->s_op = &opfs_super_ops;
	sb->s_time_gran = 1;
	root = opfs_inode(sb, S_IFDIR | 0755);
	if (!root)
		return -ENOMEM;
	root->i_op = &simple_dir_inode_operations;
	root->i_fop = &simple_dir_operations;
	set_nlink(root, 2);
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	return opfs_create_files(sb->s_root);
}

static int opfs_get_tree(struct fs_context *fc)
{
	return get_tree_single(fc, opfs_fill_super);
}

static const struct fs_context_operations opfs_context_ops = {
	.get_tree = opfs_get_tree,
};

static int opfs_init_fs_context(struct fs_context *fc)
{
	fc->ops = &opfs_context_ops;
	return 0;
}

static struct file_system_type oprofilefs_type = {
	.owner = THIS_MODULE,
	.name = "oprofilefs",
	.init_fs_context = opfs_init_fs_context,
	.kill_sb = kill_litter_super,
};

/* ---------------------------------------------------------------- module */

static int __init oprofile_init(void)
{
	int cpu, err;

	INIT_DELAYED_WORK(&sync_work, sync_work_fn);
	for_each_possible_cpu(cpu) {
		struct op_cpu *cb = per_cpu_ptr(&op_cpus, cpu);

		hrtimer_init(&cb->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		cb->timer.function = op_timer_fn;
	}
	err = register_module_notifier(&op_module_nb);
	if (err)
		return err;
	err = register_filesystem(&oprofilefs_type);
	if (err) {
		unregister_module_notifier(&op_module_nb);
		return err;
	}
	pr_info("oprofile: timer mode, oprofilefs registered\n");
	return 0;
}

static void __exit oprofile_exit(void)
{
	struct op_modload *m, *n;

	unregister_filesystem(&oprofilefs_type);
	unregister_module_notifier(&op_module_nb);
	cancel_delayed_work_sync(&sync_work);
	list_for_each_entry_safe(m, n, &modloads, list)
		kfree(m);
}

module_init(oprofile_init);
module_exit(oprofile_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("oprofile-ng oprofilefs driver (timer mode)");
