// SPDX-License-Identifier: GPL-2.0
/*
 * Modules loaded while profiling: the notifier (process context, the
 * loader's) queues each one; the next sync writes its text range
 * (OP_CODE_KERNEL_IMAGE) and OP_CODE_MODULE_LOADED, so the daemon reads
 * the module's symbols again before its samples are attributed.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "compat.h"
#include "module_notify.h"
#include "oprof.h"

static LIST_HEAD(modloads);
static DEFINE_SPINLOCK(modloads_lock);

static int op_module_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct module *mod = data;
	struct op_modload *m;

	if (val != MODULE_STATE_COMING || !READ_ONCE(op_enabled))
		return NOTIFY_DONE;
	atomic_long_inc(&op_stats.module_loads);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return NOTIFY_DONE;
	op_module_text(mod, &m->start, &m->end);
	strscpy(m->name, mod->name, sizeof(m->name));
	spin_lock(&modloads_lock);
	list_add_tail(&m->list, &modloads);
	spin_unlock(&modloads_lock);
	return NOTIFY_DONE;
}

static struct notifier_block op_module_nb = {
	.notifier_call = op_module_notify,
};

void op_modloads_take(struct list_head *todo)
{
	spin_lock(&modloads_lock);
	list_splice_tail_init(&modloads, todo);
	spin_unlock(&modloads_lock);
}

int op_module_notify_init(void)
{
	return register_module_notifier(&op_module_nb);
}

void op_module_notify_exit(void)
{
	struct op_modload *m, *n;
	LIST_HEAD(todo);

	unregister_module_notifier(&op_module_nb);
	op_modloads_take(&todo);
	list_for_each_entry_safe(m, n, &todo, list)
		kfree(m);
}
