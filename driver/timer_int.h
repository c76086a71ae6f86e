/* SPDX-License-Identifier: GPL-2.0 */
/* Timer mode (timer_int.c): a per-cpu hrtimer. */
#ifndef OP_TIMER_INT_H
#define OP_TIMER_INT_H

void op_timer_init(void);
void op_timer_start(void);
void op_timer_stop(void);
/* cpu hotplug (cpu_hotplug.c): start or cancel cpu's timer */
int op_timer_cpu_online(unsigned int cpu);
int op_timer_cpu_offline(unsigned int cpu);

#endif
