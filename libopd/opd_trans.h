/*
 * The daemon's stream decoder (OProfile's libopd/opd_trans.c): it walks the
 * escape-coded word stream of libop/op_stream.h, keeps the context the
 * escapes establish in a transient state, and hands every sample, arc,
 * lost count and in-band definition to a sink.
 *
 * Input is untrusted (a file, a fuzzer): a malformed record is counted,
 * reported with its word position, and decoding resynchronises at the
 * next escape word; nothing is ever read out of bounds. Input may arrive
 * in chunks split anywhere: an incomplete record at the end of a chunk is
 * kept until the next chunk completes it, so decoding a stream in chunks
 * gives exactly what decoding it whole gives.
 *
 * Usage:
 *	struct opd_trans dec;
 *	opd_trans_init(&dec, &sink, "FILE");
 *	while (more) opd_trans_feed(&dec, words, n);
 *	opd_trans_finish(&dec);		(a leftover partial record is an error)
 *	... dec.stats ...
 *	opd_trans_free(&dec);
 */
#ifndef OPD_TRANS_H
#define OPD_TRANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_hashmap.h"
#include "op_stream.h"

/* Which parts of struct opd_transient the stream has established
 * (op_stream.h's OP_KNOWN_*, which op_known_after() sets and forgets). */
#define OPD_KNOWN_CPU		OP_KNOWN_CPU	/* cpu */
#define OPD_KNOWN_TASK		OP_KNOWN_TASK	/* tid, tgid, app_cookie */
#define OPD_KNOWN_MODE		OP_KNOWN_MODE	/* in_kernel */
#define OPD_KNOWN_COOKIE	OP_KNOWN_COOKIE	/* cookie */

/* The decoding context, as op_stream.h's escapes set and reset it. */
struct opd_transient {
	unsigned long cpu;
	unsigned long tid;
	unsigned long tgid;
	unsigned long app_cookie;	/* the process's main binary */
	unsigned long cookie;		/* binary of user samples */
	unsigned long event;		/* event index of the current sample */
	bool in_kernel;			/* samples are raw kernel pcs */
	bool in_trace;			/* pairs are backtrace frames */
	unsigned known;			/* OPD_KNOWN_* */
	/* ESC TIME: CLOCK_MONOTONIC ns of the samples that follow (to
	 * OP_TIME_GRANULARITY_NS); 0 until the stream's first TIME (a
	 * driver stream, or an older one, has none). Kept across switches. */
	uint64_t time;
	/* What the current sample, its arcs and its stack count: 1, or the
	 * ESC WEIGHT that came before it (off-CPU microseconds). */
	unsigned long weight;
};

/* One end of a callgraph arc. */
struct opd_frame {
	unsigned long pc;	/* raw kernel pc, or offset into cookie */
	unsigned long cookie;	/* user frames: the binary; else unused */
	bool in_kernel;
};

/* The most frames of a whole trace: the sample and its callers. */
#define OPD_TRACE_MAX (OP_MAX_BACKTRACE_DEPTH + 2)

/*
 * A whole backtrace, delivered when it ends (the next TRACE_BEGIN, an
 * UNWIND_STOP, any escape that ends a trace, an error, the end of the
 * stream): the sample's context as it was at the sample, and its frames
 * leaf first, frames[0] being the sample. stop: enum op_unwind_stop as
 * the producer said (UNWIND_STOP), else fp_chain_end (a driver's
 * frame-pointer walk ended), depth_limit when frames did not fit, or
 * bad_frame after a malformed frame.
 */
struct opd_trace {
	struct opd_transient t;
	unsigned long stop;
	size_t nframes;
	struct opd_frame frames[OPD_TRACE_MAX];
};

/* An in-band definition (COOKIE_DEF or ANON_DEF). */
struct opd_cookie {
	struct op_hashmap_entry ent;	/* in the decoder's table */
	unsigned long cookie;	/* never OP_NO_COOKIE or OP_INVALID_COOKIE */
	char *name;		/* path, or anon region name */
	bool anon;		/* ANON_DEF: the fields below are valid */
	unsigned long tgid;
	unsigned long start;	/* region [start, end); offsets from start */
	unsigned long end;
	int image;		/* the consumer's id for it (opd_core: its
				 * image), so that cookie -> image is this one
				 * table; -1 until the consumer sets it */
	/* ESC BUILD_ID: the binary's build-id as mapped (0 bytes: none) */
	unsigned char build_id[OP_MAX_BUILD_ID];
	unsigned build_id_len;
};

