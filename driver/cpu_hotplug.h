/* SPDX-License-Identifier: GPL-2.0 */
/* CPU hotplug (cpu_hotplug.c): sampling follows cpus going and coming. */
#ifndef OP_CPU_HOTPLUG_H
#define OP_CPU_HOTPLUG_H

int op_hotplug_init(void);
void op_hotplug_exit(void);

#endif
