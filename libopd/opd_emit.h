/*
 * The perf source's side of op_stream.h: the stream state and encoders of
 * op_stream.h writing into a word buffer. Only changes are written (a
 * switch to the cpu, task, mode or cookie the decoder already has is
 * skipped), what each switch forgets is forgotten as the decoder does, and
 * a cookie is defined in-band before its first use in the stream.
 */
#ifndef STREAM_EMIT_H
#define STREAM_EMIT_H

#include <stdbool.h>

#include "op_stream.h"
#include "word_buffer.h"

struct cookie_table;

struct stream_emit {
	struct word_buffer *wb;		/* where words go */
	struct cookie_table *ct;	/* definitions before first use */
	struct op_stream_state st;	/* what the decoder knows */
};

void se_init(struct stream_emit *se, struct word_buffer *wb,
	     struct cookie_table *ct);
/* Forget everything: the next sample re-establishes the whole context. */
void se_reset(struct stream_emit *se);

void se_cpu(struct stream_emit *se, unsigned long cpu);
/* Defines the app cookie first if the task switch is written. */
void se_task(struct stream_emit *se, unsigned long tid, unsigned long tgid,
	     unsigned long app);
void se_mode(struct stream_emit *se, bool kernel);
/* Defines the cookie first if the switch is written. */
void se_cookie(struct stream_emit *se, unsigned long cookie);
/* Write cookie's definition unless this stream has it (or it needs none). */
void se_define(struct stream_emit *se, unsigned long cookie);
/* Nothing maps cookie any more (a file or an anonymous region): ESC
 * COOKIE_FORGET if the stream has its definition, and the table frees it
 * (ct_forget). Every sample that used it is already in the buffer. */
void se_forget(struct stream_emit *se, unsigned long cookie);

/* Room for n words at the end of the buffer, for op_stream.h's encoders;
 * se_commit() keeps what they wrote. */
static inline struct op_stream_out se_out(struct stream_emit *se,
					  unsigned long n)
{
	struct word_buffer *wb = se->wb;

	if (wb->cap - wb->len < n)
		wb_reserve(wb, n);
	return (struct op_stream_out){ wb->w + wb->len, 0, n };
}

static inline void se_commit(struct stream_emit *se,
			     struct op_stream_out const *o)
{
	se->wb->len += o->len;
}

static inline void se_escape(struct stream_emit *se, unsigned long code)
{
	struct op_stream_out o = se_out(se, OP_WORDS_ESCAPE);

	op_put_escape(&o, code);
	se_commit(se, &o);
}

static inline void se_pair(struct stream_emit *se, unsigned long pc,
			   unsigned long event)
{
	struct op_stream_out o = se_out(se, OP_WORDS_PAIR);

	op_put_pair(&o, pc, event);
	se_commit(se, &o);
}

/* ESC TIME t before a sample taken at t, when due (op_put_time). */
static inline void se_time(struct stream_emit *se, unsigned long t)
{
	struct op_stream_out o = se_out(se, OP_WORDS_TIME);

	op_put_time(&se->st, &o, t);
	se_commit(se, &o);
}

/* ESC LOST category count (no effect on the decoder state). */
void se_lost(struct stream_emit *se, unsigned long category,
	     unsigned long count);
/* ESC COUNT counter n (no effect on the decoder state). */
void se_count(struct stream_emit *se, unsigned long counter, unsigned long n);

#endif /* STREAM_EMIT_H */
