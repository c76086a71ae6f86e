// SPDX-License-Identifier: GPL-2.0
/*
 * The files of /dev/oprofile: configuration numbers (range-checked,
 * refused with EBUSY while sampling), enable, dump, cpu_type, the counter
 * directories N/ (how many, and their ranges, depend on op_mode), and
 * stats/ (global and per cpu).
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "oprof.h"

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
	return simple_read_from_buffer(buf, count, off, op_mode.cpu_type,
				       strlen(op_mode.cpu_type));
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
PERCPU_STAT(timer_overrun)

#define GLOBAL_STAT(name, expr) \
static unsigned long stat_##name(long cpu) { return (expr); }
GLOBAL_STAT(no_mm, READ_ONCE(st_lost_no_mm))
GLOBAL_STAT(no_mapping, READ_ONCE(st_lost_no_mapping))
GLOBAL_STAT(bt_no_mapping, READ_ONCE(st_bt_lost_no_mapping))
GLOBAL_STAT(event_overflow, READ_ONCE(st_event_lost_overflow))
GLOBAL_STAT(emitted, READ_ONCE(st_samples_emitted))
GLOBAL_STAT(syncs, READ_ONCE(st_syncs))
GLOBAL_STAT(ncookies, READ_ONCE(st_cookies))
GLOBAL_STAT(modules, atomic_long_read(&st_module_loads))
GLOBAL_STAT(refs_held, atomic_long_read(&op_refs_held))
/* Objects the files point at: static, they outlive any superblock. */
static struct op_ulong u_buffer_size = { &buffer_size, 1024, 1UL << 26 };
static struct op_ulong u_watershed = { &buffer_watershed, 0, 1UL << 26 };
static struct op_ulong u_cpu_buffer_size = { &cpu_buffer_size, 64, 1UL << 20 };
static struct op_ulong u_backtrace = { &backtrace_depth, 0, OP_MAX_DEPTH };
static struct op_ulong u_pointer = { &pointer_size, 0, ~0UL, true };
static struct op_ulong u_ctr[OP_NR_COUNTERS][6];

static struct op_stat_file s_global[] = {
	{ stat_sample_received, -1 }, { stat_sample_lost_overflow, -1 },
	{ stat_no_mm, -1 }, { stat_no_mapping, -1 }, { stat_event_overflow, -1 },
	{ stat_emitted, -1 }, { stat_syncs, -1 }, { stat_ncookies, -1 },
	{ stat_modules, -1 }, { stat_sample_lost_no_regs, -1 }, { stat_refs_held, -1 },
	{ stat_timer_overrun, -1 }, { stat_bt_no_mapping, -1 },
};
static char const *const s_global_names[] = {
	"sample_received", "sample_lost_overflow", "sample_lost_no_mm",
	"sample_lost_no_mapping", "event_lost_overflow", "sample_emitted",
	"syncs", "cookies", "module_loads", "sample_lost_no_regs", "refs_held",
	"timer_overrun", "bt_lost_no_mapping",
};

int op_create_files(struct dentry *root)
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
	for (i = 0; i < op_mode.nr_counters; i++) {
		unsigned long *v = &counters[i].enabled;

		snprintf(name, sizeof(name), "%d", i);
		d = opfs_mkdir(root, name);
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
			err |= opfs_file(d, cnames[j], 0644, &ulong_fops, u);
		}
	}
	stats = opfs_mkdir(root, "stats");
	if (!stats)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(s_global); i++)
		err |= opfs_file(stats, s_global_names[i], 0444, &stat_fops, &s_global[i]);
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "cpu%d", cpu);
		d = opfs_mkdir(stats, name);
		if (!d)
			return -ENOMEM;
		struct op_stat_file *sf = per_cpu_ptr(&op_cpus, cpu)->st;

		sf[0] = (struct op_stat_file){ stat_sample_received, cpu };
		sf[1] = (struct op_stat_file){ stat_sample_lost_overflow, cpu };
		sf[2] = (struct op_stat_file){ stat_sample_lost_no_regs, cpu };
		sf[3] = (struct op_stat_file){ stat_timer_overrun, cpu };
		err |= opfs_file(d, "sample_received", 0444, &stat_fops, &sf[0]);
		err |= opfs_file(d, "sample_lost_overflow", 0444, &stat_fops, &sf[1]);
		err |= opfs_file(d, "sample_lost_no_regs", 0444, &stat_fops, &sf[2]);
		err |= opfs_file(d, "timer_overrun", 0444, &stat_fops, &sf[3]);
	}
	return err ? -ENOMEM : 0;
}
