/* SPDX-License-Identifier: GPL-2.0 */
/* A sample's callers, walked in the sampling interrupt (backtrace.c). */
#ifndef OP_BACKTRACE_H
#define OP_BACKTRACE_H

#include "cpu_buffer.h"

int op_backtrace(struct op_cpu *cb, struct pt_regs *regs, bool kernel,
		 unsigned long at, unsigned long room, unsigned int depth);

#endif
