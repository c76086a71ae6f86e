// SPDX-License-Identifier: GPL-2.0
/*
 * The files of /dev/oprofile: configuration numbers (range-checked,
 * refused with EBUSY while sampling), enable, dump, cpu_type, the counter
 * directories N/ (how many, and their ranges, depend on op_mode), and
 * stats/ (global and per cpu).
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "buffer_sync.h"
#include "cookies.h"
#include "cpu_buffer.h"
#include "event_buffer.h"
#include "oprof.h"
#include "oprofilefs.h"

static ssize_t read_ulong(unsigned long v, char __user *buf, size_t count, loff_t *off)
{
	char tmp[24];
	int len = scnprintf(tmp, sizeof(tmp), "%lu\n", v);

	return simple_read_from_buffer(buf, count, off, tmp, len);
}

/*
 * A number written to a file: decimal only, the whole write (one trailing
 * newline allowed), or -EINVAL. A write longer than any number is refused,
 * not cut short.
 */
static int parse_ulong(char const __user *buf, size_t count, loff_t *off,
		       unsigned long *v)
{
	char tmp[24];   /* 20 digits of 2^64-1, a newline, a NUL */

	if (*off || !count || count >= sizeof(tmp))
		return -EINVAL;
	if (copy_from_user(tmp, buf, count))
		return -EFAULT;
	tmp[count] = '\0';
	if (tmp[0] < '0' || tmp[0] > '9')
		return -EINVAL;         /* no sign, no blanks */
	return kstrtoul(tmp, 10, v) ? -EINVAL : 0;
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

/* Bytes of memory a buffer may take: a quarter of the RAM, so that its
 * allocation at open can succeed. */
static bool fits_in_ram(unsigned long entries, size_t entry_size, unsigned int copies)
{
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	return (u64)entries * entry_size * copies <= ram / 4;
}

/*
 * The value u will really be used as (cpu_buffer_size: the ring's power
 * of two), or -EINVAL when it breaks a limit that involves other values:
 * the watershed below the buffer size, the buffers' memory (op_mutex held).
 */
static long ulong_value(struct op_ulong const *u, unsigned long v)
{
	if (u->val == &op_cpu_buffer_size) {
		v = roundup_pow_of_two(v);
		if (!fits_in_ram(v, op_cpu_entry_size(), num_possible_cpus()))
			return -EINVAL;
	}
	if (u->val == &op_buffer_size &&
	    (v <= op_buffer_watershed || !fits_in_ram(v, sizeof(long), 1)))
		return -EINVAL;
	if (u->val == &op_buffer_watershed && v >= op_buffer_size)
		return -EINVAL;
	return v;
}

static ssize_t ulong_write(struct file *file, char const __user *buf, size_t count, loff_t *off)
{
	struct op_ulong *u = file->f_inode->i_private;
	unsigned long v;
	long use;
	int err;

	if (u->ro)
		return -EPERM;
	err = parse_ulong(buf, count, off, &v);
	if (err)
		return err;
	if (v < u->min || v > u->max)
		return -EINVAL;
	if (mutex_lock_killable(&op_mutex))
		return -EINTR;
	/* buffer sizes are fixed while buffer is open, counters while sampling */
	if (op_enabled || (op_setup && (u->val == &op_buffer_size ||
					u->val == &op_cpu_buffer_size))) {
		mutex_unlock(&op_mutex);
		return -EBUSY;
	}
	use = ulong_value(u, v);
	if (use >= 0)
		*u->val = use;
	mutex_unlock(&op_mutex);
	return use < 0 ? use : count;
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

	err = parse_ulong(buf, count, off, &v);
	if (err || v > 1)
		return err ? err : -EINVAL;
	if (mutex_lock_killable(&op_mutex))
		return -EINTR;
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

/*
 * Sync now and have a blocking reader take what there is, even below the
 * watershed. With nothing to flush the reader sleeps on: waking it to
 * find nothing would only make it wait again (the daemon reads
 * non-blocking: EAGAIN).
 */
static ssize_t dump_write(struct file *file, char const __user *buf, size_t count, loff_t *off)
{
	if (mutex_lock_killable(&op_mutex))
		return -EINTR;
	if (op_setup) {
		op_sync();
		if (op_event_buffer_used()) {
			op_dump = true;
			wake_up_interruptible(&op_buffer_wait);
		}
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
	return simple_read_from_buffer(buf, count, off, op_mode.cpu_type,
				       strlen(op_mode.cpu_type));
}

static const struct file_operations cpu_type_fops = {
	.read = cpu_type_read,
	.llseek = default_llseek,
};

/*
 * Read-only counters: i_private is one of these. The lost categories
 * take op_stream.h's names, as the daemon's stats files do.
 */
struct op_stat_file {
	char const *name;               /* NULL: op_lost_name(lost) */
	unsigned long (*fn)(long arg);
	long arg;                       /* a cpu (-1: the sum), or a category */
	unsigned long lost;             /* the category it counts, or 0 */
};

static char const *stat_name(struct op_stat_file const *f)
{
	return f->name ? f->name : op_lost_name(f->lost);
}

static ssize_t stat_read(struct file *file, char __user *buf, size_t count, loff_t *off)
{
	struct op_stat_file *s = file->f_inode->i_private;

	return read_ulong(s->fn(s->arg), buf, count, off);
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
PERCPU_STAT(timer_overrun)

static unsigned long stat_lost(long category)
{
	return READ_ONCE(op_stats.lost[category]);
}

#define GLOBAL_STAT(name, expr) \
static unsigned long stat_##name(long unused) { return (expr); }
GLOBAL_STAT(emitted, READ_ONCE(op_stats.samples_emitted))
GLOBAL_STAT(syncs, READ_ONCE(op_stats.syncs))
GLOBAL_STAT(ncookies, READ_ONCE(op_stats.cookies))
GLOBAL_STAT(cookies_freed, READ_ONCE(op_stats.cookies_freed))
GLOBAL_STAT(cookies_live, READ_ONCE(op_stats.cookies_live))
GLOBAL_STAT(cookies_forgotten, READ_ONCE(op_stats.cookies_forgotten))
GLOBAL_STAT(cookie_bytes, READ_ONCE(op_stats.cookie_bytes))
GLOBAL_STAT(modules, atomic_long_read(&op_stats.module_loads))
GLOBAL_STAT(refs_held, atomic_long_read(&op_refs_held))
/* Objects the files point at: static, they outlive any superblock. */
static struct op_ulong u_buffer_size = { &op_buffer_size, 1024, OP_MAX_BUFFER_SIZE };
static struct op_ulong u_watershed = { &op_buffer_watershed, 0, OP_MAX_BUFFER_SIZE - 1 };
static struct op_ulong u_cpu_buffer_size = { &op_cpu_buffer_size, 64, OP_MAX_CPU_BUFFER_SIZE };
static struct op_ulong u_backtrace = { &op_backtrace_depth, 0, OP_MAX_DEPTH };
static struct op_ulong u_pointer = { &op_pointer_size, 0, ~0UL, true };
static struct op_ulong u_ctr[OP_NR_COUNTERS][6];

static struct op_stat_file s_global[] = {
	{ "sample_received", stat_sample_received, -1 },
	{ NULL, stat_sample_lost_overflow, -1, OP_LOST_OVERFLOW },
	{ NULL, stat_lost, OP_LOST_NO_MM, OP_LOST_NO_MM },
	{ NULL, stat_lost, OP_LOST_NO_MAPPING, OP_LOST_NO_MAPPING },
	{ NULL, stat_lost, OP_LOST_EVENT_OVERFLOW, OP_LOST_EVENT_OVERFLOW },
	{ "sample_emitted", stat_emitted },
	{ "syncs", stat_syncs },
	{ "cookies", stat_ncookies },
	{ "cookies_freed", stat_cookies_freed },
	{ "cookies_live", stat_cookies_live },
	{ "cookies_forgotten", stat_cookies_forgotten },
	{ "cookie_bytes", stat_cookie_bytes },
	{ "module_loads", stat_modules },
	{ "sample_lost_no_regs", stat_sample_lost_no_regs, -1 },
	{ "refs_held", stat_refs_held },
	{ "timer_overrun", stat_timer_overrun, -1 },
	{ NULL, stat_lost, OP_LOST_BT_NO_MAPPING, OP_LOST_BT_NO_MAPPING },
};

/* Each cpu's stats/cpuN/ files. */
struct op_cpu_stat_files {
	struct op_stat_file f[4];
};
static DEFINE_PER_CPU(struct op_cpu_stat_files, cpu_stat_files);

static int create_stats(struct dentry *root)
{
	struct dentry *stats, *d;
	char name[16];
	int err = 0, i, cpu;

	stats = op_fs_mkdir(root, "stats");
	if (!stats)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(s_global); i++)
		err |= op_fs_file(stats, stat_name(&s_global[i]), 0444, &stat_fops,
				  &s_global[i]);
	for_each_possible_cpu(cpu) {
		struct op_stat_file *sf = per_cpu_ptr(&cpu_stat_files, cpu)->f;

		snprintf(name, sizeof(name), "cpu%d", cpu);
		d = op_fs_mkdir(stats, name);
		if (!d)
			return -ENOMEM;
		sf[0] = (struct op_stat_file){ "sample_received", stat_sample_received, cpu };
		sf[1] = (struct op_stat_file){ NULL, stat_sample_lost_overflow, cpu,
					       OP_LOST_OVERFLOW };
		sf[2] = (struct op_stat_file){ "sample_lost_no_regs", stat_sample_lost_no_regs, cpu };
		sf[3] = (struct op_stat_file){ "timer_overrun", stat_timer_overrun, cpu };
		for (i = 0; i < 4; i++)
			err |= op_fs_file(d, stat_name(&sf[i]), 0444, &stat_fops, &sf[i]);
	}
	return err ? -ENOMEM : 0;
}

int op_create_files(struct dentry *root)
{
	static char const *const cnames[6] = { "enabled", "event", "count",
		"unit_mask", "kernel", "user" };
	struct dentry *d;
	int err = 0, i, j;
	char name[16];

	err |= op_fs_file(root, "enable", 0644, &enable_fops, NULL);
	err |= op_fs_file(root, "dump", 0200, &dump_fops, NULL);
	err |= op_fs_file(root, "buffer", 0400, &op_buffer_fops, NULL);
	err |= op_fs_file(root, "buffer_size", 0644, &ulong_fops, &u_buffer_size);
	err |= op_fs_file(root, "buffer_watershed", 0644, &ulong_fops, &u_watershed);
	err |= op_fs_file(root, "cpu_buffer_size", 0644, &ulong_fops, &u_cpu_buffer_size);
	err |= op_fs_file(root, "backtrace_depth", 0644, &ulong_fops, &u_backtrace);
	err |= op_fs_file(root, "pointer_size", 0444, &ulong_fops, &u_pointer);
	err |= op_fs_file(root, "cpu_type", 0444, &cpu_type_fops, NULL);
	/* the paths of everything sampled: root only, as buffer */
	err |= op_fs_file(root, "cookies", 0400, &op_cookies_fops, NULL);
	for (i = 0; i < op_mode.nr_counters; i++) {
		unsigned long *v = &op_counters[i].enabled;

		snprintf(name, sizeof(name), "%d", i);
		d = op_fs_mkdir(root, name);
		if (!d)
			return -ENOMEM;
		for (j = 0; j < 6; j++) {
			struct op_ulong *u = &u_ctr[i][j];

			u->val = v + j;
			u->min = 0;
			u->max = 1;                             /* enabled, kernel, user */
			if (j == 1)
				u->max = op_mode.event_max;
			if (j == 3)
				u->max = op_mode.unit_mask_max;
			if (j == 2) {
				u->min = op_mode.count_min;     /* clocks: period in ns */
				u->max = op_mode.count_max;
			}
			err |= op_fs_file(d, cnames[j], 0644, &ulong_fops, u);
		}
	}
	err |= create_stats(root);
	return err ? -ENOMEM : 0;
}
