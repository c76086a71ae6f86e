/* SPDX-License-Identifier: GPL-2.0 */
/* Counter mode (perf_int.c): kernel perf counters. */
#ifndef OP_PERF_INT_H
#define OP_PERF_INT_H

int op_perf_detect(void);
int op_perf_init(void);
void op_perf_exit(void);
int op_perf_start(void);
void op_perf_stop(void);
/* cpu hotplug (cpu_hotplug.c): create or release cpu's counters */
int op_perf_cpu_online(unsigned int cpu);
int op_perf_cpu_offline(unsigned int cpu);

#endif
