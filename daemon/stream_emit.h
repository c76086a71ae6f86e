/*
 * The producer half of op_stream.h: it mirrors the decoder's transient
 * state so that only changes are written, exactly as the kernel driver's
 * buffer sync wrote switches only when the task, mode or cookie changed.
 * It must reset what the decoder resets (see op_stream.h): a CPU_SWITCH
 * forgets task, mode and cookie; a CTX_SWITCH forgets the cookie.
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
	long cpu;			/* -1: none yet (new stream) */
	bool task_known;
	unsigned long tid, tgid, app;
	int mode;			/* -1 unknown, 0 user, 1 kernel */
	bool cookie_known;
	unsigned long cookie;
};

void se_init(struct stream_emit *se, struct word_buffer *wb,
	     struct cookie_table *ct);
/* Forget everything: the next sample re-establishes the whole context. */
void se_reset(struct stream_emit *se);

void se_cpu(struct stream_emit *se, unsigned long cpu);
void se_task(struct stream_emit *se, unsigned long tid, unsigned long tgid,
	     unsigned long app);
void se_mode(struct stream_emit *se, bool kernel);
void se_cookie(struct stream_emit *se, unsigned long cookie);

static inline void se_escape(struct stream_emit *se, unsigned long code)
{
	wb_push2(se->wb, OP_ESCAPE_CODE, code);
}

static inline void se_pair(struct stream_emit *se, unsigned long pc,
			   unsigned long event)
{
	wb_push2(se->wb, pc, event);
}

/* ESC LOST category count (no effect on the decoder state). */
void se_lost(struct stream_emit *se, unsigned long category,
	     unsigned long count);
/* ESC COUNT counter n (no effect on the decoder state). */
void se_count(struct stream_emit *se, unsigned long counter, unsigned long n);

#endif /* STREAM_EMIT_H */
