/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences the driver meets after 6.1, behind version
 * checks. Only the 6.1 branches are compiled by our tests (Debian 12 ships
 * no newer headers); the others follow the kernels' changelogs:
 *   6.4  module memory moved from core_layout to mem[MOD_TEXT]
 *   6.6  inode ctime behind accessors; 6.7 atime/mtime too
 *   6.12 no_llseek removed (a NULL .llseek plus nonseekable_open says it)
 *   6.13 hrtimer_setup() replaces hrtimer_init() + .function
 */
#ifndef OP_COMPAT_H
#define OP_COMPAT_H

#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/version.h>

/* [start, end) of a module's core text. */
static inline void op_module_text(struct module *mod, unsigned long *start,
				  unsigned long *end)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	*start = (unsigned long)mod->mem[MOD_TEXT].base;
	*end = *start + mod->mem[MOD_TEXT].size;
#else
	*start = (unsigned long)mod->core_layout.base;
	*end = *start + mod->core_layout.size;
#endif
}

static inline void op_inode_init_times(struct inode *inode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	simple_inode_init_ts(inode);
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	inode->i_atime = inode->i_mtime = inode_set_ctime_current(inode);
#else
	inode->i_atime = inode->i_mtime = inode->i_ctime = current_time(inode);
#endif
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define OP_NO_LLSEEK NULL
#else
#define OP_NO_LLSEEK no_llseek
#endif

static inline void op_hrtimer_init(struct hrtimer *t,
				   enum hrtimer_restart (*fn)(struct hrtimer *),
				   clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(t, fn, clock, mode);
#else
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

#endif
