/* SPDX-License-Identifier: GPL-2.0 */
/* Modules loaded while profiling (module_notify.c). */
#ifndef OP_MODULE_NOTIFY_H
#define OP_MODULE_NOTIFY_H

#include <linux/list.h>
#include <linux/module.h>

struct op_modload {
	struct list_head list;
	unsigned long start, end;
	char name[MODULE_NAME_LEN];
};

int op_module_notify_init(void);
void op_module_notify_exit(void);
/* Move the queued loads to todo; the caller frees them. */
void op_modloads_take(struct list_head *todo);

#endif
