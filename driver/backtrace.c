// SPDX-License-Identifier: GPL-2.0
/*
 * Backtraces (op_backtrace_depth > 0), taken in the sampling interrupt (hard
 * irq, or NMI for a hardware counter): the callers of the interrupted pc,
 * nearest first, written as OPE_FRAME entries into the cpu's ring right
 * after the sample's own slot. Nothing here publishes them: the caller
 * moves the ring's head past the sample and its frames at once, or drops
 * both when they did not fit.
 *
 *  - Kernel-mode sample: the kernel stack, unwound with ORC from the
 *    interrupted registers (stack_trace_save_regs and arch_stack_walk are
 *    not exported; __unwind_start, unwind_next_frame and
 *    unwind_get_return_address are). It stops where the kernel stack ends
 *    (the user-mode registers of a syscall or an interrupt from user
 *    space): user callers of a kernel sample are not walked.
 *  - User-mode sample: the rbp chain of a 64-bit task, each frame
 *    {saved rbp, return address} read with copy_from_user_nofault, which
 *    neither sleeps nor takes mmap_lock and fails instead of faulting a
 *    page in. Code built without frame pointers gives short or wrong
 *    chains, as with OProfile; the sync drops the frames that do not
 *    resolve to a mapping.
 */
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include <asm/unwind.h>

#include "backtrace.h"

/* The ring slots a walk may fill: at, at+1, ... (room of them). */
struct bt_out {
	struct op_cpu *cb;
	unsigned long at, room;
	unsigned int n, depth;
	unsigned int flags;             /* OPE_FRAME, | OPE_KERNEL */
};

/* One frame into the next slot; false when the ring has no room left. */
static bool bt_put(struct bt_out *o, unsigned long pc)
{
	struct op_entry *f;

	if (o->n == o->room)
		return false;
	f = &o->cb->ring[(o->at + o->n) & o->cb->mask];
	f->pc = pc;
	f->event = 0;
	f->flags = o->flags;
	f->task = NULL;
	f->mm = NULL;
	f->file = NULL;
	o->n++;
	return true;
}

static int kernel_walk(struct bt_out *o, struct pt_regs *regs)
{
	struct unwind_state state;
	bool first = true;

	/* started from regs, the unwinder begins at the interrupted frame
	 * (or already at its caller): the interrupted pc is the sample, not
	 * a caller, so a first address equal to it is skipped */
	for (unwind_start(&state, current, regs, NULL);
	     !unwind_done(&state) && o->n < o->depth;
	     unwind_next_frame(&state)) {
		unsigned long pc = unwind_get_return_address(&state);

		if (!pc)
			break;
		if (first) {
			first = false;
			if (pc == instruction_pointer(regs))
				continue;
		}
		if (!bt_put(o, pc))
			return -ENOSPC;
	}
	return o->n;
}

/* A frame of the x86-64 frame-pointer chain: where rbp points. */
struct user_frame {
	unsigned long next;             /* the caller's rbp */
	unsigned long ret;              /* return address into the caller */
};

static int user_walk(struct bt_out *o, struct pt_regs *regs)
{
	unsigned long fp = regs->bp;
	struct user_frame f;

	if (!user_64bit_mode(regs))
		return 0;               /* 32-bit frames: not walked */
	/* a frame lies above the stack pointer, frames strictly ascend */
	if (fp < regs->sp)
		return 0;
	while (o->n < o->depth) {
		if (!fp || fp & (sizeof(unsigned long) - 1))
			break;
		if (copy_from_user_nofault(&f, (void __user *)fp, sizeof(f)))
			break;
		if (!f.ret)
			break;
		if (!bt_put(o, f.ret))
			return -ENOSPC;
		if (f.next <= fp)
			break;
		fp = f.next;
	}
	return o->n;
}

/*
 * Write at most depth callers of the sample at regs into cb's ring slots
 * at, at+1, ... (at most room of them; not published). Returns how many,
 * or -ENOSPC when the walk needed more than room (the caller drops the
 * sample: a sample goes into the ring with its whole backtrace or not at
 * all).
 */
int op_backtrace(struct op_cpu *cb, struct pt_regs *regs, bool kernel,
		 unsigned long at, unsigned long room, unsigned int depth)
{
	struct bt_out o = {
		.cb = cb, .at = at, .room = room,
		.depth = min_t(unsigned int, depth, OP_MAX_DEPTH),
		.flags = OPE_FRAME | (kernel ? OPE_KERNEL : 0),
	};

	return kernel ? kernel_walk(&o, regs) : user_walk(&o, regs);
}
