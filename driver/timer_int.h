/* SPDX-License-Identifier: GPL-2.0 */
/* Timer mode (timer_int.c): a per-cpu hrtimer. */
#ifndef OP_TIMER_INT_H
#define OP_TIMER_INT_H

void op_timer_init(void);
void op_timer_start(void);
void op_timer_stop(void);

#endif
