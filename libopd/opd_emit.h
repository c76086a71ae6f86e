/*
 * The perf source's side of op_stream.h: the stream state and encoders of
 * op_stream.h writing into a word buffer. Only changes are written (a
 * switch to the cpu, task, mode or cookie the decoder already has is
 * skipped), what each switch forgets is forgotten as the decoder does, and
 * a cookie is defined in-band before its first use in the stream.
 */
#ifndef OPD_EMIT_H
#define OPD_EMIT_H

#include <stdbool.h>

#include "op_stream.h"
#include "opd_words.h"

struct cookie_table;

struct stream_emit {
	struct word_buffer *wb;		/* where words go */
	struct cookie_table *ct;	/* definitions before first use */
	struct op_stream_state st;	/* what the decoder knows */
};

void opd_emit_init(struct stream_emit *se, struct word_buffer *wb,
	     struct cookie_table *ct);
/* Forget everything: the next sample re-establishes the whole context. */
void opd_emit_reset(struct stream_emit *se);

void opd_emit_cpu(struct stream_emit *se, unsigned long cpu);
/* Defines the app cookie first if the task switch is written. */
void opd_emit_task(struct stream_emit *se, unsigned long tid, unsigned long tgid,
	     unsigned long app);
void opd_emit_mode(struct stream_emit *se, bool kernel);
/* Defines the cookie first if the switch is written. */
void opd_emit_cookie(struct stream_emit *se, unsigned long cookie);
/* Write cookie's definition unless this stream has it (or it needs none). */
void opd_emit_define(struct stream_emit *se, unsigned long cookie);
/* Nothing maps cookie any more (a file or an anonymous region): ESC
 * COOKIE_FORGET if the stream has its definition, and the table frees it
 * (opd_cookie_forget). Every sample that used it is already in the buffer. */
void opd_emit_forget(struct stream_emit *se, unsigned long cookie);

/* Room for n words at the end of the buffer, for op_stream.h's encoders;
 * opd_emit_commit() keeps what they wrote. */
static inline struct op_stream_out opd_emit_out(struct stream_emit *se,
					  unsigned long n)
{
	struct word_buffer *wb = se->wb;

	if (wb->cap - wb->len < n)
		opd_words_reserve(wb, n);
	return (struct op_stream_out){ wb->w + wb->len, 0, n };
}

static inline void opd_emit_commit(struct stream_emit *se,
			     struct op_stream_out const *o)
{
	se->wb->len += o->len;
}

static inline void opd_emit_escape(struct stream_emit *se, unsigned long code)
{
	struct op_stream_out o = opd_emit_out(se, OP_WORDS_ESCAPE);

	op_put_escape(&o, code);
	opd_emit_commit(se, &o);
}

static inline void opd_emit_pair(struct stream_emit *se, unsigned long pc,
			   unsigned long event)
{
	struct op_stream_out o = opd_emit_out(se, OP_WORDS_PAIR);

	op_put_pair(&o, pc, event);
	opd_emit_commit(se, &o);
}

/* ESC TIME t before a sample taken at t, when due (op_put_time). */
static inline void opd_emit_time(struct stream_emit *se, unsigned long t)
{
	struct op_stream_out o = opd_emit_out(se, OP_WORDS_TIME);

	op_put_time(&se->st, &o, t);
	opd_emit_commit(se, &o);
}

/* ESC WEIGHT w: the next sample counts w (an off-CPU sample's time). */
static inline void opd_emit_weight(struct stream_emit *se, unsigned long w)
{
	struct op_stream_out o = opd_emit_out(se, OP_WORDS_WEIGHT);

	op_put_weight(&o, w);
	opd_emit_commit(se, &o);
}

/* ESC LOST category count (no effect on the decoder state). */
void opd_emit_lost(struct stream_emit *se, unsigned long category,
	     unsigned long count);
/* ESC COUNT counter n (no effect on the decoder state). */
void opd_emit_count(struct stream_emit *se, unsigned long counter, unsigned long n);

#endif /* OPD_EMIT_H */