/*
 * What the decoder calls. Every member may be NULL. pc is a raw kernel pc
 * when t->in_kernel, else an offset into t->cookie (OP_NO_COOKIE: a raw
 * user pc). arc: caller calls callee, both of sample event t->event.
 * escape is called after each escape record is applied (for dumps), pos
 * being the word position of its ESC word.
 */
struct opd_sink {
	void *ctx;
	void (*sample)(void *ctx, struct opd_transient const *t,
		       unsigned long pc, unsigned long event);
	void (*arc)(void *ctx, struct opd_transient const *t,
		    struct opd_frame const *caller,
		    struct opd_frame const *callee);
	/* A whole trace, after the sample and arcs it was made of. */
	void (*trace)(void *ctx, struct opd_trace const *tr);
	void (*lost)(void *ctx, unsigned long category, unsigned long count);
	/* ESC COUNT of a known counter (enum op_count). */
	void (*count)(void *ctx, unsigned long counter, unsigned long n);
	void (*cookie_def)(void *ctx, struct opd_cookie const *c);
	void (*anon_def)(void *ctx, struct opd_cookie const *c);
	/* ESC COOKIE_FORGET: c is about to be freed. */
	void (*cookie_forget)(void *ctx, struct opd_cookie const *c);
	void (*module_loaded)(void *ctx);
	void (*kernel_image)(void *ctx, unsigned long start, unsigned long end,
			     char const *name);
	void (*escape)(void *ctx, struct opd_transient const *t,
		       unsigned long code, uint64_t pos);
	/* If set, errors go here instead of stderr. */
	void (*error)(void *ctx, uint64_t pos, char const *msg);
};

struct opd_trans_stats {
	uint64_t words;		/* words consumed */
	uint64_t samples;	/* samples handed to the sink */
	uint64_t kernel_samples;
	uint64_t user_samples;
	uint64_t arcs;
	uint64_t escapes;	/* escape records applied */
	uint64_t errors;	/* malformed or out-of-context records */
	uint64_t skipped;	/* words skipped while resynchronising */
	uint64_t lost[OP_LOST_CATEGORY_MAX];	/* from ESC LOST, by category */
	uint64_t count[OP_COUNT_MAX];	/* from ESC COUNT, by counter */
	uint64_t forgotten;	/* definitions dropped (ESC COOKIE_FORGET) */
	uint64_t times;		/* ESC TIME records */
	uint64_t weighted;	/* samples that had an ESC WEIGHT */
};

struct opd_trans {
	struct opd_transient t;
	struct opd_trans_stats stats;
	struct opd_sink const *sink;
	char const *name;	/* the stream's name, for messages */
	uint64_t pos;		/* stream position of the next word */
	bool resync;		/* after an error: skip to the next escape */
	bool trace_sample;	/* in_trace: the next pair is the sample */
	bool trace_broken;	/* in_trace: drop frames (bad sample/frame) */
	unsigned long next_weight;	/* ESC WEIGHT for the next sample; 0: 1 */
	struct opd_frame callee;	/* in_trace: the frame below the next */
	bool tr_active;		/* tr collects the trace in progress */
	struct opd_trace tr;	/* only with a sink->trace */
	unsigned errors_printed;
	struct op_hashmap tab;	/* struct opd_cookie by cookie */
	/* Recently used definitions, direct-mapped by hash: switches come
	 * back to the same few cookies; a forgotten one leaves its slot). */
	struct opd_cookie *recent[16];
	size_t carry_len;	/* words of an incomplete record kept */
	unsigned long carry[OP_MAX_RECORD];	/* the longest record */
};

void opd_trans_init(struct opd_trans *dec, struct opd_sink const *sink,
		    char const *name);
void opd_trans_free(struct opd_trans *dec);
/* Decode n more words of the stream. */
void opd_trans_feed(struct opd_trans *dec, unsigned long const *w, size_t n);
/* End of stream: a kept partial record is a truncation error. Returns 0,
 * or -1 if the stream had any error. */
int opd_trans_finish(struct opd_trans *dec);
/* The definition of cookie, or NULL. */
struct opd_cookie const *opd_trans_cookie(struct opd_trans const *dec,
					  unsigned long cookie);
/* The same, for the consumer to set its image id in. */
struct opd_cookie *opd_trans_cookie_mut(struct opd_trans *dec,
					unsigned long cookie);
/* A name for an escape code ("ctx_switch", ...), or NULL if unknown. */
char const *opd_code_name(unsigned long code);

#endif /* OPD_TRANS_H */
