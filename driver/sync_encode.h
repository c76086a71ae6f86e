/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sync's encode step (buffer_sync.c): one resolved sample, with its
 * backtrace, as one record of op_stream.h words. Pure: no kernel headers,
 * so the daemon's unit test compiles the same code in user space
 * (libopd/tests/stream_contract_test.c).
 *
 * A record is written whole or not at all: the caller encodes into a copy
 * of the state and keeps it only once the record is in the event buffer.
 */
#ifndef OP_SYNC_ENCODE_H
#define OP_SYNC_ENCODE_H

#include "op_stream.h"

/* What the decoder knows, and which task its tid/tgid/app came from. */
struct op_sync_state {
	struct op_stream_state s;
	void const *task;               /* the driver's task_struct */
};

/* One backtrace frame, resolved: a raw kernel pc or (cookie, offset). */
struct op_sync_frame {
	unsigned long pc;
	unsigned long cookie;           /* user frames */
	int kernel;
};

/* A sample as the sync resolved it. */
struct op_sync_sample {
	unsigned long cpu;
	void const *task;
	unsigned long tid, tgid, app_cookie;
	/* cookies this record defines (not yet in the stream), or NULL */
	struct op_stream_def const *def_app, *def;
	int trace;                      /* the stream has backtraces */
	int kernel;
	unsigned long cookie;           /* user samples */
	unsigned long pc, event;
	struct op_sync_frame const *frames;
	unsigned int nr_frames;
};

/* The longest record (its frames' definitions come before it, each a
 * record of its own): a cpu switch, two definitions, a task switch,
 * TRACE_BEGIN, the sample's mode and cookie switches and pair, and per
 * frame a mode switch, a cookie switch and a pair. */
#define OP_SYNC_MAX_RECORD(depth) \
	(OP_WORDS_CPU_SWITCH + 2 * OP_MAX_RECORD + OP_WORDS_CTX_SWITCH + \
	 OP_WORDS_ESCAPE + \
	 ((depth) + 1) * (OP_WORDS_ESCAPE + OP_WORDS_COOKIE_SWITCH + OP_WORDS_PAIR))

static inline void op_sync_reset(struct op_sync_state *st)
{
	op_stream_reset(&st->s);
	st->task = 0;
}

/* A context entry of task on cpu: if the decoder has that task, its app
 * cookie may have changed (exec), so the next record says it again. */
static inline void op_sync_new_context(struct op_sync_state *st,
				       unsigned long cpu, void const *task)
{
	if ((st->s.known & OP_KNOWN_CPU) && st->s.cpu == cpu && st->task == task)
		op_stream_forget_task(&st->s);
}

/* The mode and cookie switches a pair needs, then the pair. */
static inline void op_sync_put_pair(struct op_stream_state *s,
				    struct op_stream_out *o, int kernel,
				    unsigned long cookie, unsigned long pc,
				    unsigned long event)
{
	op_put_mode(s, o, kernel);
	if (!kernel)
		op_put_cookie(s, o, cookie);
	op_put_pair(o, pc, event);
}

/*
 * The record of sample x: the switches the decoder needs, the
 * definitions, the pair, then the frames (pc, 0) with the switches
 * between them. st becomes the state the record leads to.
 */
static inline void op_sync_encode(struct op_sync_state *st,
				  struct op_stream_out *o,
				  struct op_sync_sample const *x)
{
	unsigned int i;

	op_put_cpu(&st->s, o, x->cpu);
	if (x->def_app)
		op_put_def(o, x->def_app);
	if (x->def)
		op_put_def(o, x->def);
	if (st->task != x->task)
		op_stream_forget_task(&st->s);
	op_put_task(&st->s, o, x->tid, x->tgid, x->app_cookie);
	st->task = x->task;
	/* every sample of a traced stream begins a trace, even one
	 * without frames: the decoder takes pairs after a sample as
	 * its frames until an escape ends the trace */
	if (x->trace)
		op_put_escape(o, OP_CODE_TRACE_BEGIN);
	op_sync_put_pair(&st->s, o, x->kernel, x->cookie, x->pc, x->event);
	for (i = 0; i < x->nr_frames; i++) {
		struct op_sync_frame const *f = &x->frames[i];

		op_sync_put_pair(&st->s, o, f->kernel, f->cookie, f->pc, 0);
	}
}

#endif /* OP_SYNC_ENCODE_H */
